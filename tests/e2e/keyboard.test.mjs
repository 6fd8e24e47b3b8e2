// keyboard.test.mjs: the app without a mouse, and what a screen reader hears.
// Keyboard navigation (ImGui's nav) reaches and presses controls, F1 / ? open the
// shortcuts window, Shift+arrows move the pinned cell, and the aria-live region
// (#live) mirrors the focused cell's value or the reason an edit was refused.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

const live = (app) => app.page.evaluate(() => document.getElementById('live').textContent);

// Overlap test of two {x, y, w, h} rectangles (the nav cursor is drawn a little
// outside its item).
const overlaps = (a, b) => a && b && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h &&
  Math.abs((a.y + a.h / 2) - (b.y + b.h / 2)) < Math.max(a.h, b.h) / 2;

test('arrow keys walk the controls and Space presses the one reached', async (t) => {
  const app = await openApp(t);
  const before = (await app.state()).causal;
  // Give the Parameters window keyboard focus by clicking its title bar, then steer.
  const win = await app.rect('Parameters window');
  await app.page.mouse.click(win.x + 80, win.y + 8);
  await app.frames(2);
  const target = await app.rect('Causal mask');
  let reached = false;
  for (let k = 0; k < 40 && !reached; k++) {
    // Steered: down while the cursor is above the checkbox, up if it went past.
    const at = await app.rect('keyboard focus');
    await app.tap(at && at.y > target.y + target.h ? 'ArrowUp' : 'ArrowDown');
    reached = overlaps(await app.rect('keyboard focus'), target);
  }
  assert.ok(reached, 'the navigation cursor reaches "Causal mask" with the arrow keys alone');
  await app.shot('keyboard-nav-causal');
  await app.page.keyboard.press('Space');
  await app.frames(3);
  assert.equal((await app.state()).causal, !before, 'Space toggled the checkbox the cursor was on');
  await app.close();
});

test('F1 and ? open the shortcuts window, Esc closes it; the Help menu opens it too', async (t) => {
  const app = await openApp(t);
  assert.equal(await app.rect('Keyboard shortcuts window'), null);
  await app.page.keyboard.press('F1');
  await app.frames(3);
  const r = await app.rect('Keyboard shortcuts window');
  assert.ok(r && r.w > 300 && r.h > 200, 'a window of shortcuts appears');
  await app.shot('help-overlay');
  await app.page.keyboard.press('Escape');
  await app.frames(3);
  assert.equal(await app.rect('Keyboard shortcuts window'), null, 'Esc closes it');
  await app.page.keyboard.press('Shift+Slash');  // "?"
  await app.frames(3);
  assert.ok(await app.rect('Keyboard shortcuts window'), '? opens it');
  await app.page.keyboard.press('Shift+Slash');
  await app.frames(3);
  assert.equal(await app.rect('Keyboard shortcuts window'), null, '? again closes it');
  await app.click('Help');
  await app.click('Keyboard shortcuts');
  assert.ok(await app.rect('Keyboard shortcuts window'), 'Help > Keyboard shortcuts opens it');
  await app.close();
});

test('the hovered cell is spoken: #live names the stage, tokens and value', async (t) => {
  const app = await openApp(t);
  const s = await app.state();
  const w = await app.matrix('weights', 0);
  const S = w.rows;
  const [x, y] = await app.cellPoint('weights h0', S, S, 2, 1);
  await app.page.mouse.move(x, y);
  await app.frames(3);
  const text = await live(app);
  assert.match(text, /^weights, head 0, query 2 /);
  assert.ok(text.includes(`\u201c${s.tokens[2]}\u201d`) && text.includes(`key 1 \u201c${s.tokens[1]}\u201d`), text);
  const shown = Number(/: (-?[0-9.]+)$/.exec(text)[1]);
  assert.ok(Math.abs(shown - w.data[2 * S + 1]) < 5e-4, `${text} vs ${w.data[2 * S + 1]}`);
  assert.equal(await app.page.evaluate(() => document.getElementById('live').getAttribute('aria-live')), 'polite');
  await app.close();
});

test('Shift+arrows move the pinned cell and the Inspector and #live follow', async (t) => {
  const app = await openApp(t);
  const w = await app.matrix('weights', 0);
  const S = w.rows;
  const [x, y] = await app.cellPoint('weights h0', S, S, 1, 1);
  await app.page.mouse.move(x, y);
  await app.frames(2);
  await app.page.mouse.down();
  await app.frames(1);
  await app.page.mouse.up();
  await app.frames(2);
  assert.match(await live(app), /query 1 .*key 1 .*pinned$/);
  // Move the pointer away so the pinned cell, not the hovered one, is in focus.
  await app.page.mouse.move(5, 5);
  await app.tap('Shift+ArrowRight');
  await app.tap('Shift+ArrowDown');
  await app.tap('Shift+ArrowDown', 3);
  const text = await live(app);
  assert.match(text, /query 3 .*key 2 .*pinned$/, text);
  const shown = Number(/: (-?[0-9.]+), pinned$/.exec(text)[1]);
  assert.ok(Math.abs(shown - w.data[3 * S + 2]) < 5e-4);
  await app.close();
});

test('a refused edit is spoken too', async (t) => {
  const app = await openApp(t);
  const before = (await app.state()).num_heads;
  await app.type('Heads', '5', { number: true });
  const text = await live(app);
  assert.match(text, /^Not applied: /, text);
  assert.match(text, /divisible|divide/, text);
  assert.equal((await app.state()).num_heads, before, 'the last valid state stays');
  await app.close();
});
