#!/bin/sh
# Builds the web page into web/dist/: index.html, index.js and pkg/ (the
# viewer as WebAssembly, with wasm-bindgen's JS glue). Any static host can
# serve web/dist; `viewer serve` does on 127.0.0.1.
#
# Needs: rustup target add wasm32-unknown-unknown
#        cargo install wasm-bindgen-cli --version <the wasm-bindgen version in Cargo.lock>
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
dist="$root/web/dist"
target="${CARGO_TARGET_DIR:-$root/target}"

want=$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"$/\1/p;}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')
if [ "$have" != "$want" ]; then
    echo "build.sh: wasm-bindgen ${have:-missing}, Cargo.lock wants $want:" >&2
    echo "    cargo install wasm-bindgen-cli --version $want" >&2
    exit 1
fi

cargo build --locked --profile web --target wasm32-unknown-unknown -p motion-viewer-web
rm -rf "$dist"
mkdir -p "$dist/pkg"
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section --out-dir "$dist/pkg" \
    "$target/wasm32-unknown-unknown/web/motion_viewer_web.wasm"
cp web/index.html web/index.js "$dist/"
wasm="$dist/pkg/motion_viewer_web_bg.wasm"
echo "built $dist: $(wc -c < "$wasm") bytes of wasm, $(gzip -9c "$wasm" | wc -c) gzipped"
