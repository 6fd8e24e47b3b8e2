#!/usr/bin/env bash
# build-python.sh: the attnviz wheel, build/python/attnviz-<version>-py3-none-any.whl.
# The package's sources (python/) are copied to build/python/src with the packed web
# app (build/embed/attnviz-embed.js, made by the embed build) as package data, and
# Debian's python3-build builds the wheel there without a network (--no-isolation:
# setuptools from Debian; /usr/bin/python3, Debian's, whatever python3 is first on PATH).
# Nothing is written into python/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bundle=build/embed/attnviz-embed.js
[ -f "$bundle" ] || { echo "build-python: $bundle is missing (build the embed first)" >&2; exit 1; }
out=build/python
rm -rf "$out/src" && mkdir -p "$out/src"
cp -r python/. "$out/src/"
rm -rf "$out/src/attnviz/web" && mkdir -p "$out/src/attnviz/web"
cp "$bundle" "$out/src/attnviz/web/"
rm -f "$out"/attnviz-*.whl
/usr/bin/python3 -m build --wheel --no-isolation --outdir "$out" "$out/src" >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
ls "$out"/attnviz-*-py3-none-any.whl
