# Runs inside Pyodide (tests/wasm/pyodide_runner.mjs): pytest on the
# arguments in GEMMKIT_PYODIDE_PYTEST_ARGS (whitespace separated), with the
# repository mounted as the working directory.  Its value is pytest's exit
# code.
import os
import sys

import pytest

sys.dont_write_bytecode = True  # the tree is the host's, mounted with NODEFS
int(pytest.main(os.environ["GEMMKIT_PYODIDE_PYTEST_ARGS"].split()))
