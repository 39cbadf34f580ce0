#!/usr/bin/env bash
# Tooling: builds the Python extension with ASan + UBSan and runs tests/api
# against it, at this CPU's best ISA and pinned to fma and scalar; any
# sanitizer report or failed test fails the run.
#
#   bash tools/asan-python.sh [-- extra pytest args]
#
# The sanitized package goes to build/asan-python/site (CMake build folder:
# build/asan-python/cmake), never into the venv; the tests use .venv's
# interpreter and packages with that site first on PYTHONPATH, and each test
# process checks first that the gemmkit it imports is the sanitized one.
# LD_PRELOAD: the interpreter is not instrumented, so the ASan runtime must be
#   loaded first (it intercepts malloc from the start), and libstdc++ with it:
#   ASan looks up the real __cxa_throw at start-up, before the extension would
#   load libstdc++, and aborts at the first C++ exception otherwise.
# detect_leaks=0: CPython and numpy keep memory alive until exit on purpose
#   (interned objects, caches, static types); LeakSanitizer would report those,
#   not leaks of ours. The C++ tests (test-all.sh, build/asan) keep leak checks.
# Environment: GEMMKIT_VENV (default .venv), GEMMKIT_ASAN_PINS (default
# "fma scalar"; a pin this CPU cannot run is skipped), GEMMKIT_WERROR (ON:
# compiler warnings are errors, as in test-all.sh), CMAKE_BUILD_PARALLEL_LEVEL.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PYTEST_EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; PYTEST_EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "asan-python: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done

VENV="${GEMMKIT_VENV:-$ROOT/.venv}"
VPY="$VENV/bin/python"
OUT="$ROOT/build/asan-python"
SITE="$OUT/site"
LOGS="$OUT/logs"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
export PATH="$VENV/bin:$PATH"

# All of tests/api: about 30 s a pass under the sanitizers on 2 cores.
TESTS=(tests/api)

T0=$(date +%s)
fail() { echo "asan-python: FAILED: $* (in $(( $(date +%s) - T0 )) s)"; exit 1; }

if [ ! -x "$VPY" ]; then fail "no virtualenv at $VENV (run tools/install-deps.sh first)"; fi

# --- build -------------------------------------------------------------------
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
echo "==> asan-python: building the sanitized extension into ${SITE#"$ROOT"/}"
mkdir -p "$OUT"
"$VPY" -m pip install --no-build-isolation --no-deps --upgrade --target "$SITE" \
  -C build-dir=build/asan-python/cmake \
  -C cmake.build-type=RelWithDebInfo \
  -C install.strip=false \
  -C "cmake.define.GEMMKIT_WERROR=${GEMMKIT_WERROR:-OFF}" \
  -C "cmake.define.CMAKE_CXX_FLAGS=$SAN" \
  -C "cmake.define.CMAKE_C_FLAGS=$SAN" \
  -C "cmake.define.CMAKE_MODULE_LINKER_FLAGS=-fsanitize=address,undefined" \
  -C "cmake.define.CMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined" \
  "$ROOT" || fail "the sanitized build"

shopt -s nullglob
NATIVE=("$SITE"/gemmkit/_native*.so)
shopt -u nullglob
if [ "${#NATIVE[@]}" != 1 ]; then fail "expected one gemmkit/_native*.so in ${SITE#"$ROOT"/}"; fi
DYNAMIC="$(readelf -d "${NATIVE[0]}")" || fail "readelf -d ${NATIVE[0]}"
for rt in libasan libubsan; do
  grep -q "NEEDED.*\[$rt\.so" <<<"$DYNAMIC" || fail "${NATIVE[0]} does not link $rt"
done

# --- tests under the sanitizers ----------------------------------------------
LIBASAN="$(gcc -print-file-name=libasan.so)"
LIBSTDCXX="$(gcc -print-file-name=libstdc++.so)"
[ -e "$LIBASAN" ] && [ -e "$LIBSTDCXX" ] || fail "gcc has no libasan.so or libstdc++.so"
rm -rf "$LOGS" "$OUT"/pytest-*.xml "$OUT"/pass-*.log
mkdir -p "$LOGS"
# Every report aborts the process (halt/abort_on_error, -fno-sanitize-recover).
# ASan writes its reports to log_path; UBSan ignores log_path here and writes to
# fd 2, which pytest's default fd capture would swallow on the abort, hence
# --capture=sys below and the copy of each pass's output that is searched.
# allocator_may_return_null: the error tests ask for impossible workspaces and
# expect MemoryError, not an ASan "allocation-size-too-big" abort.
# detect_stack_use_after_return=0: with it, GCC 12 gives a function its frame
# from ASan's fake stack, aligned to 32 bytes only, yet the AVX-512 code still
# assumes the 64-byte alignment it realigned the real stack to (a vmovdqa64
# on a copied local faulted in the driver's work(), 2026-12-05); the same
# sanitizer bug is known upstream (LLVM issue 91565).  The C++ asan preset
# runs with ASan's default, which is also 0.
ASAN_OPTS="detect_leaks=0:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1"
ASAN_OPTS+=":strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=0"
ASAN_OPTS+=":log_path=$LOGS/asan:log_exe_name=1"
UBSAN_OPTS="print_stacktrace=1:halt_on_error=1:abort_on_error=1"
# PYTHONMALLOC=malloc: Python's own buffers (bytes, bytearray) get redzones too.
SANENV=(LD_PRELOAD="$LIBASAN $LIBSTDCXX" ASAN_OPTIONS="$ASAN_OPTS" UBSAN_OPTIONS="$UBSAN_OPTS"
  PYTHONMALLOC=malloc PYTHONPATH="$SITE")

# The check run in each test process before pytest.main: the gemmkit imported
# is the sanitized one and both sanitizer runtimes are loaded.
read -r -d '' CHECK_AND_RUN <<'PY' || true
import os, sys
site = os.path.realpath(os.environ["GEMMKIT_ASAN_SITE"])
import gemmkit, gemmkit._native as nat
for mod in (gemmkit, nat):
    if not os.path.realpath(mod.__file__).startswith(site + os.sep):
        sys.exit("asan-python: imported %s from %s, not from %s" % (mod.__name__, mod.__file__, site))
with open("/proc/self/maps") as f:
    maps = f.read()
if "/libasan.so" not in maps or "/libubsan.so" not in maps:
    sys.exit("asan-python: the sanitizer runtimes are not loaded")
print("asan-python: testing", nat.__file__, "(libasan + libubsan loaded)", flush=True)
import pytest
sys.exit(pytest.main(sys.argv[1:]))
PY

# run_pass NAME PIN : the tests in one process, GEMMKIT_REQUIRE_ISA=PIN (unset
# when PIN is empty).
run_pass() {
  local name="$1" pin="$2" pinenv=(-u GEMMKIT_REQUIRE_ISA)
  if [ -n "$pin" ]; then pinenv=(GEMMKIT_REQUIRE_ISA="$pin"); fi
  echo "==> asan-python [$name]: pytest ${TESTS[*]}${pin:+ (GEMMKIT_REQUIRE_ISA=$pin)}"
  env "${pinenv[@]}" "${SANENV[@]}" GEMMKIT_ASAN_SITE="$SITE" "$VPY" -c "$CHECK_AND_RUN" -ra -p no:cacheprovider --capture=sys --junitxml="$OUT/pytest-$name.xml" \
    "${TESTS[@]}" ${PYTEST_EXTRA[@]+"${PYTEST_EXTRA[@]}"}
}

# The best ISA of this CPU (per type), then each pin the CPU runs: other
# kernels, other tile and tail code.
AVAILABLE=$(env -u GEMMKIT_REQUIRE_ISA "${SANENV[@]}" "$VPY" -c \
  'import gemmkit; print(" ".join(gemmkit.available_isas()))') \
  || fail "the sanitized gemmkit does not import"
PASSES=("best:")
for pin in ${GEMMKIT_ASAN_PINS-fma scalar}; do
  case " $AVAILABLE " in
    *" $pin "*) PASSES+=("$pin:$pin") ;;
    *) echo "asan-python: no $pin pass: this CPU runs $AVAILABLE" ;;
  esac
done

FAILED=()
for p in "${PASSES[@]}"; do
  rc=0
  run_pass "${p%%:*}" "${p#*:}" 2>&1 | tee "$OUT/pass-${p%%:*}.log" || rc=$?
  if [ "$rc" != 0 ]; then FAILED+=("${p%%:*} (exit $rc)"); fi
done

shopt -s nullglob
REPORTS=("$LOGS"/*)
XMLS=("$OUT"/pytest-*.xml)
PASSLOGS=("$OUT"/pass-*.log)
shopt -u nullglob
for f in ${REPORTS[@]+"${REPORTS[@]}"}; do printf '\n--- %s\n' "${f#"$ROOT"/}" >&2; cat "$f" >&2; done
SAN_RE='runtime error: |(Address|UndefinedBehavior|Leak)Sanitizer'
for f in ${PASSLOGS[@]+"${PASSLOGS[@]}"}; do
  if grep -qE "$SAN_RE" "$f"; then
    REPORTS+=("$f")
    echo "asan-python: sanitizer output in ${f#"$ROOT"/}:" >&2
    grep -E "$SAN_RE" "$f" | head -5 >&2
  fi
done

read -r -d '' COUNT_PY <<'PY' || true
import sys, xml.etree.ElementTree as ET
n = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
for path in sys.argv[1:]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        continue
    for s in [root] if root.tag == "testsuite" else root.iter("testsuite"):
        for k in n:
            n[k] += int(s.get(k, 0))
bad = n["failures"] + n["errors"]
print("%d passed, %d failed, %d skipped" % (n["tests"] - bad - n["skipped"], bad, n["skipped"]))
PY
COUNTS=$("$VPY" -c "$COUNT_PY" ${XMLS[@]+"${XMLS[@]}"} || echo "no JUnit report")
NAMES=("${PASSES[@]%%:*}")
WHAT="passes ${NAMES[*]}: $COUNTS"
DT=$(( $(date +%s) - T0 ))
if [ "${#REPORTS[@]}" -gt 0 ]; then
  echo "asan-python: FAILED: ${#REPORTS[@]} sanitizer report(s) in ${LOGS#"$ROOT"/} or the pass logs ($WHAT) in $DT s"
  exit 1
elif [ "${#FAILED[@]}" -gt 0 ]; then
  echo "asan-python: FAILED: pytest in ${FAILED[*]} ($WHAT) in $DT s"
  exit 1
fi
echo "asan-python: ok: $WHAT; no sanitizer report; in $DT s"
