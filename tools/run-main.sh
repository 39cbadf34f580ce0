#!/usr/bin/env bash
# Tooling: the README's first command. On a fresh machine it installs what the
# native build needs (tools/install-deps.sh --runtime), builds and installs
# gemmkit into .venv (tools/build-native.sh), then runs the main job,
# `python -m gemmkit`: CPU features, the dispatch table, a short benchmark
# against numpy.matmul. Arguments go to the main job (e.g. --quick); its
# exit status is this script's (`python -m gemmkit --help` lists both).
#
#   bash tools/run-main.sh [--quick] [--sizes 256,1024] [--threads N] [--json]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${GEMMKIT_VENV:-$ROOT/.venv}"

bash "$ROOT/tools/install-deps.sh" --runtime
bash "$ROOT/tools/build-native.sh"
# Run from outside the checkout so the installed package is what runs.
cd /
exec "$VENV/bin/python" -m gemmkit "$@"
