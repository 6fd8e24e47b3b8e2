// tfjs_bench.mjs: the peer in the browser's world. The same multi-head attention
// forward as `attnviz-cli bench` (every stage a tensor that lives until the end),
// on @tensorflow/tfjs-backend-wasm (XNNPACK, SIMD, one thread) in node.
//
//   node bench/tfjs_bench.mjs --tokens S --d-model D --heads H [--causal] [--reps N] [--d-out D2] [--seed N]
//       prints {"peer":"tfjs-wasm","full_ms":median,...} (one line)
//   node bench/tfjs_bench.mjs --check STATE.json
//       runs the forward on a state's explicit X and weights (x·W orientation,
//       qkv_bias, out_proj, out_bias, scale head_dim, causal) and prints
//       {"output": [[...]], "weights": [[[...]]]} for bench/check_peers.py
//
// Forward (S tokens, H heads, hd = d_out / H), each line one kept tensor:
//   Q, K, V   = X·W_q + b_q, X·W_k + b_k, X·W_v + b_v      (S × d_out)
//   Qh, Kh, Vh = split heads                               (H × S × hd)
//   scores    = Qh · Khᵀ                                    (H × S × S)
//   scaled    = scores / √hd
//   masked    = scaled + causal mask (0 / −inf)             (= masked_fill(−inf) for finite scores)
//   weights   = softmax over the last axis
//   context   = weights · Vh                                (H × S × hd)
//   concat    = merge heads                                 (S × d_out)
//   output    = concat · W_o + b_o                          (S × d_out)
// output.dataSync() ends each timed forward, so the work is really done.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs as parsePeerArgs, usage, timingKeys } from './peer_cli.mjs';

const require = createRequire(import.meta.url);
const tf = require('@tensorflow/tfjs-core');
const wasm = require('@tensorflow/tfjs-backend-wasm');


async function initBackend() {
  const dist = path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), path.sep);
  // One thread: the non-threaded SIMD binary (XNNPACK runs single-threaded there).
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (typeof wasm.setThreadsCount === 'function') wasm.setThreadsCount(1);
  wasm.setWasmPaths(dist);
  await tf.setBackend('wasm');
  await tf.ready();
  return {
    simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
    threads: typeof wasm.getThreadsCount === 'function' ? wasm.getThreadsCount() : 1,
  };
}

// The kept stages of one forward; the caller disposes them. p: {X, Wq, bq, ..., Wo, bo, mask}
function forward(p, S, H, dOut) {
  const hd = dOut / H;
  const t = {};
  t.Q = tf.add(tf.matMul(p.X, p.Wq), p.bq);
  t.K = tf.add(tf.matMul(p.X, p.Wk), p.bk);
  t.V = tf.add(tf.matMul(p.X, p.Wv), p.bv);
  t.Qh = tf.transpose(tf.reshape(t.Q, [S, H, hd]), [1, 0, 2]);
  t.Kh = tf.transpose(tf.reshape(t.K, [S, H, hd]), [1, 0, 2]);
  t.Vh = tf.transpose(tf.reshape(t.V, [S, H, hd]), [1, 0, 2]);
  t.scores = tf.matMul(t.Qh, t.Kh, false, true);
  t.scaled = tf.div(t.scores, tf.scalar(Math.sqrt(hd)));
  t.masked = p.mask ? tf.add(t.scaled, p.mask) : t.scaled;
  t.weights = tf.softmax(t.masked);
  t.context = tf.matMul(t.weights, t.Vh);
  t.concat = tf.reshape(tf.transpose(t.context, [1, 0, 2]), [S, dOut]);
  t.output = tf.add(tf.matMul(t.concat, p.Wo), p.bo);
  return t;
}

function causalMask(S) {
  const m = new Float32Array(S * S);
  for (let i = 0; i < S; ++i) for (let j = i + 1; j < S; ++j) m[i * S + j] = -Infinity;
  return tf.tensor2d(m, [S, S]);
}


async function runCheck(file) {
  const s = JSON.parse(readFileSync(file, 'utf8'));
  const X = s.embedding.values, w = s.weights;
  const S = X.length, dOut = w.W_q[0].length, H = s.num_heads;
  const p = {
    X: tf.tensor2d(X), Wq: tf.tensor2d(w.W_q), Wk: tf.tensor2d(w.W_k), Wv: tf.tensor2d(w.W_v),
    bq: tf.tensor1d(w.b_q), bk: tf.tensor1d(w.b_k), bv: tf.tensor1d(w.b_v),
    Wo: tf.tensor2d(w.W_o), bo: tf.tensor1d(w.b_o), mask: s.causal ? causalMask(S) : null,
  };
  const t = forward(p, S, H, dOut);
  process.stdout.write(JSON.stringify({ output: t.output.arraySync(), weights: t.weights.arraySync() }) + '\n');
}

async function runBench(o) {
  const { tokens: S, dModel: D, heads: H, dOut } = o;
  const b1 = 1 / Math.sqrt(D), bo = 1 / Math.sqrt(dOut);  // nn.Linear's init range
  const u = (shape, r, k) => tf.randomUniform(shape, -r, r, 'float32', o.seed + k);
  const p = {
    X: tf.randomNormal([S, D], 0, 1, 'float32', o.seed),
    Wq: u([D, dOut], b1, 1), Wk: u([D, dOut], b1, 2), Wv: u([D, dOut], b1, 3),
    bq: u([dOut], b1, 4), bk: u([dOut], b1, 5), bv: u([dOut], b1, 6),
    Wo: u([dOut, dOut], bo, 7), bo: u([dOut], bo, 8),
    mask: o.causal ? causalMask(S) : null,
  };
  // Wall-clock and CPU ms (process.cpuUsage: what a busy shared machine disturbs less).
  const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const once = () => {
    const c0 = cpuMs(), t0 = performance.now();
    const t = forward(p, S, H, dOut);
    t.output.dataSync();
    const ms = performance.now() - t0, cpu = cpuMs() - c0;
    for (const x of Object.values(t)) x.dispose();  // stages only; the inputs in p stay
    return { ms, cpu };
  };
  once();  // warm-up: kernel set-up, first allocations
  const times = [];
  for (let r = 0; r < o.reps; ++r) times.push(once());
  return times;
}

const o = parsePeerArgs(process.argv.slice(2));
const info = await initBackend();
if (o.check) {
  await runCheck(o.check);
} else {
  const samples = await runBench(o);
  process.stdout.write(JSON.stringify({
    peer: 'tfjs-wasm', version: tf.version_core, backend: tf.getBackend(), simd: info.simd,
    threads: info.threads, ...timingKeys(o, samples),
  }) + '\n');
}
