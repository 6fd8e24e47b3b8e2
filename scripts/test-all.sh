#!/usr/bin/env bash
# Runs every test suite and prints one summary line, last: "N passed, N failed".
#   native unit tests (ctest, build/native)   wasm unit tests under node (ctest, build/wasm)
#   the engine and bench tests again in the threaded wasm build (ctest, build/wasm-mt)
#   native unit tests again under ASan + UBSan (ctest, build/asan; not the desktop
#     window tests nor the bench peers), halting on the first report
#   the engine's tests again under ThreadSanitizer (ctest, build/tsan, no UI; not
#     the bench peers), halting on the first report
#   browser end-to-end tests (node:test + playwright-core + Debian's chromium)
#   the state-decoder fuzzer (scripts/fuzz.sh, build/fuzz): the corpus replayed,
#     then FUZZ_SECONDS (default 60) of fuzzing
# Counts are individual test cases (GoogleTest cases, node:test tests), read from
# the JUnit reports each runner writes into build/test-reports/.
# Exits non-zero when anything failed or a suite did not run.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
reports=build/test-reports
rm -rf "$reports" && mkdir -p "$reports"
status=0

run_ctest() {  # run_ctest NAME BUILD_DIR
  local name=$1 dir=$2
  echo "== $name unit tests ($dir)"
  ctest --test-dir "$dir" --output-on-failure --output-junit "$root/$reports/$name-ctest.xml" || status=1
}

run_ctest native build/native
run_ctest wasm build/wasm
run_ctest wasm-mt build/wasm-mt

echo "== native-asan unit tests (build/asan, ASan + UBSan)"
start=$(date +%s)
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build/asan -E '^(desktop_.*|bench_peers_.*)$' --output-on-failure \
    --output-junit "$root/$reports/native-asan-ctest.xml" || status=1
echo "== native-asan: $(( $(date +%s) - start ))s"

echo "== native-tsan unit tests (build/tsan, ThreadSanitizer: the worker pool and head groups)"
start=$(date +%s)
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build/tsan -E '^bench_peers_.*$' --output-on-failure \
    --output-junit "$root/$reports/native-tsan-ctest.xml" || status=1
echo "== native-tsan: $(( $(date +%s) - start ))s"

echo "== fuzz (state decoder, ASan + UBSan, ${FUZZ_SECONDS:-60}s after replaying the corpus)"
scripts/fuzz.sh --quiet --seconds "${FUZZ_SECONDS:-60}" --junit "$reports/fuzz.xml" || status=1

echo "== browser tests (headless chromium)"
node --test --test-concurrency=1 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=junit --test-reporter-destination="$reports/e2e.xml" \
  tests/e2e/ || status=1

python3 scripts/test-summary.py "$reports" || status=1
exit $status
