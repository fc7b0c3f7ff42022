#!/usr/bin/env bash
# Builds the browser bundle into a site folder: this crate compiled to WASM
# and bound to JS by wasm-bindgen, the style sheet, and the public files.
# The bundle's files are named by their content, and the names are written
# to SITE/hash.txt, where the server reads them.
#
#   frontend/site.sh debug|release SITE
#
# release: the `wasm-release` profile, wasm-opt, minified JS and CSS, and a
# brotli and a gzip copy of each file, served as they are. The toolchain and
# flags come from the environment (`make release` builds on nightly).
#
# `make dev` uses cargo-leptos, which does the same and reloads the browser;
# `make run` and `make test` use this, since building cargo-leptos itself
# took ten minutes of a first run on two cores.
set -euo pipefail
mode=$1
site=$2
cd "$(dirname "$0")/.."

case $mode in
debug) profile=(); out=debug ;;
release) profile=(--profile wasm-release); out=wasm-release ;;
*) echo "usage: frontend/site.sh debug|release SITE" >&2; exit 2 ;;
esac

# A target folder of its own: a WASM build applies the workspace's flags to
# its crates only, so sharing the server's would rebuild its macros.
target=${CARGO_TARGET_DIR:-target}/front
cargo build -p frontend --lib --target wasm32-unknown-unknown --target-dir "$target" "${profile[@]}"
wasm=$target/wasm32-unknown-unknown/$out/frontend.wasm

# Binding, optimising and compressing take a minute in release: done again
# only when the WASM, the style sheet or a public file changed.
inputs=$( (echo "$mode"; sha256sum "$wasm" style/main.css; find public -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum)
if [ -f "$site/hash.txt" ] && [ "$(cat "$site/.inputs" 2>/dev/null)" = "$inputs" ]; then
  echo "$site is up to date"
  exit 0
fi

# Built beside the old site and swapped in whole, so a running server never
# serves half of one.
mkdir -p "$(dirname "$site")"
next=$(mktemp -d "$site.XXXXXX")
trap 'rm -rf "$next"' EXIT
cp -R public/. "$next"
wasm-bindgen --target web --no-typescript --out-name airlock --out-dir "$next/pkg" "$wasm"
mv "$next/pkg/airlock_bg.wasm" "$next/pkg/airlock.wasm"
if [ "$mode" = release ]; then
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    "$next/pkg/airlock.wasm" -o "$next/pkg/airlock.wasm"
  esbuild --minify --log-level=warning --allow-overwrite "$next/pkg/airlock.js" --outfile="$next/pkg/airlock.js"
  esbuild --minify --log-level=warning style/main.css --outfile="$next/pkg/airlock.css"
else
  cp style/main.css "$next/pkg/airlock.css"
fi

for kind in js wasm css; do
  name=$(sha256sum "$next/pkg/airlock.$kind" | cut -c1-16)
  mv "$next/pkg/airlock.$kind" "$next/pkg/airlock.$name.$kind"
  echo "$kind: $name" >>"$next/hash.txt"
done

if [ "$mode" = release ]; then
  node -e '
    const fs = require("fs"), zlib = require("zlib");
    for (const file of process.argv.slice(1)) {
      const bytes = fs.readFileSync(file);
      fs.writeFileSync(file + ".br", zlib.brotliCompressSync(bytes, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
      }));
      fs.writeFileSync(file + ".gz", zlib.gzipSync(bytes, { level: 9 }));
    }' "$next"/pkg/airlock.*
fi

echo "$inputs" >"$next/.inputs"
chmod 755 "$next"
rm -rf "$site"
mv "$next" "$site"
trap - EXIT
echo "built $site"
