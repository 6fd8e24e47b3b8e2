// decode.test.mjs: the Decode tab with the real mouse and keyboard. It opens on the
// last step; a click on the step slider moves to that step, ← and → move it by one;
// the weights row's printed cells are the full result's row t (getMatrix; and, in a
// second test, the Stages tab's weights map as drawn), and the K cache has t+1 rows.
// Issue 36: the KV cache combo's StreamingLLM policy, its evicted keys drawn absent,
// its sizes typed, its bytes; with sinks too, every item inside the window.
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

// Issue 36: StreamingLLM's cache from the Decode tab's KV cache combo, with the mouse and
// the keyboard. At the last step of 12 tokens the paper's 4 sink tokens + 4 recent keep
// keys 0–3 and 8–11: 4–7 are drawn absent in both caches and every row and weigh 0 in
// the full result; the kept keys' weights print the full result's; the sizes typed
// change what is evicted; the bytes bar is drawn. With sinks on too, in both languages,
// at 1280×720 and 1920×1080, every item is inside the window (screenshots to look at).
test('decode: StreamingLLM\'s cache from the combo evicts the middle, drawn absent; the bytes at the step', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  const res = await app.setState(state);
  assert.ok(res.ok, res.error);
  await app.click('Decode');
  assert.equal(await app.rect('Decode sink tokens'), null, 'the sizes show with StreamingLLM only');
  await app.click('KV cache policy');
  await app.click('KV cache: StreamingLLM');
  assert.deepEqual((await app.state()).kv_cache, { policy: 'streaming_llm', sink_tokens: 4, recent: 4 });
  assert.equal(await step(app), S - 1);
  const k = await app.heatmap('decode K cache');
  const evicted = [4, 5, 6, 7];
  assert.deepEqual(k.absent, evicted.flatMap((j) => [0, 1, 2, 3].map((d) => [j, d])), 'rows 4–7 absent in K');
  assert.deepEqual((await app.heatmap('decode V cache')).absent, k.absent, 'and in V');
  const dec = await app.heatmap('decode weights');
  assert.deepEqual(dec.absent, evicted.map((j) => [0, j]), 'columns 4–7 absent in the weights row');
  const W = await app.matrix('weights', 0);
  const row = W.data.slice((S - 1) * S, S * S);
  for (const j of evicted) {
    assert.equal(dec.cells[0][j], '', `an evicted key prints nothing (${j})`);
    assert.equal(row[j], 0, `and weighs 0 in the full result (${j})`);
  }
  assertRowPrints(dec, row, 'decode weights');
  assert.ok(await app.rect('kv cache bar StreamingLLM'), 'the bytes at this step are drawn');
  assert.ok(await app.rect('Decode cache line'));
  // Other sizes, typed: one sink token and the last two keys.
  await app.type('Decode sink tokens', '1', { number: true });
  await app.type('Decode recent', '2', { number: true });
  assert.deepEqual((await app.state()).kv_cache, { policy: 'streaming_llm', sink_tokens: 1, recent: 2 });
  assert.equal((await app.heatmap('decode weights')).absent.length, S - 3, 'keys 1–9 evicted');
  // ← to an early step: the cache still holds every key there.
  await app.click('Decode previous');
  for (let k = 0; k < 8; ++k) await app.tap('ArrowLeft', 3);
  assert.equal(await step(app), 2);
  assert.deepEqual((await app.heatmap('decode weights')).absent, [], 'at step 2 nothing is evicted yet');
  // Back to the full cache: the sizes stay in the state, nothing is absent.
  await app.click('KV cache policy');
  await app.click('KV cache: full');
  assert.deepEqual((await app.state()).kv_cache, { policy: 'full', sink_tokens: 1, recent: 2 });
  assert.deepEqual(app.errors, []);
  await app.close();
});

test('decode: StreamingLLM and sinks at 1280×720 and 1920×1080, English and 简体中文, inside the window', async (t) => {
  for (const viewport of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
    for (const lang of ['en', 'zh-CN']) {
      const app = await openApp(t, { viewport, query: `lang=${lang}` });
      const res = await app.setState({ ...state, tokens: Array.from({ length: 20 }, (_, i) => `w${i}`),
        sinks: { enabled: true, values: [1.5, -0.5] }, dropout: { p: 0.2, training: true, seed: 1 } });
      assert.ok(res.ok, res.error);
      await app.click('Decode');
      await app.click('KV cache policy');
      await app.click('KV cache: StreamingLLM');
      await app.click('Decode previous');
      for (const item of ['KV cache policy', 'Decode sink tokens', 'Decode recent', 'Decode cache line', 'Decode equality',
                          'kv cache bytes', 'kv cache bar', 'kv cache bar MHA', 'kv cache bar StreamingLLM',
                          'Decode sink share', 'decode query', 'decode K cache', 'decode V cache', 'decode scores',
                          'decode masked', 'decode weights', 'decode dropped', 'decode context']) {
        const r = await app.rect(item);
        assert.ok(r, `${item} is drawn`);
        assert.ok(r.x >= 0 && r.y >= 0 && r.x + r.w <= viewport.width + 0.5 && r.y + r.h <= viewport.height + 0.5,
                  `${item} inside the window: ${JSON.stringify(r)}`);
      }
      await app.shot(`decode-streaming-sinks-${lang}-${viewport.width}x${viewport.height}`);
      assert.deepEqual(app.errors, []);
      await app.close();
    }
  }
});
