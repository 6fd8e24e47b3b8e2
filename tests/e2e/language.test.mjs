// language.test.mjs: the interface in English and 简体中文 (issue 22, item 1).
// The browser's languages choose it; ?lang= overrides; View → Language switches it with
// the mouse; the choice is remembered across reloads and carried by share links;
// <html lang> and window.attnviz.language() follow; itemRect keeps the English names;
// an unknown code gets a sentence. Screenshots of the Chinese interface at 1280×720
// (dpr 1 and 2) and 1920×1080 are kept for a person to look at.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

const CONTROLS = ['Tokens', 'Heads', 'Causal mask', 'Dropout p', 'Training'];
const inside = (r, box) => r && r.w > 0 && r.h > 0 && r.x >= box.x - 0.5 && r.y >= box.y - 0.5 &&
  r.x + r.w <= box.x + box.w + 0.5 && r.y + r.h <= box.y + box.h + 0.5;

const htmlLang = (app) => app.page.evaluate(() => document.documentElement.lang);
const language = (app) => app.page.evaluate(() => window.attnviz.language());
// Loads `url` in the same page (same localStorage) and waits until the app is ready.
async function reopen(app, url) {
  await app.page.goto(url);
  await app.page.evaluate(() => window.attnviz.ready);
  await app.frames(2);
}
// The page's address without its hash and query: a plain visit.
const plain = (app) => app.page.url().replace(/[?#].*$/, '');

// The language choice as a person makes it: View → Language → the language's own name.
async function chooseLanguage(app, code) {
  await app.click('View');
  await app.click('Language');
  await app.click(`Language: ${code}`);
  await app.frames(2);
}

test('a browser in Chinese opens the interface in Chinese, with the CJK font loaded with the page', async (t) => {
  const app = await openApp(t, { locale: 'zh-CN', viewport: { width: 1280, height: 720 } });
  assert.equal(await language(app), 'zh-CN');
  assert.equal(await htmlLang(app), 'zh-CN');
  assert.equal((await app.stats()).fonts_pending, false, 'ready means the CJK glyphs are in the atlas');
  assert.match(await app.page.title(), /注意力/);
  // Items keep their English names: the controls are in reach and work.
  const screen = { x: 0, y: 0, w: 1280, h: 720 };
  const params = await app.rect('Parameters window');
  for (const label of CONTROLS) assert.ok(inside(await app.rect(label), params) && inside(await app.rect(label), screen), label);
  await app.click('Causal mask');
  assert.equal((await app.state()).causal, true);
  await app.page.mouse.move(1270, 710);
  await app.frames(2);
  await app.shot('language-zh-CN-1280x720');
  await app.close();
});

test('an English browser opens in English; View → Language switches both ways and is remembered', async (t) => {
  const app = await openApp(t, { locale: 'en-US' });
  assert.equal(await language(app), 'en');
  assert.equal(await htmlLang(app), 'en');
  const tabBefore = await app.rect('Compare heads');
  await app.click('Compare heads');
  await chooseLanguage(app, 'zh-CN');
  assert.equal(await language(app), 'zh-CN');
  assert.equal(await htmlLang(app), 'zh-CN');
  assert.equal((await app.page.evaluate(() => window.attnviz.getState())).tokens.length, 5, 'the state is kept');
  const tabAfter = await app.rect('Compare heads');
  assert.ok(tabAfter && tabAfter.w !== tabBefore.w, 'the tab is labelled in Chinese now (another width)');
  await app.page.waitForFunction(() => window.attnviz.frameStats().fonts_pending === false);
  // Reload: remembered (the browser still says English).
  await reopen(app, plain(app));
  assert.equal(await language(app), 'zh-CN', 'remembered across a reload');
  // And back to English with the mouse.
  await chooseLanguage(app, 'en');
  assert.equal(await language(app), 'en');
  await reopen(app, plain(app));
  assert.equal(await language(app), 'en');
  await app.close();
});

test('?lang= overrides the browser and the remembered choice; an unknown code gets a sentence', async (t) => {
  const app = await openApp(t, { locale: 'zh-CN', query: 'lang=en' });
  assert.equal(await language(app), 'en');
  assert.equal(await htmlLang(app), 'en');
  await reopen(app, plain(app) + '?lang=zh-CN');
  assert.equal(await language(app), 'zh-CN');
  await reopen(app, plain(app) + '?lang=tlh');
  const notice = await app.page.evaluate(() => window.attnviz.notice && window.attnviz.notice());
  const said = notice ? notice.text : '';
  assert.match(said, /tlh/, `the notice names the code: ${said}`);
  assert.equal(await language(app), 'zh-CN', 'the language stays what it was');
  // The test API refuses one too.
  const r = await app.page.evaluate(() => window.attnviz.setLanguage('xx-YY'));
  assert.equal(r.ok, false);
  assert.match(r.error, /xx-YY/);
  assert.equal((await app.page.evaluate(() => window.attnviz.setLanguage('zh-Hans'))).ok, true);
  assert.equal(await language(app), 'zh-CN');
  await app.close();
});

test('a share link carries the language to an English browser', async (t) => {
  const a = await openApp(t, { locale: 'en-US', query: 'lang=zh-CN' });
  await a.page.waitForFunction(() => /^#s1\./.test(window.location.hash));
  await a.frames(20);  // the address follows the session after a quiet moment
  await a.page.waitForFunction(() => window.location.hash.length > 10);
  const hash = await a.page.evaluate(() => window.location.hash.slice(1));
  await a.close();
  const b = await openApp(t, { locale: 'en-US', hash });
  assert.equal(await language(b), 'zh-CN');
  assert.equal(await htmlLang(b), 'zh-CN');
  await b.close();
});

for (const [viewport, dpr] of [[{ width: 1280, height: 720 }, 2], [{ width: 1920, height: 1080 }, 1]]) {
  const name = `${viewport.width}x${viewport.height}@${dpr}x`;
  test(`the Chinese interface at ${name}: controls in view, a pinned cell explained`, async (t) => {
    const app = await openApp(t, { query: 'lang=zh-CN', viewport, deviceScaleFactor: dpr });
    const screen = { x: 0, y: 0, w: viewport.width, h: viewport.height };
    for (const label of CONTROLS) assert.ok(inside(await app.rect(label), screen), `${label} in view`);
    await app.click('weights h0');  // pins a cell: the Inspector explains it in Chinese
    await app.page.mouse.move(viewport.width - 4, viewport.height - 4);
    await app.frames(3);
    await app.shot(`language-zh-CN-${name}`);
    await app.close();
  });
}
