#!/usr/bin/env bash
# Tooling: the one test command (README, .ci/run). From a fresh clone on a
# Debian machine it installs what is missing, builds everything and runs every
# suite:
#
#   1. deps       tools/install-deps.sh --all (apt, npm ci, .venv, torch)
#   2. native     tools/build-native.sh (the portable wheel of tools/build_wheel.py
#                 into .venv, build/<wheel tag>; prints auditwheel's verdict and
#                 fails unless it is manylinux_2_28 or older)
#   3. wasm       python wasm/build.py (Pyodide wheel, web-demo modules)
#   4. cpp-build  the C++ tests, CMake preset cpp-tests (build/cpp-tests)
#   5. ctest      C++ unit tests (L0 conformance, ...)
#      asan       the same C++ tests built with ASan + UBSan (preset asan, build/asan)
#                 (any report fails them: -fno-sanitize-recover=all)
#      asan-python the extension under ASan + UBSan, tests/api against it
#                 (tools/asan-python.sh)
#   6. pytest     tests/api + tests/native against the installed wheel
#      docs       the Sphinx site (docs/ -> build/docs), warnings as errors
#   7. wasm-tests tests/wasm (node:test suites, the refusal without SIMD,
#                 headless Chromium; the suite drives node itself)
#      fuzz       the C ABI's libFuzzer targets, 20 s each (tools/fuzz.sh)
#   8. pyodide-*  inside Pyodide through pytest-pyodide, on node and
#                 Chromium: tests/api (--run-in-pyodide, default and scalar
#                 pins) and tests/pyodide (@run_in_pyodide)
#
# Steps 1-2 stop the run when they fail (nothing can be tested without them).
# A failed build in 3 or 4 is recorded (and 4's failure skips ctest, which
# needs it); every suite runs even when another failed. The end prints the time
# of each step and a per-suite count from JUnit reports, closing with
# `total: N passed, N failed, N skipped`; the exit status is non-zero when any
# step or test failed, or when a suite ran no test.
#
#   bash tools/test-all.sh [--skip-deps] [-- extra pytest args]
#
# --skip-deps: skip step 1 (a developer loop; CI never passes it).
# Second runs are fast: installs are skipped when satisfied, builds are
# incremental. Reports go to build/test-results/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SKIP_DEPS=0
PYTEST_EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-deps) SKIP_DEPS=1 ;;
    --) shift; PYTEST_EXTRA=("$@"); break ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "test-all: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done

VENV="${GEMMKIT_VENV:-$ROOT/.venv}"
VPY="$VENV/bin/python"
RESULTS="$ROOT/build/test-results"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
# The venv's tools (cmake helpers, pytest, playwright's driver) come first.
export PATH="$VENV/bin:$PATH"
# A compiler warning fails every build below (GEMMKIT_WERROR=OFF in the
# environment turns that off for a developer loop): the CMake builds take
# -DGEMMKIT_WERROR (cpp/CMakeLists.txt), the wheel builds of pip get it from
# SKBUILD_CMAKE_DEFINE (scikit-build-core), and wasm/build.py, tools/fuzz.sh
# and tools/asan-python.sh read GEMMKIT_WERROR.
export GEMMKIT_WERROR="${GEMMKIT_WERROR:-ON}"
export SKBUILD_CMAKE_DEFINE="GEMMKIT_WERROR=$GEMMKIT_WERROR${SKBUILD_CMAKE_DEFINE:+;$SKBUILD_CMAKE_DEFINE}"

STEP_LINES=()
FAILED_STEPS=()
REPORTS=()
T_START=$(date +%s.%N)

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# run_step NAME CMD... : runs CMD, prints and records its time and status;
# returns CMD's status (callers decide whether it is fatal).
run_step() {
  local name="$1"; shift
  local t0 rc=0
  t0=$(date +%s.%N)
  printf '\n==> [%s] %s\n' "$name" "$*"
  "$@" || rc=$?
  local dt; dt=$(elapsed "$t0")
  if [ "$rc" = 0 ]; then
    printf '<== [%s] ok in %s s\n' "$name" "$dt"
    STEP_LINES+=("$(printf '  %-12s %8s s  ok' "$name" "$dt")")
  else
    printf '<== [%s] FAILED (exit %s) in %s s\n' "$name" "$rc" "$dt"
    STEP_LINES+=("$(printf '  %-12s %8s s  FAILED (exit %s)' "$name" "$dt" "$rc")")
    FAILED_STEPS+=("$name")
  fi
  return "$rc"
}

skip_step() {  # skip_step NAME WHY : a suite that could not run counts as failed
  printf '\n==> [%s] not run: %s\n' "$1" "$2"
  REPORTS+=("$1=NOTRUN:$2")
  STEP_LINES+=("$(printf '  %-12s %8s    NOT RUN: %s' "$1" "-" "$2")")
  FAILED_STEPS+=("$1")
}

summary() {
  printf '\n==================== test-all summary ====================\n'
  printf '%s\n' "${STEP_LINES[@]}"
  printf '  %-12s %8s s\n' "all" "$(elapsed "$T_START")"
  local rc=0
  if [ "${#REPORTS[@]}" -gt 0 ]; then
    python3 "$ROOT/tools/junit_summary.py" "${REPORTS[@]}" || rc=1
  else
    echo "total: 0 passed, 0 failed, 0 skipped (no suite ran)"
    rc=1
  fi
  if [ "${#FAILED_STEPS[@]}" -gt 0 ]; then
    echo "FAILED steps: ${FAILED_STEPS[*]}"
    rc=1
  fi
  return "$rc"
}

fatal() {
  summary || true
  echo "test-all: stopping: step '$1' failed and everything after it depends on it" >&2
  exit 1
}

# pytest exits 5 when it collected nothing: a suite that should hold tests
# but ran none is a failure here, said in words rather than a bare code.
run_pytest() {  # run_pytest REPORT PATH...
  local report="$1"; shift
  local rc=0
  "$VPY" -m pytest -ra --junitxml="$report" "$@" ${PYTEST_EXTRA[@]+"${PYTEST_EXTRA[@]}"} || rc=$?
  if [ "$rc" = 5 ]; then echo "test-all: pytest collected no test in $*" >&2; fi
  return "$rc"
}

rm -rf "$RESULTS"
mkdir -p "$RESULTS"

# --- 1-2: installs and the native wheel (fatal) ---------------------------------
if [ "$SKIP_DEPS" = 0 ]; then
  run_step deps bash tools/install-deps.sh --all || fatal deps
else
  STEP_LINES+=("$(printf '  %-12s %8s    skipped (--skip-deps)' deps -)")
fi
run_step native bash tools/build-native.sh || fatal native

# --- 3-4: the other builds (a failure skips only what needs them) ---------------
if [ -f wasm/build.py ]; then
  run_step wasm "$VPY" wasm/build.py || REPORTS+=("wasm-build=FAILED:python wasm/build.py")
else
  skip_step wasm "wasm/build.py does not exist"
fi

# The C++ builds are CMakePresets.json's (cpp-tests, asan), as a developer
# runs them; only GEMMKIT_WERROR comes from here.
cpp_build() {
  cmake --preset cpp-tests -DGEMMKIT_WERROR="$GEMMKIT_WERROR" &&
  cmake --build --preset cpp-tests
}
CPP_OK=0
if run_step cpp-build cpp_build; then CPP_OK=1; else REPORTS+=("cpp-build=FAILED:the C++ test build"); fi

# --- 5-7: the suites (all run, whatever failed before) -----------------------------
if [ "$CPP_OK" = 1 ]; then
  REPORTS+=("ctest=$RESULTS/ctest.xml")
  run_step ctest ctest --test-dir build/cpp-tests --output-on-failure --no-tests=error \
    --output-junit "$RESULTS/ctest.xml" || true
else
  skip_step ctest "the C++ test build failed"
fi

# The C++ tests again under AddressSanitizer and UndefinedBehaviorSanitizer
# (leaks included), in a build folder of their own; there every packed panel
# is also checked to be aligned (GEMMKIT_CHECK_ALIGNMENT, driver.hpp).
asan_build() {
  cmake --preset asan -DGEMMKIT_WERROR="$GEMMKIT_WERROR" &&
  cmake --build --preset asan
}
if run_step asan-build asan_build; then
  REPORTS+=("ctest-asan=$RESULTS/ctest-asan.xml")
  run_step ctest-asan ctest --test-dir build/asan --output-on-failure --no-tests=error \
    --output-junit "$RESULTS/ctest-asan.xml" || true
else
  REPORTS+=("asan-build=FAILED:the sanitizer build of the C++ tests")
fi

# The extension built with ASan + UBSan too (build/asan-python), and tests/api
# run against it at the best ISA and pinned to fma and scalar (any report
# fails the step).
if run_step asan-python bash tools/asan-python.sh; then
  for x in build/asan-python/pytest-*.xml; do
    [ -f "$x" ] && REPORTS+=("asan-$(basename "$x" .xml | sed 's/^pytest-//')=$ROOT/$x")
  done
else
  REPORTS+=("asan-python=FAILED:tools/asan-python.sh (a sanitizer report or a failed test)")
fi

# The objdump checks of tests/native read the objects of the C++ test build
# and of the wheel's own build folder (the extension that is installed).
OBJ_DIRS="$ROOT/build/cpp-tests"
if [ -n "${GEMMKIT_NATIVE_BUILD_DIR:-}" ]; then
  case "$GEMMKIT_NATIVE_BUILD_DIR" in /*) OBJ_DIRS+=":$GEMMKIT_NATIVE_BUILD_DIR" ;; *) OBJ_DIRS+=":$ROOT/$GEMMKIT_NATIVE_BUILD_DIR" ;; esac
else
  for d in "$ROOT"/build/cp3*; do [ -d "$d" ] && OBJ_DIRS+=":$d"; done
fi
REPORTS+=("pytest-native=$RESULTS/pytest-native.xml")
GEMMKIT_BUILD_DIR="$OBJ_DIRS" \
  run_step pytest run_pytest "$RESULTS/pytest-native.xml" tests/api tests/native || true

# The documentation site (docs/): Sphinx over the pages and the installed
# package's docstrings, warnings as errors, into build/docs.
run_step docs "$VPY" -m sphinx -W --keep-going -q -b html docs build/docs || true

# Runs even after a failed wasm build: its fixtures rebuild and report the
# failure per test, which says more than the skip would.
REPORTS+=("pytest-wasm=$RESULTS/pytest-wasm.xml")
run_step wasm-tests run_pytest "$RESULTS/pytest-wasm.xml" tests/wasm || true

# The C ABI's libFuzzer targets (ASan + UBSan, results against references),
# each for a bounded time on its committed seeds; tools/fuzz.sh 600 runs longer.
run_step fuzz bash tools/fuzz.sh 20 || REPORTS+=("fuzz=FAILED:tools/fuzz.sh (a crash or a build failure)")

# --- 8: inside Pyodide, through pytest-pyodide ----------------------------------
# The shared API suite collected here and run inside Pyodide (--run-in-pyodide,
# one pytest run per module there), default and pinned to scalar, and the
# @run_in_pyodide tests of tests/pyodide, on node and on Debian's Chromium
# (Playwright, no browser download), against the offline dist dir that holds
# the Pyodide wheel; tests/pyodide/pyodide_plugin.py says what it adds.
DIST_DIR="$ROOT/build/pyodide-dist"
pyodide_dist() {
  local wheels=(dist/gemmkit-*-py3-none-pyemscripten_*_wasm32.whl)
  "$VPY" tools/pyodide_dist.py "$DIST_DIR" --wheel "${wheels[@]}"
}
run_pyodide() {  # run_pyodide NAME RUNTIME [PIN] -- PATH [pytest args]
  local name="$1" runtime="$2" pin="$3"; shift 4
  local args=(--runtime "$runtime" --dist-dir "$DIST_DIR" -p pyodide_plugin)
  if [ "$runtime" = chrome ]; then args+=(--runner playwright); fi
  if [ -n "$pin" ]; then args+=(--pyodide-env "GEMMKIT_REQUIRE_ISA=$pin"); fi
  REPORTS+=("$name=$RESULTS/$name.xml")
  PYTHONPATH="$ROOT/tests/pyodide" \
    run_step "$name" timeout 1200 "$VPY" -m pytest -ra --junitxml="$RESULTS/$name.xml" \
    "${args[@]}" "$@" || true
}
if run_step pyodide-dist pyodide_dist; then
  for runtime in node chrome; do
    run_pyodide "pyodide-api-$runtime" "$runtime" "" -- tests/api --run-in-pyodide
    run_pyodide "pyodide-api-$runtime-scalar" "$runtime" scalar -- tests/api --run-in-pyodide
    run_pyodide "pyodide-$runtime" "$runtime" "" -- tests/pyodide
  done
else
  REPORTS+=("pyodide=FAILED:the Pyodide dist dir (tools/pyodide_dist.py)")
fi

summary
