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
