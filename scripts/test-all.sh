#!/usr/bin/env bash
# test-all.sh: `make test` after its set-up. Builds every tree and runs every
# suite (scripts/trees.mk, `make -k -j$JOBS`: builds and suites side by side, a
# suite as soon as its tree is built; the browser tests as soon as the two apps
# are), then prints one summary whose last line is
# "N passed, N failed", after each suite's count and wall time.
#   native, wasm, wasm-mt, native-asan, native-tsan   ctest trees (scripts/suite.sh)
#   e2e    browser tests (node:test + playwright-core + Debian's chromium)
#   fuzz   the state-decoder fuzzer, corpus replayed then FUZZ_SECONDS (60)
#   notebook  the packed embed file's browser test and the Python package's tests
#             (scripts/test-notebooks.sh), beside the others once the embed file is built
# Counts are individual test cases (GoogleTest cases, node:test tests), read from
# the JUnit reports each runner writes into build/test-reports/.
# Exits non-zero when anything failed, a build failed or a suite did not run.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
reports=build/test-reports
rm -rf "$reports" && mkdir -p "$reports"
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

start=$(date +%s)
# Busy CPU time of the whole machine (every process, /proc/stat), in core-seconds.
busy() { awk '/^cpu / { print ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat; }
busy_start=$(busy)
status=0
trees=(make --no-print-directory -k -j"${JOBS:-$(nproc)}" -f scripts/trees.mk)
# The browser tests are the longest suite and need only the two apps (and the
# wasm CLI, which torch.test.mjs compares the page with): build those first,
# start the browser tests, and build and run everything else beside them (a make
# recipe would wait for a free job slot behind the builds).
"${trees[@]}" site cli-wasm || status=1
e2e_pid=
if [ $status -eq 0 ]; then
  scripts/suite.sh e2e &
  e2e_pid=$!
fi
"${trees[@]}" others || status=1
if [ -n "$e2e_pid" ]; then wait "$e2e_pid" || status=1; fi
wall=$(( $(date +%s) - start ))
awk -v a="$busy_start" -v b="$(busy)" -v w="$wall" -v n="$(nproc)" 'BEGIN {
  printf "== all builds and suites: %d s wall; the machine was busy %.0f CPU-seconds (%.2f of %d cores on average)\n",
         w, b - a, (b - a) / (w > 0 ? w : 1), n }' 

python3 scripts/test-summary.py "$reports" || status=1
exit $status
