// model.test.mjs: the Model tab with the real mouse and keyboard, on preset 12 (the
// trained induction-2l on its probe, opened from the Presets menu). The training step
// moves with a click on its slider and with ← →, the state (and so the share link)
// carries it, and the predictions follow: at the last checkpoint the model predicts the
// repeated half, at step 0 it does not. Screenshots at three sizes in both languages
// (tests/e2e/artifacts/model-*.png), with every part of the tab inside the Views window.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

const PRESET = 'Heads that learned: a trained 2-layer model (induction heads)';
const VOCAB = ['<s>', ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@#'];

async function openPreset(app) {
  await app.click('Presets');
  await app.click(PRESET);
  await app.frames(3);
  await app.click('Model');
  await app.frames(2);
}

// The likeliest next token each drawn row shows ({row: token}): the rows register
// their top-1 cell as "prediction <i>: <token>".
async function shownTop1(app, S) {
  await app.frames(1);
  return app.page.evaluate(([vocab, n]) => {
    const out = {};
    for (let i = 0; i < n; i++)
      for (const v of vocab) if (window.attnviz.itemRect(`prediction ${i}: ${v}`)) out[i] = v;
    return out;
  }, [VOCAB, S]);
}

// Of the drawn rows in the repeated half (positions n+1 … 2n-1), how many show the real next token first.
function repeatRight(top, tokens) {
  const n = (tokens.length - 1) / 2;
  let shown = 0, right = 0;
  for (const [i, v] of Object.entries(top).map(([i, v]) => [Number(i), v])) {
    if (i <= n || i >= tokens.length - 1) continue;
    shown++;
    if (v === tokens[i + 1]) right++;
  }
  return { shown, right };
}

async function scrollPredictionsToEnd(app) {
  const list = await app.rect('Predictions list');
  assert.ok(list, 'the predictions are drawn');
  await app.page.mouse.move(list.x + list.w / 2, list.y + list.h / 2);
  await app.frames(1);
  for (let k = 0; k < 8; k++) { await app.page.mouse.wheel(0, 400); await app.frames(1); }
  await app.frames(2);
}

test('model: the training step moves with the mouse and the arrow keys, and the predictions follow', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  await openPreset(app);
  let s = await app.state();
  assert.equal(s.model.name, 'induction-2l');
  assert.equal(s.model.step, 1000, 'the preset opens at the last checkpoint');
  const tokens = s.tokens;
  await scrollPredictionsToEnd(app);
  const trained = repeatRight(await shownTop1(app, tokens.length), tokens);
  assert.ok(trained.shown >= 6, `rows of the repeat are in view (${trained.shown})`);
  assert.ok(trained.right >= trained.shown - 1, `step 1000 predicts the repeat: ${trained.right} of ${trained.shown}`);

  // A click at the slider's left end: the first checkpoint.
  const slider = await app.rect('Training step');
  assert.ok(slider, 'the training step slider is drawn');
  await app.page.mouse.move(slider.x + 3, slider.y + slider.h / 2);
  await app.frames(1);
  await app.page.mouse.down();
  await app.frames(1);
  await app.page.mouse.up();
  await app.frames(3);
  s = await app.state();
  assert.equal(s.model.step, 0, 'the slider moved to step 0');
  const untrained = repeatRight(await shownTop1(app, tokens.length), tokens);
  assert.ok(untrained.shown >= 6);
  assert.ok(untrained.right <= 1, `step 0 does not predict the repeat: ${untrained.right} of ${untrained.shown}`);

  // ← → with the pointer away from any control (the Views window keeps the focus).
  await app.tap('ArrowRight', 3);
  assert.equal((await app.state()).model.step, 50, '→ goes to the next checkpoint');
  await app.tap('ArrowRight', 3);
  await app.tap('ArrowRight', 3);
  assert.equal((await app.state()).model.step, 200);
  await app.tap('ArrowLeft', 3);
  assert.equal((await app.state()).model.step, 100, '← goes back one');

  // Undo walks the steps back; the share link carries the step.
  await app.tap('Control+z', 3);
  assert.equal((await app.state()).model.step, 200, 'Ctrl+Z undoes the last step change');
  const session = await app.page.evaluate(() => window.attnviz.session());
  assert.equal(session.state.model.step, 200);
  await app.close();
});

// The smallest and the largest size in each language: the predictions and the residual
// stream, every part inside the Views window, saved for a person to look at. 1440×900 lies
// between them; tests/ui/test_model_tab.cpp checks the layout without a browser.
for (const [w, h] of [[1280, 720], [1920, 1080]]) {
  for (const lang of ['en', 'zh-CN']) {
    test(`model: the tab at ${w}×${h} in ${lang}`, async (t) => {
      const app = await openApp(t, { viewport: { width: w, height: h }, query: `lang=${lang}` });
      await openPreset(app);
      const views = await app.rect('Views window');
      const inside = (r) => r && r.x >= views.x - 1 && r.y >= views.y - 1 && r.x + r.w <= views.x + views.w + 1 &&
        r.y + r.h <= views.y + views.h + 1;
      for (const item of ['Training step', 'Training step previous', 'Training step next', 'Loss curve',
                          'Head scores curve', 'Model summary', 'Predictions list']) {
        const r = await app.rect(item);
        assert.ok(inside(r), `${item} is inside the Views window: ${JSON.stringify(r)} in ${JSON.stringify(views)}`);
      }
      await app.shot(`model-predictions-${w}x${h}-${lang}`);
      await app.click('Residual stream');
      await app.frames(3);
      for (const k of [2, 3, 4, 5]) {
        const m = await app.heatmap(`model map ${k}`);
        assert.ok(m, `map ${k} is drawn`);
        assert.ok(inside(m.panel), `map ${k} is inside the Views window: ${JSON.stringify(m.panel)}`);
        assert.equal(m.rows, 49);
      }
      await app.shot(`model-residual-${w}x${h}-${lang}`);
      await app.close();
    });
  }
}
