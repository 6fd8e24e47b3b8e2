// ort_bench.mjs: the strongest peer in the browser's world. The same multi-head
// attention forward as `attnviz-cli bench` and bench/tfjs_bench.mjs, exported
// from PyTorch to ONNX by bench/export_onnx.py with every stage a graph output,
// run by onnxruntime-web's wasm backend (SIMD; 1 or 2 threads) in node.
//
//   node --no-liftoff bench/ort_bench.mjs --tokens S --d-model D --heads H [--causal] [--reps N]
//        [--d-out D2] [--seed N] [--threads 1|2]
//       prints {"peer":"ort-web","full_ms":median,...} (one line)
//   node bench/ort_bench.mjs --check STATE.json
//       runs the forward on a state's explicit X and weights (exported from the
//       state into a temporary model) and prints {"output": [[...]], "weights": [[[...]]]}
//       for bench/check_peers.py
//
// Models: one per (d_model, d_out, heads, causal, seed, export_onnx.py's
// content), S dynamic, cached in $BENCH_ONNX_DIR (default build/bench-onnx),
// exported on first use with /usr/bin/python3 bench/export_onnx.py. Weights are
// the model's initializers (drawn by torch from --seed, nn.Linear's range),
// X ~ N(0, 1) from --seed here, the causal mask an input made before timing
// (as tfjs and torch get theirs). Each timed forward is one session.run()
// returning every stage as a CPU tensor (onnxruntime-web copies each out of the
// wasm heap: part of the time, as a page reading the stages would pay it).
//
// Threads: onnxruntime-web ships one wasm binary, SIMD + pthreads
// (ort-wasm-simd-threaded). ort.env.wasm.numThreads = T sizes its intra-op
// thread pool; with T > 1 emscripten starts T − 1 node worker_threads that run
// the same module on the shared memory (node needs no cross-origin isolation),
// with T = 1 none start and everything runs on the main thread.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs as parsePeerArgs, usage, timingKeys } from './peer_cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const require = createRequire(import.meta.url);
const ort = require('onnxruntime-web');
const ORT_VERSION = ort.env.versions.web;
const EXPORT = path.join(here, 'export_onnx.py');


function exportModel(args, out) {
  execFileSync('/usr/bin/python3', [EXPORT, ...args, '--out', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  return out;
}

// The cached model for these sizes and seed, exported on first use.
function seededModel(o) {
  const dir = process.env.BENCH_ONNX_DIR || path.join(root, 'build', 'bench-onnx');
  const script = createHash('sha256').update(readFileSync(EXPORT)).digest('hex').slice(0, 10);
  const name = `attention-d${o.dModel}-o${o.dOut}-h${o.heads}-${o.causal ? 'causal' : 'full'}` +
               `-seed${o.seed}-${script}.onnx`;
  const file = path.join(dir, name);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const args = ['--d-model', o.dModel, '--d-out', o.dOut, '--heads', o.heads, '--seed', o.seed].map(String);
  return exportModel(o.causal ? [...args, '--causal'] : args, file);
}

async function openSession(file, threads) {
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;  // the only binaries 1.30 ships are SIMD ones: without SIMD create() throws
  ort.env.logLevel = 'error';
  return ort.InferenceSession.create(file, {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all',
  });
}

function causalMask(S) {
  const m = new Uint8Array(S * S);
  for (let i = 0; i < S; ++i) for (let j = i + 1; j < S; ++j) m[i * S + j] = 1;
  return new ort.Tensor('bool', m, [S, S]);
}

// X ~ N(0, 1): Box–Muller on a seeded 32-bit generator (mulberry32).
function randomNormal(n, seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  const x = new Float32Array(n);
  for (let i = 0; i < n; ++i) x[i] = Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next());
  return x;
}

function feeds(X, S, D, causal) {
  const f = { X: new ort.Tensor('float32', X, [S, D]) };
  if (causal) f.mask = causalMask(S);
  return f;
}

// Nested arrays of a tensor's rows (2-D) or heads' rows (3-D), for the check.
function nested(t) {
  const rows = (data, r, c) => Array.from({ length: r }, (_, i) => Array.from(data.subarray(i * c, (i + 1) * c)));
  if (t.dims.length === 2) return rows(t.data, t.dims[0], t.dims[1]);
  const [h, r, c] = t.dims;
  return Array.from({ length: h }, (_, k) => rows(t.data.subarray(k * r * c, (k + 1) * r * c), r, c));
}

async function runCheck(file) {
  const s = JSON.parse(readFileSync(file, 'utf8'));
  const X = s.embedding.values, S = X.length, D = X[0].length;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ort-check-'));
  try {
    const session = await openSession(exportModel(['--state', file], path.join(dir, 'check.onnx')), 1);
    const r = await session.run(feeds(Float32Array.from(X.flat()), S, D, !!s.causal));
    process.stdout.write(JSON.stringify({ output: nested(r.output), weights: nested(r.weights) }) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}


async function runBench(o) {
  const session = await openSession(seededModel(o), o.threads);
  const f = feeds(randomNormal(o.tokens * o.dModel, o.seed), o.tokens, o.dModel, o.causal);
  const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const once = async () => {
    const c0 = cpuMs(), t0 = performance.now();
    const r = await session.run(f);
    const ms = performance.now() - t0, cpu = cpuMs() - c0;
    if (Object.keys(r).length !== session.outputNames.length) throw new Error('a stage is missing');
    return { ms, cpu };
  };
  await once();  // warm-up: weight packing, first allocations
  const times = [];
  for (let r = 0; r < o.reps; ++r) times.push(await once());
  return { samples: times, outputs: session.outputNames.length };
}

const o = parsePeerArgs(process.argv.slice(2), { threads: true });
if (o.check) {
  await runCheck(o.check);
} else {
  const { samples, outputs } = await runBench(o);
  process.stdout.write(JSON.stringify({
    peer: 'ort-web', version: ORT_VERSION, backend: 'wasm', simd: ort.env.wasm.simd !== false,
    threads: ort.env.wasm.numThreads, stage_outputs: outputs, ...timingKeys(o, samples),
  }) + '\n');
}
