#!/bin/sh
# Build the deck page's widget script from src/index.js (npm packages pinned in package.json / package-lock.json):
#   cd publish/deck/js && npm ci && sh build.sh
# Writes ../../share/jupyter/voila/templates/ch02-deck/static/deck-widgets.{js,css} (shipped as package data).
set -e
cd "$(dirname "$0")"
OUT=../../share/jupyter/voila/templates/ch02-deck/static
npx esbuild src/index.js --bundle --minify --format=iife --target=chrome100,firefox100,safari15 \
  --define:process.env.NODE_ENV='"production"' --define:global=globalThis \
  --loader:.woff=dataurl --loader:.woff2=dataurl --loader:.svg=dataurl \
  --legal-comments=linked --outfile="$OUT/deck-widgets.js"
# What the bundle was built from (tests/test_lecture_page.py: a change to the source without a rebuild fails).
python3 - "$OUT/deck-widgets.build.json" <<'PY'
import hashlib, json, sys
files = ["src/index.js", "package.json", "package-lock.json", "build.sh"]
stamp = {f: hashlib.sha256(open(f, "rb").read()).hexdigest() for f in files}
json.dump({"built_from_sha256": stamp}, open(sys.argv[1], "w"), indent=1, sort_keys=True)
PY
ls -l "$OUT"/deck-widgets.*
# MathJax 3 (Apache-2.0) for the slides' maths, loaded by the page after the widgets: its TeX + CHTML component
# and the CHTML fonts, flat in static/ (package data is static/*; the page sets chtml.fontURL to that folder).
cp node_modules/mathjax/es5/tex-chtml-full.js "$OUT/mathjax-tex-chtml-full.js"
cp node_modules/mathjax/es5/output/chtml/fonts/woff-v2/*.woff "$OUT/"
cp node_modules/mathjax/LICENSE "$OUT/mathjax-LICENSE.txt"
