#!/usr/bin/env bash
# Builds the inspector page's WebAssembly module into web/www/pkg: cargo (wasm32, release, sized
# for the web), wasm-bindgen (the CLI at the version web/Cargo.toml pins), then wasm-opt ${VHLO_WEB_WASM_OPT:--Oz} when
# binaryen is installed. Prints the .wasm size raw and gzipped.
#
#   bash web/build.sh            # needs: rustup target add wasm32-unknown-unknown;
#                                #        cargo install wasm-bindgen-cli --version <pin> --locked
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-target}"
pin="$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' web/Cargo.toml)"
if ! wasm-bindgen --version 2>/dev/null | grep -qF "$pin"; then
  echo "web/build.sh: wasm-bindgen-cli $pin is needed: cargo install wasm-bindgen-cli --version $pin --locked" >&2
  exit 1
fi
# Size over speed, one codegen unit and link-time optimization; panics abort (wasm32 cannot
# unwind). Set here rather than in the workspace's release profile, which the CLI's speed needs.
CARGO_PROFILE_RELEASE_OPT_LEVEL=${VHLO_WEB_OPT_LEVEL:-s} \
CARGO_PROFILE_RELEASE_LTO=fat \
CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
CARGO_PROFILE_RELEASE_PANIC=abort \
  cargo build -q --release --target wasm32-unknown-unknown -p vhlo-web
out=web/www/pkg
wasm="$target_dir/wasm32-unknown-unknown/release/vhlo_web.wasm"
if command -v wasm-opt > /dev/null; then
  # Before wasm-bindgen: Debian's binaryen (108) rewrites the export of wasm-bindgen's externref
  # table to the function table. The features are those rustc's wasm32 target enables.
  opt_dir="$target_dir/wasm-opt"
  mkdir -p "$opt_dir"
  wasm-opt ${VHLO_WEB_WASM_OPT:--Oz} --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
    --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
    "$wasm" -o "$opt_dir/vhlo_web.wasm"
  wasm="$opt_dir/vhlo_web.wasm"
  opt="after wasm-opt -Oz"
else
  opt="no wasm-opt (install binaryen for a smaller module)"
fi
rm -rf "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" "$wasm"
raw=$(stat -c %s "$out/vhlo_web_bg.wasm")
gz=$(gzip -9 -c "$out/vhlo_web_bg.wasm" | wc -c)
echo "web/build.sh: $out/vhlo_web_bg.wasm: $raw bytes raw, $gz bytes gzipped ($opt)"
