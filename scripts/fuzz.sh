#!/usr/bin/env bash
# Fuzzes the session-state decoder (tests/fuzz/fuzz_state.cpp) and the weight-file
# readers (tests/fuzz/fuzz_weights.cpp: safetensors header, zip directory, .npy
# header) with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer
# (clang-14, build/fuzz). fuzz_weights gets a third of the time (at least 5 s).
#
#   scripts/fuzz.sh                  build, replay the corpus, fuzz until Ctrl+C
#   scripts/fuzz.sh --seconds N      the same, stopping after N seconds
#   scripts/fuzz.sh --junit FILE     also write the outcome as one JUnit test case
#   scripts/fuzz.sh --quiet          libFuzzer's output only to build/fuzz/fuzz.log
#   scripts/fuzz.sh --build-only     configure and build, do not run
#   make fuzz [SECONDS=N]            the same through make
#
# Corpus: the seeds in tests/fuzz/corpus/ (corpus-weights/ for fuzz_weights;
# committed, read-only here) plus build/fuzz/corpus/ (corpus-weights/; what the
# fuzzer found; kept between runs). A crash, leak
# or hang leaves its input in build/fuzz/artifacts/; reproduce it with
#   build/fuzz/fuzz_state build/fuzz/artifacts/crash-<sha1>
# (docs/reliability.md). Exit status: 0 when nothing was found.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

seconds=0 junit="" build_only=0 quiet=0
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
    --junit) junit=${2:?--junit needs a file}; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case $seconds in ''|*[!0-9]*) echo "fuzz.sh: --seconds needs a whole number" >&2; exit 2 ;; esac

dir=build/fuzz
for tool in clang-14 clang++-14; do
  command -v $tool >/dev/null || { echo "fuzz.sh: $tool is missing: run scripts/setup-system.sh test" >&2; exit 2; }
done
# -O2 without NDEBUG: the engine's asserts stay on while fuzzing.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE=-O2 -DCMAKE_C_FLAGS_RELEASE=-O2 \
  -DATTNVIZ_FUZZ=ON -DATTNVIZ_BUILD_UI=OFF -DATTNVIZ_BUILD_TESTS=OFF >/dev/null
# Under make's jobserver (make test), its build shares the cores make hands out.
jobs=(-j"${JOBS:-$(nproc)}")
[[ "${MAKEFLAGS:-}" == *jobserver* ]] && jobs=()
cmake --build "$dir" --target fuzz_state fuzz_weights "${jobs[@]}"
[ $build_only -eq 1 ] && exit 0

mkdir -p "$dir/corpus" "$dir/corpus-weights" "$dir/artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# fuzz TARGET SECONDS DICT CORPUS...: runs one target; sets code, runs, corpus, elapsed.
fuzz() {
  local target=$1 secs=$2 dict=$3; shift 3
  local args=(-artifact_prefix="$dir/artifacts/" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1)
  [ -n "$dict" ] && args+=(-dict="$dict")
  [ "$secs" -gt 0 ] && args+=(-max_total_time="$secs")
  echo "== $target: ${secs}s (0 = until stopped), corpus $*"
  log="$dir/$target.log"
  local start; start=$(date +%s)
  set +e
  if [ $quiet -eq 1 ]; then
    "$dir/$target" "${args[@]}" "$@" >"$log" 2>&1
    code=$?
  else
    "$dir/$target" "${args[@]}" "$@" 2>&1 | tee "$log"
    code=${PIPESTATUS[0]}
  fi
  set -e
  elapsed=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(sed -n 's/^#[0-9]*[[:space:]]*INITED .*corp: \([0-9]*\).*/\1/p' "$log" | tail -1)
  echo "== $target: exit $code after ${elapsed}s, ${runs:-?} inputs run (corpus of ${corpus:-?} replayed first)"
  if [ "$code" -ne 0 ]; then
    found=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    echo "$target found a problem; input: ${found:-see $log}" >&2
    [ -n "$found" ] && echo "reproduce: $dir/$target $found" >&2
    [ $quiet -eq 1 ] && tail -n 40 "$log" >&2
  fi
  return 0
}

wsecs=0
[ "$seconds" -gt 0 ] && wsecs=$(( seconds / 3 > 5 ? seconds / 3 : 5 ))
fuzz fuzz_weights "$wsecs" "" "$dir/corpus-weights" tests/fuzz/corpus-weights
wcode=$code wruns=${runs:-0} welapsed=$elapsed wlog=$log
if [ "$wcode" -eq 0 ]; then
  fuzz fuzz_state "$seconds" tests/fuzz/state.dict "$dir/corpus" tests/fuzz/corpus
  cp "$log" "$dir/fuzz.log"
else
  code=$wcode runs=0 elapsed=0
fi
elapsed=$(( elapsed + welapsed ))
runs=$(( ${runs:-0} + wruns ))
[ "$wcode" -ne 0 ] && log=$wlog && code=$wcode

if [ -n "$junit" ]; then
  mkdir -p "$(dirname "$junit")"
  python3 - "$junit" "$code" "$elapsed" "${runs:-0}" "$log" <<'EOF'
import sys
from xml.sax.saxutils import escape
path, code, elapsed, runs, log = sys.argv[1:]
body = ""
if code != "0":
    tail = open(log, errors="replace").read()[-4000:]
    body = f'<failure message="a fuzzer exited {code}">{escape(tail)}</failure>'
with open(path, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="fuzz" tests="1" '
            f'failures="{int(code != "0")}">\n<testcase classname="fuzz" name="fuzz_state + fuzz_weights ({runs} inputs, '
            f'{elapsed}s)" time="{elapsed}">{body}</testcase>\n</testsuite></testsuites>\n')
EOF
fi
exit "$code"
