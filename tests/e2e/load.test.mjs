// load.test.mjs: the page loads, ready resolves, WebGL2 is alive, the canvas shows
// the interface (not one flat colour), and nothing logged an error.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

test('the page loads and draws the interface', async (t) => {
  const app = await openApp(t);
  const { page } = app;

  const gl = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    const ctx = c.getContext('webgl2');  // returns the context the module created
    return { ok: !!ctx && !ctx.isContextLost(), w: c.width, h: c.height,
             cssW: c.clientWidth, cssH: c.clientHeight };
  });
  assert.ok(gl.ok, 'WebGL2 context is alive');
  assert.equal(gl.cssW, 1440, 'canvas fills the window width');
  assert.equal(gl.cssH, 900, 'canvas fills the window height');
  assert.equal(gl.w, 1440, 'drawing buffer matches CSS size at DPR 1');

  const overlayHidden = await page.evaluate(() => document.getElementById('overlay').classList.contains('hidden'));
  assert.ok(overlayHidden, 'the loading overlay is gone');

  await app.frames(3);
  const stats = await app.stats();
  assert.ok(stats.frames >= 3, 'frames are being drawn');
  assert.ok(stats.frame_ms_avg > 0, 'frame time is measured');

  // The screenshot is not one flat colour: count distinct colours on a coarse grid.
  const img = await app.image();
  const seen = new Set();
  for (let y = 0; y < img.height; y += 7) for (let x = 0; x < img.width; x += 7) seen.add(img.at(x, y).join());
  const colours = seen.size;
  assert.ok(colours > 20, `the canvas shows a varied picture (${colours} distinct colours)`);
  await app.shot('load');
  await app.close();
});

test('the canvas follows a resize and the device pixel ratio', async (t) => {
  const app = await openApp(t, { viewport: { width: 1000, height: 700 }, deviceScaleFactor: 2 });
  const { page } = app;
  let c = await page.evaluate(() => { const e = document.getElementById('canvas'); return [e.width, e.height]; });
  assert.deepEqual(c, [2000, 1400], 'drawing buffer is CSS size × DPR 2');
  await page.setViewportSize({ width: 800, height: 600 });
  await app.frames(3);
  c = await page.evaluate(() => { const e = document.getElementById('canvas'); return [e.width, e.height]; });
  assert.deepEqual(c, [1600, 1200], 'drawing buffer follows the resize');
  await app.shot('hidpi');
  await app.close();
});

test('a page without WebGL2 gets a readable message, not a blank page', async (t) => {
  const app = await openApp(t);
  const { page } = app;
  await page.addInitScript(() => {
    const orig = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
      return kind === 'webgl2' ? null : orig.call(this, kind, ...rest);
    };
  });
  await page.reload();
  const text = await page.locator('#overlay').innerText();
  assert.match(text, /needs WebGL2/);
  assert.ok(await page.locator('#overlay').isVisible());
  await app.close();
});

test('a module that fails to load says so instead of leaving a blank page', async (t) => {
  const app = await openApp(t);
  const { page } = app;
  // A corrupt .wasm, whichever build the page picks (attnviz-mt here, attnviz
  // elsewhere): compilation fails and the runtime aborts.
  await page.route(/\/attnviz(-mt)?\.wasm$/, (route) =>
    route.fulfill({ status: 200, contentType: 'application/wasm', body: Buffer.from('not a wasm module') }));
  await page.reload();
  await page.waitForFunction(() => document.getElementById('overlay').classList.contains('error'));
  const text = await page.locator('#overlay').innerText();
  assert.match(text, /stopped unexpectedly|could not/);
  assert.ok(await page.locator('#overlay').isVisible());
  const rejected = await page.evaluate(() => window.attnviz.ready.then(() => false, () => true));
  assert.ok(rejected, 'ready rejects');
  app.errors.length = 0;  // the abort is the point of this test
  await app.close();
});

test('a site without attnviz-mt.js falls back to the single-threaded build', async (t) => {
  const app = await openApp(t);
  const { page } = app;
  assert.equal(await page.evaluate(() => window.attnviz.build), 'attnviz-mt');
  await page.route(/\/attnviz-mt\.js$/, (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.reload();
  await page.evaluate(() => window.attnviz.ready);
  assert.equal(await page.evaluate(() => window.attnviz.build), 'attnviz');
  assert.equal((await app.stats()).threads, 1);
  const w = await app.matrix('weights', 0);
  assert.ok(w && w.rows === 5, 'the single build computes the default state');
  // The missing file's 404 is the point of this test; any other error still fails it.
  const others = app.errors.filter((e) => !/status of 404/.test(e));
  app.errors.length = 0;
  app.errors.push(...others);
  await app.close();
});
