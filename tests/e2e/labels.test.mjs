// labels.test.mjs: every map names the tokens the state holds, in the frame after
// they change (issue 30). A renamed token keeps its place in the vocabulary, so no
// number changes: maps that copied their labels with the numbers kept the old word.
// Here a person renames with the real keyboard, through the Tokens box and the
// chips (CJK through the input method's commit), adds, renames and drags a chip, and
// reads every map of every tab (heatmapInfo), the Inspector's sentences of a pinned
// cell, an exported CSV's header, and the titles after a language switch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openApp } from './harness.mjs';

// The maps of each tab, and which of their axes are the tokens ('rows', 'both'). The
// other tabs' maps (Q K V & output, A/B) are checked the same way natively, after every
// tab was drawn (tests/ui/test_labels.cpp); here the real keyboard and chips drive it.
const TABS = [
  { tab: 'Stages', maps: { 'Q h0': 'rows', 'scores h0': 'both', 'scaled h0': 'both', 'masked h0': 'both',
                           'weights h0': 'both', 'dropped h0': 'both', 'context h0': 'rows' } },
  { tab: 'Compare heads', sub: 'All heads', maps: { 'weights h0': 'both', 'weights h1': 'both' } },
  { tab: 'Decode', maps: { 'decode K cache': 'rows', 'decode V cache': 'rows', 'decode weights': 'cols' } },
];

// Reads every map of every tab and checks its token axes against `tokens`.
async function expectLabels(app, tokens, when) {
  for (const { tab, sub, maps } of TABS) {
    await app.click(tab);
    if (sub) await app.click(sub);
    await app.frames(3);
    // The tab's maps as drawn in one frame (no input comes between them).
    const infos = await app.page.evaluate((ls) => ls.map((l) => window.attnviz.heatmapInfo(l)), Object.keys(maps));
    for (const [k, [map, axes]] of Object.entries(maps).entries()) {
      let info = infos[k];
      if (!info && tab === 'Stages') info = await app.showMap(map);
      assert.ok(info, `${map} is drawn on ${tab} (${when})`);
      if (axes !== 'cols') assert.deepEqual(info.row_labels, tokens, `${map}'s rows on ${tab} ${when}`);
      if (axes !== 'rows') assert.deepEqual(info.col_labels, tokens, `${map}'s columns on ${tab} ${when}`);
    }
  }
  await app.click('Stages');
  await app.frames(2);
}

// Types into a chip as an input method commits text (CJK), then Enter.
async function editChip(app, cdp, k, text) {
  await app.click(`token ${k}`);
  await app.page.keyboard.press('Control+A');
  await cdp.send('Input.insertText', { text });
  await app.frames(2);
  await app.page.keyboard.press('Enter');
  await app.frames(3);
}

const TWO_HEADS = { tokens: ['Once', 'upon', 'a', 'time', 'there'], d_model: 8, d_out: 8, num_heads: 2, causal: true,
                    dropout: { p: 0.5, training: true, seed: 5 } };

test('a word retyped in the Tokens box relabels every map on every tab, the Inspector and a CSV', async (t) => {
  const app = await openApp(t, { viewport: { width: 1440, height: 900 } });
  assert.equal((await app.setState(TWO_HEADS)).ok, true);
  await expectLabels(app, TWO_HEADS.tokens, 'as opened');
  const before = await app.matrix('weights', 0);
  // Pin query "a" → key "a" of weights h0 before the rename.
  const info = await app.showMap('weights h0');
  await app.page.mouse.click(info.x + 2.5 * info.cell_w, info.y + 2.5 * info.cell_h);
  await app.frames(3);
  assert.match(await app.page.evaluate(() => window.attnviz.inspectorText()), /"time"|"a"/);

  await app.type('Tokens', 'Once upon a day there');
  const tokens = ['Once', 'upon', 'a', 'day', 'there'];
  assert.deepEqual((await app.state()).tokens, tokens);
  assert.deepEqual((await app.matrix('weights', 0)).data, before.data, 'a rename keeps every number');
  await expectLabels(app, tokens, 'after "time" became "day"');

  // The pinned cell's sentences name the tokens of now.
  await app.type('Tokens', 'Once upon one day there');
  await app.frames(2);
  const text = await app.page.evaluate(() => window.attnviz.inspectorText());
  assert.match(text, /"one"/, text);
  assert.doesNotMatch(text, /"a"/, text);

  // A CSV of the map: its header row and first column are the words shown.
  await app.showMap('weights h0');
  await app.click('weights h0', { button: 'right' });
  const pending = app.page.waitForEvent('download', { timeout: 30000 });
  await app.click('Export CSV');
  const csv = fs.readFileSync(await (await pending).path(), 'utf8');
  const lines = csv.split('\r\n');
  assert.equal(lines[0].split(',').slice(1).join(' '), 'Once upon one day there', csv);
  assert.deepEqual(lines.slice(1, 6).map((l) => l.split(',')[0]), ['Once', 'upon', 'one', 'day', 'there']);
  await app.close();
});

test('chips: every token replaced by a CJK one, a chip dragged, a chip added and renamed: the maps follow', async (t) => {
  const app = await openApp(t, { viewport: { width: 1920, height: 1080 } });
  assert.equal((await app.setState(TWO_HEADS)).ok, true);
  await expectLabels(app, TWO_HEADS.tokens, 'as opened');
  const cdp = await app.page.context().newCDPSession(app.page);
  const cjk = ['我', '爱', '自然', '语言', '处理'];
  for (let k = 0; k < cjk.length; k++) await editChip(app, cdp, k, cjk[k]);
  assert.deepEqual((await app.state()).tokens, cjk);
  const shown = await app.heatmap('weights h0');
  assert.deepEqual(shown.row_labels, cjk, 'the map beside the chips follows each edit');

  // Drag chip 0 onto chip 3: the same five words in another order.
  await app.drag('token 0', 'token 3');
  const moved = (await app.state()).tokens;
  assert.deepEqual(moved, ['爱', '自然', '语言', '我', '处理']);

  // `+` adds a chip "new" and opens it for editing: type over it.
  await app.click('add token');
  await app.page.keyboard.press('Control+A');
  await cdp.send('Input.insertText', { text: '再见' });
  await app.frames(2);
  await app.page.keyboard.press('Enter');
  await app.frames(3);
  const added = (await app.state()).tokens;
  assert.deepEqual(added, [...moved, '再见']);
  await expectLabels(app, added, 'after CJK chips, a drag, + and a rename of the new chip');
  await app.close();
});

test('switching the language retitles every map in the next frame, and back', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  assert.equal((await app.setState(TWO_HEADS)).ok, true);
  await app.frames(3);
  const en = (await app.heatmap('weights h0')).title;
  assert.match(en, /weights/);
  await app.click('View');
  await app.click('Language');
  await app.click('Language: zh-CN');
  await app.frames(3);
  const zh = (await app.heatmap('weights h0')).title;
  assert.notEqual(zh, en);
  assert.match(zh, /注意力/, zh);
  // The Chinese glyphs join the font atlas a frame or more after the switch (more on a
  // loaded machine), which moves the tabs: a click aimed from the last frame's place can
  // land beside Compare heads. Aim again until its view is open (at most three times).
  for (let tries = 0; tries < 3 && !(await app.rect('All heads')); tries++) {
    await app.frames(2);
    await app.click('Compare heads');
  }
  await app.click('All heads');
  await app.frames(3);
  assert.match((await app.heatmap('weights h1')).title, /weights h1/);
  await app.click('Decode');
  await app.frames(3);
  assert.match((await app.heatmap('decode weights')).title, /[\u4e00-\u9fff]/, 'the Decode rows are titled in Chinese');
  await app.click('Stages');
  await app.click('View');
  await app.click('Language');
  await app.click('Language: en');
  await app.frames(3);
  assert.equal((await app.heatmap('weights h0')).title, en);
  await app.close();
});
