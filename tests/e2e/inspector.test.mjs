// inspector.test.mjs: the Inspector's layout with real mouse input at three screen
// sizes (issue 21, item 8). The pointer hovers cells of the Stages tab; every text line
// the Inspector draws ("inspector line N", its whole rectangle) and its table of terms
// ("inspector terms") must lie inside the Inspector window: nothing clipped. What the
// lines say (√head_dim = √2 = 1.4142, no −0.0000, no number split) is checked natively
// in tests/ui/test_inspector.cpp; the screenshots here are for looking at.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';

const journey = JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/presets/02-your-journey-rand.json'), 'utf8'));

async function hoverCell(app, label, rows, cols, i, j) {
  if (label.includes(' h')) await app.showMap(label);  // the Stages flow may scroll at this size
  const [x, y] = await app.cellPoint(label, rows, cols, i, j);
  await app.page.mouse.move(x, y);
  await app.frames(3);
}

// Every registered inspector line and the terms table lie inside the Inspector window.
async function expectInside(app, what) {
  const win = await app.rect('Inspector window');
  assert.ok(win, 'the Inspector window is drawn');
  let n = 0;
  for (;; ++n) {
    const r = await app.page.evaluate((l) => window.attnviz.itemRect(l), `inspector line ${n}`);
    if (!r) break;
    assert.ok(r.x >= win.x && r.x + r.w <= win.x + win.w, `${what}: line ${n} ${JSON.stringify(r)} inside ${JSON.stringify(win)}`);
  }
  assert.ok(n >= 3, `${what}: the Inspector drew ${n} lines`);
  const t = await app.page.evaluate(() => window.attnviz.itemRect('inspector terms'));
  if (t) assert.ok(t.x >= win.x && t.x + t.w <= win.x + win.w, `${what}: terms table ${JSON.stringify(t)} inside`);
  return n;
}

for (const [w, h] of [[1280, 720], [1440, 900], [1920, 1080]]) {
  test(`inspector at ${w}×${h}: scaled, scores, context, masked, weights and Q cells are laid out inside the window`, async (t) => {
    const app = await openApp(t, { viewport: { width: w, height: h } });
    const res = await app.setState({ ...journey.state, temperature: 1.5 });
    assert.ok(res.ok, res.error);
    await app.frames(3);

    await hoverCell(app, 'scaled h0', 6, 6, 1, 2);
    await expectInside(app, 'scaled');
    await app.shot(`inspector-scaled-${w}x${h}`);

    await hoverCell(app, 'scores h0', 6, 6, 4, 1);
    await expectInside(app, 'scores');
    assert.ok(await app.rect('inspector terms'), 'scores show their terms table');
    await app.shot(`inspector-scores-${w}x${h}`);

    // Pin a context cell with a click; the Inspector keeps it while the pointer leaves.
    await app.showMap('context h0');
    await app.click('context h0', { dx: 3, dy: 3 });
    await app.page.mouse.move(w - 10, h - 10);
    await app.frames(3);
    assert.ok(await app.rect('Unpin'), 'the cell is pinned');
    await expectInside(app, 'context (pinned)');
    await app.shot(`inspector-context-${w}x${h}`);
    await app.click('Unpin');

    // The causal mask on: a masked cell above the diagonal, and a weight.
    const causal = await app.setState({ ...journey.state, temperature: 1.5, causal: true });
    assert.ok(causal.ok, causal.error);
    await app.frames(3);
    await hoverCell(app, 'masked h0', 6, 6, 1, 4);
    await expectInside(app, 'masked');
    await hoverCell(app, 'weights h0', 6, 6, 3, 2);
    await expectInside(app, 'weights');
    await app.shot(`inspector-weights-${w}x${h}`);

    // A projection: the terms of X·W_q.
    await app.click('Q K V & output');
    await hoverCell(app, 'Q', 6, 2, 2, 1);
    await expectInside(app, 'Q');
    assert.ok(await app.rect('inspector terms'), 'Q shows its terms table');
    await app.shot(`inspector-q-${w}x${h}`);
    await app.close();
  });
}
