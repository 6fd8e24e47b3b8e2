#!/usr/bin/env node
// Self time per function from a V8 CPU profile (node --cpu-prof), optionally
// only between two points in time, to see where a phase of a run goes.
//
//   node scripts/profile-summary.mjs FILE.cpuprofile [FROM_MS TO_MS] [--timeline BUCKET_MS]
//
// With --timeline, prints the top three functions of each BUCKET_MS slice
// instead (to find the phase's window: the bench runs full forwards, then the
// seeded forwards, edits and toggles). Function names need a build linked with
// --profiling-funcs, e.g.
//   emcmake cmake -S . -B build/prof-wasm -DCMAKE_BUILD_TYPE=Release \
//     -DCMAKE_EXE_LINKER_FLAGS=--profiling-funcs && cmake --build build/prof-wasm --target attnviz-cli
//   node --no-experimental-fetch --cpu-prof --cpu-prof-interval 200 --cpu-prof-dir /tmp/prof \
//     build/prof-wasm/attnviz-cli.js bench --tokens 512 --d-model 768 --heads 12 --causal --reps 7
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const t = args.indexOf('--timeline');
const bucket = t >= 0 ? Number(args.splice(t, 2)[1]) : 0;
const [file, from = '0', to = 'Infinity'] = args;
if (!file || !(bucket >= 0)) {
  console.error('usage: profile-summary.mjs FILE.cpuprofile [FROM_MS TO_MS] [--timeline BUCKET_MS]');
  process.exit(2);
}
const prof = JSON.parse(readFileSync(file, 'utf8'));
const name = new Map(prof.nodes.map((n) => [n.id, n.callFrame.functionName || '(anonymous)']));

// Samples as [time ms since start, function, duration ms].
let at = 0;
const samples = prof.samples.map((id, i) => {
  const d = (prof.timeDeltas[i] || 0) / 1000;
  at += d;
  return [at, name.get(id), d];
});
const top = (list, n) => {
  const self = new Map();
  for (const [, f, d] of list) self.set(f, (self.get(f) || 0) + d);
  return [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
};

if (bucket > 0) {
  const slices = new Map();
  for (const s of samples) {
    const k = Math.floor(s[0] / bucket);
    if (!slices.has(k)) slices.set(k, []);
    slices.get(k).push(s);
  }
  for (const [k, list] of slices) {
    const line = top(list, 3).map(([f, ms]) => `${f.slice(0, 40)}: ${ms.toFixed(0)}`).join('  ');
    console.log(String(k * bucket).padStart(7), line);
  }
} else {
  const win = samples.filter(([s]) => s >= Number(from) && s <= Number(to));
  const total = win.reduce((a, [, , d]) => a + d, 0);
  for (const [f, ms] of top(win, 25)) {
    console.log(ms.toFixed(1).padStart(9), (100 * ms / total).toFixed(1).padStart(5) + '%', f.slice(0, 120));
  }
  console.log(`total ${total.toFixed(1)} ms`);
}
