#!/usr/bin/env bash
# Installs every tool the build and the tests need, skipping what is already there.
# Versions and traps: ../shared/TOOLCHAIN.md. Safe to run again and again.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132.0.0
PLAYWRIGHT_VERSION=1.64.1
AXE_VERSION=4.14.1
TOOLS_DIR="$PWD/.tools"

say() { printf '[tools] %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# wasm-bindgen-cli must equal the wasm-bindgen crate in Cargo.lock, or the runner refuses the test binary.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
if ! rustup component list --installed | grep -q '^clippy'; then rustup component add clippy; fi
if ! rustup component list --installed | grep -q '^rustfmt'; then rustup component add rustfmt; fi

missing_debs=()
[ -x /usr/bin/chromium ] || missing_debs+=(chromium)
[ -x /usr/bin/chromedriver ] || missing_debs+=(chromium-driver)
[ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] || [ -e /usr/share/vulkan/icd.d/lvp_icd.json ] || missing_debs+=(mesa-vulkan-drivers)
command -v node >/dev/null || missing_debs+=(nodejs npm)
# Fonts so that screenshots taken here show Chinese and emoji (users' systems have their own).
[ -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || missing_debs+=(fonts-wqy-microhei)
[ -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || missing_debs+=(fonts-noto-color-emoji)
if [ ${#missing_debs[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing_debs[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing_debs[@]}" >/dev/null
fi

if ! trunk --version 2>/dev/null | grep -q "trunk $TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION (takes several minutes)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
    cargo install --locked trunk --version "$TRUNK_VERSION"
fi

WB_VERSION=$(wasm_bindgen_version)
if ! wasm-bindgen --version 2>/dev/null | grep -q "wasm-bindgen $WB_VERSION"; then
  say "installing wasm-bindgen-cli $WB_VERSION (takes a few minutes)"
  # Without --locked: the locked set names a crate version the registry lacks (TOOLCHAIN.md).
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
    cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi

# wasm-opt from npm's binaryen, never Debian's (its wasm-opt 108 breaks the page at run time).
if ! "$TOOLS_DIR/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version ${BINARYEN_VERSION%%.*}"; then
  say "installing wasm-opt (npm binaryen@$BINARYEN_VERSION) into .tools"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS_DIR" "binaryen@$BINARYEN_VERSION" >/dev/null
fi
if [ ! -d "$TOOLS_DIR/node_modules/playwright-core" ]; then
  say "installing playwright-core@$PLAYWRIGHT_VERSION into .tools (drives Debian's Chromium)"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS_DIR" "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null
fi
if ! grep -qs "\"version\": \"$AXE_VERSION\"" "$TOOLS_DIR/node_modules/axe-core/package.json"; then
  say "installing axe-core@$AXE_VERSION into .tools (the accessibility checks, tests/e2e/a11y.mjs)"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS_DIR" "axe-core@$AXE_VERSION" >/dev/null
fi
# The notebook package (python/): a virtual environment with NumPy, anywidget, pytest and
# JupyterLab (the widget is tested in a real one), from PyPI.
VENV="$PWD/.venv"
if ! "$VENV/bin/python" -c 'import numpy, anywidget, pytest, jupyterlab, ipykernel' 2>/dev/null; then
  say "making .venv (numpy, anywidget, pytest, jupyterlab, ipykernel from PyPI)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "numpy==2.4.6" "anywidget==0.11.0" "pytest==9.2.0" "jupyterlab==4.6.6" "ipykernel==7.4.0"
fi
say "ready: $(trunk --version), $(wasm-bindgen --version), wasm-opt $("$TOOLS_DIR/node_modules/.bin/wasm-opt" --version | awk '{print $3}')"
