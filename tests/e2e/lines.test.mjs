// lines.test.mjs: the Lines tab (BertViz-style head view) with real mouse events.
// Pixels in the drawing area are attributed to heads by colour (Okabe–Ito, one per
// head): hovering a query token leaves only that token's lines, reaching exactly
// the keys it attends to; unticking a head removes its colour; clicking a token
// pins its link so the Stages tab outlines that row; 256 tokens stay smooth.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';

const preset = JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/presets/04-the-cat.json'), 'utf8'));
const HEAD_RGB = [[230, 159, 0], [86, 180, 233], [0, 158, 115], [240, 228, 66]];  // ui/app/panels/panel_lines.cpp
const MIN_WEIGHT = 0.01;  // lines below this are not drawn (panel_lines.cpp)

// Moves the mouse where nothing reacts (the bottom-right corner of the Views window).
async function rest(app) {
  await app.page.mouse.move(1430, 890);
  await app.frames(3);
}

// Classifies every pixel of `area` by head: a pixel belongs to head h when it differs
// from the background in the direction of h's colour (a line of opacity w over the
// background is bg + w·(colour − bg)); blends of several heads match none.
// Returns {bg, count: [pixels per head], any: coloured pixels (blends included),
// left / right: screen y of coloured pixels in 3-pixel strips at the two ends}.
async function analyse(app, r) {
  const heads = HEAD_RGB;
  const img = await app.image();
  {
    const x0 = Math.ceil(r.x), y0 = Math.ceil(r.y), w = Math.floor(r.w), h = Math.floor(r.h);
    const bg = img.at(x0 + w - 2, y0 + h + 24);  // below the last row: background
    const d = { at: (x, y) => img.at(x0 + x, y0 + y) };
    const dirs = heads.map((rgb) => {
      const v = rgb.map((x, k) => x - bg[k]);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
    const count = heads.map(() => 0);
    const coloured = (x, y) => {
      const px = d.at(x, y);
      const v = [px[0] - bg[0], px[1] - bg[1], px[2] - bg[2]];
      const n = Math.hypot(...v);
      if (n < 18) return -1;
      let best = -1, bestCos = 0.985;
      dirs.forEach((u, k) => {
        const cos = (v[0] * u[0] + v[1] * u[1] + v[2] * u[2]) / n;
        if (cos > bestCos) { bestCos = cos; best = k; }
      });
      return best === -1 ? -2 : best;  // -2: coloured, but a blend
    };
    let any = 0;
    for (let y = 0; y < h; ++y) for (let x = 0; x < w; ++x) {
      const k = coloured(x, y);
      if (k >= 0) ++count[k];
      if (k !== -1) ++any;
    }
    // y (screen) of coloured pixels in 3-pixel strips just inside each end of the lines.
    const strip = (xs) => {
      const ys = [];
      for (let y = 0; y < h; ++y) if (xs.some((x) => coloured(x, y) !== -1)) ys.push(y0 + y);
      return ys;
    };
    return { bg, count, any, left: strip([1, 2, 3]), right: strip([w - 4, w - 3, w - 2]) };
  }
}

const within = (y, r, pad = 0) => y >= r.y - pad && y <= r.y + r.h + pad;

test('lines: one colour per head, hover shows one token, a head can be hidden, a click pins', async (t) => {
  const app = await openApp(t);
  const res = await app.setState(preset.state);
  assert.ok(res.ok, res.error);
  await app.click('Lines');
  await rest(app);

  const area = await app.rect('lines');
  assert.ok(area && area.w > 150 && area.h > 100, `the drawing area is drawn (${JSON.stringify(area)})`);
  const q = [], k = [];
  for (let i = 0; i < 8; ++i) {
    q.push(await app.rect(`lines q${i}`));
    k.push(await app.rect(`lines k${i}`));
    assert.ok(q[i] && k[i], `token ${i} is listed on both sides`);
    assert.ok(q[i].x + q[i].w <= area.x + 1 && k[i].x >= area.x + area.w - 1, 'queries left, keys right');
  }
  const all = await analyse(app, area);
  await app.shot('lines-all');
  t.diagnostic(`pixels per head: ${all.count}; coloured: ${all.any}; background ${all.bg}`);
  for (let h = 0; h < 4; ++h) assert.ok(all.count[h] > 150, `head ${h}'s colour is drawn (${all.count})`);

  // Hover query 5 ("chased"): only its lines, to exactly the keys some head gives ≥ 0.01.
  const W = [];
  for (let h = 0; h < 4; ++h) W.push(await app.matrix('weights', h));
  const reached = [...Array(8).keys()].filter((j) => W.some((m) => m.data[5 * 8 + j] >= MIN_WEIGHT));
  assert.deepEqual(reached, [0, 1, 2, 3, 4, 5], 'causal: query 5 sees keys 0..5');
  await app.page.mouse.move(q[5].x + q[5].w / 2, q[5].y + q[5].h / 2);
  await app.frames(3);
  const one = await analyse(app, area);
  await app.shot('lines-hover-q5');
  t.diagnostic(`hovering q5: ${one.any} coloured pixels, left strip y ${one.left[0]}..${one.left.at(-1)}`);
  assert.ok(one.any < all.any / 2, `fewer lines while hovering (${one.any} < ${all.any} coloured pixels)`);
  assert.ok(one.left.length > 0, 'lines leave query 5');
  for (const y of one.left) assert.ok(within(y, q[5], 2), `every line starts at query 5 (y ${y})`);
  for (let j = 0; j < 8; ++j) {
    const hits = one.right.filter((y) => within(y, k[j])).length;
    if (reached.includes(j)) assert.ok(hits > 0, `a line reaches key ${j}`);
    else assert.equal(hits, 0, `no line reaches key ${j} (masked)`);
  }
  // Untick head 2: its colour disappears, the others stay.
  await rest(app);
  await app.click('lines head 2');
  await rest(app);
  const without = await analyse(app, area);
  await app.shot('lines-without-h2');
  t.diagnostic(`without head 2: ${without.count}`);
  assert.ok(without.count[2] <= all.count[2] * 0.03, `head 2's colour is gone (${all.count[2]} → ${without.count[2]})`);
  for (const h of [0, 1, 3])
    assert.ok(without.count[h] > all.count[h] * 0.5, `head ${h} is still drawn (${all.count[h]} → ${without.count[h]})`);
  await app.click('lines head 2');
  await rest(app);
  const back = await analyse(app, area);
  assert.ok(back.count[2] > all.count[2] * 0.9, 'ticking it again brings it back');

  // Other views follow: clicking query 5 pins its strongest link in the selected head
  // (head 0), and the Stages tab outlines row 5 of weights h0.
  const brightest = (px) => Math.max(...px.map((p) => Math.min(...p)));
  const border = async (row) => {
    const r = await app.showMap('weights h0');  // the Stages flow may scroll at this size
    const x = r.x + 7.5 * r.w / 8, y = Math.floor(r.y + row * r.h / 8);  // column 7: masked, dark
    return brightest(await app.pixels([[x, y - 1], [x, y], [x, y + 1]]));
  };
  await app.click('Stages');
  await rest(app);
  const before = await border(5);
  await app.click('Lines');
  await app.click('lines q5');
  await rest(app);
  await app.click('Stages');
  await rest(app);
  const pinned5 = await border(5), other3 = await border(3);
  t.diagnostic(`row 5 border brightness ${before} → ${pinned5} (row 3: ${other3})`);
  assert.ok(pinned5 > 150 && before < 100 && other3 < 100, 'row 5 of weights h0 is outlined once query 5 is pinned');
  await app.close();
});

test('lines: 256 tokens draw, and the token columns scroll', async (t) => {
  const app = await openApp(t);
  const state = structuredClone(preset.state);
  state.tokens = [...Array(256).keys()].map((i) => `w${i}`);
  state.causal = false;
  const res = await app.setState(state);
  assert.ok(res.ok, res.error);
  await app.click('Lines');
  await rest(app);
  assert.ok(await app.rect('lines'), 'the drawing area is drawn');
  assert.ok(await app.rect('lines q0'), 'the first query is visible');
  assert.equal(await app.rect('lines q255'), null, 'the last one is scrolled out of view');

  const s0 = await app.stats();
  await app.page.mouse.move(700, 400);
  for (let i = 0; i < 30; ++i) {
    await app.page.mouse.move(600 + (i % 10) * 40, 200 + (i % 7) * 60);
    await app.frames(1);
  }
  const s1 = await app.stats();
  const ms = (s1.frame_ms_avg * s1.frames - s0.frame_ms_avg * s0.frames) / (s1.frames - s0.frames);
  // Reported, never asserted: speed is for benchmarks, not pass/fail tests.
  t.diagnostic(`S = 256: ${ms.toFixed(2)} ms of CPU per frame`);
  assert.ok(s1.frames - s0.frames >= 30, 'frames kept coming while the mouse moved');
  await app.shot('lines-256');
  await app.close();
});
