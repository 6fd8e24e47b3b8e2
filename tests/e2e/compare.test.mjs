// compare.test.mjs: the Compare heads tab with real mouse events. The grid shows
// every head and a click selects one (the Stages tab follows); the A/B difference
// map's pixels are the diverging colormap at A − B computed here from getMatrix;
// the similarity map's pixels are the colormap at the mean Jensen–Shannon
// divergence computed here from the weights (so its diagonal is the colormap's 0);
// clicking a similarity cell (a, b) makes a and b the A/B pair.
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

test('compare heads: small multiples select a head; A/B difference and head similarity are drawn right', async (t) => {
  const app = await openApp(t);
  const res = await app.setState(preset.state);
  assert.ok(res.ok, res.error);
  await app.click('Compare heads');

  // Small multiples of every head's weights.
  for (let h = 0; h < 4; ++h) {
    const r = await app.rect(`weights h${h}`);
    assert.ok(r && r.w > 60 && r.h > 60, `weights h${h} is drawn in the grid (${JSON.stringify(r)})`);
  }
  await rest(app);
  await app.shot('compare-grid');

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

  // The similarity map: mean JSD of weight rows, colours from 0 (diagonal) to the largest pair.
  const W = [];
  for (let h = 0; h < 4; ++h) W.push(await app.matrix('weights', h));
  const sim = [...Array(4)].map((_, a) => [...Array(4)].map((_, b) => (a === b ? 0 : meanJsd(W[a], W[b]))));
  const hi = f(Math.max(...sim.flat().map(f)));
  assert.ok(hi > 0.001, 'the heads differ');
  const sr = await app.rect('head similarity');
  assert.ok(sr, 'the head similarity map is drawn');
  const pts = [], want = [];
  for (let a = 0; a < 4; ++a) for (let b = 0; b < 4; ++b) {
    pts.push(cellPoint(sr, 4, 4, a, b));
    want.push(colour('viridis', f(f(sim[a][b]) / hi)));
  }
  const got = await app.pixels(pts);
  for (let k = 0; k < 16; ++k) assertColour(got[k], want[k], `similarity cell (${k >> 2}, ${k & 3})`);
  for (let a = 0; a < 4; ++a) assertColour(got[a * 5], [0x44, 0x01, 0x54], `diagonal (${a}, ${a}) is viridis at 0`);

  // Clicking similarity cell (1, 3) compares heads 1 and 3.
  await app.click('head similarity', { dx: 3.5 * sr.w / 4, dy: 1.5 * sr.h / 4 });
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
