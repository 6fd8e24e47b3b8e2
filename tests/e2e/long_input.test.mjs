// long_input.test.mjs: issue 36's long input in the browser, with the real keyboard and
// mouse, in English and 简体中文. A paste over the engine's token limit keeps its first
// tokens and says how many were left out; the chips box scrolls under the wheel and
// draws only what is in view; Go to token scrolls to a token (typed as an index, then as
// text); the long-context preset loads from the menu. Screenshots at 1280×720, 1440×900
// and 1920×1080 (tests/e2e/artifacts/long-*.png).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';

// The engine's limit, read from its header: the test holds at 2,048 and after it grows.
const kMaxTokens = Number(/kMaxTokens = (\d+)/.exec(
  fs.readFileSync(path.join(repoRoot, 'engine/include/attnviz/state.h'), 'utf8'))[1]);
const longPreset = JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/presets/13-long-context.json'), 'utf8'));
const inside = (r, box) => r && box && r.y >= box.y - 0.5 && r.y + r.h <= box.y + box.h + 0.5;

for (const lang of ['en', 'zh-CN']) {
  test(`long input (${lang}): a paste over the limit, the chips scrolled, Go to token`, async (t) => {
    const viewport = { width: 1280, height: 720 };
    const app = await openApp(t, { viewport, query: `lang=${lang}`, permissions: ['clipboard-read', 'clipboard-write'] });
    // On the Decode tab, which reads one row: at 32,768 tokens the Stages tab's maps take seconds.
    await app.click('Decode');
    const extra = 333;
    await app.paste('Tokens', Array.from({ length: kMaxTokens + extra }, (_, i) => 'w' + i).join(' '));
    const s = await app.state();
    assert.equal(s.tokens.length, kMaxTokens, 'the first tokens are kept, nothing refused');
    assert.equal(s.tokens[0], 'w0');
    assert.equal(await app.rect('error'), null);
    const line = await app.rect('tokens left out');
    assert.ok(line && line.y + line.h <= viewport.height, 'the sentence under the Tokens box');
    const said = (await app.page.evaluate(() => window.attnviz.notice())).text;
    assert.match(said, new RegExp(`${kMaxTokens.toLocaleString('en-US')}.*${extra}`), said);
    assert.match(said, lang === 'en' ? /left out/ : /没有载入/, said);
    await app.shot(`long-paste-${lang}-1280x720`);

    // The wheel over the chips scrolls them; chips out of view are not drawn.
    const box = await app.rect('token chips');
    assert.ok(await app.rect('token 0'));
    for (let turn = 0; turn < 4 && await app.rect('token 0'); turn++) {
      await app.page.mouse.move(box.x + box.w / 2 + turn, box.y + box.h / 2);
      await app.frames(2);
      await app.page.mouse.wheel(0, 600);
      await app.frames(3);
    }
    assert.equal(await app.rect('token 0'), null, 'token 0 scrolled out of the box, no longer drawn');
    const drawn = await app.page.evaluate((n) => {
      let k = 0;
      for (let i = 0; i < n; i++) k += window.attnviz.itemRect('token ' + i) ? 1 : 0;
      return k;
    }, kMaxTokens);
    assert.ok(drawn > 0 && drawn < 100, `only the chips in view are drawn: ${drawn}`);

    // Go to token: an index, then a text (the next token with it).
    const target = kMaxTokens - 500;
    await app.type('Go to token', String(target));
    const chip = await app.rect(`token ${target}`);
    assert.ok(inside(chip, await app.rect('token chips')), `token ${target} in the box: ${JSON.stringify(chip)}`);
    assert.ok(await app.rect('Go to result'));
    await app.shot(`long-goto-${lang}-1280x720`);
    await app.type('Go to token', 'w77');
    assert.ok(inside(await app.rect('token 77'), await app.rect('token chips')), 'w77 found by its text');
    await app.close();
  });
}

for (const viewport of [{ width: 1280, height: 720 }, { width: 1440, height: 900 }, { width: 1920, height: 1080 }]) {
  const lang = viewport.width === 1440 ? 'zh-CN' : 'en';
  test(`the long-context preset from the menu at ${viewport.width}×${viewport.height} (${lang})`, async (t) => {
    const app = await openApp(t, { viewport, query: `lang=${lang}` });
    await app.click('Presets');
    await app.click(longPreset.title);  // items are registered under the English title
    await app.frames(3);
    const s = await app.state();
    assert.equal(s.tokens.length, longPreset.long_text.count, 'the tokens are made at load time');
    assert.equal(s.tokens[0], '<s>');
    assert.deepEqual(s.kv_cache.policy, 'streaming_llm');
    assert.ok(await app.rect('Go to token'));
    // The screenshot is of maps that read: the weights overview computed whole, with the
    // sink, the window's band and the evicted keys between them in its pooled values.
    for (const l of ['scores h0', 'weights h0']) await app.mapSettled(l, 300);
    const m = await app.heatmap('weights h0');
    assert.equal(m.overview, true);
    const b = m.block, p = m.pooled, R = s.kv_cache.recent;
    assert.equal(p.row0, 0);
    assert.equal(p.col0, 0);
    assert.equal(p.rows, Math.ceil(s.tokens.length / b), 'the whole map in view');
    const at = (I, J) => p.data[I][J];
    const far = Math.ceil((R + b) / b) + 1;  // blocks this far below the diagonal are wholly evicted
    for (let I = 0; I < p.rows; I++) {
      assert.ok(at(I, 0) > 0.3, `row block ${I}: the sink on <s> (${at(I, 0)})`);
      assert.ok(at(I, I) > 0.2, `row block ${I}: the diagonal: the nearest keys weigh most (${at(I, I)})`);
      if (I - far >= 1) assert.equal(at(I, I - far), 0, `row block ${I}: keys ${R}+ back evicted`);
    }
    await app.shot(`long-preset-${lang}-${viewport.width}x${viewport.height}`);
    await app.type('Go to token', '1000');
    assert.ok(await app.rect('token 1000'));
    await app.shot(`long-preset-goto-${lang}-${viewport.width}x${viewport.height}`);
    await app.close();
  });
}
