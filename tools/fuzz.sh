#!/usr/bin/env bash
# Builds gemmkit's libFuzzer targets (cpp/fuzz: fuzz_gemm, fuzz_requant,
# fuzz_packed, fuzz_knobs) with clang, ASan and UBSan into build/fuzz, then
# runs each on a copy of its seed corpus for a bounded time.  Every target
# checks its results against a naive reference, so a wrong answer is a crash.
#
#   bash tools/fuzz.sh            # each target for 20 s (a smoke run)
#   bash tools/fuzz.sh 600        # each target for 600 s
#   FUZZ_TARGETS="fuzz_gemm fuzz_knobs" bash tools/fuzz.sh 60   # a subset
#   CXX=clang++-18 CC=clang-18 bash tools/fuzz.sh               # another clang
#   GEMMKIT_WERROR=ON bash tools/fuzz.sh   # warnings are errors (test-all.sh)
#
# The committed seeds (cpp/fuzz/corpus/<target>) are copied to
# build/fuzz/corpus-work/<target>, where libFuzzer adds what it finds, so
# nothing is written into the repository; crash inputs land in
# build/fuzz/artifacts/<target>/ (replay one: build/fuzz/cpp/fuzz/<target>
# <file>).  Exits non-zero if the build fails or any target crashes.
set -euo pipefail

seconds="${1:-20}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build/fuzz"
targets="${FUZZ_TARGETS:-fuzz_gemm fuzz_requant fuzz_packed fuzz_knobs}"
# The newest clang that has libFuzzer's runtime (install-deps.sh installs
# one with the wasm toolchain), in install-deps.sh's order of preference.
if [ -z "${CXX:-}" ]; then
  for n in 19 20 21 22 18 17; do
    if command -v "clang++-$n" >/dev/null &&
       [ -f "$("clang++-$n" -print-file-name=libclang_rt.fuzzer-x86_64.a)" ]; then
      CXX="clang++-$n" CC="clang-$n"; break
    fi
  done
fi
cxx="${CXX:?tools/fuzz.sh: no clang with libFuzzer (apt-get install libclang-rt-19-dev)}"
cc="${CC:-${cxx/clang++/clang}}"

cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGEMMKIT_BUILD_FUZZERS=ON \
  -DGEMMKIT_WERROR="${GEMMKIT_WERROR:-OFF}" \
  -DGEMMKIT_BUILD_TESTS=OFF -DGEMMKIT_BUILD_PYTHON=OFF >/dev/null
# shellcheck disable=SC2086
cmake --build "$build" -j"$(nproc)" --target $targets

# UB is already fatal (-fno-sanitize-recover); give it a stack.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
status=0
summary=""
for t in $targets; do
  work="$build/corpus-work/$t"
  artifacts="$build/artifacts/$t"
  mkdir -p "$work" "$artifacts"
  cp -n "$root/cpp/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
  log="$build/$t.log"
  echo "== $t: ${seconds}s (log: $log)"
  if "$build/cpp/fuzz/$t" -max_total_time="$seconds" -timeout=60 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$work" >"$log" 2>&1; then
    result=ok
  else
    result="CRASH (see $log and $artifacts/)"
    status=1
    tail -n 40 "$log"
  fi
  execs="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  summary+="$(printf '%-14s %-8s exec/s %s' "$t" "$result" "${execs:-?}")"$'\n'
done
printf '\n%s' "$summary"
exit "$status"
