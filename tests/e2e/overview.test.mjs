// overview.test.mjs: long maps drawn whole, then to the cells (issue 36, item 2). A state of
// S tokens (S above 256: an overview) loads; the Stages tab's weights map says it is an
// overview with its block and pool, and every pooled value it drew is the engine's
// (the max, then the mean, of its block of getRow's cells, computed here); the real wheel
// zooms it to the exact cells, where a hovered cell prints getRow's value and the
// Inspector explains it; a real right-drag pans without computing; Compare heads shows
// every head's overview and zooms likewise; in English and 简体中文, with screenshots
// at 1280×720, 1440×900 and 1920×1080 in tests/e2e/artifacts/overview-*.png.
//
// S is ATTNVIZ_OVERVIEW_S (2048 unless given): raise it to 8192 once the engine's long
// mode (no (S × S) matrices above 2,048 tokens) is in, nothing else changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

const S = Number(process.env.ATTNVIZ_OVERVIEW_S || 2048);
const H = 4;
const WORDS = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'and', 'looked', 'at', 'dog'];
const STATE = {
  tokens: Array.from({ length: S }, (_, i) => WORDS[i % WORDS.length]),
  d_model: 32, d_out: 32, num_heads: H, causal: true,
  embedding: { init: 'torch_randn', seed: 5 }, weights: { init: 'torch_linear', seed: 6 },
};
// map_zoom.h overview_block: the smallest power of two that keeps ≤ 256 pooled cells across.
const blockFor = (span) => { let b = 1; while (Math.ceil(span / b) > 256) b *= 2; return b; };

// Every pooled value `label` drew (its visible pooled rows, all or a sample) against the
// max or the mean of its block of getRow's cells, computed in the page. Mismatches, as text.
function poolMismatches(app, label, stage, head, rowsToCheck) {
  return app.page.evaluate(([l, st, h, pick]) => {
    const a = window.attnviz, m = a.heatmapInfo(l), b = m.block, S = m.rows, out = [];
    const p = m.pooled, rows = pick === 'all' ? [...Array(p.rows).keys()] : pick.map((f) => Math.floor(f * (p.rows - 1)));
    const enc = (v) => (Number.isNaN(v) ? 'nan' : v === -Infinity ? '-inf' : v === Infinity ? 'inf' : v);
    for (const r of rows) {
      const I = p.row0 + r, got = p.data[r];
      const cells = [];
      for (let i = I * b; i < Math.min(S, I * b + b); i++) cells.push(a.getRow(st, h, i).data);
      for (let c = 0; c < p.cols; c++) {
        const J = p.col0 + c, j0 = J * b, j1 = Math.min(S, j0 + b);
        let want;
        if (m.pool === 'max' || b === 1) {
          want = -Infinity;
          let nan = false;
          for (const row of cells) for (let j = j0; j < j1; j++) { if (Number.isNaN(row[j])) nan = true; else want = Math.max(want, row[j]); }
          if (nan) want = NaN;
          if (enc(want) !== got[c]) out.push(`${l} pooled (${I}, ${J}): drew ${got[c]}, max of its block is ${want}`);
        } else {
          let sum = 0;
          for (const row of cells) for (let j = j0; j < j1; j++) sum += row[j];
          want = Math.fround(sum / (cells.length * (j1 - j0)));
          const g = got[c];
          const ok = typeof g === 'number' ? Math.abs(g - want) <= 1e-6 * Math.max(1, Math.abs(want)) : g === enc(want);
          if (!ok) out.push(`${l} pooled (${I}, ${J}): drew ${g}, mean of its block is ${want}`);
        }
        if (out.length > 5) return out;
      }
    }
    return out;
  }, [label, stage, head, rowsToCheck]);
}

// Zooms heatmap `label` with real wheel notches (Ctrl held: the tab may scroll) about the
// point at fractions (fx, fy) of its cells until it draws exact cells that print values.
async function zoomToCells(app, label, fx, fy) {
  if (app.stagesTab) await app.showMap(label);  // the Stages flow may scroll: the map wholly in view
  let m = await app.mapSettled(label);
  const x = m.x + m.w * fx, y = m.y + m.h * fy;
  await app.page.mouse.move(x, y);
  await app.frames(2);
  await app.page.keyboard.down('Control');
  const blocks = [m.block];
  for (let k = 0; k < 60 && !(m.block === 1 && m.decimals >= 0); k++) {
    await app.page.mouse.wheel(0, -100);
    m = await app.heatmap(label);
    if (m.block !== blocks[blocks.length - 1]) blocks.push(m.block);
  }
  await app.page.keyboard.up('Control');
  m = await app.mapSettled(label);
  return { m, blocks, x, y };
}

// The hovered cell of `label` (the pointer at x, y): its printed text against getRow's
// value, formatted as the map prints it.
async function checkHoveredCell(app, label, stage, head, x, y) {
  await app.page.mouse.move(x, y);
  await app.frames(2);
  const m = await app.mapSettled(label);
  assert.ok(m.hover, `${label}: a cell is hovered`);
  const [i, j] = m.hover;
  const row = await app.page.evaluate(([st, h, r]) => Array.from(window.attnviz.getRow(st, h, r).data), [stage, head, i]);
  const text = m.cells[i - m.cells_row0][j - m.cells_col0];
  const v = row[j];
  const want = v === -Infinity ? '-inf' : (Math.abs(v) < 0.5 * 10 ** -m.decimals ? 0 : v).toFixed(m.decimals);
  assert.equal(text, want, `${label} cell (${i}, ${j}) prints ${text}, getRow holds ${v}`);
  return { i, j, v };
}

async function shots(app, tag) {
  for (const [w, h] of [[1280, 720], [1440, 900], [1920, 1080]]) {
    await app.page.setViewportSize({ width: w, height: h });
    await app.frames(6);
    await app.mapSettled(app.shotLabel);
    await app.shot(`overview-${tag}-${w}x${h}`);
  }
  await app.page.setViewportSize({ width: 1280, height: 720 });
  await app.frames(6);
}

for (const lang of ['en', 'zh-CN']) {
  test(`a ${S}-token map is an overview, zooms to exact cells, pans, and Compare heads shows every head (${lang})`,
    { timeout: 900000 }, async (t) => {
      const app = await openApp(t, { viewport: { width: 1280, height: 720 }, query: `lang=${lang}` });
      const r = await app.setState(STATE);
      assert.equal(r.ok, true, r.error);
      const label = 'weights h0';
      app.stagesTab = true;
      let m = await app.mapSettled(label);
      assert.equal(m.overview, true, 'above 256 tokens the map is an overview');
      assert.equal(m.rows, S);
      assert.equal(m.block, blockFor(S), `block for ${S} tokens`);
      assert.equal(m.pool, 'max', 'max pooled by default');
      const times = lang === 'en' ? `max of ${m.block}\u00D7${m.block} cells` : `${m.block}\u00D7${m.block} 个格子的最大值`;
      assert.ok(m.caption.includes(times), `the colour bar says "${times}": ${m.caption}`);
      assert.equal(m.pooled.rows, Math.ceil(S / m.block), 'the whole map is in view');
      assert.ok(m.values_hint, 'the title says why no values print');
      assert.deepEqual(await poolMismatches(app, label, 'weights', 0, [0, 0.37, 0.5, 1]), []);
      app.shotLabel = label;
      if (lang === 'en') await shots(app, 'stages');
      else await app.shot('overview-stages-zh-1280x720');

      // The mean, from View → Overview cells.
      await app.click('View');
      await app.click('Overview cells');
      await app.click('mean of each block');
      m = await app.mapSettled(label);
      assert.equal(m.pool, 'mean');
      assert.deepEqual(await poolMismatches(app, label, 'weights', 0, [0.25, 0.75]), []);
      await app.click('View');
      await app.click('Overview cells');
      await app.click('max of each block');
      m = await app.mapSettled(label);
      assert.equal(m.pool, 'max');

      // Zoom with the wheel to the exact cells, in the lower triangle (causal).
      const z = await zoomToCells(app, label, 0.3, 0.7);
      assert.equal(z.m.block, 1, `zoomed to the exact cells through blocks ${z.blocks}`);
      assert.ok(z.blocks.length >= 3, `the block falls step by step: ${z.blocks}`);
      assert.ok(z.m.decimals >= 0, 'zoomed cells print their values');
      assert.deepEqual(await poolMismatches(app, label, 'weights', 0, 'all'), [], 'exact cells are getRow\'s');
      const cell = await checkHoveredCell(app, label, 'weights', 0, z.x, z.y);
      const insp = await app.page.evaluate(() => window.attnviz.inspectorText());
      assert.ok(insp.length > 0, 'the Inspector explains the hovered cell');
      await app.shot(`overview-zoomed-${lang}`);

      // Pan with a real right-drag: the view moves, the kept rows are drawn at once.
      const before = await app.heatmap(label);
      await app.page.mouse.move(z.x, z.y);
      await app.page.mouse.down({ button: 'right' });
      for (let k = 1; k <= 6; k++) {
        await app.page.mouse.move(z.x + 10 * k, z.y - 10 * k);  // right and up: the pointer stays on the map
        await app.frames(1);
      }
      await app.page.mouse.up({ button: 'right' });
      const after = await app.heatmap(label);
      // The cells follow the pointer: 60 px right and up at cell_w × cell_h a cell (ImGui's
      // 2-px drag threshold eats a little): earlier columns come in, later rows.
      const dc = before.col0 - after.col0, dr = after.row0 - before.row0;
      assert.ok(dc > 0.6 * 60 / before.cell_w && dc < 1.05 * 60 / before.cell_w &&
                dr > 0.6 * 60 / before.cell_h && dr < 1.05 * 60 / before.cell_h,
                `the drag panned the cells with the pointer: row0 ${before.row0} → ${after.row0}, col0 ${before.col0} → ${after.col0}, cells ${before.cell_w} px`);
      assert.equal(after.pending, 0, 'a pan within the kept window computes nothing');
      const moved = await checkHoveredCell(app, label, 'weights', 0, z.x, z.y);
      assert.ok(moved.i !== cell.i || moved.j !== cell.j, 'another cell under the pointer after the pan');
      // A double-click fits the whole map again.
      await app.page.mouse.dblclick(z.x, z.y);
      m = await app.mapSettled(label);
      assert.equal(m.block, blockFor(S));

      // Compare heads: every head's overview, each the engine's; one zooms to its cells.
      await app.click('Compare heads');
      await app.click('All heads');
      app.stagesTab = false;
      for (let h = 0; h < H; h++) {
        const g = await app.mapSettled(`weights h${h}`);
        assert.equal(g.overview, true, `head ${h} is an overview`);
        assert.equal(g.pooled.rows, Math.ceil(S / g.block), `head ${h} whole`);
        assert.deepEqual(await poolMismatches(app, `weights h${h}`, 'weights', h, [0, 0.6, 1]), []);
      }
      app.shotLabel = `weights h${H - 1}`;
      if (lang === 'en') await shots(app, 'compare');
      else await app.shot('overview-compare-zh-1280x720');
      const cz = await zoomToCells(app, 'weights h1', 0.2, 0.8);
      assert.equal(cz.m.block, 1);
      await checkHoveredCell(app, 'weights h1', 'weights', 1, cz.x, cz.y);
      await app.shot(`overview-compare-zoomed-${lang}`);
      assert.deepEqual(app.errors, []);
      await app.close();
    });
}

// Long mode (above 2,048 tokens the engine keeps no (S × S) matrix): every tab draws an
// overview or says in a sentence why a view is not drawn at this length; nothing is blank,
// nothing throws. S_LONG is ATTNVIZ_OVERVIEW_LONG_S (4096 unless given; 8192 works too).
const S_LONG = Number(process.env.ATTNVIZ_OVERVIEW_LONG_S || 4096);
test(`long mode at ${S_LONG} tokens: every tab shows an overview or says why not`, { timeout: 900000 }, async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  const st = { ...STATE, tokens: Array.from({ length: S_LONG }, (_, i) => WORDS[i % WORDS.length]) };
  const r = await app.setState(st);
  assert.equal(r.ok, true, r.error);
  const m = await app.mapSettled('weights h0', 300);
  assert.equal(m.overview, true);
  assert.equal(m.block, blockFor(S_LONG));
  assert.equal(await app.page.evaluate(() => window.attnviz.getMatrix('weights', 0)), null, 'no (S × S) matrix in long mode');
  assert.deepEqual(await poolMismatches(app, 'weights h0', 'weights', 0, [0, 0.5, 1]), []);
  await app.shot('overview-long-stages');
  const tabs = [['Q K V & output'], ['Compare heads', 'All heads'], ['Compare heads', 'A/B'],
                ['Compare heads', 'Row statistics'], ['Lines'], ['Edit values'], ['Decode']];
  const sentence = { 'A/B': true, 'Row statistics': true, Lines: true };
  for (const [tab, sub] of tabs) {
    await app.click(tab);
    if (sub) await app.click(sub);
    await app.frames(3);
    const name = sub || tab;
    const drawn = await app.page.evaluate(() => window.attnviz.heatmapsDrawn());
    const said = await app.rect('long input sentence');
    if (sentence[name]) assert.ok(said, `${name} says why it is not drawn at ${S_LONG} tokens`);
    if (name === 'All heads' || name === 'A/B') {
      for (const l of name === 'All heads' ? ['weights h0', 'weights h3'] : ['weights h0', 'weights h1']) {
        const g = await app.mapSettled(l, 300);
        assert.equal(g.overview, true, `${name}: ${l} is an overview`);
      }
    }
    if (name !== 'Row statistics' && name !== 'Lines' && name !== 'Edit values')
      assert.ok(drawn.length > 0, `${name} draws maps at ${S_LONG} tokens`);
    await app.shot(`overview-long-${name.replace(/[^A-Za-z]+/g, '-')}`);
  }
  assert.deepEqual(app.errors, []);
  await app.close();
});
