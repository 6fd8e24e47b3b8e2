// share.test.mjs: share links in the address bar, damaged and hostile links, undo and
// redo, the saved session, the system clipboard and non-ASCII typing (accents, an
// input method's composition), all through real mouse, keyboard and CDP input events.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { openApp, repoRoot } from './harness.mjs';

const CLIPBOARD = ['clipboard-read', 'clipboard-write'];
const fixtureDir = path.join(repoRoot, 'tests/fixtures/share');
const preset = (file) => JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/presets', file), 'utf8')).state;
// A link made outside the browser (node's zlib, the same raw deflate).
const link = (text, format = 1) => `s${format}.` + zlib.deflateRawSync(Buffer.from(text)).toString('base64url');

// Waits until location.hash holds the current session, then returns the whole URL.
async function settledUrl(app) {
  await app.frames(2);
  await app.page.waitForFunction(async () =>
    window.location.hash === '#' + (await window.attnviz.shareLink()).split('#')[1], null, { polling: 100 });
  return app.page.evaluate(() => window.location.href);
}
const session = (app) => app.page.evaluate(() => window.attnviz.session());
const notice = (app) => app.page.evaluate(() => window.attnviz.notice());
async function noticeWith(app, text) {
  await app.page.waitForFunction((t) => (window.attnviz.notice()?.text || '').includes(t), text, { polling: 50 });
  await app.frames(2);
  return notice(app);
}

test('a link restores the state and every view selection: head, tab, colormap, pinned cell', async (t) => {
  const app = await openApp(t);
  const s = await app.state();
  Object.assign(s, { d_out: 6, num_heads: 3 });
  assert.ok((await app.setState(s)).ok);
  await app.click('Causal mask');
  await app.click('head 2');
  const p = await app.cellPoint('weights h2', 5, 5, 3, 1);
  await app.page.mouse.move(p[0], p[1]);
  await app.frames(2);
  await app.page.mouse.click(p[0], p[1]);
  await app.frames(2);
  await app.click('View');
  await app.click('Weights colormap');
  await app.click('cividis (colour-blind safe)');
  await app.click('Compare heads');
  const url = await settledUrl(app);
  const before = await session(app);
  assert.equal(before.v, 1);
  assert.equal(before.state.causal, true);
  const { head_b, ...view } = before.view;  // head_b: whatever Compare heads chose
  assert.ok(head_b >= 0 && head_b < 3 && head_b !== 2);
  assert.deepEqual(view, { tab: 'compare', head: 2, compare_stage: 'weights', cmap: 'cividis',
                           decimals: 4, torch: false,  // as the app opened: tutorial 000's 4 decimals
                           split: 'words', lang: 'en',
                           pinned: { stage: 'weights', head: 2, row: 3, col: 1 } });
  t.diagnostic(`link length ${url.split('#')[1].length} characters`);
  if (process.env.ATTNVIZ_WRITE_SHARE_FIXTURE) {  // the native codec test reads this link
    fs.mkdirSync(fixtureDir, { recursive: true });
    fs.writeFileSync(path.join(fixtureDir, 'browser-link.txt'), url.replace(/^http:\/\/[^/]+/, 'https://example.org') + '\n');
    fs.writeFileSync(path.join(fixtureDir, 'browser-link.json'), JSON.stringify(before, null, 1) + '\n');
  }
  await app.close();

  const again = await openApp(t, { hash: url.split('#')[1] });
  await again.frames(4);  // the tab bars take the restored selection, then keep it
  assert.deepEqual(await session(again), before);
  assert.ok(await again.rect('A/B'), 'the Compare heads tab is the one shown');
  assert.ok(await again.rect('Unpin'), 'the pinned cell is pinned');
  assert.equal(await notice(again), null, 'no sentence for a good link');
  // The link committed as a fixture (made the same way) decodes here to its JSON too.
  const fixture = fs.readFileSync(path.join(fixtureDir, 'browser-link.txt'), 'utf8');
  const d = await again.page.evaluate((l) => window.attnviz.decodeLink(l), fixture);
  assert.ok(d.ok, d.error);
  assert.deepEqual(JSON.parse(d.text), JSON.parse(fs.readFileSync(path.join(fixtureDir, 'browser-link.json'), 'utf8')));
  await again.shot('share-restored');
  await again.close();
});

test('damaged, hostile and other-version links get a sentence and the app keeps its state', async (t) => {
  // At start: the sentence is shown over the default session.
  const first = await openApp(t, { hash: 's1.%%%not-base64' });
  const n0 = await noticeWith(first, 'This link could not be opened');
  assert.equal(n0.error, true);
  assert.match(n0.text, /characters a share link never contains/);
  assert.deepEqual((await first.state()).tokens, ['Once', 'upon', 'a', 'time', 'there']);
  assert.ok(await first.rect('share notice'));
  await first.shot('share-bad-link');
  await first.close();

  // While running: every bad link changes nothing.
  const app = await openApp(t);
  await app.click('Causal mask');
  const kept = await session(app);
  const good = JSON.stringify({ v: 1, state: kept.state });
  const cases = [
    ['#s1.!!!!', 'characters a share link never contains'],
    ['#hello', 'not an attnviz share link'],
    ['#s1.' + Buffer.from('this is not deflate data at all').toString('base64url'), 'incomplete or corrupted'],
    ['#' + link(good).slice(0, -8), 'incomplete or corrupted'],
    ['#' + link(' '.repeat(20 << 20)), 'more than 16 MB'],
    ['#' + link('hello, world'), 'not valid JSON'],
    ['#' + link('['.repeat(200000) + ']'.repeat(200000)), 'nested more than 64'],
    ['#' + link(JSON.stringify({ v: 1, state: { num_heads: 3 } })), 'The current state is kept'],
    ['#' + link(JSON.stringify({ v: 1, state: { tokens: ['a'.repeat(10 << 20)] } })), 'The current state is kept'],
    ['#' + link(JSON.stringify({ v: 1, state: { temperature: 'NaN' } })), 'The current state is kept'],
    ['#' + link(JSON.stringify({ v: 1, state: {}, view: { head: 'two' } })), 'view.head'],
    ['#' + link(good, 2), 'newer attnviz (link format 2)'],
    ['#' + link(JSON.stringify({ v: 2, state: {} })), 'newer attnviz (format 2)'],
    ['#' + link(good, 0), 'link format 0'],
  ];
  for (const [hash, want] of cases) {
    await app.page.evaluate((h) => { window.location.hash = h; }, hash);
    const n = await noticeWith(app, want);
    assert.equal(n.error, true, want);
    assert.match(n.text, /^This link could not be opened: /, n.text);
    assert.deepEqual(await session(app), kept, `state and view kept after "${want}"`);
    await app.click('Dismiss');
    assert.equal(await notice(app), null);
  }
  // A good link after all that still opens.
  await app.page.evaluate((h) => { window.location.hash = h; }, '#' + link(JSON.stringify({ v: 1, state: preset('02-your-journey-rand.json') })));
  await app.page.waitForFunction(() => window.attnviz.getState().tokens[0] === 'Your');
  await app.close();
});

test('Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y undo and redo; a slider drag is one step; a text field keeps its own Ctrl+Z', async (t) => {
  const app = await openApp(t);
  const keys = app.page.keyboard;
  await app.click('Causal mask');
  assert.equal((await app.state()).causal, true);
  await keys.press('Control+z');
  await app.frames(3);
  assert.equal((await app.state()).causal, false, 'Ctrl+Z undoes');
  await keys.press('Control+Shift+Z');
  await app.frames(3);
  assert.equal((await app.state()).causal, true, 'Ctrl+Shift+Z redoes');
  await keys.press('Control+z');
  await app.frames(3);
  await keys.press('Control+y');
  await app.frames(3);
  assert.equal((await app.state()).causal, true, 'Ctrl+Y redoes');

  // Drag the Dropout p slider across in many frames: many changes, one undo step.
  const undoBefore = (await app.page.evaluate(() => window.attnviz.history())).undo;
  const p0 = (await app.state()).dropout.p;  // the default preset's 0.2
  const params = await app.rect('Parameters window');
  await app.page.mouse.move(params.x + params.w / 2, params.y + params.h / 2);
  await app.page.mouse.wheel(0, 2000);  // Dropout is at the bottom of Parameters
  await app.frames(4);
  const r = await app.rect('Dropout p');
  await app.page.mouse.move(r.x + 4, r.y + r.h / 2);
  await app.frames(1);
  await app.page.mouse.down();
  for (let k = 1; k <= 20; k++) {
    await app.page.mouse.move(r.x + 4 + k * 9, r.y + r.h / 2);
    await app.frames(1);
  }
  await app.page.mouse.up();
  await app.frames(3);
  assert.ok((await app.state()).dropout.p > p0 + 0.3, 'the drag moved p right');
  assert.equal((await app.page.evaluate(() => window.attnviz.history())).undo, undoBefore + 1, 'one step for the drag');
  await keys.press('Control+z');
  await app.frames(3);
  assert.equal((await app.state()).dropout.p, p0, 'one Ctrl+Z undoes the whole drag');
  assert.equal((await app.state()).causal, true);

  // In the Tokens field Ctrl+Z is the field's own text undo: the state is untouched.
  await app.page.mouse.move(params.x + params.w / 2, params.y + params.h / 2);
  await app.page.mouse.wheel(0, -2000);  // back up to Tokens
  await app.frames(4);
  await app.click('Tokens');
  await keys.press('Control+A');
  await keys.type('x y');
  await app.frames(2);
  await keys.press('Control+z');
  await app.frames(3);
  assert.equal((await app.state()).causal, true, 'Ctrl+Z in a text field does not undo the state');
  await keys.press('Escape');
  await app.frames(3);

  // The Edit menu does the same.
  await app.click('Edit');
  await app.click('Undo');
  assert.equal((await app.state()).causal, false, 'Edit → Undo');
  await app.click('Edit');
  await app.click('Redo');
  assert.equal((await app.state()).causal, true, 'Edit → Redo');
  await app.close();
});

test('the session survives a reload; a link wins over the saved session', async (t) => {
  const app = await openApp(t);
  await app.click('Causal mask');
  await app.click('View');
  await app.click('Weights colormap');
  await app.click('cividis (colour-blind safe)');
  await settledUrl(app);
  const saved = await app.page.evaluate(() => JSON.parse(window.localStorage.getItem('attnviz.session')));
  assert.equal(saved.state.causal, true);
  await app.page.goto(app.server.url);  // no hash: the saved session
  await app.page.evaluate(() => window.attnviz.ready);
  assert.equal((await app.state()).causal, true, 'state restored from localStorage');
  assert.equal((await session(app)).view.cmap, 'cividis', 'view restored too');
  // History starts at the restored session: Ctrl+Z has nothing to undo, rather than
  // dropping the learner back to the default preset.
  assert.equal((await app.page.evaluate(() => window.attnviz.history())).undo, 0, 'no undo step for the restore');
  await app.click('Parameters window', { dy: 8 });
  await app.tap('Control+z', 3);  // down and up in one go: a loaded machine's delay between them made it repeat
  assert.equal((await app.state()).causal, true, 'Ctrl+Z right after opening keeps the restored state');
  // A change and, before the save's quiet time is over, a reload: the leaving page saves it.
  await app.click('Causal mask');
  await app.page.goto(app.server.url);
  await app.page.evaluate(() => window.attnviz.ready);
  assert.equal((await app.state()).causal, false, 'a change made just before leaving is kept');
  await app.page.goto(app.server.url + '#' + link(JSON.stringify({ v: 1, state: {} })));
  await app.page.reload();  // a hash-only change is not a load: reload to start from the link
  await app.page.evaluate(() => window.attnviz.ready);
  assert.equal((await app.state()).causal, false, 'the link wins over the saved session');
  await app.close();
});

test('the system clipboard: copy the share link, paste a state or a link, paste into a text field, copy from it', async (t) => {
  const app = await openApp(t, { permissions: CLIPBOARD });
  const keys = app.page.keyboard;
  const readClip = () => app.page.evaluate(() => navigator.clipboard.readText());
  const writeClip = (s) => app.page.evaluate((x) => navigator.clipboard.writeText(x), s);
  await app.click('Causal mask');
  await app.click('Edit');
  await app.click('Copy share link');
  await noticeWith(app, 'Share link copied');
  const copied = await readClip();
  assert.match(copied, /^http:\/\/127\.0\.0\.1:\d+\/#s1\.[A-Za-z0-9_-]+$/);
  assert.equal(copied, await app.page.evaluate(() => window.attnviz.shareLink()));

  // Ctrl+V outside a text field: a state JSON from the clipboard replaces the state (undoable).
  const journey = preset('02-your-journey-rand.json');
  await writeClip(JSON.stringify(journey));
  await keys.press('Control+V');
  await noticeWith(app, 'State pasted');
  assert.deepEqual((await app.state()).tokens, journey.tokens);
  await keys.press('Control+z');
  await app.frames(3);
  assert.equal((await app.state()).causal, true, 'Ctrl+Z undoes the paste');
  assert.deepEqual((await app.state()).tokens, ['Once', 'upon', 'a', 'time', 'there']);

  // Edit → Paste state with the copied link.
  await app.click('Causal mask');
  assert.equal((await app.state()).causal, false);
  await writeClip(copied);
  await app.click('Edit');
  await app.click('Paste state');
  await noticeWith(app, 'pasted from a share link');
  assert.equal((await app.state()).causal, true);

  // Text that is neither: a sentence, nothing changes.
  const kept = await app.state();
  await writeClip('hello there');
  await keys.press('Control+V');
  const n = await noticeWith(app, 'does not hold a usable attnviz state');
  assert.equal(n.error, true);
  assert.deepEqual(await app.state(), kept);

  // Ctrl+V in the Tokens field pastes the clipboard's text there.
  await writeClip('alpha beta');
  await app.click('Tokens');
  await keys.press('Control+A');
  // A frame for the selection: the pasted text comes through the page's paste
  // event, not ImGui's input queue, so on a loaded machine it could arrive
  // before a Ctrl+A still queued there and land beside the old text.
  await app.frames(2);
  await keys.press('Control+V');
  await app.frames(3);
  await keys.press('Enter');
  await app.frames(3);
  assert.deepEqual((await app.state()).tokens, ['alpha', 'beta']);
  // And Ctrl+C there copies to the system clipboard.
  await writeClip('');
  await app.click('Tokens');
  await keys.press('Control+A');
  await app.frames(2);
  await keys.press('Control+C');
  await app.page.waitForFunction(async () => (await navigator.clipboard.readText()) === 'alpha beta');
  await keys.press('Escape');
  await app.close();
});

test('non-ASCII typing into Tokens: accents from the keyboard, Chinese through an input method', async (t) => {
  const app = await openApp(t);
  const keys = app.page.keyboard;
  // Accents: keyboard.type sends keys for ASCII and text input for é, ï, ü.
  await app.type('Tokens', 'café naïve über');
  assert.deepEqual((await app.state()).tokens, ['café', 'naïve', 'über']);

  // Backspace and ordinary keys still work next to them, and a key whose character
  // is é (the 2 key of a French layout) arrives once.
  const cdp = await app.page.context().newCDPSession(app.page);
  const frenchE = { key: 'é', code: 'Digit2', text: 'é', unmodifiedText: 'é', windowsVirtualKeyCode: 50 };
  await app.click('Tokens');
  await keys.press('Control+A');
  await keys.type('abcd');
  await keys.press('Backspace');
  await keys.press('Space');
  await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', ...frenchE });
  await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...frenchE });
  await keys.insertText('ß');
  await app.frames(2);
  await keys.press('Enter');
  await app.frames(3);
  assert.deepEqual((await app.state()).tokens, ['abc', 'éß']);

  // Chinese through an input method: the composition (pinyin) is previewed, only the
  // committed characters arrive.
  await app.click('Tokens');
  await keys.press('Control+A');
  await keys.type('我 ');
  for (const pre of ['z', 'zh', 'zhong', 'zhongwen']) {
    await cdp.send('Input.imeSetComposition', { text: pre, selectionStart: pre.length, selectionEnd: pre.length });
    await app.frames(1);
  }
  await app.shot('ime-composing');
  await cdp.send('Input.insertText', { text: '中文' });
  await app.frames(2);
  await keys.type(' ok');
  await app.frames(2);
  await keys.press('Enter');
  await app.frames(3);
  // Split "words & characters" (the default): each Han character is a token.
  assert.deepEqual((await app.state()).tokens, ['我', '中', '文', 'ok']);
  await app.page.waitForFunction(() => !window.attnviz.frameStats().fonts_pending);
  await app.frames(3);
  await app.shot('ime-committed');
  await app.close();
});
