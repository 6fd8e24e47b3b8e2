// trained_model.test.mjs: the trained model (issue 33) as a learner meets it in the
// browser, with real mouse and keyboard: the preset from the Presets menu, its share
// link restoring state and view (layer, head, pinned cell), the layer bar, Repeat
// random tokens, typed symbols and a refused word, the head scores, and the PyTorch
// export's text. The Model tab and the layers × heads grid have files of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

const kPreset = 'Heads that learned: a trained 2-layer model (induction heads)';
const session = (app) => app.page.evaluate(() => window.attnviz.session());

async function openPreset(app) {
  await app.click('Presets');
  await app.frames(2);
  await app.click(kPreset);
  await app.frames(4);
}

async function settledUrl(app) {
  await app.frames(2);
  await app.page.waitForFunction(async () =>
    window.location.hash === '#' + (await window.attnviz.shareLink()).split('#')[1], null, { polling: 100 });
  return app.page.evaluate(() => window.location.href);
}

test('the preset opens the model on its probe, on layer 1\'s induction head, and a link brings it all back', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  await openPreset(app);
  const s = await app.state();
  assert.equal(s.model.name, 'induction-2l');
  assert.equal(s.model.step, 1000);
  assert.equal(s.tokens.length, 49);
  assert.equal(s.embedding, undefined, 'the model\'s weights are not in the state');
  const before = await session(app);
  assert.equal(before.view.layer, 1);
  assert.equal(before.view.head, 2);
  assert.equal(before.view.tab, 'compare');
  assert.deepEqual(before.view.pinned, { stage: 'weights', head: 2, row: 31, col: 8 });
  // The scores the page reports: layer 0 has a previous-token head, layer 1 an induction head.
  const scores = await app.page.evaluate(() => window.attnviz.headScores());
  assert.equal(scores.layers.length, 2);
  const best = (l, k) => Math.max(...scores.layers[l].heads.map((h) => h[k]));
  assert.ok(best(0, 'previous_token') >= 0.4, `layer 0 previous-token ${best(0, 'previous_token')}`);
  assert.ok(best(1, 'induction') >= 0.4, `layer 1 induction ${best(1, 'induction')}`);
  assert.equal(scores.layers[1].heads[2].induction, best(1, 'induction'));
  assert.deepEqual(scores.probe, { layers: scores.layers }, 'the preset\'s input is the probe');
  // The pinned cell is the induction head's: it puts most of row 31 on the token after the earlier copy.
  const w = await app.matrix('weights', 2);
  assert.ok(w.data[31 * 49 + 8] > 0.5, `weights[31][8] = ${w.data[31 * 49 + 8]}`);
  const url = await settledUrl(app);
  t.diagnostic(`link length ${url.split('#')[1].length} characters`);
  assert.ok(url.split('#')[1].length < 2000, 'a model state is a short link: the weights stay in the app');
  await app.close();

  const again = await openApp(t, { hash: url.split('#')[1], viewport: { width: 1280, height: 720 } });
  await again.frames(4);
  assert.deepEqual(await session(again), before);
  assert.ok(await again.rect('Unpin'), 'the pinned cell is pinned again');
  await again.close();
});

test('the layer bar, Repeat random tokens, typed symbols and a refused word', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  await openPreset(app);
  const layer1 = await app.matrix('weights', 0);
  await app.click('Layer 0');
  assert.equal((await session(app)).view.layer ?? 0, 0, 'layer 0: a link leaves it out');
  const layer0 = await app.matrix('weights', 0);
  assert.notDeepEqual(layer0.data, layer1.data, 'every tab reads the layer chosen');
  // Repeat random tokens: a new start + r + r, one undo step.
  const probe = (await app.state()).tokens;
  await app.click('Repeat random tokens');
  const fresh = (await app.state()).tokens;
  assert.equal(fresh.length, 49);
  assert.notDeepEqual(fresh, probe);
  assert.deepEqual(fresh.slice(1, 25), fresh.slice(25));
  await app.page.keyboard.press('Control+Z');
  await app.frames(3);
  assert.deepEqual((await app.state()).tokens, probe);
  // Typed text becomes the model's symbols; a word it does not know is refused, the state kept.
  await app.type('Tokens', '<s> xyzxyz');
  assert.deepEqual((await app.state()).tokens, ['<s>', 'x', 'y', 'z', 'x', 'y', 'z']);
  await app.type('Tokens', '<s> x é');
  assert.deepEqual((await app.state()).tokens, ['<s>', 'x', 'y', 'z', 'x', 'y', 'z']);
  assert.ok(await app.rect('error'), 'the refusal is shown under the box');
  await app.shot('trained-model-refused-word');
  // A state that changes what the model fixes: a sentence naming the field.
  const r = await app.setState({ model: { name: 'induction-2l' }, num_heads: 2 });
  assert.equal(r.ok, false);
  assert.equal(r.field, 'num_heads');
  assert.match(r.error, /fixed by model induction-2l/);
  await app.close();
});

test('in Chinese the model\'s controls and the refusal speak Chinese', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 }, locale: 'zh-CN' });
  await openPreset(app);
  assert.ok(await app.rect('Repeat random tokens'));
  const r = await app.setState({ model: { name: 'induction-2l' }, tokens: ['<s>', 'dog'] });
  assert.equal(r.ok, false);
  assert.equal(r.field, 'tokens[1]');
  assert.match(r.error, /不在模型 induction-2l 的词表中/);
  await app.shot('trained-model-zh');
  await app.close();
});
