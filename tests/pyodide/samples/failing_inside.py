# Used by test_reporting.py: fails inside Pyodide on purpose.
import sys


def test_fails_inside_pyodide():
    values = {"platform": sys.platform}
    assert values["platform"] != "emscripten"
