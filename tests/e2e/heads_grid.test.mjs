// heads_grid.test.mjs: Compare heads' layers × heads grid on the trained model, with
// real mouse events, in English and 简体中文. The preset is opened from the Presets
// menu; the scores the grid shows are window.attnviz.headScores()' (read back through
// the Inspector, which explains each hovered score with its value); the heads marked
// with a job are those the rule names (the largest score ≥ 0.3 and ≥ 3 × uniform
// attention's), so layer 1's induction heads are marked and layer 0 head 3 is the
// previous-token head; a click on L0 H3's map shows layer 0, head 3 in every tab.
// Screenshots at 1280×720, 1440×900 and 1920×1080 in both languages go to artifacts/.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';

const preset = JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/presets/12-induction-heads.json'), 'utf8'));
const KINDS = ['previous_token', 'induction', 'first_token', 'duplicate_token'];

// The Inspector's text with its wrapped lines joined (a space between Latin characters).
async function inspector(app) {
  await app.frames(2);
  const lines = (await app.page.evaluate(() => window.attnviz.inspectorText())).split('\n');
  let out = '';
  for (const line of lines) {
    if (!line) continue;
    const ascii = out && out.charCodeAt(out.length - 1) < 0x80 && line.charCodeAt(0) < 0x80;
    out += line.includes(' | ') ? '\n' + line + '\n' : (out && !out.endsWith('\n') && ascii ? ' ' : '') + line;
  }
  return out;
}

async function hover(app, label) {
  const r = await app.rect(label);
  assert.ok(r, `${label} is drawn`);
  await app.page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await app.frames(3);
  return inspector(app);
}

async function rest(app) {
  const v = await app.rect('Views window');
  await app.page.mouse.move(v.x + v.w - 6, v.y + v.h - 6);
  await app.frames(3);
}

// Uniform attention's scores on these tokens under the causal mask (row i spreads 1/(i+1)).
function chance(tokens) {
  const S = tokens.length;
  let prev = 0, first = 0, dup = 0, ind = 0, rep = 0;
  for (let i = 0; i < S; ++i) {
    first += 1 / (i + 1);
    if (i > 0) prev += 1 / (i + 1);
    const copies = tokens.slice(0, i).reduce((n, t) => n + (t === tokens[i] ? 1 : 0), 0);
    if (copies) { ++rep; dup += copies / (i + 1); ind += copies / (i + 1); }
  }
  return { previous_token: prev / (S - 1), first_token: first / S, duplicate_token: rep ? dup / rep : 0,
           induction: rep ? ind / rep : 0 };
}

// The job a head is named for (panel_heads_grid.h head_job), or null.
function job(scores, ch) {
  let best = null;
  for (const k of KINDS) {
    const x = scores[k];
    if (x >= 0.3 && x >= 3 * ch[k] && (best === null || x > scores[best])) best = k;
  }
  return best;
}

async function openPreset(t, lang, viewport) {
  const app = await openApp(t, { viewport, query: lang === 'en' ? '' : 'lang=' + lang });
  await app.click('Presets');
  await app.click(preset.title);  // registered under its English title in every language
  await app.frames(4);
  return app;
}

for (const lang of ['en', 'zh-CN']) {
  test(`heads grid (${lang}): scores are headScores(), the induction heads are marked, a click selects L0 H3, a hovered score is explained`, async (t) => {
    const app = await openPreset(t, lang, { width: 1920, height: 1080 });  // room for the Inspector's table
    assert.ok(await app.rect('heads grid L1 H2'), 'the preset opens on the layers × heads grid');
    const hs = await app.page.evaluate(() => window.attnviz.headScores());
    const s = await app.state();
    assert.equal(hs.layers.length, 2);
    const ch = chance(s.tokens);

    // Every head: the badge of its job (and no other), and its scores as the Inspector reads them.
    for (let l = 0; l < 2; ++l) {
      for (let h = 0; h < 4; ++h) {
        const sc = hs.layers[l].heads[h];
        const want = job(sc, ch);
        for (const k of KINDS) {
          const r = await app.page.evaluate((x) => window.attnviz.itemRect(x), `job L${l} H${h} ${k}`);
          assert.equal(!!r, k === want, `L${l} H${h}: badge ${k} ${r ? 'shown' : 'absent'}, named ${want}`);
        }
        for (const k of ['previous_token', 'induction']) {
          const text = await hover(app, `score L${l} H${h} ${k}`);
          const rows = k === 'induction' ? 24 : 48;
          assert.ok(text.includes(`/ ${rows} = ${sc[k].toFixed(3)}`), `L${l} H${h} ${k} = ${sc[k]}:\n${text}`);
        }
      }
    }
    assert.equal(job(hs.layers[1].heads[2], ch), 'induction', 'L1 H2 is an induction head');
    assert.equal(job(hs.layers[0].heads[3], ch), 'previous_token', 'L0 H3 is the previous-token head');
    assert.ok(hs.layers[0].heads.every((x) => job(x, ch) !== 'induction'), 'no induction head in layer 0');

    // The Inspector's explanation of a hovered score, in the interface's language.
    let text = await hover(app, 'score L1 H2 induction');
    const ind = hs.layers[1].heads[2].induction.toFixed(3);
    if (lang === 'en') {
      assert.ok(text.includes('Layer 1, head 2: its induction score on this input'), text);
      assert.ok(text.includes(`induction = mean over the 24 rows whose token appeared before of Σ A[i, j + 1] over its earlier copies j = `), text);
      assert.ok(text.includes('chance: induction head.'), text);
    } else {
      assert.ok(text.includes('第 1 层，头 2：它在当前输入上的归纳分数'), text);
      assert.ok(text.includes('归纳分数 = 在词元此前出现过的 24 行上'), text);
      assert.ok(text.includes('归纳头'), text);
    }
    assert.ok(text.includes(`/ 24 = ${ind}`), text);
    assert.ok(/\n26 \| 1 \| 3 \| 0\.\d{4}\n/.test(text), `row 26 repeats row 2, key 3 follows it:\n${text}`);
    await app.shot(`heads-grid-hover-${lang}`);

    // A click on L0 H3's map: layer 0, head 3 for every tab, that cell pinned.
    await app.click('L0 weights h3');
    await rest(app);
    const view = (await app.page.evaluate(() => window.attnviz.session())).view;
    assert.equal(view.layer ?? 0, 0, 'layer 0 is shown');
    assert.equal(view.head, 3, 'head 3 is selected');
    assert.equal(view.pinned?.head, 3, 'the clicked cell is pinned');
    text = await inspector(app);
    assert.ok(text.includes(lang === 'en' ? 'weights h3 [' : '注意力权重 weights，头 3 ['), text);
    await app.click('Stages');
    await app.frames(2);
    const drawn = await app.page.evaluate(() => window.attnviz.heatmapsDrawn());
    assert.ok(drawn.includes('Q h3') && !drawn.includes('Q h2'), `the Stages tab shows head 3: ${drawn}`);
    await app.close();
  });
}

// The grid at the smallest and the largest size in both languages, an induction score
// hovered: every map and every label inside the Views window, nothing overlapping
// (screenshots to look at). 1440×900 lies between them; its layout is checked without a
// browser (tests/ui/test_head_scores_ui.cpp, all three sizes), which saves make test a minute.
for (const lang of ['en', 'zh-CN']) {
  for (const [w, h] of [[1280, 720], [1920, 1080]]) {
    test(`heads grid at ${w}×${h} (${lang}): every map and label in view, none overlapping`, async (t) => {
      const app = await openPreset(t, lang, { width: w, height: h });
      const views = await app.rect('Views window');
      const boxes = [];
      for (let l = 0; l < 2; ++l) {
        for (let hh = 0; hh < 4; ++hh) {
          const map = await app.heatmap(`L${l} weights h${hh}`);
          assert.ok(map, `L${l} H${hh} map drawn`);
          assert.ok(map.w >= 120 && Math.abs(map.w - map.h) < 1, `L${l} H${hh} map is square, ${map.w} px`);
          const items = [await app.rect(`heads grid L${l} H${hh}`), { x: map.x, y: map.y, w: map.w, h: map.h }];
          for (const k of KINDS) items.push(await app.rect(`score L${l} H${hh} ${k}`));
          for (const r of items) {
            assert.ok(r, `L${l} H${hh}: an item is missing`);
            assert.ok(r.x >= views.x && r.y >= views.y && r.x + r.w <= views.x + views.w + 0.5 &&
                      r.y + r.h <= views.y + views.h + 0.5, `L${l} H${hh}: ${JSON.stringify(r)} inside ${JSON.stringify(views)}`);
          }
          boxes.push(...items.slice(2));
        }
      }
      // No two scores overlap (across cells and within one).
      for (let a = 0; a < boxes.length; ++a) {
        for (let b = a + 1; b < boxes.length; ++b) {
          const p = boxes[a], q = boxes[b];
          const overlap = p.x < q.x + q.w - 0.5 && q.x < p.x + p.w - 0.5 && p.y < q.y + q.h - 0.5 && q.y < p.y + p.h - 0.5;
          assert.ok(!overlap, `scores overlap: ${JSON.stringify(p)} ${JSON.stringify(q)}`);
        }
      }
      await hover(app, 'score L1 H2 induction');
      await app.shot(`heads-grid-${w}x${h}-${lang}`);
      await app.close();
    });
  }
}
