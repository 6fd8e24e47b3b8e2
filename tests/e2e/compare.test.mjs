// compare.test.mjs: the Compare heads tab with real mouse events. The grid shows
// every head on one colour scale with one colour bar (weights: viridis over [0, 1];
// signed stages: RdBu over ± the largest |value| of any head), prints values in
// cells that have room, and a click selects a head (the Stages tab follows); the
// A/B difference map's pixels are the diverging colormap at A − B computed here
// from getMatrix; the head divergence map's pixels are the colormap at the mean
// Jensen–Shannon divergence computed here from the weights, on the fixed scale
// [0, ln 2] (so its diagonal is the colormap's 0); clicking a divergence cell
// (a, b) makes a and b the A/B pair.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';
import { colour, distance } from './colormap.mjs';

const preset = JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/presets/04-the-cat.json'), 'utf8'));

// Moves the mouse where nothing reacts (the bottom-right corner of the Views window).
async function rest(app) {
  await app.page.mouse.move(1430, 890);
  await app.frames(3);
}

const f = Math.fround;

// A point inside cell (i, j) of a heatmap image rect, above any value printed at its
// centre (text is about 17 px tall) and clear of the 1.5 px highlight outlines.
function cellPoint(r, rows, cols, i, j) {
  const cw = r.w / cols, chh = r.h / rows;
  const dy = Math.max(2.5, Math.min(chh * 0.5, (chh - 17) / 2 - 1));
  return [r.x + (j + 0.5) * cw, r.y + i * chh + dy];
}

function assertColour(got, want, what) {
  assert.ok(distance(got, want) <= 2, `${what}: pixel ${got} should be ${want} (±2)`);
}

// Mean over rows of the Jensen–Shannon divergence (natural log), skipping rows that
// are NaN or all zero in either head (attnviz/analysis.h).
function meanJsd(A, B) {
  let sum = 0, n = 0;
  for (let i = 0; i < A.rows; ++i) {
    const p = A.data.slice(i * A.cols, (i + 1) * A.cols), q = B.data.slice(i * B.cols, (i + 1) * B.cols);
    const sp = p.reduce((a, b) => a + b, 0), sq = q.reduce((a, b) => a + b, 0);
    if (!(sp > 0) || !(sq > 0)) continue;
    let d = 0;
    for (let j = 0; j < p.length; ++j) {
      const a = p[j] / sp, b = q[j] / sq, m = (a + b) / 2;
      if (a > 0) d += 0.5 * a * Math.log(a / m);
      if (b > 0) d += 0.5 * b * Math.log(b / m);
    }
    sum += d;
    ++n;
  }
  return n ? sum / n : NaN;
}

// Whether the square [x, x + w) × [y, y + h) of a screenshot holds text: some pixels far
// from the cell's own colour (a printed value), not one flat colour.
function holdsText(img, x, y, w, h, bg) {
  let far = 0;
  for (let yy = Math.ceil(y); yy < y + h; ++yy)
    for (let xx = Math.ceil(x); xx < x + w; ++xx) if (distance(img.at(xx, yy), bg) > 60) ++far;
  return far >= 6;
}

test('compare heads: small multiples on one scale select a head; A/B difference and head divergence are drawn right', async (t) => {
  const app = await openApp(t);
  const res = await app.setState(preset.state);
  assert.ok(res.ok, res.error);
  await app.click('Compare heads');

  // Small multiples of every head's weights, on the pinned [0, 1] scale, with values in the cells.
  const W = [];
  for (let h = 0; h < 4; ++h) W.push(await app.matrix('weights', h));
  for (let h = 0; h < 4; ++h) {
    const r = await app.rect(`weights h${h}`);
    assert.ok(r && r.w > 60 && r.h > 60, `weights h${h} is drawn in the grid (${JSON.stringify(r)})`);
  }
  await rest(app);
  const bar = await app.rect('all heads colour bar');
  assert.ok(bar && bar.w >= 100, 'the grid has a colour bar');
  let img = await app.image();
  assertColour(img.at(bar.x + 2, bar.y + bar.h / 2), colour('viridis', 1 / 128), 'colour bar, left end: viridis at 0');
  assertColour(img.at(bar.x + bar.w - 2, bar.y + bar.h / 2), colour('viridis', 127 / 128), 'colour bar, right end: 1');
  const g3 = await app.rect('weights h3');
  for (const [i, j] of [[0, 0], [5, 2], [7, 7], [7, 1]]) {
    const [x, y] = cellPoint(g3, 8, 8, i, j);
    assertColour(img.at(x, y), colour('viridis', W[3].data[i * 8 + j]), `grid weights h3 (${i}, ${j})`);
  }
  // Values printed in the cells: the grid's cells are large enough at 1440×900.
  const cw = g3.w / 8;
  assert.ok(cw >= 28, `grid cells are ${cw} px wide`);
  assert.ok(holdsText(img, g3.x + 7 * cw + 2, g3.y + 7 * cw + cw * 0.3, cw - 4, cw * 0.4,
                      colour('viridis', W[3].data[63])), 'the value of weights h3 (7, 7) is printed in its cell');
  await app.shot('compare-grid');

  // A signed stage: one RdBu scale for all heads, ± the largest |score| of any head.
  await app.click('Stage');
  await app.click('Stage: scores');
  await rest(app);
  const Sc = [];
  for (let h = 0; h < 4; ++h) Sc.push(await app.matrix('scores', h));
  const a = f(Math.max(...Sc.flatMap((m) => m.data.map((v) => Math.abs(v)))));
  img = await app.image();
  for (const h of [0, 2]) {
    const r = await app.rect(`scores h${h}`);
    assert.ok(r, `scores h${h} is drawn`);
    for (const [i, j] of [[0, 0], [3, 5], [6, 1]]) {
      const [x, y] = cellPoint(r, 8, 8, i, j);
      const v = Sc[h].data[i * 8 + j];
      assertColour(img.at(x, y), colour('rdbu', f(f(v - f(-a)) / f(a - f(-a)))), `scores h${h} (${i}, ${j}) = ${v} on ±${a}`);
    }
  }
  await app.shot('compare-grid-scores');
  await app.click('Stage');
  await app.click('Stage: weights');
  await rest(app);

  // Clicking head 2's map selects head 2; a second click on the same cell only unpins it.
  await app.click('weights h2');
  await app.click('weights h2');
  await rest(app);
  await app.click('Stages');
  assert.ok(await app.rect('weights h2'), 'the Stages tab shows head 2');
  assert.equal(await app.rect('weights h0'), null, 'and not head 0');
  await app.click('Compare heads');
  await app.click('A/B');
  await rest(app);
  assert.ok(await app.rect('diff h2-h1') || await app.rect('diff h2-h3') || await app.rect('diff h2-h0'),
            'A is head 2 in the A/B view');

  // The divergence map: mean JSD of weight rows on the fixed scale [0, ln 2].
  const jsd = [...Array(4)].map((_, a) => [...Array(4)].map((_, b) => (a === b ? 0 : meanJsd(W[a], W[b]))));
  const ln2 = f(Math.LN2);
  assert.ok(Math.max(...jsd.flat()) > 0.001, 'the heads differ');
  const sr = await app.rect('head divergence');
  assert.ok(sr, 'the head divergence map is drawn');
  const pts = [], want = [];
  for (let a = 0; a < 4; ++a) for (let b = 0; b < 4; ++b) {
    pts.push(cellPoint(sr, 4, 4, a, b));
    want.push(colour('viridis', f(f(jsd[a][b]) / ln2)));
  }
  const got = await app.pixels(pts);
  for (let k = 0; k < 16; ++k) assertColour(got[k], want[k], `divergence cell (${k >> 2}, ${k & 3})`);
  for (let a = 0; a < 4; ++a) assertColour(got[a * 5], [0x44, 0x01, 0x54], `diagonal (${a}, ${a}) is viridis at 0`);
  // Values are printed in its cells.
  const dimg = await app.image();
  const dc = sr.w / 4;
  assert.ok(holdsText(dimg, sr.x + dc + 2, sr.y + dc * 0.35, dc - 4, dc * 0.3, want[1]), 'the value of (0, 1) is printed');

  // Clicking divergence cell (1, 3) compares heads 1 and 3.
  await app.click('head divergence', { dx: 3.5 * sr.w / 4, dy: 1.5 * sr.h / 4 });
  await rest(app);
  const dr = await app.rect('diff h1-h3');
  assert.ok(dr, 'A/B is now heads 1 and 3');
  assert.ok(await app.rect('weights h1') && await app.rect('weights h3'), 'both maps are shown');
  await app.shot('compare-ab');

  // The difference map: RdBu centred on 0, range ± the largest |A − B|.
  const A = W[1], B = W[3];
  const diff = A.data.map((v, k) => f(v - B.data[k]));
  const amax = f(Math.max(...diff.map(Math.abs)));
  const [lo, span] = [f(-amax), f(amax - f(-amax))];
  const dpts = [], dwant = [];
  for (let i = 0; i < A.rows; ++i) for (let j = 0; j < A.cols; ++j) {
    dpts.push(cellPoint(dr, A.rows, A.cols, i, j));
    dwant.push(colour('rdbu', f(f(diff[i * A.cols + j] - lo) / span)));
  }
  const dgot = await app.pixels(dpts);
  for (let k = 0; k < dpts.length; ++k)
    assertColour(dgot[k], dwant[k], `diff cell (${Math.floor(k / A.cols)}, ${k % A.cols}) = ${diff[k]}`);
  // Masked in both heads (causal, above the diagonal): A − B = 0, the colormap's white centre.
  assertColour(dgot[1], colour('rdbu', 0.5), 'a cell masked in both heads');

  // Row statistics: a table per head.
  await app.click('Row statistics');
  await rest(app);
  await app.shot('compare-stats');
  await app.close();
});

test('two heads fill the grid\'s room: cells up to the Stages maps\' 64 px, every weight printed with a gap', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  const r = await app.setState({ num_heads: 2, d_model: 8, d_out: 8 });
  assert.ok(r.ok, JSON.stringify(r));
  await app.click('Compare heads');
  await rest(app);
  const views = await app.rect('Views window');
  for (const h of [0, 1]) {
    const m = await app.heatmap(`weights h${h}`);
    assert.ok(m, `weights h${h} is in the grid`);
    // Half the Views window each, 5 columns: far more room than the 40 px cells it had.
    assert.ok(m.cell_w > 50 && m.cell_w <= 64.01, `weights h${h}: cells ${m.cell_w.toFixed(1)} px wide`);
    assert.ok(m.w > views.w * 0.25, `weights h${h} is ${m.w.toFixed(0)} of ${views.w.toFixed(0)} px wide`);
    assert.equal(m.decimals, 4, 'PyTorch\'s 4 decimals');
    assert.ok(m.cells.every((row) => row.every((s) => s !== '')), 'every cell prints');
  }
  await app.close();
});
