// sweep.test.mjs: the maps stay readable across the space people use, in the real page
// (issue 31). tests/ui/test_sweep.cpp walks every preset and shape at three sizes in
// both languages on every tab natively; here the same checks run in Chromium on the
// shapes that broke maps, each on every tab at 1280×720 in 简体中文, and every preset's
// Stages tab at 1920×1080:
//   * no map's panel (title, labels, cells, colour bar) overlaps another's;
//   * no map runs off the Views window or under its scroll bar;
//   * every map prints values or says in its title why not; the Decode rows print;
//   * K and V maps of a head are the columns of the K/V head it reads (GQA);
//   * the × marks exactly the cells dropout zeroed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';

const words = (n) => Array.from({ length: n }, (_, i) => ['the', 'cat', 'sat', 'on', 'a', 'mat', 'and', 'looked'][i % 8]);
const shape = (tokens, d_model, d_out, num_heads, extra = {}) => ({
  tokens, d_model, d_out, num_heads, causal: true, dropout: { p: 0.5, training: true, seed: 3 }, ...extra,
});
const SHAPES = {
  'head_dim 1, 4 heads': shape(words(6), 4, 4, 4),
  'head_dim 2 (tutorial 004)': shape(['Your', 'journey', 'starts', 'with', 'one', 'step'], 3, 2, 1),
  'long tokens': shape(['Internationalization', 'of', 'the', 'counterrevolutionaries'], 4, 4, 1),
  '8 heads, GQA 2': shape(words(6), 16, 16, 8, { num_kv_heads: 2 }),
  '512 tokens': shape(words(512), 8, 8, 2),
};
const TABS = [['Stages'], ['Q K V & output'], ['Compare heads', 'All heads'], ['Compare heads', 'A/B'],
              ['Compare heads', 'Row statistics'], ['Decode']];

// Everything wrong with the maps drawn in the last frame, as sentences (in the page).
function problems(page) {
  return page.evaluate(() => {
    const a = window.attnviz, out = [];
    const views = a.itemRect('Views window'), inside = a.itemRect('Views window inside');
    const st = a.getState(), H = st.num_heads, G = st.num_kv_heads || H;
    const panels = [];
    const fmt = (v, d) => { const s = v.toFixed(d); return /^-0\.?0*$/.test(s) ? s.slice(1) : s; };
    for (const label of a.heatmapsDrawn().sort()) {
      const m = a.heatmapInfo(label);
      if (!m) continue;
      const p = m.panel;
      if (p.y + p.h <= inside.y || p.y >= inside.y + inside.h) continue;  // scrolled out of view
      panels.push([label, p]);
      if (p.x < views.x - 0.5) out.push(`${label} starts left of the Views window`);
      if (Math.max(p.x + p.w, m.x + m.w) > inside.x + inside.w + 0.5) out.push(`${label} runs under the scroll bar or off the window`);
      if (m.decimals < 0 && !m.values_hint) out.push(`${label} prints no values and says nothing`);
      if (m.rows === 1 && label.startsWith('decode') && (m.cell_h < 12 || m.decimals < 0)) out.push(`${label} is a sliver`);
      const kv = /^(K|V) (?:kv|h)(\d+)$/.exec(label);
      if (kv && m.decimals >= 0 && (label.includes('kv') || G === H)) {
        const full = a.getMatrix(kv[1], 0), g = Number(kv[2]), hd = full.cols / G;
        for (let i = 0; i < full.rows; i++)
          for (let j = 0; j < hd; j++)
            if (m.cells[i][j] !== '' && m.cells[i][j] !== fmt(full.data[i * full.cols + g * hd + j], m.decimals))
              { out.push(`${label}[${i}][${j}] shows ${m.cells[i][j]}, K/V head ${g} holds ${full.data[i * full.cols + g * hd + j]}`); i = full.rows; break; }
      }
      const dh = /^dropped h(\d+)$/.exec(label);
      if (dh && m.overview) {  // a long map (issue 36): × only on exact cells, those of its view
        const d = a.getMatrix('dropped', Number(dh[1]));
        if (m.block > 1 && m.dropped.length) out.push(`${label}: × on a pooled cell`);
        for (const [i, j] of m.dropped) if (d.data[i * d.cols + j] !== 0) { out.push(`${label}: × on kept cell ${i},${j}`); break; }
      } else if (dh) {
        const w = a.getMatrix('weights', Number(dh[1])), d = a.getMatrix('dropped', Number(dh[1]));
        const marked = new Set(m.dropped.map(([i, j]) => i * d.cols + j));
        for (let k = 0; k < d.data.length; k++)
          if (w.data[k] !== 0 && (d.data[k] === 0) !== marked.has(k)) { out.push(`${label}: cell ${k} × is ${marked.has(k)}`); break; }
      }
    }
    for (let x = 0; x < panels.length; x++)
      for (let y = x + 1; y < panels.length; y++) {
        const [la, pa] = panels[x], [lb, pb] = panels[y];
        const w = Math.min(pa.x + pa.w, pb.x + pb.w) - Math.max(pa.x, pb.x);
        const h = Math.min(pa.y + pa.h, pb.y + pb.h) - Math.max(pa.y, pb.y);
        if (w > 1 && h > 1) out.push(`${la} and ${lb} overlap`);
      }
    return out;
  });
}

async function sweepTabs(app, name, tag) {
  let open = null;
  for (const [tab, sub] of TABS) {
    if (tab !== open) await app.click(tab);  // Compare heads stays open from one of its tabs to the next
    open = tab;
    if (sub) await app.click(sub);
    await app.frames(3);
    const p = await problems(app.page);
    if (p.length) await app.shot(`sweep-${tag}-${name.replace(/\W+/g, '-')}-${(sub || tab).replace(/\W+/g, '-')}`);
    assert.deepEqual(p, [], `${name} on ${tab}${sub ? ' → ' + sub : ''} (${tag})`);
  }
  await app.click('Stages');
}

test('sweep at 1280×720 in zh-CN: the shapes that broke maps, every tab', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 }, query: 'lang=zh-CN' });
  for (const [name, state] of Object.entries(SHAPES)) {
    assert.equal((await app.setState(state)).ok, true, name);
    await sweepTabs(app, name, '1280x720-zh-CN');
  }
  await app.close();
});

test('sweep at 1920×1080: every preset, chosen from the menu, its Stages tab', async (t) => {
  const app = await openApp(t, { viewport: { width: 1920, height: 1080 } });
  const dir = path.join(repoRoot, 'assets/presets');
  const list = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).title);
  assert.ok(list.length >= 11, 'the presets are listed');
  for (const title of list) {
    await app.click('Presets');
    await app.click(title);
    await app.frames(3);
    const p = await problems(app.page);
    if (p.length) await app.shot(`sweep-1920x1080-${title.replace(/\W+/g, '-')}`);
    assert.deepEqual(p, [], `${title} on Stages (1920×1080)`);
  }
  await app.close();
});

// Edit values, as the learner typed it: 1e10 in a cell, then 2 over it (issue 31 item 9).
test('Edit values: 1e10 typed into a cell reads as 1.0000e+10 and is typed over again', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  await app.click('Edit values');
  await app.frames(2);
  await app.type('embedding[0][0]', '1e10');
  assert.equal((await app.state()).embedding.values[0][0], 1e10);
  await app.type('embedding[0][0]', '2');
  assert.equal((await app.state()).embedding.values[0][0], 2, 'the big number did not stick');
  await app.close();
});
