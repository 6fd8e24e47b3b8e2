// notebooks.test.mjs: the notebook test's browser half. tests/python/run_notebooks.py
// has executed every example notebook (and the README's demo) with the installed wheel
// and converted each to HTML (build/python/run/<name>.html, beside the executed
// <name>.ipynb). Each page is opened from disk in Chromium with every request that is
// not the file itself refused (no network, no CDN), as nbconvert's HTML is opened
// later; then each view must be live (a real click changes its own numbers only) and
// show PyTorch's weights: the ATTNVIZ_CHECK lines the notebook printed
// (tests/python/notebook_checks.py).
//
// Tolerance: as tests/python/test_show.py, |attnviz − torch| ≤ 2e-6 + 2e-5·|torch|:
// the same float32 operations in another order (PyTorch divides q by √head_dim before
// q·kᵀ and fuses multiply-adds); a wrong mapping is off by 1e-2 or more.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumFlags, repoRoot, artifactsDir } from '../e2e/harness.mjs';

const runDir = path.join(repoRoot, 'build/python/run');
const pages = fs.readdirSync(runDir).filter((f) => f.endsWith('.html')).sort();
assert.ok(pages.includes('mha-view.html'), "01's view.save wrote its page");

let browser = null;
async function getBrowser() {
  browser ??= await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumFlags });
  return browser;
}
after(async () => { if (browser) await browser.close(); });

// Pages a notebook saved with View.save("….html"): the notebook and the view they hold.
const SAVED = { 'mha-view.html': ['01-multihead-attention.html', 0] };

// The ATTNVIZ_CHECK lines of an executed notebook, in order (of a saved page: its view's, as view 0).
function checks(name) {
  if (SAVED[name]) {
    const [from, view] = SAVED[name];
    return checks(from).filter((c) => c.view === view).map((c) => ({ ...c, view: 0 }));
  }
  const nb = JSON.parse(fs.readFileSync(path.join(runDir, name.replace(/\.html$/, '.ipynb')), 'utf8'));
  const lines = [];
  for (const cell of nb.cells) {
    for (const out of cell.outputs ?? []) {
      const text = Array.isArray(out.text) ? out.text.join('') : (out.text ?? '');
      for (const row of text.split('\n')) if (row.startsWith('ATTNVIZ_CHECK ')) lines.push(JSON.parse(row.slice(14)));
    }
  }
  return lines;
}

async function openOffline(file, viewport = { width: 1280, height: 900 }) {
  const context = await (await getBrowser()).newContext({ viewport });
  const refused = [];
  const self = pathToFileURL(file).href;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url === self || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
    refused.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(self);
  return { context, page, refused, errors };
}

// A view's canvas-relative item rectangle → page coordinates; clicks it for real.
async function clickItem(page, index, label) {
  await page.evaluate((i) => window.attnvizViews[i].element.scrollIntoView({ block: 'center' }), index);
  await frames(page, index, 1);
  const where = await page.evaluate(([i, l]) => {
    const v = window.attnvizViews[i];
    const r = v.itemRect(l);
    if (!r) return null;
    const c = v.element.querySelector('canvas').getBoundingClientRect();
    return { x: c.left + r.x + r.w / 2, y: c.top + r.y + r.h / 2 };
  }, [index, label]);
  assert.ok(where, `view ${index} has no item "${label}"`);
  await page.mouse.click(where.x, where.y);
}

// As the harness's frames(n): input handled, then n more frames drawn by that view.
async function frames(page, index, n = 3) {
  await page.waitForFunction((i) => window.attnvizViews[i].frameStats().input_pending === 0, index);
  const start = await page.evaluate((i) => window.attnvizViews[i].frameStats().frames, index);
  await page.evaluate(([i, k]) => window.attnvizViews[i].requestFrames(k), [index, n]);
  await page.waitForFunction(([i, s, k]) => window.attnvizViews[i].frameStats().frames >= s + k, [index, start, n]);
}

async function weights(page, index, heads) {
  return page.evaluate(([i, H]) => {
    const v = window.attnvizViews[i];
    return Array.from({ length: H }, (_, h) => v.getMatrix('weights', h));
  }, [index, heads]);
}

function assertClose(got, want, what) {
  assert.equal(got.length, want.length, `${what}: heads`);
  let worst = 0;
  want.forEach((rows, h) => {
    assert.equal(got[h].rows, rows.length, `${what}: head ${h} rows`);
    rows.flat().forEach((w, k) => {
      const d = Math.abs(got[h].data[k] - w);
      worst = Math.max(worst, d);
      assert.ok(d <= 2e-6 + 2e-5 * Math.abs(w), `${what}: head ${h} cell ${k}: ${got[h].data[k]} vs torch ${w}`);
    });
  });
  return worst;
}

for (const name of pages) {
  test(`${name}: every view is live offline and shows PyTorch's weights`, { timeout: 240000 }, async () => {
    const want = checks(name);
    assert.ok(want.length > 0, 'the notebook printed its checks');
    const views = Math.max(...want.map((c) => c.view)) + 1;
    const { context, page, refused, errors } = await openOffline(path.join(runDir, name));
    try {
      await page.waitForFunction((n) => window.attnvizViews && window.attnvizViews.length >= n, views, { timeout: 60000 });
      await page.evaluate(() => Promise.all(window.attnvizViews.map((v) => v.ready)));
      assert.equal(await page.evaluate(() => window.attnvizViews.length), views, 'one view per show()');
      for (const c of want) {
        if (c.layer !== undefined) {
          await clickItem(page, c.view, `layer ${c.layer}`);
          await frames(page, c.view);
          // show(cap) opens on Compare heads' layers × heads grid: this layer's row is there
          assert.ok(await page.evaluate(([i, l, H]) => Array.from({ length: H }, (_, h) =>
            window.attnvizViews[i].itemRect(`heads grid L${l} H${h}`)).every(Boolean), [c.view, c.layer, c.weights.length]),
          `view ${c.view} shows the layers × heads grid's row ${c.layer}`);
        }
        if (c.lang) assert.equal(await page.evaluate((i) => window.attnvizViews[i].language(), c.view), c.lang);
        const worst = assertClose(await weights(page, c.view, c.weights.length), c.weights,
                                  `${name} view ${c.view}${c.layer !== undefined ? ' layer ' + c.layer : ''}`);
        console.log(`${name} view ${c.view}: largest difference from torch ${worst.toExponential(2)}`);
      }
      // Live: a real click on Causal mask in the last view changes its state and weights, not the others'.
      const last = views - 1;
      const before = await page.evaluate(() => window.attnvizViews.map((v) => JSON.stringify(v.getMatrix('weights', 0))));
      const causal = await page.evaluate((i) => window.attnvizViews[i].getState().causal, last);
      await clickItem(page, last, 'Causal mask');
      await frames(page, last);
      await page.waitForFunction(([i, was]) => window.attnvizViews[i].getState().causal !== was, [last, causal]);
      const now = await page.evaluate(() => window.attnvizViews.map((v) => JSON.stringify(v.getMatrix('weights', 0))));
      now.forEach((m, i) => (i === last ? assert.notEqual(m, before[i], 'the clicked view recomputed')
                                        : assert.equal(m, before[i], `view ${i} is untouched`)));
      fs.mkdirSync(artifactsDir, { recursive: true });
      await page.screenshot({ path: path.join(artifactsDir, `notebook-${name.replace('.html', '')}.png`), fullPage: true });
      // nbconvert's own page asks for MathJax and require.js; the views ask for nothing.
      assert.deepEqual(refused.filter((u) => /attnviz|\.wasm|\.ttf/.test(u)), [],
                       'the views asked for nothing from the network');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
