// peer_cli.mjs: the command line the peers in the browser's world share
// (tfjs_bench.mjs, ort_bench.mjs), the same flags as `attnviz-cli bench`.
//   --tokens S --d-model D --heads H [--causal] [--reps N] [--d-out D2] [--seed N]
//   [--threads T]  (only where the peer takes it)   or   --check STATE.json

// Bad usage: one JSON error line on stderr and exit 2, like attnviz-cli.
export function usage(message) {
  process.stderr.write(JSON.stringify({ error: message, field: '' }) + '\n');
  process.exit(2);
}

export function parseArgs(argv, { threads = false } = {}) {
  const o = { tokens: 0, dModel: 0, heads: 0, dOut: 0, causal: false, reps: 5, seed: 123, threads: 1, check: null };
  const ints = { '--tokens': 'tokens', '--d-model': 'dModel', '--heads': 'heads', '--d-out': 'dOut',
                 '--reps': 'reps', '--seed': 'seed' };
  if (threads) ints['--threads'] = 'threads';
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--causal') o.causal = true;
    else if (a === '--check') o.check = argv[++i];
    else if (a in ints) {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 0) usage(`${a} needs a whole number`);
      o[ints[a]] = v;
    } else usage(`unknown option ${a}`);
  }
  if (!o.dOut) o.dOut = o.dModel;
  if (o.threads < 1 || o.threads > 16) usage('--threads must be 1 … 16');
  if (o.reps < 1) usage('--reps must be at least 1');
  if (!o.check && (!o.tokens || !o.dModel || !o.heads || o.dOut % o.heads)) {
    usage('need --tokens, --d-model and --heads (dividing d_out)');
  }
  return o;
}

// The keys every peer's JSON line shares, from its timed samples [{ms, cpu}]:
// the sizes, the median / fastest wall time, the median CPU time and GFLOP/s
// (the forward's FLOPs: projections, scores, context and output).
export function timingKeys(o, samples) {
  const times = samples.map((x) => x.ms), full = median(times);
  const fullCpu = median(samples.map((x) => x.cpu));
  const S = o.tokens, D = o.dModel, dOut = o.dOut;
  const flops = 3 * (2 * S * D * dOut + S * dOut) + 4 * S * S * dOut + 2 * S * dOut * dOut + S * dOut;
  const r3 = (x) => Math.round(x * 1000) / 1000;
  return {
    S, d_model: D, d_out: dOut, heads: o.heads, causal: o.causal, reps: o.reps,
    full_ms: r3(full), full_min_ms: r3(Math.min(...times)), full_cpu_ms: r3(fullCpu),
    gflops: r3(flops / (full * 1e6)), gflops_cpu: r3(flops / (fullCpu * 1e6)),
  };
}

export function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}
