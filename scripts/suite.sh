#!/usr/bin/env bash
# suite.sh NAME: runs one of `make test`'s suites on trees already built, writing
# its JUnit report(s), its wall time and the CPU time of all it ran
# (NAME.seconds: "WALL CPU") into build/test-reports/,
# where scripts/test-summary.py adds them up. Its output goes to
# build/test-reports/NAME.log (shown when the suite fails), since suites run
# side by side.
#   native        ctest in build/native: engine, UI, CLI, bench and desktop-window tests
#   wasm          ctest in build/wasm: the same under node
#   wasm-mt       ctest in build/wasm-mt: the engine and bench tests in the threaded build
#   native-asan   ctest in build/asan under ASan + UBSan (not the desktop window tests
#                 nor the bench peers), halting on the first report
#   native-tsan   ctest in build/tsan under ThreadSanitizer (not the bench peers)
#   fuzz          the state-decoder fuzzer: corpus replayed, then FUZZ_SECONDS (60)
#   e2e           the browser tests (node:test + playwright-core + Debian's chromium),
#                 E2E_CONCURRENCY files at a time (default 2); not embed.test.mjs, which
#                 needs the embed tree and runs in the notebook suite
#   notebook      the packed embed file (tests/e2e/embed.test.mjs) and the Python package:
#                 wheel, venv, pytest, the example notebooks run and converted, their
#                 pages opened offline (scripts/test-notebooks.sh)
# Exit status: the suite's own.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
name=${1:?usage: suite.sh NAME}
reports=build/test-reports
mkdir -p "$reports"
log="$reports/$name.log"

run() {
  case "$name" in
    native | wasm | wasm-mt)
      ctest --test-dir "build/$name" --output-on-failure --output-junit "$root/$reports/$name-ctest.xml" ;;
    native-asan)
      ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        ctest --test-dir build/asan -E '^(desktop_.*|bench_peers_.*)$' --output-on-failure \
          --output-junit "$root/$reports/$name-ctest.xml" ;;
    native-tsan)
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        ctest --test-dir build/tsan -E '^bench_peers_.*$' --output-on-failure \
          --output-junit "$root/$reports/$name-ctest.xml" ;;
    fuzz)
      scripts/fuzz.sh --quiet --seconds "${FUZZ_SECONDS:-60}" --junit "$reports/fuzz.xml" ;;
    e2e)
      node --test --test-concurrency="${E2E_CONCURRENCY:-2}" \
        --test-reporter=spec --test-reporter-destination=stdout \
        --test-reporter=junit --test-reporter-destination="$reports/e2e.xml" \
        ${E2E_FILES:-$(ls tests/e2e/*.test.mjs | grep -v '/embed\.test\.mjs$')} ;;
    notebook)
      scripts/test-notebooks.sh ;;
    *) echo "suite.sh: unknown suite '$name'" >&2; return 2 ;;
  esac
}

echo "== $name: started $(date +%T)"
start=$(date +%s.%N)
tmp_times=$(mktemp)
run >"$log" 2>&1
code=$?
seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
# CPU seconds of every process the suite ran (bash's `times`, children: user + system).
times > "$tmp_times"  # a builtin in this shell (in a pipe it would run in a subshell with no children)
cpu=$(tail -n 1 "$tmp_times" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
rm -f "$tmp_times"
# Not for e2e: Chromium's GPU and renderer processes are not all waited for by
# their parent, so their CPU would be missing (test-all.sh prints the machine's).
[ "$name" = e2e ] || [ "$name" = notebook ] && cpu=""
echo "$seconds $cpu" > "$reports/$name.seconds"
if [ "$code" -ne 0 ]; then
  echo "== $name: FAILED (exit $code) after ${seconds}s; its output:"
  tail -n 200 "$log"
else
  echo "== $name: done in ${seconds}s"
fi
exit "$code"
