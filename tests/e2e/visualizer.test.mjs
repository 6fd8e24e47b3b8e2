// visualizer.test.mjs: the main interface driven with real mouse and keyboard events
// at itemRect positions; each test checks the resulting state and matrices and
// what is drawn (pixel colours against the colormap, the masked style).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';
import { colour, distance, masked, maskedHatch } from './colormap.mjs';

const preset = (file) => JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/presets', file), 'utf8')).state;

test('typing a sentence into Tokens re-splits it and every stage follows', async (t) => {
  const app = await openApp(t);
  await app.type('Tokens', 'the cat sat down');
  const s = await app.state();
  assert.deepEqual(s.tokens, ['the', 'cat', 'sat', 'down']);
  for (const stage of ['scores', 'scaled', 'masked', 'weights', 'dropped']) {
    const m = await app.matrix(stage, 0);
    assert.equal(m.rows, 4, stage);
    assert.equal(m.cols, 4, stage);
  }
  assert.ok(await app.rect('token 3'), 'a chip per token');
  await app.close();
});

test('the Causal mask checkbox masks the upper triangle with −inf, drawn in the masked style', async (t) => {
  const app = await openApp(t);
  await app.click('Causal mask');
  assert.equal((await app.state()).causal, true);
  const m = await app.matrix('masked', 0);
  const w = await app.matrix('weights', 0);
  const S = m.rows;
  for (let i = 0; i < S; i++) for (let j = 0; j < S; j++) {
    if (j > i) {
      assert.equal(m.data[i * S + j], -Infinity, `masked[${i}][${j}]`);
      assert.equal(w.data[i * S + j], 0, `weights[${i}][${j}] is exactly 0`);
    } else {
      assert.ok(Number.isFinite(m.data[i * S + j]));
    }
  }
  // Pixels: a masked cell is the masked colour or its hatch; an unmasked weights
  // cell matches viridis at its value (sampled off-centre, away from the printed value).
  await app.frames(2);
  const pts = [await app.cellPoint('masked h0', S, S, 0, S - 1, 0.15, 0.12),
               await app.cellPoint('weights h0', S, S, 2, 0, 0.15, 0.12),
               await app.cellPoint('weights h0', S, S, 4, 3, 0.15, 0.12)];
  const [px, w20, w43] = await app.pixels(pts);
  assert.ok(distance(px, masked) <= 2 || distance(px, maskedHatch) <= 2, `masked cell colour ${px}`);
  assert.ok(distance(w20, colour('viridis', w.data[2 * S + 0])) <= 3, `weights[2][0] ${w20}`);
  assert.ok(distance(w43, colour('viridis', w.data[4 * S + 3])) <= 3, `weights[4][3] ${w43}`);
  await app.shot('causal');
  await app.close();
});

test('a preset from the menu shows the tutorial\'s printed numbers', async (t) => {
  const app = await openApp(t);
  await app.click('Presets');
  await app.click('Your journey starts with one step — torch.rand, seed 123 (tutorial 004)');
  const s = await app.state();
  assert.deepEqual(s.tokens, ['Your', 'journey', 'starts', 'with', 'one', 'step']);
  // 004 §2, attention_weights_2 as printed: [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820]
  const printed = [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820];
  const w = await app.matrix('weights', 0);
  printed.forEach((v, j) => assert.ok(Math.abs(w.data[6 + j] - v) <= 0.00005, `weights[1][${j}] = ${w.data[6 + j]}`));
  await app.close();
});

test('an invalid combination shows its reason and the views keep the last valid result', async (t) => {
  const app = await openApp(t);
  const before = await app.matrix('weights', 0);
  // d_out is 4: three heads do not divide it.
  await app.type('Heads', '3', { number: true });
  assert.ok(await app.rect('error'), 'the reason is shown');
  const s = await app.state();
  assert.equal(s.num_heads, 1, 'the state keeps its last valid value');
  assert.deepEqual(await app.matrix('weights', 0), before, 'the views keep the last valid result');
  // Fix it through d_out: 6 is divisible by 3, and the draft's 3 heads now apply.
  await app.type('d_out', '6', { number: true });
  const s2 = await app.state();
  assert.equal(s2.d_out, 6);
  assert.equal(s2.num_heads, 3);
  assert.equal(await app.rect('error'), null, 'the reason is gone');
  assert.ok(await app.rect('weights h0'));
  await app.shot('three-heads');
  await app.close();
});

test('hovering a cell explains it; clicking pins it; clicking again releases it', async (t) => {
  const app = await openApp(t);
  const w = await app.matrix('weights', 0);
  const S = w.rows;
  const p = await app.cellPoint('weights h0', S, S, 1, 2);
  await app.page.mouse.move(p[0], p[1]);
  await app.frames(3);
  assert.equal(await app.rect('Unpin'), null, 'hovering does not pin');
  await app.page.mouse.click(p[0], p[1]);
  await app.frames(3);
  assert.ok(await app.rect('Unpin'), 'clicking pins');
  await app.page.mouse.move(5, 5);
  await app.frames(3);
  assert.ok(await app.rect('Unpin'), 'still pinned after the mouse leaves');
  await app.shot('pinned');
  await app.page.mouse.click(p[0], p[1]);
  await app.frames(3);
  assert.equal(await app.rect('Unpin'), null, 'clicking the pinned cell again releases it');
  await app.close();
});

test('token chips: mark a key as padding from the chip menu, then drag a chip to reorder', async (t) => {
  const app = await openApp(t);
  await app.click('token 1', { button: 'right' });
  await app.click('Mark as padding');
  let s = await app.state();
  assert.deepEqual(s.key_padding, [1, 0, 1, 1, 1]);
  const m = await app.matrix('masked', 0);
  for (let i = 0; i < 5; i++) assert.equal(m.data[i * 5 + 1], -Infinity, `key 1 is masked in row ${i}`);

  // Drag token 0 onto token 3.
  await app.drag('token 0', 'token 3');
  s = await app.state();
  assert.deepEqual(s.tokens, ['upon', 'a', 'time', 'Once', 'there']);
  assert.deepEqual(s.key_padding, [0, 1, 1, 1, 1], 'padding moves with its token');
  await app.close();
});

test('token chips: deleting a token takes its explicit embedding row with it; a chip typed as two words becomes two tokens', async (t) => {
  const app = await openApp(t);
  const rows = [[1, 0], [0, 1], [0.5, 0.25], [-1, 2]];
  assert.equal((await app.setState({ tokens: ['a', 'b', 'c', 'd'], d_model: 2, d_out: 2, embedding: { values: rows } })).ok, true);
  await app.click('token 2', { button: 'right' });
  await app.click('Delete');
  let s = await app.state();
  assert.deepEqual(s.tokens, ['a', 'b', 'd']);
  assert.deepEqual(s.embedding.values, [rows[0], rows[1], rows[3]], 'row 2 left with its token, the others kept');
  assert.equal(await app.rect('error'), null, 'no refusal: the state stays valid');
  const x = await app.matrix('X', 0);
  assert.deepEqual(Array.from(x.data), [1, 0, 0, 1, -1, 2]);

  // Padding on key 1, then chip 0 edited into two words: the new token is a real key.
  assert.equal((await app.setState({ tokens: ['a', 'b', 'c'], key_padding: [1, 0, 1] })).ok, true);
  await app.click('token 0');
  await app.page.keyboard.press('Control+A');
  await app.page.keyboard.type('x y');
  await app.page.keyboard.press('Enter');
  await app.frames(3);
  s = await app.state();
  assert.deepEqual(s.tokens, ['x', 'y', 'b', 'c']);
  assert.deepEqual(s.key_padding, [1, 1, 0, 1], 'the padded key stays padded, the split adds a real one');
  await app.close();
});

test('Chinese typed without spaces: one token per character, words and punctuation kept; Split chooses; a chip may hold 自然', async (t) => {
  const app = await openApp(t);
  const cdp = await app.page.context().newCDPSession(app.page);
  await app.click('Tokens');
  await app.page.keyboard.press('Control+A');
  await cdp.send('Input.insertText', { text: '我爱自然语言处理, GPT-2 很好' });  // as an input method commits it
  await app.frames(2);
  await app.page.keyboard.press('Enter');
  await app.frames(3);
  const chars = ['我', '爱', '自', '然', '语', '言', '处', '理', ',', 'GPT-2', '很', '好'];
  assert.deepEqual((await app.state()).tokens, chars);
  assert.ok(await app.rect('token 11'), 'a chip per token');

  // Split → whitespace only splits the box's text again at once, like text.split().
  await app.click('Split');
  await app.click('whitespace only');
  await app.frames(3);
  assert.deepEqual((await app.state()).tokens, ['我爱自然语言处理,', 'GPT-2', '很好']);
  await app.click('Split');
  await app.click('words & characters');
  await app.frames(3);
  assert.deepEqual((await app.state()).tokens, chars);

  // A chip edited on its own keeps what is typed: 自 becomes 自然, then 然 goes.
  await app.click('token 2');
  await app.page.keyboard.press('Control+A');
  await cdp.send('Input.insertText', { text: '自然' });
  await app.frames(2);
  await app.page.keyboard.press('Enter');
  await app.frames(3);
  await app.click('token 3', { button: 'right' });
  await app.click('Delete');
  const edited = ['我', '爱', '自然', '语', '言', '处', '理', ',', 'GPT-2', '很', '好'];
  assert.deepEqual((await app.state()).tokens, edited);
  // Enter in the box without changing its text keeps the chip whole.
  await app.click('Tokens');
  await app.page.keyboard.press('Enter');
  await app.frames(3);
  assert.deepEqual((await app.state()).tokens, edited);
  await app.page.waitForFunction(() => !window.attnviz.frameStats().fonts_pending);
  await app.frames(3);
  await app.shot('cjk-split');
  await app.close();
});

test('the colour-blind-safe colormap can be chosen for weights', async (t) => {
  const app = await openApp(t);
  await app.click('View');
  await app.click('Weights colormap');
  await app.click('cividis (colour-blind safe)');
  const w = await app.matrix('weights', 0);
  const [px] = await app.pixels([await app.cellPoint('weights h0', 5, 5, 0, 0, 0.15, 0.12)]);
  assert.ok(distance(px, colour('cividis', w.data[0])) <= 3, `cividis pixel ${px}`);
  await app.close();
});

test('Chinese tokens display with the lazily loaded CJK font', async (t) => {
  const app = await openApp(t);
  assert.equal((await app.stats()).fonts_pending, false);
  const r = await app.setState(preset('06-chinese.json'));
  assert.ok(r.ok, JSON.stringify(r));
  await app.page.waitForFunction(() => !window.attnviz.frameStats().fonts_pending);
  await app.frames(3);
  const s = await app.state();
  assert.deepEqual(s.tokens, ['我', '爱', '自然', '语言', '处理']);
  await app.shot('chinese');
  await app.close();
});

test('the window layout is remembered between visits', async (t) => {
  const app = await openApp(t);
  const before = await app.rect('Inspector window');
  // Drag the Inspector by its title bar.
  await app.page.mouse.move(before.x + 60, before.y + 8);
  await app.page.mouse.down();
  for (let k = 1; k <= 8; k++) {
    await app.page.mouse.move(before.x + 60 + 40 * k, before.y + 8 - 20 * k);
    await app.frames(1);
  }
  await app.page.mouse.up();
  await app.frames(10);
  const moved = await app.rect('Inspector window');
  assert.ok(Math.abs(moved.x - (before.x + 320)) <= 2, `moved to x ${moved.x}`);
  // ImGui saves its settings (to localStorage) about 5 s after a change: wait
  // for a saved window at the new place (a save from before the drag may land first).
  await app.page.waitForFunction(([x, y]) => [...(localStorage.getItem('attnviz.layout') || '')
    .matchAll(/^Pos=(-?\d+),(-?\d+)$/gm)].some((m) => Math.abs(m[1] - x) <= 1 && Math.abs(m[2] - y) <= 1),
  [moved.x, moved.y], { timeout: 60000 });
  await app.page.reload();
  await app.page.evaluate(() => window.attnviz.ready);
  const after = await app.rect('Inspector window');
  assert.ok(Math.abs(after.x - moved.x) <= 1 && Math.abs(after.y - moved.y) <= 1, 'same place after a reload');
  await app.close();
});

test('editing one embedding cell switches to explicit values and changes only that input', async (t) => {
  const app = await openApp(t);
  const X0 = await app.matrix('X', 0);
  await app.click('Edit values');
  await app.type('embedding[0][0]', '1.5');
  const s = await app.state();
  assert.equal(s.embedding.values[0][0], 1.5);
  const X1 = await app.matrix('X', 0);
  assert.equal(X1.data[0], 1.5);
  assert.deepEqual(X1.data.slice(1), X0.data.slice(1), 'every other number of X is unchanged, bit for bit');
  // A number that is not finite gets a sentence and changes nothing.
  await app.type('embedding[1][1]', 'nan');
  assert.ok(await app.rect('error'), 'the reason is shown');
  assert.deepEqual((await app.matrix('X', 0)).data, X1.data, 'the last valid values stay');
  await app.shot('edit-values');
  await app.close();
});

test('a large matrix zooms about the mouse with the wheel and resets on double-click', async (t) => {
  const app = await openApp(t);
  const s = await app.state();
  s.tokens = Array.from({ length: 64 }, (_, i) => `w${i}`);
  s.d_model = 16; s.d_out = 16; s.num_heads = 2;
  s.embedding = { init: 'torch_randn', seed: 7 };
  assert.ok((await app.setState(s)).ok);
  await app.frames(3);
  const w = await app.matrix('weights', 0);
  const S = w.rows;
  // The Stages flow scrolls at 64 tokens: bring the map into view; there the wheel
  // scrolls the tab and Ctrl+wheel zooms the map.
  const info = await app.showMap('weights h0');
  const r = { x: info.x, y: info.y, w: info.w, h: info.h };
  // Wheel up four notches at the map's top-left corner: ×1.25⁴ about that corner.
  await app.page.mouse.move(r.x + 1, r.y + 1);
  await app.frames(2);
  await app.page.keyboard.down('Control');
  for (let k = 0; k < 4; k++) { await app.page.mouse.wheel(0, -100); await app.frames(2); }
  await app.page.keyboard.up('Control');
  const zoom = 1.25 ** 4;
  const cell = (r.w / S) * zoom;
  // Check a few cells against the colormap at their zoomed positions (off-centre, away from text).
  const cells = [[0, 3], [2, 1], [5, 6], [7, 2]];
  const pts = cells.map(([i, j]) => [r.x + (j + 0.5) * cell, r.y + (i + 0.5) * cell]);
  const px = await app.pixels(pts);
  cells.forEach(([i, j], k) => {
    const want = colour('viridis', w.data[i * S + j]);
    assert.ok(distance(px[k], want) <= 3, `zoomed cell (${i}, ${j}) is ${px[k]}, want ${want}`);
  });
  await app.shot('zoomed');
  // Double-click fits the whole matrix again: the last cell is at the bottom-right.
  await app.page.mouse.dblclick(r.x + 5, r.y + 5);
  await app.frames(3);
  const fit = await app.heatmap('weights h0');
  assert.equal(fit.zoom, 1, 'the map is fitted again');
  const last = [fit.x + fit.w - fit.cell_w / 2, fit.y + fit.h - fit.cell_h / 2];
  await app.page.mouse.move(r.x - 30, r.y - 30);  // no hover outline over the map
  await app.frames(3);
  const [p2] = await app.pixels([last]);
  assert.ok(distance(p2, colour('viridis', w.data[S * S - 1])) <= 3, `fitted last cell ${p2}`);
  await app.close();
});
