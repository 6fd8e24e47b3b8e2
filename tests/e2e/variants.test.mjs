// variants.test.mjs: issue 23's options through real mouse and keyboard input — the
// Variants header of Parameters (RoPE, its base and style, K/V heads, ALiBi, the
// sliding window), the stages they add to the Stages flow with the engine's numbers
// printed in their cells, a refusal that keeps the last valid result, and the
// Inspector explaining a rotated component and a window-masked cell — and issue 36's
// sink logits (gpt-oss), their fields and the rows' sink share.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

const VARIANTS = 'Variants (RoPE, GQA, ALiBi, window)';

// Turns the wheel over the Parameters window until item `label` is wholly inside it.
async function reveal(app, label) {
  const win = await app.rect('Parameters window');
  for (let k = 0; k < 30; k++) {
    const r = await app.rect(label);
    if (r && r.y >= win.y + 24 && r.y + r.h <= win.y + win.h) return r;
    await app.page.mouse.move(win.x + win.w / 2, win.y + win.h / 2);
    await app.frames(1);
    await app.page.mouse.wheel(0, r && r.y < win.y + 24 ? -80 : 80);
    await app.frames(3);
  }
  throw new Error(`"${label}" could not be scrolled into the Parameters window`);
}

async function clickParam(app, label, opts) {
  await reveal(app, label);
  return app.click(label, opts);
}

// The text a heatmap printed in cell (i, j) against the engine's value at 4 decimals.
function assertPrinted(info, m, i, j, what) {
  const text = info.cells[i][j];
  assert.ok(text !== '', `${what}[${i}][${j}] prints its value`);
  const v = m.data[i * m.cols + j];
  const dec = info.decimals >= 0 ? info.decimals : 4;
  assert.ok(Math.abs(Number(text.replace('−', '-')) - v) <= 0.5 * 10 ** -dec + 1e-7,
    `${what}[${i}][${j}] prints ${text}, the engine has ${v}`);
}

test('variants: RoPE, K/V heads, ALiBi and the window from their controls, with their stages in the flow', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  // Nine tokens, four heads of head_dim 2 (d_out 8), causal.
  let res = await app.setState({ tokens: ['the', 'cat', 'sat', 'on', 'the', 'mat', 'and', 'it', 'slept'],
    d_model: 8, d_out: 8, num_heads: 4, causal: true });
  assert.ok(res.ok, res.error);
  await clickParam(app, VARIANTS);

  // RoPE: the state changes, and the flow gains q_rot and k_rot with the engine's numbers.
  await clickParam(app, 'RoPE');
  let s = await app.state();
  assert.equal(s.positional, 'rope');
  assert.deepEqual(s.rope, { base: 10000, style: 'half' });
  await app.click('Stages');
  const qr = await app.showMap('q_rot h0');
  const qm = await app.matrix('q_rot', 0);
  assert.equal(qr.rows, 9);
  assert.equal(qr.cols, 2);
  for (let i = 0; i < 9; ++i) for (let j = 0; j < 2; ++j) assertPrinted(qr, qm, i, j, 'q_rot h0');
  // Row 0 is position 0: no rotation, q_rot = Q_h.
  const Q = await app.matrix('Q', 0);
  assert.equal(qm.data[0], Q.data[0]);
  assert.equal(qm.data[1], Q.data[1]);

  // Another style and base, typed.
  await clickParam(app, 'RoPE style');
  await app.click('RoPE style: interleaved');
  await reveal(app, 'RoPE base');
  await app.type('RoPE base', '500000', { number: true });
  s = await app.state();
  assert.deepEqual(s.rope, { base: 500000, style: 'interleaved' });

  // K/V heads: 2 of 4 (GQA). K and V are half as wide; heads 0 and 1 read K/V head 0.
  await clickParam(app, 'K/V heads');
  await app.click('K/V heads: 2');
  s = await app.state();
  assert.equal(s.num_kv_heads, 2);
  const K = await app.matrix('K', 0);
  assert.equal(K.cols, 4, 'K is num_kv_heads · head_dim = 4 wide');
  const k0 = await app.matrix('k_rot', 0), k1 = await app.matrix('k_rot', 1), k2 = await app.matrix('k_rot', 2);
  assert.deepEqual(k1.data, k0.data, 'heads 0 and 1 share K/V head 0');
  assert.notDeepEqual(k2.data, k0.data, 'head 2 reads K/V head 1');

  // ALiBi: a bias stage of −m_h·|i − j| (m_0 = 1/4 for 4 heads), drawn in the flow.
  await clickParam(app, 'ALiBi');
  assert.equal((await app.state()).alibi, true);
  const bias = await app.matrix('bias', 0);
  assert.equal(bias.data[8 * 9 + 0], -2, 'bias[8][0] = −(1/4)·8');
  await app.click('Stages');
  const bi = await app.showMap('bias h0');
  assertPrinted(bi, bias, 8, 0, 'bias h0');

  // The sliding window: on with 3 keys; query 8 no longer sees key 5.
  await clickParam(app, 'Sliding window');
  assert.equal((await app.state()).window, 3);
  const masked = await app.matrix('masked', 0);
  assert.equal(masked.data[8 * 9 + 5], -Infinity, 'i − j = 3 ≥ 3: masked');
  assert.notEqual(masked.data[8 * 9 + 6], -Infinity, 'i − j = 2 < 3: kept');
  await reveal(app, 'Window');
  await app.type('Window', '5', { number: true });
  assert.equal((await app.state()).window, 5);
  assert.deepEqual(app.errors, []);
  await app.shot('variants-1440');
  await app.close();
});

test('variants: an odd head_dim with RoPE is refused under the control and the result stays', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  const res = await app.setState({ d_model: 6, d_out: 6, num_heads: 2 });  // head_dim 3
  assert.ok(res.ok, res.error);
  const before = await app.matrix('weights', 0);
  await clickParam(app, VARIANTS);
  await clickParam(app, 'RoPE');
  assert.ok(await reveal(app, 'error'), 'the reason is shown under the control');
  await app.shot('variants-refusal-1280');
  assert.notEqual((await app.state()).positional, 'rope', 'the state keeps its last valid value');
  assert.deepEqual(await app.matrix('weights', 0), before, 'the views keep the last valid result');
  // Four heads of 6 do not divide either; 3 heads of head_dim 2 do: the draft applies.
  await reveal(app, 'Heads');
  await app.type('Heads', '3', { number: true });
  const s = await app.state();
  assert.equal(s.num_heads, 3);
  assert.equal(s.positional, 'rope', 'the RoPE draft applies once head_dim is even');
  assert.equal(await app.rect('error'), null, 'the reason is gone');
  await app.close();
});

// The Inspector's words are checked natively (tests/ui/test_variants.cpp); here a real
// hover shows them, laid out inside the Inspector window, and the screenshot is for looking at.
async function inspectorLinesInside(app, what) {
  const win = await app.rect('Inspector window');
  let n = 0;
  for (; n < 40; n++) {
    const r = await app.page.evaluate((l) => window.attnviz.itemRect(l), `inspector line ${n}`);
    if (!r) break;
    assert.ok(r.x >= win.x - 1 && r.x + r.w <= win.x + win.w + 1, `${what}: inspector line ${n} inside the window`);
  }
  assert.ok(n >= 3, `${what}: the Inspector explains the cell (${n} lines)`);
}

test('variants: the Inspector explains a rotated component and a cell the window masked', async (t) => {
  const app = await openApp(t, { viewport: { width: 1920, height: 1080 } });
  const res = await app.setState({ tokens: ['a', 'b', 'c', 'd', 'e', 'f'], d_model: 4, d_out: 4, num_heads: 2,
    positional: 'rope', causal: true, window: 3 });
  assert.ok(res.ok, res.error);
  await app.click('Stages');
  const qr = await app.showMap('q_rot h0');
  await app.page.mouse.move(qr.x + 1.5 * qr.cell_w, qr.y + 3.5 * qr.cell_h);
  await app.frames(3);
  await inspectorLinesInside(app, 'q_rot[3][1]');
  await app.shot('variants-inspector-qrot-1920');
  const mk = await app.showMap('masked h0');
  await app.page.mouse.move(mk.x + 0.5 * mk.cell_w, mk.y + 5.5 * mk.cell_h);
  await app.frames(3);
  assert.equal(mk.cells[5][0], '-inf', 'the window masked cell (5, 0)');
  assert.notEqual(mk.cells[5][3], '-inf', 'cell (5, 3) is inside the window');
  await inspectorLinesInside(app, 'masked[5][0]');
  await app.shot('variants-inspector-window-1920');
  await app.close();
});

// Issue 36: gpt-oss's sink logits from the Variants header, with the mouse and the
// keyboard: the checkbox, one field per head; each row of weights then sums to
// 1 − the sink's share, exp(s − m) / (exp(s − m) + Σ exp(x − m)) from the masked row;
// the softmax card and the Inspector name the sink. Screenshots at both sizes.
test('variants: sink logits from their controls; rows sum to 1 − the sink share', async (t) => {
  for (const viewport of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
    const app = await openApp(t, { viewport });
    const S = 7;
    const res = await app.setState({ tokens: ['the', 'cat', 'sat', 'on', 'the', 'mat', '.'], d_model: 8, d_out: 8,
      num_heads: 2, causal: true });
    assert.ok(res.ok, res.error);
    await clickParam(app, VARIANTS);
    await clickParam(app, 'Sink logits');
    assert.deepEqual((await app.state()).sinks, { enabled: true }, 'on, 0 for every head');
    await reveal(app, 'Sink h1');
    await app.type('Sink h1', '2.5', { number: true });
    assert.deepEqual((await app.state()).sinks, { enabled: true, values: [0, 2.5] });
    for (const [h, s] of [[0, 0], [1, 2.5]]) {
      const W = await app.matrix('weights', h), M = await app.matrix('masked', h);
      for (let i = 0; i < S; ++i) {
        let m = s, sum = 0, z = 0;
        for (let j = 0; j < S; ++j) if (M.data[i * S + j] > m) m = M.data[i * S + j];
        for (let j = 0; j < S; ++j) z += Math.exp(M.data[i * S + j] - m);
        const share = Math.exp(s - m) / (Math.exp(s - m) + z);
        for (let j = 0; j < S; ++j) sum += W.data[i * S + j];
        assert.ok(Math.abs(1 - sum - share) < 1e-6, `head ${h} row ${i}: weights sum to ${sum}, sink share ${share}`);
      }
    }
    await app.click('Stages');
    await app.click('head 1');
    const w = await app.showMap('weights h1');
    await app.page.mouse.move(w.x + 0.5 * w.cell_w, w.y + 4.5 * w.cell_h);
    await app.frames(3);
    await inspectorLinesInside(app, 'weights[4][0] with a sink');
    assert.ok(await app.rect('op weights'), 'the softmax card names the sink');
    await app.shot(`sinks-${viewport.width}x${viewport.height}`);
    assert.deepEqual(app.errors, []);
    await app.close();
  }
});
