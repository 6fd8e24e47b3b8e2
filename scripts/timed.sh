#!/usr/bin/env bash
# timed.sh NAME COMMAND...: runs COMMAND and appends "NAME SECONDS EXIT CPU" to
# build/test-reports/builds.txt (the build times `make test` prints last; CPU:
# user + system seconds of every process COMMAND ran).
set -uo pipefail
name=$1; shift
start=$(date +%s.%N)
tmp_times=$(mktemp)
"$@"
code=$?
mkdir -p build/test-reports
times > "$tmp_times"  # a builtin in this shell (in a pipe it would run in a subshell with no children)
cpu=$(tail -n 1 "$tmp_times" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
rm -f "$tmp_times"
awk -v n="$name" -v a="$start" -v b="$(date +%s.%N)" -v c="$code" -v t="$cpu" \
  'BEGIN { printf "%s %.0f %d %s\n", n, b - a, c, t }' >> build/test-reports/builds.txt
exit "$code"
