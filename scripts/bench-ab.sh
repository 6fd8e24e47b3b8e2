#!/bin/bash
# scripts/bench-ab.sh: two builds of attnviz-cli against each other, runs alternated,
# one line per run with the forward's CPU ms, its fraction of the measured peak and
# each kernel's CPU ms (issue 37; docs/bench.md, "The machine's peak"). On a shared
# machine a kernel change of a few percent only shows when the two builds alternate
# within the same minutes: compare the lines pairwise, and the load average.
#
#   scripts/bench-ab.sh OLD NEW [N] [-- bench args]
#
# OLD, NEW: an attnviz-cli.js (run with node --no-liftoff) or a native attnviz-cli;
# copy the old build's .js and .wasm to a folder of their own first. N rounds (4).
# Default bench args: --tokens 512 --d-model 768 --heads 12 --causal --reps 7.
set -euo pipefail
old=$1 new=$2
n=${3:-4}
shift $(( $# >= 3 ? 3 : 2 ))
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--tokens 512 --d-model 768 --heads 12 --causal --reps 7)
run() {
  case "$1" in
    *.js) node --no-experimental-fetch --no-liftoff "$1" bench "${args[@]}" ;;
    *) "$1" bench "${args[@]}" ;;
  esac
}
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$n"); do
  for which in old new; do
    cli=$old
    [ $which = new ] && cli=$new
    run "$cli" | /usr/bin/python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
k = j.get("kernels") or {}
parts = " ".join("%s %s" % (p, k[p]["ms"]) for p in ("qkv", "scores", "softmax", "context", "output") if p in k)
print("%-3s full %s ms CPU (%s wall), %s of %s GFLOP/s | %s | transposes %s rest %s" % (
    sys.argv[1], j["full_cpu_ms"], j["full_ms"], j.get("of_peak"), j.get("peak_gflops"), parts,
    k.get("transpose_concat_ms"), k.get("other_ms")))
' "$which"
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
