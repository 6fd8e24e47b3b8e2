// lazy.test.mjs: the app runs the engine lazily (Pipeline::track_demand): an
// edit computes what the visible panels read, and a stage on a hidden tab is
// computed when its tab opens. These tests drive the UI with real mouse and
// keyboard events and check that laziness never shows a stale picture.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

// Eight tokens, two heads, biases and an output projection: every stage is
// small enough to draw its numbers.
const base = {
  tokens: ['the', 'cat', 'sat', 'on', 'the', 'mat', 'at', 'noon'],
  d_model: 6, d_out: 6, num_heads: 2, qkv_bias: true, out_proj: true, causal: true,
  embedding: { init: 'torch_randn', seed: 5 }, weights: { init: 'torch_linear', seed: 7 },
};

// The output heatmap as drawn: its pixels, cropped to its rectangle.
async function outputPixels(app) {
  await app.frames(3);
  const r = await app.rect('output');
  assert.ok(r, 'the output heatmap is drawn');
  await app.page.mouse.move(2, 2);  // no hover highlight or tooltip over it
  await app.frames(2);
  const img = await app.image({ x: r.x, y: r.y, width: r.w, height: r.h });
  return img.rgba;
}

test('an edit made on the Stages tab leaves the output to be computed, and its tab then draws it up to date', async (t) => {
  const app = await openApp(t);
  assert.equal((await app.setState(base)).ok, true);
  await app.click('Q K V & output');
  const before = await outputPixels(app);
  assert.equal(await app.page.evaluate(() => window.attnviz.stageCurrent('output', 0)), true);

  await app.click('Stages');
  await app.frames(4);  // the output falls out of what the panels read
  await app.type('Temperature', '2', { number: true });
  assert.equal((await app.state()).temperature, 2);
  const current = (name, head) => app.page.evaluate(([n, h]) => window.attnviz.stageCurrent(n, h), [name, head]);
  assert.equal(await current('weights', 0), true, 'head 0 is on screen: computed with the edit');
  assert.equal(await current('context', 0), true);
  assert.equal(await current('weights', 1), false, 'head 1 is not on screen: left for later');
  assert.equal(await current('output', 0), false, 'the output is not on screen: left for later');

  await app.click('Q K V & output');
  assert.equal(await current('output', 0), true, 'opening the tab computed it');
  const after = await outputPixels(app);
  assert.notDeepEqual(after, before, 'the output heatmap changed with the temperature');
  const state = await app.state();

  // The same state, loaded while the output is on screen (so computed by
  // set_state, not on first read), draws the same pixels.
  const ref = await openApp(t);
  await ref.click('Q K V & output');
  await ref.frames(3);
  assert.equal((await ref.setState(state)).ok, true);
  assert.equal(await ref.page.evaluate(() => window.attnviz.stageCurrent('output', 0)), true);
  const expected = await outputPixels(ref);
  assert.equal(after.length, expected.length);
  assert.ok(after.equals(expected), 'the output drawn after the lazy update is the eagerly computed one');
  // And the numbers: head 1's weights, never drawn in app, match too.
  assert.deepEqual(await app.matrix('weights', 1), await ref.matrix('weights', 1));
  await ref.close();
  await app.close();
});

test('Compare heads after an edit on one head draws every head up to date', async (t) => {
  const state = { ...base, num_heads: 3, d_model: 6, d_out: 6 };
  const app = await openApp(t);
  assert.equal((await app.setState(state)).ok, true);
  await app.frames(4);  // the Stages tab shows head 0 only
  await app.type('Temperature', '0.5', { number: true });
  assert.equal((await app.state()).temperature, 0.5);
  const current = (h) => app.page.evaluate((x) => window.attnviz.stageCurrent('weights', x), h);
  assert.equal(await current(0), true);
  assert.equal(await current(2), false, 'head 2 is not on screen: left for later');
  await app.click('Compare heads');
  await app.frames(3);
  for (let h = 0; h < 3; ++h) assert.equal(await current(h), true, `head ${h} computed when the tab opened`);
  await app.page.mouse.move(2, 2);
  await app.frames(2);
  const r = await app.rect('weights h2');
  assert.ok(r, 'head 2 weights drawn');
  const drawn = (await app.image({ x: r.x, y: r.y, width: r.w, height: r.h })).rgba;
  await app.shot('lazy-compare');

  // Reference: the same state loaded with Compare heads open (computed by set_state).
  const ref = await openApp(t);
  await ref.click('Compare heads');
  await ref.frames(3);
  assert.equal((await ref.setState(await app.state())).ok, true);
  await ref.page.mouse.move(2, 2);
  await ref.frames(3);
  const rr = await ref.rect('weights h2');
  const expected = (await ref.image({ x: rr.x, y: rr.y, width: rr.w, height: rr.h })).rgba;
  assert.ok(drawn.equals(expected), 'head 2 as drawn after the lazy update is the eagerly computed one');
  for (let h = 0; h < 3; ++h) assert.deepEqual(await app.matrix('weights', h), await ref.matrix('weights', h));
  await ref.close();
  await app.close();
});
