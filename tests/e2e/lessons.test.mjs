// Lessons (docs/lessons.md): a learner walks every step of every lesson at 1280×720, in
// English and in 简体中文, with the real mouse and keyboard — Learn menu, the task of each
// step (hover or pin a cell, click a map, switch a tab, tick a box, pick from a combo,
// mark a chip as padding, step through training checkpoints), Next by click or Ctrl+→ —
// and at every step the map or control it is about is lit wholly on screen, what it
// prints is what PyTorch printed for the lesson's code (tests/ui/data/lessons_torch.json),
// and Next waits for the task. Progress is kept in localStorage; a share link reopens the
// step. Screenshots go to artifacts/lessons/: each lesson's first step and closing page,
// every step with ATTNVIZ_LESSON_SHOTS=all (look at them).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot, artifactsDir } from './harness.mjs';

const fixture = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tests/ui/data/lessons_torch.json'), 'utf8'));
const shots = path.join(artifactsDir, 'lessons');
fs.mkdirSync(shots, { recursive: true });
const VIEW = { width: 1280, height: 720 };

const lessonNow = (app) => app.page.evaluate(() => window.attnviz.lesson());

function onScreen(r) {
  return r && r.w > 0 && r.h > 0 && r.x >= 0 && r.y >= 0 && r.x + r.w <= VIEW.width + 0.5 && r.y + r.h <= VIEW.height + 0.5;
}

// The centre of cell [i, j] of a map as drawn (row0/col0: the first row and column shown
// when the map shows part of its matrix).
async function cellPoint(app, label, cell) {
  // The last frame's (the caller has just drawn one): no frame of its own.
  const m = await app.page.evaluate((l) => window.attnviz.heatmapInfo(l), label);
  assert.ok(m, `map ${label} is not drawn`);
  const [i, j] = cell || [Math.floor(m.row0 + 0.5), Math.floor(m.col0 + 0.5)];
  return [m.x + (j - m.col0 + 0.5) * m.cell_w, m.y + (i - m.row0 + 0.5) * m.cell_h];
}

// A set task's control, worked as a learner works it (docs/lessons.md, task "set").
async function setControl(app, task) {
  const { field, target, value } = task;
  if (field === 'key_padding') {  // a chip's menu
    await app.click(target, { button: 'right' });
    await app.click('Mark as padding');
  } else if (field === 'scale' || field === 'mask_fill' || field === 'num_kv_heads') {  // a combo
    const combo = { scale: 'Scale', mask_fill: 'Mask fill', num_kv_heads: 'K/V heads' }[field];
    await app.click(combo);
    await app.click(`${combo}: ${value}`);
  } else if (field === 'model.step') {  // one checkpoint at a time, with the arrow beside the slider
    for (let n = 0; n < 12; n++) {
      const st = await app.state();
      if (st.model.step === value) break;
      await app.click(st.model.step < value ? 'Training step next' : 'Training step previous');
    }
  } else {  // a checkbox: Causal mask, Training, RoPE, Sliding window
    await app.click(target);
  }
}

async function doTask(app, task) {
  if (task.kind === 'hover' || task.kind === 'pin') {
    const [x, y] = await cellPoint(app, task.target, task.value);
    await app.page.mouse.move(x, y);
    await app.frames(1);
    if (task.kind === 'pin') {
      await app.page.mouse.down();
      await app.frames(1);
      await app.page.mouse.up();
      await app.frames(2);
    }
  } else if (task.kind === 'set') {
    await setControl(app, task);
  } else {  // click, tab
    await app.click(task.target);
  }
}

// The open step and where its lit map or control was drawn in the last frame, read together.
const stepNow = (app) => app.page.evaluate(() => {
  const now = window.attnviz.lesson();
  return { ...now, lit: now.show ? window.attnviz.itemRect(now.show) : null };
});

async function walkLesson(app, lesson, lang, viaKeys) {
  for (let k = 0; k < lesson.steps; k++) {
    await app.frames(1);
    const now = await stepNow(app);
    assert.equal(now.id, lesson.id);
    assert.equal(now.step, k);
    const where = `${lang} ${lesson.id} step ${k}`;
    assert.equal(now.done, false, `${where}: done before the learner did anything`);
    assert.ok(onScreen(now.lit), `${where}: ${now.show} is not wholly on screen: ${JSON.stringify(now.lit)}`);
    const fx = (fixture[lesson.id] || []).find((c) => c.step === k);
    if (fx) assert.equal(now.print, fx.repr, `${where}: prints other text than PyTorch`);
    else assert.equal(now.print, '', `${where}: prints without a fixture`);
    // The step as the learner first sees it: lit, the rest dimmed (each lesson's first
    // step; ATTNVIZ_LESSON_SHOTS=all for every one, as they were looked at).
    if (k === 0 || process.env.ATTNVIZ_LESSON_SHOTS === 'all')
      await app.page.screenshot({ path: path.join(shots, `${lang}-${lesson.id}-${k}.png`) });
    if (k === 0) {  // Next waits for the task: a click on it now does nothing (ui_tests check every step)
      await app.click('Next');
      assert.equal((await lessonNow(app)).step, k, `${where}: Next moved on before the task was done`);
    }
    await doTask(app, now.task);
    // A resting page draws a frame a second: ask for frames until the app has seen it done.
    let done = false;
    for (let n = 0; n < 20 && !done; n++) {
      done = await app.page.evaluate(() => window.attnviz.lesson().done);
      if (!done) await app.frames(1);
    }
    assert.ok(done, `${where}: the task (${JSON.stringify(now.task)}) was done but not recognised`);
    // Next: the mouse on the first and last steps (and throughout the first lesson),
    // Ctrl+→ on the others
    if (viaKeys && k > 0 && k + 1 < lesson.steps) await app.tap('Control+ArrowRight', 2);
    else await app.click('Next');
    assert.equal((await lessonNow(app)).step, k + 1, `${where}: Next did not move on`);
  }
  const end = await lessonNow(app);
  assert.equal(end.done, true);
  assert.ok(onScreen(await app.rect('lesson finished')), `${lesson.id}: the closing page`);
  assert.ok(onScreen(await app.rect('lesson next text')));
  await app.page.screenshot({ path: path.join(shots, `${lang}-${lesson.id}-end.png`) });
}

for (const lang of ['en', 'zh-CN']) {
  test(`every step of every lesson, with the mouse and keyboard at 1280×720 (${lang})`, async (t) => {
    const app = await openApp(t, { viewport: VIEW, query: `lang=${lang}` });
    const lessons = await app.page.evaluate(() => window.attnviz.lessons());
    assert.equal(lessons.length, Object.keys(fixture).length);
    for (const [n, lesson] of lessons.entries()) {
      if (n === 0) {  // from the Learn menu; the others from the closing page's Next lesson
        await app.click('Learn');
        await app.click(`Lesson: ${lesson.id}`);
      }
      await walkLesson(app, lesson, lang, n > 0);
      if (n + 1 < lessons.length) await app.click('Next lesson');
    }
    const kept = JSON.parse(await app.page.evaluate(() => window.localStorage.getItem('attnviz.lessons')));
    for (const lesson of lessons) assert.equal(kept[lesson.id].finished, true, `${lesson.id} is not remembered as finished`);
    await app.click('Close lesson');
    assert.equal((await lessonNow(app)).id, null);
    assert.equal(await app.rect('Lesson window'), null);
    assert.deepEqual(app.errors, []);
  });
}

// Hovering a code line lights its map and the reverse; a share link opens the lesson at
// its step on the link's own state; the Learn menu
// resumes a lesson where it was left (the progress kept in localStorage).
test('code and maps light each other; a link reopens the step; the Learn menu resumes the lesson', async (t) => {
  const app = await openApp(t, { viewport: VIEW });
  const r = await app.page.evaluate(() => window.attnviz.startLesson('causal', 2));
  assert.equal(r.ok, true);
  await app.frames(3);
  // Code ↔ view with the real mouse: a line lights its map, the map marks its line.
  const step = await lessonNow(app);
  const line = step.code.find((c) => c.map);
  assert.ok(line, 'causal step 2 has a line that makes a map');
  const lr = await app.rect(`lesson code ${line.line}`);
  await app.page.mouse.move(lr.x + 20, lr.y + lr.h / 2);
  await app.frames(2);
  assert.equal((await lessonNow(app)).lit_map, line.map);
  const [mx, my] = await cellPoint(app, line.map, null);
  await app.page.mouse.move(mx, my);
  await app.frames(2);
  assert.ok((await lessonNow(app)).marked_lines.includes(line.line), `the pointer on ${line.map} does not mark its line`);
  const link = await app.page.evaluate(() => window.attnviz.shareLink());
  const other = await openApp(t, { viewport: VIEW, hash: link.split('#')[1] });
  await other.frames(3);
  const now = await lessonNow(other);
  assert.equal(now.id, 'causal');
  assert.equal(now.step, 2);
  assert.ok(onScreen(await other.rect(now.show)));
  const bad = await app.page.evaluate(() => window.attnviz.startLesson('no-such-lesson', 0));
  assert.equal(bad.ok, false);
  assert.match(bad.error, /no-such-lesson/);
  // progress: kept in localStorage, and the Learn menu resumes there
  const kept = JSON.parse(await app.page.evaluate(() => window.localStorage.getItem('attnviz.lessons')));
  assert.equal(kept.causal.step, 2);
  await app.click('Learn');
  await app.click('Close lesson');
  assert.equal((await lessonNow(app)).id, null);
  await app.click('Learn');
  await app.click('Lesson: causal');
  assert.equal((await lessonNow(app)).step, 2, 'the menu did not resume the lesson where it was left');
  assert.deepEqual(app.errors, []);
  assert.deepEqual(other.errors, []);
});
