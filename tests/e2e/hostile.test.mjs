// hostile.test.mjs: what a learner can type that must not break anything. Every
// refused edit gets a sentence on the page (the "error" item, mirrored into #live),
// the views keep the last valid state, and the module never aborts (close() fails
// the test on any console or page error).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';

const live = (app) => app.page.evaluate(() => document.getElementById('live').textContent);

// The state and weights before, the refusal after: same state, same numbers, a sentence.
async function expectRefused(app, before, weightsBefore, pattern) {
  assert.deepEqual(await app.state(), before, 'the last valid state stays');
  assert.deepEqual(await app.matrix('weights', 0), weightsBefore, 'the views keep their numbers');
  assert.ok(await app.rect('error'), 'a sentence is shown under the control');
  const said = await live(app);
  assert.match(said, /^Not applied: /, said);
  assert.match(said, pattern, said);
}

test('temperature ≤ 0 and p outside [0, 1] are refused with a sentence', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 1300 } });  // Dropout p in view
  const before = await app.state();
  const w = await app.matrix('weights', 0);
  for (const value of ['0', '-2']) {
    await app.type('Temperature', value, { number: true });
    await expectRefused(app, before, w, /temperature/i);
  }
  await app.shot('hostile-temperature');
  // Ctrl+click turns the slider into a text field, where any number can be typed.
  const r = await app.rect('Dropout p');
  await app.page.keyboard.down('Control');
  await app.click('Dropout p', { dx: r.w / 3 });
  await app.page.keyboard.up('Control');
  await app.page.keyboard.press('Control+A');
  await app.frames(1);
  await app.page.keyboard.type('1.5');
  await app.frames(2);
  await app.page.keyboard.press('Enter');
  await app.frames(3);
  await expectRefused(app, before, w, /p|dropout/i);
  await app.close();
});

test('an empty Tokens box is refused and the tokens come back', async (t) => {
  const app = await openApp(t);
  const before = await app.state();
  const w = await app.matrix('weights', 0);
  await app.type('Tokens', '');
  await expectRefused(app, before, w, /token/i);
  await app.close();
});

test('NaN and ∞ typed into a cell of Edit values change nothing and say why', async (t) => {
  const app = await openApp(t);
  await app.click('Edit values');
  const before = await app.state();
  const w = await app.matrix('weights', 0);
  for (const value of ['nan', 'inf', '-inf', '1e999']) {
    await app.type('embedding[1][2]', value);
    assert.deepEqual(await app.state(), before, `${value}: the state stays`);
    assert.deepEqual(await app.matrix('weights', 0), w, `${value}: the numbers stay`);
    const said = await live(app);
    assert.match(said, /^Not applied: .*embedding\[1\]\[2\]/, `${value}: ${said}`);
  }
  await app.shot('hostile-cell-nan');
  // A finite value still goes through afterwards.
  await app.type('embedding[1][2]', '0.5');
  const s = await app.state();
  assert.equal(s.embedding.values[1][2], 0.5);
  await app.close();
});

// The engine's limit on tokens, read from its header: the tests hold at 2,048 and after it grows.
const kMaxTokens = Number(/kMaxTokens = (\d+)/.exec(
  fs.readFileSync(path.join(repoRoot, 'engine/include/attnviz/state.h'), 'utf8'))[1]);

test('a paste over the token limit keeps its first tokens; a 1 MB token is refused; the page stays live', async (t) => {
  const app = await openApp(t, { permissions: ['clipboard-read', 'clipboard-write'] });
  const before = await app.state();
  const w = await app.matrix('weights', 0);
  const big = 'x'.repeat(1 << 20);
  const t0 = Date.now();
  await app.paste('Tokens', big);
  await expectRefused(app, before, w, /256|long|bytes/i);
  t.diagnostic(`1 MB token: paste to refusal in ${Date.now() - t0} ms`);
  // The page keeps drawing with the megabyte still in the box, and Esc-free recovery works:
  // typing a short sentence over it applies normally.
  const f0 = (await app.stats()).frames;
  await app.frames(10);
  assert.ok((await app.stats()).frames >= f0 + 10);
  await app.type('Tokens', 'back to normal');
  assert.deepEqual((await app.state()).tokens, ['back', 'to', 'normal']);
  // More tokens than a state holds: not refused, the first ones are kept and a sentence says how many went.
  const many = Array.from({ length: kMaxTokens + 952 }, (_, i) => 'w' + i).join(' ');
  await app.paste('Tokens', many);
  const s = await app.state();
  assert.equal(s.tokens.length, kMaxTokens);
  assert.equal(s.tokens[kMaxTokens - 1], 'w' + (kMaxTokens - 1));
  assert.equal(await app.rect('error'), null, 'nothing refused');
  assert.match((await app.page.evaluate(() => window.attnviz.notice())).text, /952 more were left out/);
  await app.shot('hostile-over-the-limit');
  await app.close();
});
