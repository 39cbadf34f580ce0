#!/usr/bin/env bash
# Tooling: builds the native wheel (scikit-build-core + CMake + pybind11) and
# installs it into the virtualenv (.venv by default).
#
#   bash tools/build-native.sh
#
# Build isolation is off: the build requirements are the pinned ones already in
# the venv (tools/install-deps.sh), so nothing is resolved again, and the CMake
# build folder stays between runs (pyproject.toml: build-dir =
# "build/{wheel_tag}"), so a rebuild only compiles what changed. Jobs default to the machine's cores (CMAKE_BUILD_PARALLEL_LEVEL
# overrides). Environment: GEMMKIT_VENV (default .venv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${GEMMKIT_VENV:-$ROOT/.venv}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"

if [ ! -x "$VENV/bin/python" ]; then
  echo "build-native: no virtualenv at $VENV (run tools/install-deps.sh first)" >&2
  exit 1
fi

# --force-reinstall: the version number does not change between builds, and
# the fresh wheel must replace the installed one every time.
build_dir=()
if [ -n "${GEMMKIT_NATIVE_BUILD_DIR:-}" ]; then build_dir=(-C "build-dir=$GEMMKIT_NATIVE_BUILD_DIR"); fi
"$VENV/bin/python" -m pip install --no-build-isolation --no-deps --force-reinstall \
  ${build_dir[@]+"${build_dir[@]}"} "$ROOT"
