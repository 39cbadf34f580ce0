"""API suite setup: make the suite's helper module importable in every pytest
import mode (natively and under Pyodide).  Standard library only."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
