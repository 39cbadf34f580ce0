"""Native suite setup: make tests/native and tests/api (the shared reference
and tolerance helpers) importable in every pytest import mode."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (_HERE, os.path.join(os.path.dirname(_HERE), "api")):
    if _path not in sys.path:
        sys.path.insert(0, _path)
