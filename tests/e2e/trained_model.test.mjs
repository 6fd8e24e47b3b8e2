// trained_model.test.mjs: the trained model (issue 33) as a learner meets it in the
// browser, with real mouse and keyboard: the preset from the Presets menu, its share
// link restoring state and view (layer, head, pinned cell), the layer bar, Repeat
// random tokens, typed symbols and a refused word, a paste longer than the model's
// context refused, the head scores (the CLI's for the same state), and the PyTorch
// export's text (the CLI's, and the committed golden both CLIs print for the preset).
// The Model tab and the layers × heads grid have files of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, cli, repoRoot, artifactsDir } from './harness.mjs';

const kPreset = 'Heads that learned: a trained 2-layer model (induction heads)';
const session = (app) => app.page.evaluate(() => window.attnviz.session());
const headScores = (app) => app.page.evaluate(() => window.attnviz.headScores());
const live = (app) => app.page.evaluate(() => document.getElementById('live').textContent);
const card = JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/models/induction-2l.json'), 'utf8'));
// The preset's state, exported: tests/engine/CMakeLists.txt's cli_export_torch_model_induction_2l
// checks that the native and wasm CLIs print exactly this file for it.
const kGolden = path.join(repoRoot, 'tests/engine/data/torch_script/model_induction_2l.py');

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
  // The page's scores are the CLI's for the same state, bit for bit: on these tokens
  // ("layers") and on the model's probe ("probe"), which they are not.
  const scores = await headScores(app);
  assert.deepEqual(scores, JSON.parse(cli('head-scores', await app.state())));
  assert.notDeepEqual(scores.layers, scores.probe.layers);
  await app.tap('Control+z', 3);  // down and up in one go: a loaded machine's delay between them made it repeat
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

test('a paste longer than the model\'s context is refused with a sentence; the state and its numbers stay', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 },
                                 permissions: ['clipboard-read', 'clipboard-write'] });
  await openPreset(app);
  const before = await app.state();
  const weights = await app.matrix('weights', 2);
  const scores = await headScores(app);
  // The probe and its first symbols once more: one token past what the model reads.
  const tokens = [...before.tokens];
  for (let i = 1; tokens.length <= card.context; i++) tokens.push(before.tokens[i]);
  assert.equal(tokens.length, card.context + 1);
  await app.paste('Tokens', tokens.join(' '));
  assert.deepEqual(await app.state(), before, 'the last valid state stays');
  assert.deepEqual(await app.matrix('weights', 2), weights, 'the views keep their numbers');
  assert.deepEqual(await headScores(app), scores);
  assert.ok(await app.rect('error'), 'the sentence is shown under the Tokens box');
  const said = await live(app);
  assert.match(said, /^Not applied: /, said);
  assert.ok(said.includes(`at most ${card.context} tokens`) && said.includes(`${card.context + 1}`), said);
  await app.shot('trained-model-too-long');
  // The context itself is not too long.
  await app.paste('Tokens', tokens.slice(0, card.context).join(' '));
  assert.equal((await app.state()).tokens.length, card.context);
  assert.equal(await app.rect('error'), null);
  await app.close();
});

test('File > Export PyTorch script on the model\'s preset: the CLI\'s script, the committed golden', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  await openPreset(app);
  const state = await app.state();
  const { name, text } = await app.exportTorchScript();
  assert.equal(name, 'attnviz.py');
  fs.mkdirSync(artifactsDir, { recursive: true });
  fs.writeFileSync(path.join(artifactsDir, 'torch-induction-2l.py'), text);
  const firstDifference = (a, b) => [...a].findIndex((c, i) => c !== b[i]);
  const want = cli('export-torch', state);
  assert.ok(text === want, `the download differs from attnviz-cli export-torch (${text.length} vs ${want.length} ` +
                           `characters; first difference at ${firstDifference(text, want)})`);
  const golden = fs.readFileSync(kGolden, 'utf8');
  assert.ok(text === golden, `the download differs from ${path.relative(repoRoot, kGolden)} ` +
                             `(first difference at ${firstDifference(text, golden)})`);
  // The model's script: its weights from the shipped file, its layers in a loop.
  assert.match(text, /^MODEL_FILE = "assets\/models\/induction-2l-checkpoints\.safetensors"$/m);
  assert.match(text, /^prefix = "step_1000\."/m);
  assert.match(text, /^for layer in range\(num_layers\):$/m);
  await app.close();
});
