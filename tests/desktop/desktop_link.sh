#!/usr/bin/env bash
# desktop_link.sh BINARY LINK_FILE OUT.png: `attnviz --link` opens a share link the
# browser made (the window draws it), and refuses a damaged one with exit 2 and a
# sentence, under Xvfb.
set -euo pipefail
bin=$1
link=$(cat "$2")
out=$3
mkdir -p "$(dirname "$out")"
rm -f "$out"
export XDG_CONFIG_HOME=$(mktemp -d)
export LANGUAGE= LC_ALL=C.UTF-8  # the sentences checked below are English
# One X server at a time (flock): `xvfb-run -a` picks a display by its lock files, and two
# runs started together (the native and tsan suites, ctest -j2) can pick the same one.
flock /tmp/attnviz-xvfb.lock xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --link "$link" --frames 30 --screenshot "$out"
python3 "$(dirname "$0")/png_check.py" "$out" --min-colours 40 --width 1440 --height 900
set +e
err=$(flock /tmp/attnviz-xvfb.lock xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --link "${link%??????????}" --frames 5 2>&1 >/dev/null)
rc=$?
set -e
echo "$err"
[ "$rc" -eq 2 ] || { echo "a damaged link should exit 2, got $rc"; exit 1; }
grep -q "This link could not be opened: it is damaged" <<<"$err" || { echo "no sentence for a damaged link"; exit 1; }
echo "desktop_link: ok"
