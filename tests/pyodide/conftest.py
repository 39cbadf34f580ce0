"""tests/pyodide runs through pytest-pyodide against an offline dist dir
(tools/test-all.sh builds it and passes --dist-dir).  Without one these tests
cannot start Pyodide: they skip saying so, and fail under CI (``CI`` set),
so the suite can never vanish silently there."""

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    dist = Path(config.option.dist_dir)
    if (dist / "pyodide-lock.json").exists():
        return
    reason = (f"no Pyodide dist dir at {dist}: python tools/pyodide_dist.py build/pyodide-dist "
              "--wheel dist/gemmkit-*.whl, then pytest tests/pyodide --dist-dir "
              "build/pyodide-dist -p pyodide_plugin (tests/pyodide on PYTHONPATH)")
    if os.environ.get("CI"):
        raise pytest.UsageError(reason)
    for item in items:
        if HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.skip(reason=reason))
