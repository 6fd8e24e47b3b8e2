// embed.test.mjs: the embeddable app (build/embed/attnviz-embed.js, docs/ui.md
// "Embedded views"). A notebook-like page, opened from a file:// URL with the network cut
// (the context is offline and every request but file:, blob: and data: fails the test),
// mounts four views from the packed file inlined in a <script> (twice, as two outputs
// would, beside a require.js-like define), as a notebook output would: two English ones
// 960 px wide, a Chinese one 1200 px wide opened from a gzip'd .safetensors state file,
// and one whose state file is refused; and a fifth in a sandboxed frame with no storage. Real mouse and keys:
// each view is its own module, and keys go to the view that was clicked. Then the same
// numbers as the page's, and "Open as a page ↗" opens the view's state standalone, offline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { openApp, repoRoot, artifactsDir } from './harness.mjs';

const PACKED = process.env.ATTNVIZ_EMBED_FILE || path.join(repoRoot, 'build/embed/attnviz-embed.js');
const MAX_BYTES = 1 << 20;  // the budget: the Python package inlines this file in every output
const preset = (name) => JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/presets', name), 'utf8')).state;

// A .safetensors state file (docs/engine.md, "State files"): the state's JSON in the
// metadata, its explicit embedding as the tensor embedding.values. gzip'd, base64.
function stateFile(state, values) {
  const data = Buffer.from(new Float32Array(values.flat()).buffer);
  const header = { __metadata__: { attnviz_state_format: '1', attnviz_state: JSON.stringify(state) } };
  if (values.length) header['embedding.values'] = { dtype: 'F32', shape: [values.length, values[0].length], data_offsets: [0, data.length] };
  let text = Buffer.from(JSON.stringify(header));  // UTF-8: the tokens are Chinese
  text = Buffer.concat([text, Buffer.alloc((8 - ((8 + text.length) % 8)) % 8, ' ')]);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(text.length));
  return zlib.gzipSync(Buffer.concat([len, text, data])).toString('base64');
}
const X = [[0.5, -1, 0.25, 2], [1, 0, -0.5, 0.75], [-2, 0.5, 1, 0], [0.125, 1.5, -1, -0.25]];
const fileState = { version: 1, tokens: ['小猫', '坐在', '椅子', '上'], d_model: 4, d_out: 4, num_heads: 2,
                    embedding: { values: 'embedding.values' }, weights: { init: 'torch_linear', seed: 7 } };
const refused = { version: 1, tokens: ['a', 'b'], d_model: 6, d_out: 6, num_heads: 4 };  // 6 heads' worth cannot split 4 ways

function notebookPage(dir) {
  const cell = (id, width, height) =>
    `<div class="cell"><div class="in">In [${id}]:</div><div class="out" style="width:${width}px"><div id="v${id}"></div></div></div>`;
  const mounts = {
    v1: { height: 640 },
    v2: { height: 640, lang: 'en', title: 'the cat (given as a state)', state: preset('04-the-cat.json') },
    v3: { height: 640, lang: 'zh-CN', stateFile: stateFile(fileState, X) },
    v4: { height: 360, lang: 'en', stateFile: stateFile(refused, []) },
  };
  const packed = fs.readFileSync(PACKED, 'utf8');
  // A sandboxed output frame (VS Code, Colab): scripts only, an opaque origin, so no storage.
  const framed = `<!doctype html><meta charset="utf-8"><body style="margin:0"><div id="f"></div><script>${packed}</script>` +
    `<script>window.mountedHere = attnvizEmbed.mount(document.getElementById('f'), {height: 400, state: ${JSON.stringify(preset('09-gqa.json'))}})` +
    `.then(() => 'ok', (e) => String(e));</script>`;
  const srcdoc = framed.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>notebook</title><style>
body { margin: 0; padding: 16px 24px; background: #fff; font: 14px sans-serif; }
.cell { display: flex; gap: 8px; margin: 0 0 16px; } .in { width: 60px; color: #303f9f; font-family: monospace; }
</style></head><body>
${cell(1, 960, 640)}${cell(2, 960, 640)}${cell(3, 1200, 640)}${cell(4, 960, 360)}
<div class="cell"><div class="in">In [5]:</div><iframe sandbox="allow-scripts" style="width:960px;height:404px;border:0" srcdoc="${srcdoc}"></iframe></div>
<script>window.define = function () { window.defineCalled = true; }; window.define.amd = {};  // as require.js in the classic notebook</script>
<script>${packed}</script>
<script>${packed}</script>
<script>
window.mounted = {};
const opts = ${JSON.stringify(mounts).replace(/</g, '\\u003c')};
for (const id of Object.keys(opts)) {
  window.mounted[id] = attnvizEmbed.mount(document.getElementById(id), opts[id])
    .then(() => ({ ok: true }), (e) => ({ ok: false, error: String(e && e.message) }));
}
</script></body></html>`;
  const file = path.join(dir, 'notebook.html');
  fs.writeFileSync(file, html);
  return 'file://' + file;
}

let browser, context, page, dir;
const requests = [];
const errors = [];
const views = (fn, arg) => page.evaluate(fn, arg);

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnviz-embed-'));
  // The page's browser (openApp starts it) serves the notebook too: one browser for the file.
  const app = await openApp({}, { viewport: { width: 1280, height: 800 } });
  browser = app.page.context().browser();
  await app.close();
  context = await browser.newContext({ viewport: { width: 1320, height: 2900 }, locale: 'en-US', offline: true });
  context.on('request', (r) => requests.push(r.url()));
  context.on('page', (p) => {
    p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    p.on('pageerror', (e) => errors.push(e.message));
  });
  page = await context.newPage();
  await page.goto(notebookPage(dir));
  await page.waitForFunction(() => Object.keys(window.mounted || {}).length === 4);
  await page.evaluate(() => Promise.all(Object.values(window.mounted)));
});
after(async () => {
  await context?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Real input at an item of view k (0-based): its canvas's place on the page + itemRect.
async function itemPoint(k, label) {
  return views(([k, label]) => {
    const v = window.attnvizViews[k];
    const c = v.element.querySelector('canvas').getBoundingClientRect();
    const r = v.itemRect(label);
    return r && { x: c.left + r.x + r.w / 2, y: c.top + r.y + r.h / 2 };
  }, [k, label]);
}
async function frames(k, n = 2) {
  const start = await views(([k, n]) => { const v = window.attnvizViews[k]; v.requestFrames(n); return v.frameStats().frames; }, [k, n]);
  await page.waitForFunction(([k, s]) => window.attnvizViews[k].frameStats().frames >= s, [k, start + n]);
}
async function click(k, label) {
  const p = await itemPoint(k, label);
  assert.ok(p, `view ${k + 1} draws no "${label}"`);
  await page.mouse.move(p.x, p.y);
  await frames(k, 1);
  await page.mouse.down();
  await frames(k, 1);
  await page.mouse.up();
  await frames(k, 2);
}
const weights = (k) => views((k) => window.attnvizViews[k].getMatrix('weights', 0), k);

test('the packed file is one file of at most 1 MB, and loads with no network', async () => {
  const size = fs.statSync(PACKED).size;
  assert.ok(size <= MAX_BYTES, `attnviz-embed.js is ${size} bytes, over ${MAX_BYTES}`);
  const text = fs.readFileSync(PACKED, 'utf8');
  assert.ok(!/<\/script|<!--/i.test(text), 'nothing in it may end a <script> element');
  const mounted = await views(() => Promise.all(Object.values(window.mounted)));
  assert.deepEqual(mounted.slice(0, 3), [{ ok: true }, { ok: true }, { ok: true }]);
  const outside = requests.filter((u) => !/^(file|blob|data):/.test(u));
  assert.deepEqual(outside, [], 'no request may leave the page');
  // Evaluated twice (two outputs carry it): one attnvizEmbed, four views, each its own element.
  const v = await views(() => ({
    n: window.attnvizViews.length,
    same: window.attnvizViews.every((a, i) => a.element === document.getElementById('v' + (i + 1))),
    api: ['getState', 'setState', 'getMatrix', 'itemRect', 'heatmapInfo', 'headScores', 'language', 'setLanguage', 'ready']
      .every((m) => window.attnvizViews.every((a) => m in a)),
    hash: location.hash, title: document.title,
  }));
  assert.deepEqual(v, { n: 4, same: true, api: true, hash: '', title: 'notebook' });
  assert.equal(await views(() => window.defineCalled === undefined), true, 'require.js\'s define must not be called');
  // The sandboxed frame (no storage, opaque origin) runs its own view.
  const frame = page.frames().find((f) => f !== page.mainFrame());
  assert.equal(await frame.evaluate(() => window.mountedHere), 'ok');
  assert.equal(await frame.evaluate(() => window.attnvizViews[0].getState().num_kv_heads), preset('09-gqa.json').num_kv_heads);
  assert.equal(await frame.evaluate(() => { try { return typeof localStorage.length; } catch (e) { return 'no storage'; } }), 'no storage');
});

test('each view is its own module: state and a real click on Causal mask stay in their view', async () => {
  const s1 = await views(() => window.attnvizViews[0].getState());
  const s2 = await views(() => window.attnvizViews[1].getState());
  assert.deepEqual(s2.tokens, preset('04-the-cat.json').tokens);
  assert.notDeepEqual(s1.tokens, s2.tokens);
  // Untick the preset's causal mask in view 2 with the mouse: its weights change, view 1's do not.
  assert.equal(s2.causal, true);
  const w1 = await weights(0), w2 = await weights(1);
  await click(1, 'Causal mask');
  assert.equal((await views(() => window.attnvizViews[1].getState())).causal, false);
  assert.notDeepEqual(await weights(1), w2);
  assert.deepEqual(await weights(0), w1);
  assert.deepEqual(await views(() => window.attnvizViews[0].getState()), s1);
  // setState in view 1 reaches view 1 only.
  const r = await views(() => window.attnvizViews[0].setState({ version: 1, tokens: ['one', 'two', 'three'], d_model: 4, d_out: 4, num_heads: 1 }));
  assert.equal(r.ok, true);
  assert.equal((await views(() => window.attnvizViews[0].getMatrix('weights', 0))).rows, 3);
  assert.equal((await weights(1)).rows, 8);
});

test('a view follows its container\'s width', async () => {
  const width = () => views(() => { const c = window.attnvizViews[0].element.querySelector('canvas'); return [c.width, c.clientWidth]; });
  const [w0] = await width();
  for (const px of [760, 960]) {
    await views((px) => { document.getElementById('v1').parentElement.style.width = px + 'px'; }, px);
    await page.waitForFunction((px) => window.attnvizViews[0].element.querySelector('canvas').width === px - 2, px);  // 1 px border each side
    await frames(0, 2);
    const [w, css] = await width();
    assert.equal(w, css);
  }
  assert.equal((await width())[0], w0);
});

test('keys go to the view that was clicked, and to no other', async () => {
  const before2 = await views(() => window.attnvizViews[1].getState());
  await click(0, 'Tokens');
  await page.keyboard.press('Control+A');
  await frames(0, 1);
  await page.keyboard.type('keys go here');
  await frames(0, 2);
  await page.keyboard.press('Enter');
  await frames(0, 3);
  assert.deepEqual((await views(() => window.attnvizViews[0].getState())).tokens, ['keys', 'go', 'here']);
  assert.deepEqual(await views(() => window.attnvizViews[1].getState()), before2);
  // Now view 2 has the keys: Ctrl+Z undoes its mask click, view 1 keeps its tokens.
  const bar = await views(() => { const c = window.attnvizViews[1].element.querySelector('canvas').getBoundingClientRect(); return { x: c.right - 30, y: c.top + 8 }; });
  await page.mouse.click(bar.x, bar.y);  // the empty end of its menu bar
  await frames(1, 2);
  await page.keyboard.press('Control+Z');
  await frames(1, 3);
  assert.equal((await views(() => window.attnvizViews[1].getState())).causal, true);
  assert.deepEqual((await views(() => window.attnvizViews[0].getState())).tokens, ['keys', 'go', 'here']);
  // An input method in view 2 (its own hidden text field): only the committed text arrives,
  // and there only; the English view then loads its Chinese glyphs.
  const cdp = await context.newCDPSession(page);
  await click(1, 'Tokens');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('我 ');
  for (const pre of ['zh', 'zhongwen']) {
    await cdp.send('Input.imeSetComposition', { text: pre, selectionStart: pre.length, selectionEnd: pre.length });
    await frames(1, 1);
  }
  await cdp.send('Input.insertText', { text: '中文' });
  await frames(1, 2);
  await page.keyboard.press('Enter');
  await frames(1, 3);
  assert.deepEqual((await views(() => window.attnvizViews[1].getState())).tokens, ['我', '中', '文']);
  assert.deepEqual((await views(() => window.attnvizViews[0].getState())).tokens, ['keys', 'go', 'here']);
  await page.waitForFunction(() => !window.attnvizViews[1].frameStats().fonts_pending);
});

test('a Chinese view from a .safetensors state file; a refused state file shows the sentence', async () => {
  const v3 = await views(() => ({ lang: window.attnvizViews[2].language(), state: window.attnvizViews[2].getState(),
                                  link: window.attnvizViews[2].element.querySelector('a').textContent }));
  assert.equal(v3.lang, 'zh-CN');
  assert.equal(v3.link, '在新页面中打开 ↗');
  assert.deepEqual(v3.state.tokens, fileState.tokens);
  const x = await views(() => window.attnvizViews[2].getMatrix('X', 0));
  assert.deepEqual(x.data, X.flat());
  const m4 = await views(() => window.mounted.v4);
  assert.equal(m4.ok, false);
  assert.match(m4.error, /divisible by num_heads/);
  const notice = await views(() => window.attnvizViews[3].notice());
  assert.equal(notice.error, true);
  assert.match(notice.text, /divisible by num_heads/);
  fs.mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, 'embed-notebook.png'), fullPage: true });
  await page.locator('#v3').screenshot({ path: path.join(artifactsDir, 'embed-zh-1200.png') });
});

test('the numbers are the page\'s, bit for bit', async (t) => {
  const app = await openApp(t);
  t.after(() => app.close());
  for (const name of ['01-once-upon-a-time.json', '04-the-cat.json', '08-rope.json', '09-gqa.json', '11-alibi.json']) {
    const s = preset(name);
    assert.equal((await app.setState(s)).ok, true, name);
    assert.equal((await views((s) => window.attnvizViews[0].setState(s), s)).ok, true, name);
    for (const [stage, heads] of [['weights', s.num_heads], ['context', s.num_heads], ['output', 1]]) {
      for (let h = 0; h < heads; h++) {
        const a = await app.matrix(stage, h);
        const b = await views(([st, h]) => window.attnvizViews[0].getMatrix(st, h), [stage, h]);
        assert.deepEqual(b, a, `${name} ${stage} h${h}`);
      }
    }
  }
  // The trained model is left out of the compact build: a sentence, not a crash.
  const r = await views(() => window.attnvizViews[0].setState({ version: 1, model: { name: 'induction-2l' } }));
  assert.equal(r.ok, false);
  assert.match(r.error, /not in this compact attnviz/);
});

test('"Open as a page" opens the view, as it is now, standalone and offline', async () => {
  await views(() => window.attnvizViews[1].setState({ version: 1, tokens: ['open', 'as', 'a', 'page'], d_model: 8, d_out: 8, num_heads: 2 }));
  const want = await views(() => window.attnvizViews[1].getState());
  const box = await views(() => { const r = window.attnvizViews[1].element.querySelector('a').getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; });
  const [popup] = await Promise.all([context.waitForEvent('page'), page.mouse.click(box.x, box.y)]);
  await popup.waitForFunction(() => window.attnvizViews && window.attnvizViews.length === 1, null, { timeout: 60000 });
  await popup.evaluate(() => window.attnvizViews[0].ready);
  assert.match(popup.url(), /^blob:/);
  assert.deepEqual(await popup.evaluate(() => window.attnvizViews[0].getState()), want);
  await popup.setViewportSize({ width: 1280, height: 800 });
  await popup.evaluate(() => window.attnvizViews[0].requestFrames(4));
  await popup.waitForTimeout(300);
  await popup.screenshot({ path: path.join(artifactsDir, 'embed-standalone.png') });
  await popup.close();
  assert.deepEqual(requests.filter((u) => !/^(file|blob|data):/.test(u)), []);
  assert.deepEqual(errors, []);
  // After all that clicking and typing, the notebook's address, title and storage are its own.
  assert.deepEqual(await page.evaluate(() => [location.hash, document.title, localStorage.length, sessionStorage.length]),
                   ['', 'notebook', 0, 0]);
});
