// explicit.test.mjs: a learner's own weights as quick as seeded ones (issue 32).
// GPT-2 small's attention shape (d_model 768, 12 heads, W_q, W_k, W_v, W_o and b_o,
// what File → Open weights… makes of a real checkpoint) given as explicit values,
// then a real click on "Causal mask", Ctrl+Z, Ctrl+Shift+Z: each reaches the screen,
// and undo brings every weight back, bit for bit. The click-to-frame times of the
// seeded and the explicit state are printed side by side (speed is judged by
// `make bench`, bench/frame_bench.mjs, never by a timed assertion).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { openApp } from './harness.mjs';
import { D, clickToFrame, explicitState, seededState } from './gpt2.mjs';

const S = 16;

// The first row, the last row and the diagonal of a stage's matrix, as the engine holds it.
async function probe(app, name) {
  return app.page.evaluate((n) => {
    const m = window.attnviz.getMatrix(n, 0);
    const rows = m.rows, cols = m.cols, d = m.data;
    const first = Array.from(d.slice(0, cols)), last = Array.from(d.slice((rows - 1) * cols, rows * cols));
    const diag = [];
    for (let i = 0; i < Math.min(rows, cols); ++i) diag.push(d[i * cols + i]);
    return { rows, cols, first, last, diag };
  }, name);
}

test('explicit GPT-2-sized weights: a click on Causal mask reaches the screen, undo brings the weights back', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  // Seeded weights of the same shape first: the time to compare with.
  assert.equal((await app.setState(seededState(S))).ok, true);
  await app.click('Stages');
  await app.frames(3);
  const seededMs = await clickToFrame(app, 'Causal mask');
  assert.equal((await app.state()).causal, true, 'the seeded click applied');

  const explicit = explicitState(S);
  const W = explicit.weights, b_o = W.b_o;
  const res = await app.setState(explicit);
  assert.equal(res.ok, true, res.error);
  await app.frames(3);
  const before = { W_q: await probe(app, 'W_q'), W_o: await probe(app, 'W_o'), b_o: await probe(app, 'b_o') };
  assert.deepEqual(before.W_q.first, W.W_q[0], 'W_q arrived as given');
  assert.deepEqual(before.W_o.last, W.W_o[D - 1]);
  assert.deepEqual(before.b_o.first, b_o);
  const undo0 = (await app.page.evaluate(() => window.attnviz.history())).undo;
  const explicitMs = await clickToFrame(app, 'Causal mask');
  const on = await app.page.evaluate(() => window.attnviz.getMatrix('masked', 0));
  assert.equal(on.data[1], -Infinity, 'the causal mask is on the screen\'s matrices: masked[0][1] is −inf');
  const hist = await app.page.evaluate(() => window.attnviz.history());
  assert.equal(hist.undo, undo0 + 1, 'one click, one undo step');
  // The history holds about one copy of the weights (4 × 768² floats), not one per step.
  assert.ok(hist.bytes < 4 * D * D * 4 * 1.2, `history holds ${hist.bytes} bytes`);

  await app.tap('Control+z', 3);  // one press and release (harness.mjs: a held key would repeat)
  const off = await app.page.evaluate(() => window.attnviz.getMatrix('masked', 0));
  assert.notEqual(off.data[1], -Infinity, 'Ctrl+Z took the causal mask off');
  const after = { W_q: await probe(app, 'W_q'), W_o: await probe(app, 'W_o'), b_o: await probe(app, 'b_o') };
  assert.deepEqual(after, before, 'undo brought every weight back');
  await app.tap('Control+Shift+z', 3);
  const redone = await app.page.evaluate(() => window.attnviz.getMatrix('masked', 0));
  assert.equal(redone.data[1], -Infinity, 'Ctrl+Shift+Z put it back');
  const state = await app.state();
  assert.equal(state.causal, true);
  assert.deepEqual(state.weights.W_v[767].map(Math.fround), W.W_v[767], 'getState still writes the weights as given');
  console.log(`# click on Causal mask to its frame, d_model 768, 12 heads, S = ${S}: seeded ${seededMs} ms, ` +
              `explicit ${explicitMs} ms (ratio ${(explicitMs / seededMs).toFixed(2)})`);
  await app.shot('explicit-gpt2-causal');
});
