#!/usr/bin/env bash
# time-make-run.sh [DIR] [PORT]: how long `make run` takes from a fresh clone of
# this repository until the page answers (issue 20's figure). Clones HEAD into DIR
# (default /tmp/attnviz-time-run), starts `make run` there, polls the page every
# second, prints the seconds and the load average, then stops the server.
# On a machine without the Debian packages, their installation is included.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/attnviz-time-run}
port=${2:-8123}
rm -rf "$dir" && git clone -q "$src" "$dir" && cd "$dir" || exit 2
echo "time-make-run: $(git log --oneline -1); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
PORT=$port setsid make run > "$dir.log" 2>&1 &
pid=$!
until curl -sf -o /dev/null "http://127.0.0.1:$port/"; do
  sleep 1
  if ! kill -0 "$pid" 2>/dev/null; then echo "make run stopped; see $dir.log" >&2; exit 1; fi
done
awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "time-make-run: the page answered after %.0f s", b - a }'
echo "; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
kill -- -"$pid" 2>/dev/null
exit 0
