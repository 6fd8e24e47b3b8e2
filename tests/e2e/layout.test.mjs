// layout.test.mjs: controls in reach and windows on screen (issue 21, items 4 and 5).
// On first open at common screen sizes the controls a learner toggles most are in
// view without scrolling; Dropout p takes an exact typed value; 120 tokens scroll in
// their own box; a layout saved on a bigger screen is fitted to a smaller one after a
// reload; View > Reset layout brings the default arrangement back.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { artifactsDir, openApp } from './harness.mjs';

const CONTROLS = ['Tokens', 'Heads', 'Causal mask', 'Dropout p', 'Training'];
const WINDOWS = ['Parameters window', 'Inspector window', 'Views window'];

const inside = (r, box) => r && r.w > 0 && r.h > 0 && r.x >= box.x - 0.5 && r.y >= box.y - 0.5 &&
  r.x + r.w <= box.x + box.w + 0.5 && r.y + r.h <= box.y + box.h + 0.5;
const fmt = (r) => (r ? `${r.x},${r.y} ${r.w}×${r.h}` : 'not drawn');

async function expectControlsInView(app, viewport, what) {
  const screen = { x: 0, y: 0, w: viewport.width, h: viewport.height };
  const params = await app.rect('Parameters window');
  assert.ok(inside(params, screen), `${what}: Parameters window ${fmt(params)} on screen`);
  for (const label of CONTROLS) {
    const r = await app.rect(label);
    assert.ok(inside(r, screen), `${what}: ${label} at ${fmt(r)} is inside the ${viewport.width}×${viewport.height} page`);
    assert.ok(inside(r, params), `${what}: ${label} at ${fmt(r)} is inside Parameters ${fmt(params)}`);
  }
}

// Drags a window by its title bar by (dx, dy), in steps, a frame each.
async function dragTitle(app, label, dx, dy) {
  const w = await app.rect(label);
  const x0 = w.x + 60, y0 = w.y + 8;
  await app.page.mouse.move(x0, y0);
  await app.page.mouse.down();
  for (let k = 1; k <= 8; k++) {
    await app.page.mouse.move(x0 + (dx * k) / 8, y0 + (dy * k) / 8);
    await app.frames(1);
  }
  await app.page.mouse.up();
  await app.frames(4);
  return app.rect(label);
}

for (const viewport of [{ width: 1280, height: 720 }, { width: 1440, height: 900 }, { width: 1920, height: 1080 }]) {
  for (const deviceScaleFactor of [1, 2]) {
    const name = `${viewport.width}x${viewport.height}@${deviceScaleFactor}x`;
    test(`Tokens, Heads, Causal mask, Dropout p and Training are in view on first open at ${name}`, async (t) => {
      const app = await openApp(t, { viewport, deviceScaleFactor });
      await expectControlsInView(app, viewport, name);
      for (const w of WINDOWS) {
        const r = await app.rect(w);
        assert.ok(inside(r, { x: 0, y: 0, w: viewport.width, h: viewport.height }), `${w} ${fmt(r)}`);
      }
      // In reach means usable: a real click toggles the mask.
      await app.click('Causal mask');
      assert.equal((await app.state()).causal, true);
      await app.page.mouse.move(viewport.width - 4, viewport.height - 4);  // no tooltip in the picture
      await app.frames(2);
      await app.shot(`layout-first-open-${name}`);
      await app.close();
    });
  }
}

test('Dropout p takes an exact typed value in the field beside its slider', async (t) => {
  const viewport = { width: 1280, height: 720 };
  const app = await openApp(t, { viewport });
  const field = await app.rect('Dropout p value');
  const slider = await app.rect('Dropout p');
  assert.ok(inside(field, { x: 0, y: 0, w: viewport.width, h: viewport.height }), `the field is in view: ${fmt(field)}`);
  assert.ok(Math.abs((field.y + field.h / 2) - (slider.y + slider.h / 2)) < 2 && field.x > slider.x + slider.w - 1,
            `the field sits right of the slider, on its line: ${fmt(field)} vs ${fmt(slider)}`);
  await app.click('Training');
  await app.type('Dropout p value', '0.5');
  let s = await app.state();
  assert.equal(s.dropout.p, 0.5);
  assert.equal(s.dropout.training, true);
  // Dropout in training mode keeps each weight ×1/(1−p) = ×2 or drops it to 0.
  const w = await app.matrix('weights', 0), dr = await app.matrix('dropped', 0);
  let kept = 0, dropped = 0;
  for (let k = 0; k < w.data.length; k++) {
    if (dr.data[k] === 0) dropped++;
    else { kept++; assert.ok(Math.abs(dr.data[k] - 2 * w.data[k]) < 1e-6, `cell ${k}: ${dr.data[k]} = 2 × ${w.data[k]}`); }
  }
  assert.ok(kept > 0 && dropped > 0, `some kept (${kept}), some dropped (${dropped})`);
  // A value the slider's two decimals cannot show is taken exactly as typed.
  await app.type('Dropout p value', '0.125');
  s = await app.state();
  assert.equal(s.dropout.p, 0.125);
  await app.shot('layout-dropout-typed');
  // And one outside [0, 1] is refused with a sentence, keeping 0.125.
  await app.type('Dropout p value', '1.5');
  assert.ok(await app.rect('error'), 'the reason is shown');
  assert.equal((await app.state()).dropout.p, 0.125);
  await app.close();
});

test('120 tokens scroll in their own box and the controls stay in view', async (t) => {
  const viewport = { width: 1280, height: 720 };
  const app = await openApp(t, { viewport });
  const before = await app.rect('Causal mask');
  const row = (await app.rect('Tokens')).h;
  const words = Array.from({ length: 120 }, (_, i) => `w${i}`);
  await app.type('Tokens', words.join(' '));
  assert.equal((await app.state()).tokens.length, 120);
  await expectControlsInView(app, viewport, '120 tokens');
  const after = await app.rect('Causal mask');
  assert.ok(after.y - before.y < 4 * (row + 4), `Causal mask moved ${after.y - before.y} px, at most the chip box's growth`);
  assert.ok(await app.rect('Go to token'), "Go to token is offered (in the box's last row)");
  const box = await app.rect('token chips');
  assert.ok(box.h < 6 * (row + 4), `the chip box is bounded: ${fmt(box)}`);
  assert.ok(await app.rect('token 0'), 'the first chips show');
  assert.equal(await app.rect('token 119'), null, 'the last chip is scrolled out of the box, not drawn below it');
  // The box scrolls to it: the wheel over the chips, not the Parameters window.
  // Like a person, it turns the wheel again while the last chip is not yet in view
  // (on a loaded machine one turn can arrive before the pointer is seen over the box).
  let last = null;
  for (let turn = 0; turn < 4 && !inside(last, box); turn++) {
    await app.page.mouse.move(box.x + box.w / 2 + turn, box.y + box.h / 2);
    await app.frames(2);  // the pointer arrives over the box first, then the wheel turns
    await app.page.mouse.wheel(0, 5000);
    await app.frames(4);
    last = await app.rect('token 119');
  }
  assert.ok(inside(last, box), `token 119 scrolled into the box: ${fmt(last)}`);
  assert.deepEqual(await app.rect('Causal mask'), after, 'the controls did not move');
  await app.click('Causal mask');
  assert.equal((await app.state()).causal, true, 'and still work');
  await app.shot('layout-120-tokens');
  await app.close();
});

// Resizes a window from its bottom-right grip by (dx, dy), in steps, a frame each.
async function dragGrip(app, label, dx, dy) {
  const w = await app.rect(label);
  const x0 = w.x + w.w - 3, y0 = w.y + w.h - 3;
  await app.page.mouse.move(x0, y0);
  await app.frames(1);
  await app.page.mouse.down();
  for (let k = 1; k <= 6; k++) {
    await app.page.mouse.move(x0 + (dx * k) / 6, y0 + (dy * k) / 6);
    await app.frames(1);
  }
  await app.page.mouse.up();
  await app.frames(3);
  return app.rect(label);
}

test('a layout saved at 1600×1000 is fitted into 1024×700 after a reload', async (t) => {
  const app = await openApp(t, { viewport: { width: 1600, height: 1000 } });
  // Someone on a big screen made Views smaller, leaving room at the right and bottom.
  const views0 = await app.rect('Views window');
  const views = await dragGrip(app, 'Views window', -300, -200);
  assert.ok(views.w < views0.w - 250 && views.h < views0.h - 150, `Views resized: ${fmt(views)}`);
  // ImGui saves its settings about 5 s after a change: wait until the new size is saved.
  await app.page.waitForFunction(([w, h]) => [...(localStorage.getItem('attnviz.layout') || '')
    .matchAll(/^Size=(\d+),(\d+)$/gm)].some((m) => Math.abs(m[1] - w) <= 1 && Math.abs(m[2] - h) <= 1),
  [views.w, views.h], { timeout: 60000 });
  const params0 = await app.rect('Parameters window');
  // A new page in the same profile (same localStorage), on a smaller screen.
  const context = app.page.context();
  await app.page.close();
  const page = await context.newPage();
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(err.message));
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto(app.server.url);
  await page.evaluate(() => window.attnviz.ready);
  const start = await page.evaluate(() => window.attnviz.frameStats().frames);
  await page.waitForFunction((s) => window.attnviz.frameStats().frames >= s, start + 6);
  const rect = (l) => page.evaluate((x) => window.attnviz.itemRect(x), l);
  const screen = { x: 0, y: 0, w: 1024, h: 700 };
  const r = {};
  for (const w of WINDOWS) {
    r[w] = await rect(w);
    assert.ok(inside(r[w], screen), `${w} at ${fmt(r[w])} is inside 1024×700`);
  }
  // The arrangement is kept, scaled by one factor per axis: the left column and
  // Views shrink in the same proportion, side by side as before (not the default
  // arrangement, which would give Views the whole rest of the width).
  const v = r['Views window'], p = r['Parameters window'];
  const sx = p.w / params0.w;
  assert.ok(sx < 0.95, `scaled down: Parameters ${fmt(p)} was ${fmt(params0)}`);
  assert.ok(Math.abs(v.w / views.w - sx) < 0.02, `Views scaled like Parameters: ${fmt(v)} was ${fmt(views)}, factor ${sx}`);
  assert.ok(Math.abs(v.x - (p.x + p.w)) <= 2, `Views still right beside Parameters: ${fmt(v)} vs ${fmt(p)}`);
  for (const label of ['Causal mask', 'Dropout p', 'Training']) {
    const c = await rect(label);
    assert.ok(inside(c, screen) && inside(c, p), `${label} reachable: ${fmt(c)}`);
  }
  fs.mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, 'layout-fitted-1024x700.png') });
  assert.deepEqual(errors, []);
  await app.close();
});

test('View > Reset layout puts moved and resized windows back', async (t) => {
  const viewport = { width: 1440, height: 900 };
  const app = await openApp(t, { viewport });
  const params0 = await app.rect('Parameters window');
  const views0 = await app.rect('Views window');
  const insp0 = await app.rect('Inspector window');
  const moved = await dragTitle(app, 'Parameters window', 500, 200);
  assert.ok(Math.abs(moved.x - params0.x - 500) <= 2, `Parameters moved: ${fmt(moved)}`);
  // Shrink Views from its bottom-right corner.
  const v = views0;
  await app.page.mouse.move(v.x + v.w - 3, v.y + v.h - 3);
  await app.frames(1);
  await app.page.mouse.down();
  for (let k = 1; k <= 6; k++) {
    await app.page.mouse.move(v.x + v.w - 3 - 50 * k, v.y + v.h - 3 - 40 * k);
    await app.frames(1);
  }
  await app.page.mouse.up();
  await app.frames(3);
  const shrunk = await app.rect('Views window');
  assert.ok(shrunk.w < views0.w - 200, `Views shrunk: ${fmt(shrunk)}`);
  await app.shot('layout-before-reset');
  await app.click('View');
  await app.click('Reset layout');
  await app.frames(2);
  assert.deepEqual(await app.rect('Parameters window'), params0);
  assert.deepEqual(await app.rect('Views window'), views0);
  assert.deepEqual(await app.rect('Inspector window'), insp0);
  await expectControlsInView(app, viewport, 'after Reset layout');
  await app.close();
});
