#!/usr/bin/env bash
# bench.sh: attnviz against its peers, one run, side by side (`make bench`; docs/bench.md).
#
# For each S in $BENCH_SIZES (default 64 256 512 1024), d_model = d_out = 768,
# 12 heads, causal, it runs in turn:
#   attnviz wasm    node --no-experimental-fetch --no-liftoff $WASM_BUILD/attnviz-cli.js bench ...
#   attnviz-mt      node ... $WASM_MT_BUILD/attnviz-cli.js bench ... --threads $BENCH_THREADS
#                   (the threaded wasm build; skipped when it is not built)
#   attnviz native  $NATIVE_BUILD/attnviz-cli bench ...
#   tfjs-wasm       node --no-liftoff bench/tfjs_bench.mjs ...  (XNNPACK, SIMD, 1 thread)
#   ort-web         node --no-liftoff bench/ort_bench.mjs ... --threads 1 (and 2)
#                   (onnxruntime-web's wasm backend, SIMD; the forward exported
#                   to ONNX by bench/export_onnx.py, cached in $BENCH_ONNX_DIR)
# The wasm programs run with V8's --no-liftoff: every function is compiled
# with TurboFan when the module loads, instead of first with Liftoff and again
# with TurboFan on background threads once hot. That second compile (hundreds
# of ms of CPU for the engine's largest functions) would otherwise run during
# the first timed calls, and process.cpuUsage() counts it (docs/bench.md).
#   torch           /usr/bin/python3 bench/torch_bench.py ... --threads 1 (and 2)
# after checking that the peers compute attnviz's numbers (bench/check_peers.py).
# Every program prints one JSON line; they are collected in
# bench/results/<date>-<host>.jsonl and rendered by bench/report.py into
# bench/results/<date>-<host>.md, copied to bench/results/latest.md.
#
# Environment (all optional):
#   NATIVE_BUILD=build/native  WASM_BUILD=build/wasm  WASM_MT_BUILD=build/wasm-mt
#                             the builds to measure
#   BENCH_THREADS=2           attnviz-mt's threads (at most 4: its node pool has 3 workers)
#   BENCH_SIZES="64 256 512 1024"  BENCH_REPS=5  BENCH_DMODEL=768  BENCH_HEADS=12
#   BENCH_ROUNDS=3            every program runs this many times, the rounds
#                             interleaved; the report takes each figure's median
#                             over them (one noisy neighbour skews one round)
#   BENCH_COMMIT=<hash>       the builds come from a clean export of that commit (recorded)
#   BENCH_VIEW_SIZES="512 1024"  sizes at which the wasm engine is also run as the
#                             app runs it (bench --view stages / compare / output:
#                             lazy, with the Stages, Compare heads or "Q K V &
#                             output" tab open)
#                             (on attnviz-mt too, with --threads $BENCH_THREADS:
#                             the build the app page loads)
#   BENCH_WEIGHTS_SIZES="16 64 512"  sizes at which the wasm engine runs as the app
#                             does (--view stages, the app's state handling timed too)
#                             with seeded weights and with the same weights as explicit
#                             values (--weights seeded / explicit): a learner's own
#                             weights against a tutorial's seeded ones
#   BENCH_ONNX_DIR=build/bench-onnx  where ort_bench.mjs keeps its exported models
#   BENCH_OUT=bench/results   BENCH_FRAME=1 also measures the browser frame time
#                             (bench/frame_bench.mjs, needs the site in $WASM_BUILD/site)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

native=${NATIVE_BUILD:-build/native}
wasm=${WASM_BUILD:-build/wasm}
wasm_mt=${WASM_MT_BUILD:-build/wasm-mt}
threads=${BENCH_THREADS:-2}
node_wasm=(node --no-experimental-fetch --no-liftoff)  # see the head of this file
sizes=${BENCH_SIZES:-64 256 512 1024}
reps=${BENCH_REPS:-5}
d=${BENCH_DMODEL:-768}
heads=${BENCH_HEADS:-12}
out=${BENCH_OUT:-bench/results}
frame=${BENCH_FRAME:-1}
rounds=${BENCH_ROUNDS:-3}
view_sizes=${BENCH_VIEW_SIZES:-512 1024}
weights_sizes=${BENCH_WEIGHTS_SIZES:-16 64 512}
long_sizes=${BENCH_LONG_SIZES:-2048 4096 8192 32768}   # issue 36: long inputs (attnviz-cli bench-long)
long_peer_sizes=${BENCH_LONG_PEER_SIZES:-2048 4096}    # the peers keep every stage whole: 4096 is past their memory

for f in "$native/attnviz-cli" "$wasm/attnviz-cli.js" node_modules/@tensorflow/tfjs-backend-wasm/package.json \
         node_modules/onnxruntime-web/package.json; do
  if [ ! -e "$f" ]; then
    echo "bench.sh: $f is missing (build native and wasm, and run npm ci, first: make bench does)" >&2
    exit 2
  fi
done

mkdir -p "$out"
name="$(date +%Y-%m-%d)-$(hostname -s)"
raw="$out/$name.jsonl"
: > "$raw"

# record KIND JSON: one line of the raw file, {"kind": ..., ...the program's keys}
record() {
  local kind=$1 line=$2
  printf '{"kind":"%s","data":%s}\n' "$kind" "$line" >> "$raw"
  printf '  %-23s %s\n' "$kind" "$line" | cut -c1-160
}

# --- the machine, before anything runs
machine=$(/usr/bin/python3 - "$wasm" <<'EOF'
import json, os, re, subprocess, sys
def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception:
        return ""
cpu = ""
with open("/proc/cpuinfo") as f:
    for line in f:
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
flags = open("/proc/cpuinfo").read()
simd = [x for x in ("avx2", "fma", "avx512f") if re.search(r"\b%s\b" % x, flags)]
# BENCH_COMMIT: the builds were made from a clean export of that commit (not the work tree).
exported = os.environ.get("BENCH_COMMIT", "")
dirty = "0" if exported else sh("git status --porcelain -- engine CMakeLists.txt cmake | wc -l")
print(json.dumps({
    "cpu": cpu, "cores": os.cpu_count(), "cpu_flags": simd,
    "mem_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    "kernel": sh("uname -r"), "node": sh("node --version"),
    "emscripten": "emcc " + (re.findall(r"\d+\.\d+\.\d+", sh("emcc --version | head -n1")) or ["?"])[0],
    "torch": sh("/usr/bin/python3 -c 'import torch; print(torch.__version__)'"),
    "tfjs": json.load(open("node_modules/@tensorflow/tfjs-backend-wasm/package.json"))["version"],
    "ort_web": json.load(open("node_modules/onnxruntime-web/package.json"))["version"],
    "openblas": sh("dpkg-query -W -f='${Version}' libopenblas0-pthread"),
    "commit": exported or sh("git rev-parse --short HEAD"),
    "source": "clean export of the commit" if exported else "work tree",
    "engine_uncommitted_files": int(dirty or 0),
    "date": sh("date -u +%Y-%m-%dT%H:%MZ"), "host": sh("hostname -s"),
    "load_before": os.getloadavg(),
}))
EOF
)
record machine "$machine"

# Issue 37: the core's SIMD peak and read bandwidth, measured first by the CLI
# itself (every attnviz run below measures them again and reports each kernel's
# and the forward's fraction of the peak; report.py's "Machine peak" section).
echo "== this machine's SIMD peak (attnviz-cli bench measures it before timing anything)"
for b in wasm native; do
  if [ $b = wasm ]; then line=$("${node_wasm[@]}" "$wasm/attnviz-cli.js" bench --tokens 16 --d-model 32 --heads 2 --reps 1)
  else line=$("$native/attnviz-cli" bench --tokens 16 --d-model 32 --heads 2 --reps 1); fi
  /usr/bin/python3 - "$line" $b <<'EOF'
import json, sys
j = json.loads(sys.argv[1])
bw = j["bandwidth_gbs"]
print(f"  {sys.argv[2]}: {j['cpu_model']}: peak {j['peak_gflops']:.1f} GFLOP/s ({j['peak_isa']}, "
      f"{j['peak_lanes']} lanes); read bandwidth L1 {bw['l1_16k']:.0f}, L2 {bw['l2_512k']:.0f}, "
      f"beyond L2 {bw['mem_32m']:.0f} GB/s")
EOF
done

echo "== peers compute attnviz's numbers?"
record check "$(/usr/bin/python3 bench/check_peers.py --cli "$native/attnviz-cli")"

# The site's download, gzip -9 (fonts under assets/ are loaded lazily: excluded).
sizes_json=$(/usr/bin/python3 - "$wasm/site" <<'EOF'
import gzip, json, os, sys
site = sys.argv[1]
files = {}
if os.path.isdir(site):
    for n in sorted(os.listdir(site)):
        if n.endswith((".wasm", ".js")):
            data = open(os.path.join(site, n), "rb").read()
            files[n] = {"bytes": len(data), "gzip9": len(gzip.compress(data, 9))}
print(json.dumps({"site": site, "files": files}))
EOF
)
record download "$sizes_json"

args_for() { echo "--tokens $1 --d-model $d --heads $heads --causal --reps $reps"; }
for round in $(seq "$rounds"); do
  for s in $sizes; do
    echo "== round $round of $rounds: S = $s (d_model $d, $heads heads, causal, $reps reps)"
    a=$(args_for "$s")
    # shellcheck disable=SC2086
    {
      record attnviz-wasm "$("${node_wasm[@]}" "$wasm/attnviz-cli.js" bench $a)"
      if [ -f "$wasm_mt/attnviz-cli.js" ]; then
        record attnviz-wasm-mt "$("${node_wasm[@]}" "$wasm_mt/attnviz-cli.js" bench $a --threads "$threads")"
      fi
      record attnviz-native "$("$native/attnviz-cli" bench $a)"
      record tfjs-wasm "$(node --no-liftoff bench/tfjs_bench.mjs $a)"
      record ort-web-1 "$(node --no-liftoff bench/ort_bench.mjs $a --threads 1)"
      record ort-web-2 "$(node --no-liftoff bench/ort_bench.mjs $a --threads 2)"
      record torch-1 "$(/usr/bin/python3 bench/torch_bench.py $a --threads 1)"
      record torch-2 "$(/usr/bin/python3 bench/torch_bench.py $a --threads 2)"
      if [[ " $view_sizes " == *" $s "* ]]; then
        record attnviz-wasm-stages "$("${node_wasm[@]}" "$wasm/attnviz-cli.js" bench $a --view stages)"
        record attnviz-wasm-compare "$("${node_wasm[@]}" "$wasm/attnviz-cli.js" bench $a --view compare)"
        record attnviz-wasm-output "$("${node_wasm[@]}" "$wasm/attnviz-cli.js" bench $a --view output)"
        if [ -f "$wasm_mt/attnviz-cli.js" ]; then
          for view in stages compare output; do
            record "attnviz-wasm-mt-$view" \
              "$("${node_wasm[@]}" "$wasm_mt/attnviz-cli.js" bench $a --view "$view" --threads "$threads")"
          done
        fi
      fi
    }
  done
  for s in $weights_sizes; do
    echo "== round $round of $rounds: S = $s as the app runs it, seeded and explicit weights"
    a=$(args_for "$s")
    for w in seeded explicit; do
      # shellcheck disable=SC2086
      record "attnviz-wasm-$w" "$("${node_wasm[@]}" "$wasm/attnviz-cli.js" bench $a --view stages --weights $w)"
    done
  done
done

# Long inputs (issue 36): the page's build (wasm-mt, 2 threads) as the page runs it, one
# round (each S takes seconds), and the peers' full forward at the largest S they reach in
# memory. A run that fails (memory) is recorded as an error line with its S.
long_record() {  # kind S command...
  local kind=$1 s=$2
  shift 2
  local line
  if line=$(timeout 900 "$@" 2>/tmp/attnviz-long.err) && [ -n "$line" ]; then
    record "$kind" "$line"
  else
    record "$kind" "$(/usr/bin/python3 -c 'import json,sys; print(json.dumps({"S": int(sys.argv[1]), "error": sys.argv[2][-300:]}))' \
      "$s" "$(tail -c 300 /tmp/attnviz-long.err | tr '\n' ' ')")"
  fi
}
if [ -f "$wasm_mt/attnviz-cli.js" ]; then
  for s in $long_sizes; do
    echo "== long input: S = $s (d_model $d, $heads heads, causal; wasm-mt, $threads threads)"
    more=(--reps 3)
    [ "$s" -gt 8192 ] && more=(--reps 1 --no-all)  # 32,768: every head's overview alone takes minutes
    long_record attnviz-wasm-mt-long "$s" "${node_wasm[@]}" "$wasm_mt/attnviz-cli.js" bench-long --tokens "$s" \
      --d-model "$d" --heads "$heads" --threads "$threads" "${more[@]}"
  done
  for s in $long_peer_sizes; do
    a=$(args_for "$s" | sed "s/--reps $reps/--reps 1/")
    long_record ort-web-2-long "$s" node --no-liftoff bench/ort_bench.mjs $a --threads 2
    long_record tfjs-wasm-long "$s" node --no-liftoff bench/tfjs_bench.mjs $a
  done
fi

if [ "$frame" = 1 ] && [ -f "$wasm/site/attnviz.wasm" ] && [ -f bench/frame_bench.mjs ]; then
  echo "== browser frame time (S = 256, Compare heads: 12 heads' weights visible)"
  if line=$(ATTNVIZ_SITE_DIR="$wasm/site" node bench/frame_bench.mjs --tokens 256 2>/tmp/attnviz-frame-bench.err); then
    record frame "$line"
  else
    echo "  frame bench failed (not fatal): $(tail -n 3 /tmp/attnviz-frame-bench.err)"
  fi
fi

record machine_after "{\"load_after\": $(/usr/bin/python3 -c 'import os, json; print(json.dumps(os.getloadavg()))')}"
/usr/bin/python3 bench/report.py "$raw" > "$out/$name.md"
cp "$out/$name.md" "$out/latest.md"
echo "wrote $out/$name.md (and latest.md, raw lines in $raw)"
