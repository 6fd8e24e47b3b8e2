#!/usr/bin/env bash
# desktop_lang.sh BINARY OUT.png: the desktop app's language under Xvfb.
#   --lang zh-CN opens in Chinese (the CJK font is loaded: the picture has the many
#   grey levels of CJK glyphs) and is remembered beside the layout; the next start
#   without --lang keeps it, while a locale (LANG=zh_CN.UTF-8) chooses for a new user;
#   an unknown code exits 2 with a sentence naming it.
set -euo pipefail
bin=$1
out=$2
mkdir -p "$(dirname "$out")"
rm -f "$out"
# One X server at a time (flock): `xvfb-run -a` picks a display by its lock files, and two
# runs started together (the native and tsan suites, ctest -j2) can pick the same one.
run() { flock /tmp/attnviz-xvfb.lock xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" "$@"; }
export LANGUAGE= LC_ALL=C.UTF-8
export XDG_CONFIG_HOME=$(mktemp -d)
run --lang zh-CN --frames 30 --screenshot "$out"
python3 "$(dirname "$0")/png_check.py" "$out" --min-colours 40 --width 1440 --height 900
[ "$(cat "$XDG_CONFIG_HOME/attnviz/language")" = "zh-CN" ] || { echo "--lang zh-CN was not remembered"; exit 1; }
run --frames 5
[ "$(cat "$XDG_CONFIG_HOME/attnviz/language")" = "zh-CN" ] || { echo "the remembered language was not kept"; exit 1; }
run --lang en --frames 5
[ "$(cat "$XDG_CONFIG_HOME/attnviz/language")" = "en" ] || { echo "--lang en did not switch back"; exit 1; }
# A new user whose locale is Chinese.
XDG_CONFIG_HOME=$(mktemp -d)
LC_ALL=zh_CN.UTF-8 run --frames 5
[ "$(cat "$XDG_CONFIG_HOME/attnviz/language")" = "zh-CN" ] || { echo "LC_ALL=zh_CN.UTF-8 did not choose Chinese"; exit 1; }
set +e
err=$(run --lang tlh --frames 5 2>&1 >/dev/null)
rc=$?
set -e
echo "$err"
[ "$rc" -eq 2 ] || { echo "an unknown --lang should exit 2, got $rc"; exit 1; }
grep -q '"tlh"' <<<"$err" || { echo "the sentence does not name the code"; exit 1; }
echo "desktop_lang: ok"
