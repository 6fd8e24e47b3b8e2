// gpt2.mjs: GPT-2 small's attention shape (d_model 768, 12 heads, W_q, W_k, W_v, W_o
// and b_o) as seeded and as explicit weights, and the time from a click to the frame
// that shows it. Shared by explicit.test.mjs and bench/frame_bench.mjs.
import assert from 'node:assert/strict';

export const D = 768, HEADS = 12;

// Deterministic float32 values in [-0.1, 0.1), like a trained layer's (a 32-bit LCG).
export function matrix(rows, cols, seed) {
  let x = seed >>> 0;
  const out = [];
  for (let i = 0; i < rows; ++i) {
    const row = new Array(cols);
    for (let j = 0; j < cols; ++j) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      row[j] = Math.fround((x / 2 ** 32 - 0.5) * 0.2);
    }
    out.push(row);
  }
  return out;
}

function base(S) {
  return {
    tokens: Array.from({ length: S }, (_, i) => `t${i}`), d_model: D, d_out: D, num_heads: HEADS,
    out_proj: true, out_bias: true, causal: false,
  };
}

// nn.Linear weights from seed 123: the engine draws them.
export function seededState(S) {
  return { ...base(S), weights: { init: 'torch_linear', seed: 123 } };
}

// The same shape with every weight given as a value (what File → Open weights… makes).
export function explicitState(S) {
  return {
    ...base(S),
    weights: { W_q: matrix(D, D, 1), W_k: matrix(D, D, 2), W_v: matrix(D, D, 3), W_o: matrix(D, D, 4),
               b_o: matrix(1, D, 5)[0] },
  };
}

// Milliseconds from the mouse press on the labelled control to the first frame drawn
// after the state changed (the undo count moves with the change): what a learner waits for.
export async function clickToFrame(app, label) {
  const { page } = app;
  const r = await app.rect(label);
  assert.ok(r, `${label} is drawn`);
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await app.frames(1);
  const undo0 = (await page.evaluate(() => window.attnviz.history())).undo;
  const t0 = Date.now();
  await page.mouse.down();
  await page.mouse.up();
  await page.waitForFunction((u) => window.attnviz.history().undo > u, undo0, { timeout: 120000, polling: 'raf' });
  await app.frames(1);
  return Date.now() - t0;
}
