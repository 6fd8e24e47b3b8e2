#!/usr/bin/env bash
# desktop_smoke.sh BINARY OUT.png: the desktop app opens a real SDL2 + OpenGL window
# under Xvfb, draws 90 frames, writes its last frame as a PNG, and the PNG shows
# the interface (many colours, not a flat or black window).
set -euo pipefail
bin=$1
out=$2
mkdir -p "$(dirname "$out")"
rm -f "$out"
# One X server at a time (flock): `xvfb-run -a` picks a display by its lock files, and two
# runs started together (the native and tsan suites, ctest -j2) can pick the same one.
XDG_CONFIG_HOME=$(mktemp -d) flock /tmp/attnviz-xvfb.lock xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --frames 90 --screenshot "$out"
python3 "$(dirname "$0")/png_check.py" "$out" --min-colours 40 --width 1440 --height 900
