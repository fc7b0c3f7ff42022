#!/usr/bin/env bash
# Builds the browser bundles into a site folder: this crate compiled to WASM
# once per group of pages, each bound to JS by wasm-bindgen, the style sheet,
# and the public files. The files are named by their content, and the names
# written to SITE/hash.txt (the style sheet) and SITE/hash-<bundle>.txt,
# where the server reads them.
#
#   frontend/site.sh debug|release|style SITE
#
# release: the `wasm-release` profile, wasm-opt, minified JS and CSS, and a
# brotli and a gzip copy of each file, served as they are. The toolchain and
# flags come from the environment (`make release` builds on nightly).
# style: the style sheet and the public files only, as release writes them:
# what a first `make run` serves while its bundles build.
#
# `make dev` uses cargo-leptos, which does the same and reloads the browser;
# `make run` and `make test` use this, since building cargo-leptos itself
# took ten minutes of a first run on two cores.
set -euo pipefail
mode=$1
site=$2
cd "$(dirname "$0")/.."

# The bundles, each with the islands of its pages only: a page loads the
# one `bundle_for` (app/src/ui/app.rs) names, or none.
bundles=(
  "chat app/chat_view"
  "review app/review_view"
  "pages app/inbox_view,app/live_list,app/new_token,app/add_passkey"
)

case $mode in
debug) profile=(); out=debug ;;
release) profile=(--profile wasm-release); out=wasm-release ;;
style) bundles=() ;;
*) echo "usage: frontend/site.sh debug|release|style SITE" >&2; exit 2 ;;
esac

# A target folder of its own: a WASM build applies the workspace's flags to
# its crates only, so sharing the server's would rebuild its macros. Each
# bundle is this crate and `app` built again with its islands; the
# dependencies are built once.
target=${CARGO_TARGET_DIR:-target}/front
mkdir -p "$target/bundles"
built=()
for entry in "${bundles[@]}"; do
  read -r bundle islands <<<"$entry"
  cargo build -p frontend --lib --target wasm32-unknown-unknown --target-dir "$target" \
    --features "$islands" "${profile[@]}"
  built+=("$target/bundles/$mode-$bundle.wasm")
  cp "$target/wasm32-unknown-unknown/$out/frontend.wasm" "${built[-1]}"
done

# Binding, optimising and compressing take a minute in release: done again
# only when a bundle, the style sheet or a public file changed.
inputs=$( (echo "$mode ${bundles[*]}"; sha256sum "${built[@]}" style/main.css
  find public -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum)
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
mkdir "$next/pkg"

# Names a file by its content and records the name in a names file, as
# Leptos reads them: `js: <hash>`.
name() {
  local file=$1 kind=$2 names=$3 hash
  hash=$(sha256sum "$file" | cut -c1-16)
  mv "$file" "${file%.*}.$hash.$kind"
  echo "$kind: $hash" >>"$names"
}

for entry in "${bundles[@]}"; do
  read -r bundle _ <<<"$entry"
  js=$next/pkg/airlock-$bundle.js
  wasm=$next/pkg/airlock-$bundle.wasm
  wasm-bindgen --target web --no-typescript --out-name "airlock-$bundle" --out-dir "$next/pkg" \
    "$target/bundles/$mode-$bundle.wasm"
  mv "$next/pkg/airlock-${bundle}_bg.wasm" "$wasm"
  if [ "$mode" = release ]; then
    wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int "$wasm" -o "$wasm"
    esbuild --minify --log-level=warning --allow-overwrite "$js" --outfile="$js"
  fi
  name "$js" js "$next/hash-$bundle.txt"
  name "$wasm" wasm "$next/hash-$bundle.txt"
done

if [ "$mode" != debug ]; then
  esbuild --minify --log-level=warning style/main.css --outfile="$next/pkg/airlock.css"
else
  cp style/main.css "$next/pkg/airlock.css"
fi
name "$next/pkg/airlock.css" css "$next/hash.txt"

if [ "$mode" != debug ]; then
  node -e '
    const fs = require("fs"), zlib = require("zlib");
    for (const file of process.argv.slice(1)) {
      const bytes = fs.readFileSync(file);
      fs.writeFileSync(file + ".br", zlib.brotliCompressSync(bytes, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
      }));
      fs.writeFileSync(file + ".gz", zlib.gzipSync(bytes, { level: 9 }));
    }' "$next"/pkg/*
fi

echo "$inputs" >"$next/.inputs"
chmod 755 "$next"
rm -rf "$site"
mv "$next" "$site"
trap - EXIT
echo "built $site"
