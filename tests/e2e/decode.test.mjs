// decode.test.mjs: the Decode tab with the real mouse and keyboard. It opens on the
// last step; a click on the step slider moves to that step, ← and → move it by one;
// the weights row's printed cells are the full result's row t (getMatrix; and, in a
// second test, the Stages tab's weights map as drawn), and the K cache has t+1 rows.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

const S = 12;
const state = {
  tokens: Array.from({ length: S }, (_, i) => `w${i}`),
  d_model: 8, d_out: 8, num_heads: 2, causal: true,
};

// The step shown: the weights row has t+1 columns.
async function step(app) {
  const m = await app.heatmap('decode weights');
  assert.ok(m, 'the decode weights row is drawn');
  return m.cols - 1;
}

// Every printed cell of a one-row map agrees with `row` (numbers) to the printed precision.
function assertRowPrints(info, row, what) {
  assert.ok(info.decimals >= 0, `${what}: the cells print values (decimals ${info.decimals})`);
  const half = 0.5 * 10 ** -info.decimals + 1e-6;
  for (let j = 0; j < info.cols; ++j) {
    const text = info.cells[0][j];
    if (text === '') continue;  // not in view
    assert.ok(Math.abs(Number(text) - row[j]) <= half, `${what}[${j}]: printed ${text}, value ${row[j]}`);
  }
}

test('decode: the step slider and the arrow keys move the step; each row is the full result\'s row t', async (t) => {
  const app = await openApp(t);
  const res = await app.setState(state);
  assert.ok(res.ok, res.error);
  await app.click('Decode');
  assert.equal(await step(app), S - 1, 'opens on the last token');
  assert.ok(await app.rect('Decode equality'), 'the equality line is drawn');
  assert.ok(await app.rect('kv cache bytes'), 'the cache size is drawn');

  // A click on the slider at the place of t = 4 (the grab travels over the slider's width).
  const slider = await app.rect('Decode step');
  assert.ok(slider, 'the step slider is drawn');
  const grab = Math.max(slider.h, slider.w / S);  // ImGui's grab: at least the frame's height
  const want = 4;
  await app.page.mouse.move(slider.x + grab / 2 + (slider.w - grab) * want / (S - 1), slider.y + slider.h / 2);
  await app.frames(1);
  await app.page.mouse.down();
  await app.frames(1);
  await app.page.mouse.up();
  await app.frames(2);
  const t0 = await step(app);
  assert.ok(Math.abs(t0 - want) <= 1, `the slider moved to about t = ${want} (got ${t0})`);

  // The arrow keys, with the pointer away from any control (the Views window keeps the focus).
  await app.tap('ArrowLeft', 3);
  assert.equal(await step(app), t0 - 1, '← goes back one step');
  await app.tap('ArrowRight');
  await app.tap('ArrowRight', 3);
  const t1 = await step(app);
  assert.equal(t1, t0 + 1, '→ goes forward one step');
  await app.click('Decode next');
  assert.equal(await step(app), t1 + 1, '▶ goes forward one step');
  await app.click('Decode previous');
  const tt = await step(app);
  assert.equal(tt, t1);

  // The K cache: t+1 rows, the appended one outlined.
  const k = await app.heatmap('decode K cache');
  assert.equal(k.rows, tt + 1);
  assert.equal(k.row_labels[tt], `w${tt}`);

  // The weights row as printed against the full result's row t.
  const W = await app.matrix('weights', 0);
  const row = W.data.slice(tt * S, tt * S + tt + 1);
  const dec = await app.heatmap('decode weights');
  assertRowPrints(dec, row, 'decode weights');
  await app.shot('decode');
  await app.close();
});

test('decode: the weights row of a step reads as the Stages tab\'s weights row t', async (t) => {
  const app = await openApp(t);
  const res = await app.setState(state);
  assert.ok(res.ok, res.error);
  await app.click('Decode');
  await app.click('Decode previous');
  await app.click('Decode previous');
  const tt = await step(app);
  assert.equal(tt, S - 3);
  const dec = await app.heatmap('decode weights');
  const W = await app.matrix('weights', 0);
  await app.click('Stages');
  const stages = await app.showMap('weights h0');
  assert.equal(stages.cols, S);
  const half = 0.5 * 10 ** -Math.min(stages.decimals, dec.decimals) + 1e-6;
  for (let j = 0; j <= tt; ++j) {
    const a = stages.cells[tt][j], b = dec.cells[0][j];
    if (a === '' || b === '') continue;
    assert.ok(Math.abs(Number(a) - Number(b)) <= half, `weights[${tt}][${j}]: Stages ${a}, Decode ${b}`);
  }
  for (let j = tt + 1; j < S; ++j) assert.equal(W.data[tt * S + j], 0, `the later keys weigh 0 (${j})`);
  await app.close();
});

// In 简体中文 at 1280×720 with GQA and a window (the widest set-up of the tab): the
// share link carries the step, every map and bar is inside the window, and each
// one-row map prints all its cells.
test('decode: 简体中文 at 1280×720 with GQA and a window, and a link that keeps the step', async (t) => {
  const viewport = { width: 1280, height: 720 };
  const app = await openApp(t, { viewport, query: 'lang=zh-CN' });
  const res = await app.setState({ ...state, num_heads: 4, num_kv_heads: 2, window: 4 });
  assert.ok(res.ok, res.error);
  await app.click('Decode');
  await app.click('Decode previous');
  assert.equal(await step(app), S - 2);
  for (const item of ['Decode appended', 'kv cache bytes', 'kv cache bar', 'kv cache bar MHA', 'kv cache bar window',
                      'decode query', 'decode K cache', 'decode V cache', 'decode scores', 'decode masked',
                      'decode weights', 'decode context']) {
    const r = await app.rect(item);
    assert.ok(r, `${item} is drawn`);
    assert.ok(r.x >= 0 && r.y >= 0 && r.x + r.w <= viewport.width && r.y + r.h <= viewport.height,
              `${item} inside the window: ${JSON.stringify(r)}`);
  }
  for (const map of ['decode scores', 'decode weights', 'decode context']) {
    const m = await app.heatmap(map);
    assert.ok(m.cells[0].every((c) => c !== ''), `${map}: every cell prints (${m.cells[0].join(' ')})`);
  }
  // The rows over the keys line up: one cell width, one left edge.
  const sc = await app.heatmap('decode scores'), wt = await app.heatmap('decode weights');
  assert.equal(wt.cell_w, sc.cell_w, 'weights cells as wide as scores cells');
  assert.equal(wt.x, sc.x, 'and starting at the same x');
  await app.shot('decode-zh-1280x720');
  // The address bar's link opens a second page on the same step.
  await app.frames(2);
  await app.page.waitForFunction(async () =>
    window.location.hash === '#' + (await window.attnviz.shareLink()).split('#')[1], null, { polling: 100 });
  const url = await app.page.evaluate(() => location.href);
  const other = await openApp(t, { viewport, hash: url.split('#')[1] });
  assert.equal(await step(other), S - 2, 'the link opened on step t = S − 2, not the last');
  await other.close();
  await app.close();
});
