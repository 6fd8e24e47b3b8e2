#!/usr/bin/env bash
# timed.sh NAME COMMAND...: runs COMMAND and appends "NAME SECONDS EXIT" to
# build/test-reports/builds.txt (the build times `make test` prints last).
set -uo pipefail
name=$1; shift
start=$(date +%s.%N)
"$@"
code=$?
mkdir -p build/test-reports
awk -v n="$name" -v a="$start" -v b="$(date +%s.%N)" -v c="$code" \
  'BEGIN { printf "%s %.0f %d\n", n, b - a, c }' >> build/test-reports/builds.txt
exit "$code"
