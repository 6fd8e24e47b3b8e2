#!/usr/bin/env bash
# desktop_export.sh BINARY OUTDIR: the desktop app's PNG export under Xvfb (OpenGL
# offscreen framebuffer, font atlas at 2×): `--export window` writes
# attnviz-window.png at twice the 1440×900 window, `--export "weights h0"` the
# heatmap panel, both into the working directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "$1")
out=$2
rm -rf "$out"
mkdir -p "$out"
cd "$out"
export XDG_CONFIG_HOME=$(mktemp -d)
# One X server at a time (flock): `xvfb-run -a` picks a display by its lock files, and two
# runs started together (the native and tsan suites, ctest -j2) can pick the same one.
flock /tmp/attnviz-xvfb.lock xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --frames 40 --export window
python3 "$here/png_check.py" attnviz-window.png --min-colours 40 --width 2880 --height 1800
flock /tmp/attnviz-xvfb.lock xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --frames 40 --export "weights h0"
python3 "$here/png_check.py" attnviz-weights-h0.png --min-colours 40
echo "desktop_export: ok"
