// harness.mjs: shared set-up for attnviz's browser tests (node:test + playwright-core
// driving Debian's /usr/bin/chromium, headless, WebGL2 through SwiftShader).
//
//   const app = await openApp(t);        // server + browser + page, ready resolved
//   await app.click('Causal mask');      // real mouse click at itemRect's centre
//   await app.type('Tokens', 'the cat'); // click, select all, type, Enter
//   await app.shot('name');              // screenshot into tests/e2e/artifacts/
//
// Any console error or page error fails the test that saw it (checked in close()).
//
// One server and one browser serve every test of a file (node:test runs each file
// in a process of its own); each openApp() gets a fresh browser context: its own
// storage, cookies, permissions, viewport and device pixel ratio, as a new
// profile would. Launching Chromium and the server once per file instead of once
// per test saves a few seconds per test.
import { after } from 'node:test';
import { chromium } from 'playwright-core';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');
export const siteDir = process.env.ATTNVIZ_SITE_DIR || path.join(repoRoot, 'build/wasm/site');
export const artifactsDir = path.join(here, 'artifacts');

export const chromiumFlags = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader',
  '--use-angle=swiftshader', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage',
];

// `attnviz-cli COMMAND - ARGS…` with `state` as JSON on its standard input: what it
// printed, as text (it throws on a non-zero exit). The newest attnviz-cli there is runs:
// the wasm one beside the page (make test builds it with the site: scripts/trees.mk
// cli-wasm) or the native one (make check builds it). A test compares what the page
// gives (a download, window.attnviz's numbers) with the CLI's text for the same state.
export function cli(command, state, args = []) {
  const found = [
    { file: path.join(siteDir, '..', 'attnviz-cli.js'), cmd: [process.execPath, '--no-experimental-fetch'] },
    { file: path.join(repoRoot, 'build/native/attnviz-cli'), cmd: [] },
  ].filter((c) => fs.existsSync(c.file));
  if (!found.length) throw new Error('no attnviz-cli: make -f scripts/trees.mk cli-wasm (or make native) builds one');
  const newest = found.sort((a, b) => fs.statSync(b.file).mtimeMs - fs.statSync(a.file).mtimeMs)[0];
  const [exe, ...pre] = [...newest.cmd, newest.file];
  return execFileSync(exe, [...pre, command, '-', ...args], { input: JSON.stringify(state), maxBuffer: 64 << 20 })
    .toString('utf8');
}

// Starts web/serve.mjs on a free port; resolves to {url, stop()}.
export function startServer() {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.join(repoRoot, 'web/serve.mjs'), siteDir, '--port', '0'],
                       { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('server did not start: ' + out)), 10000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[0], port: Number(m[1]), stop: () => proc.kill('SIGTERM') });
      }
    });
    proc.stderr.on('data', (d) => { out += d; });
    proc.on('exit', (code) => { clearTimeout(timer); if (code) reject(new Error('server exited: ' + out)); });
  });
}

// PNG bytes decoded by the browser: {width, height, rgba: Buffer, at(x, y) → [r, g, b]}
// (x, y in the image's pixels, rounded).
export async function decodePng(page, bytes) {
  const { width, height, b64 } = await page.evaluate(async (src) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + src;
    await img.decode();
    const c = new OffscreenCanvas(img.width, img.height);
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, img.width, img.height).data;
    let bin = '';
    for (let k = 0; k < d.length; k += 0x8000) bin += String.fromCharCode.apply(null, d.subarray(k, k + 0x8000));
    return { width: img.width, height: img.height, b64: btoa(bin) };
  }, bytes.toString('base64'));
  const rgba = Buffer.from(b64, 'base64');
  const at = (x, y) => { const k = (Math.round(y) * width + Math.round(x)) * 4; return [rgba[k], rgba[k + 1], rgba[k + 2]]; };
  return { width, height, rgba, at };
}

// The file's server and browser, started by the first openApp() and closed
// after the file's last test (or when a page never got ready: the next test then
// starts a new browser). A script outside node:test (bench/frame_bench.mjs)
// passes no test context and calls closeShared() itself.
let shared = null;
export async function closeShared() {
  if (!shared) return;
  const pending = shared;
  shared = null;
  const { server, browser } = await pending.catch(() => ({}));
  await browser?.close().catch(() => {});
  server?.stop();
}
function sharedBrowser() {
  if (!shared) {
    shared = (async () => {
      const server = await startServer();
      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumFlags })
        .catch((err) => { server.stop(); throw err; });
      return { server, browser };
    })();
  }
  return shared;
}
// Registered at the top level, so on node:test's root: after() called inside a
// test would close the browser when that test ends. Only in a test process
// (node --test sets NODE_TEST_CONTEXT; or a *.test.mjs run directly): in any
// other script, importing node:test's hooks would start a test run of its own.
if (process.env.NODE_TEST_CONTEXT || /\.test\.mjs$/.test(process.argv[1] || '')) after(closeShared);

// The keys app.tap can press: DOM key and code, Windows virtual key code, modifier bit.
const TAP_KEYS = {
  ArrowLeft: { key: 'ArrowLeft', code: 'ArrowLeft', vk: 37 },
  ArrowUp: { key: 'ArrowUp', code: 'ArrowUp', vk: 38 },
  ArrowRight: { key: 'ArrowRight', code: 'ArrowRight', vk: 39 },
  ArrowDown: { key: 'ArrowDown', code: 'ArrowDown', vk: 40 },
  Shift: { key: 'Shift', code: 'ShiftLeft', vk: 16, location: 1, bit: 8 },
  Control: { key: 'Control', code: 'ControlLeft', vk: 17, location: 1, bit: 2 },
  z: { key: 'z', code: 'KeyZ', vk: 90 },
};

// The Stages flow's operation lines, which the wheel scrolls the tab over (showMap).
const FLOW_OPS = ['op Q', 'op scores', 'op scaled', 'op masked', 'op weights', 'op dropped', 'op context'];
// Whether a map (heatmapInfo) is wholly inside the Views window (itemRect), its title
// and column labels (60 px above its cells) below the window's title bar.
const mapInView = (m, views) => m.y - 60 >= views.y + 40 && m.y + m.h <= views.y + views.h;

// Opens the app and waits for window.attnviz.ready. Options: {viewport, deviceScaleFactor, hash,
// query (e.g. 'threads=1', 'lang=zh-CN'), permissions (e.g. ['clipboard-read', 'clipboard-write']),
// locale (the browser's language, 'en-US' unless given)}.
export async function openApp(t, opts = {}) {
  const { server, browser } = await sharedBrowser();
  const context = await browser.newContext({
    viewport: opts.viewport || { width: 1440, height: 900 },
    deviceScaleFactor: opts.deviceScaleFactor || 1,
    permissions: opts.permissions || [],
    // The browser's languages (navigator.languages) choose the interface's language
    // when nothing else does: English unless a test asks for another.
    locale: opts.locale || 'en-US',
  });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push('console: ' + msg.text()); });
  page.on('pageerror', (err) => errors.push('pageerror: ' + err.message));
  // A page that never gets ready (once, a headless Chromium whose GPU
  // process spun while the page waited for its first frame) fails the test
  // within a minute, and takes the file's browser and server down with it: left
  // open, they kept the test process, and so `make test`, alive for good.
  try {
    await page.goto(server.url + (opts.query ? '?' + opts.query : '') + (opts.hash ? '#' + opts.hash : ''));
    // Timed here, not in the page: a renderer blocked on its GPU process
    // runs no timers.
    let timer;
    const late = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error('attnviz was not ready 60 s after the page loaded')), 60000);
    });
    await Promise.race([page.evaluate(() => window.attnviz.ready), late]).finally(() => clearTimeout(timer));
  } catch (err) {
    await context.close().catch(() => {});
    await closeShared();
    throw err;
  }

  // settle(n, label, read): input drained, n frames drawn, then window.attnviz[read](label)
  // (itemRect unless said; nothing for a null label) from
  // the last of them, in one page.evaluate (app.frames). A renderer that runs no animation
  // frames (a GPU process stuck) would never answer: the wait is capped at five minutes.
  const settle = async (n, label, read = 'itemRect') => {
    let timer;
    const cap = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no frame drawn within 5 minutes (frames(${n}))`)), 300000);
    });
    const r = await Promise.race([cap, page.evaluate(async ([k, l, fn]) => {
      const a = window.attnviz;
      const frame = () => new Promise((res) => requestAnimationFrame(res));
      let pending = a.frameStats().input_pending, since = performance.now();
      while (pending > 0) {
        await frame();
        const p = a.frameStats().input_pending;
        if (p < pending) { pending = p; since = performance.now(); }
        else if (performance.now() - since > 30000) return { error: `${p} input events not taken in for 30 s` };
      }
      const start = a.frameStats().frames, t0 = performance.now();
      a.requestFrames(k);
      while (a.frameStats().frames < start + k) {
        await frame();
        if (performance.now() - t0 > 30000) return { error: `${k} frames asked for, ${a.frameStats().frames - start} drawn in 30 s` };
      }
      return { rect: l === null ? null : a[fn](l) };
    }, [n, label, read])]).finally(() => clearTimeout(timer));
    if (r.error) throw new Error('frames: ' + r.error);
    return r.rect;
  };

  const app = {
    page, server, errors,
    // States cross to and from the page as JSON text: what getState parsed and what
    // setState would stringify itself, so the values are the same; a GPT-2-sized state
    // (2.4 M numbers) as an object took Playwright's serializer 35–50 s each way.
    state: async () => JSON.parse(await page.evaluate(() => JSON.stringify(window.attnviz.getState()))),
    setState: (s) => page.evaluate((x) => window.attnviz.setState(x), typeof s === 'string' ? s : JSON.stringify(s)),
    matrix: (name, head = 0) => page.evaluate(([n, h]) => window.attnviz.getMatrix(n, h), [name, head]),
    stats: () => page.evaluate(() => window.attnviz.frameStats()),
    // Waits until the app has taken in all input sent so far, then until n more frames
    // have been drawn (the UI reacts to input on the next frame); it asks for them, since
    // a page with nothing to do draws only once a second. Input can queue up:
    // ImGui trickles a key's down and up, or a key and then text, that arrived within
    // one frame over a frame each, so fast typing runs ahead of a fixed frame count.
    // Long typing (hundreds of keys) drains at one change per frame, which on a loaded
    // machine takes longer than 30 s: the wait goes on while the queue shrinks and fails
    // only when 30 s pass with no input taken in. One round trip to the page (settle):
    // an awake page draws a frame every animation frame, each costing SwiftShader tens
    // of milliseconds of CPU, so every round trip a wait saves is frames not drawn.
    frames: (n = 2) => settle(n, null),
    // One press of a key or chord ('ArrowDown', 'Shift+ArrowRight'), its downs and ups
    // sent to Chrome's Input domain (what page.keyboard drives) in one go, then n frames.
    // page.keyboard.press sends the release only once the press is acknowledged; on a
    // loaded machine frames pass in between, and past ImGui's 0.275 s repeat delay the
    // one press counts twice (a keyboard test walked past "Causal mask" that way).
    tap: async (combo, n = 2) => {
      const parts = combo.split('+');
      const keys = parts.map((k) => TAP_KEYS[k] || (() => { throw new Error(`tap: no key "${k}"`); })());
      const mods = parts.slice(0, -1).reduce((m, k) => m | TAP_KEYS[k].bit, 0);
      app.cdp ??= await page.context().newCDPSession(page);
      const ev = (type, k) => app.cdp.send('Input.dispatchKeyEvent', {
        type, key: k.key, code: k.code, windowsVirtualKeyCode: k.vk, nativeVirtualKeyCode: k.vk,
        modifiers: mods, location: k.location || 0,
      });
      const sent = [...keys.map((k) => ev('rawKeyDown', k)), ...keys.reverse().map((k) => ev('keyUp', k))];
      await Promise.all(sent);
      await app.frames(n);
    },
    rect: (label) => settle(1, label),
    click: async (label, opts = {}) => {
      const r = await app.rect(label);
      if (!r) throw new Error(`no item labelled "${label}" is drawn`);
      // Like a person: the pointer arrives, then presses, then releases, each seen
      // in its own frame (ImGui acts on some items at the press, on others at the release).
      await page.mouse.move(r.x + (opts.dx ?? r.w / 2), r.y + (opts.dy ?? r.h / 2));
      await app.frames(1);
      await page.mouse.down({ button: opts.button || 'left' });
      await app.frames(1);
      await page.mouse.up({ button: opts.button || 'left' });
      await app.frames(2);
      return r;
    },
    // Drags item `from` onto item `to` with the left button, in ten steps a frame each
    // (a token chip onto another moves it there).
    drag: async (from, to) => {
      const a = await app.rect(from), b = await app.rect(to);
      if (!a || !b) throw new Error(`drag: "${from}" or "${to}" is not drawn`);
      await page.mouse.move(a.x + a.w / 2, a.y + a.h / 2);
      await page.mouse.down();
      for (let k = 1; k <= 10; k++) {
        await page.mouse.move(a.x + a.w / 2 + (b.x - a.x) * k / 10, a.y + a.h / 2);
        await app.frames(1);
      }
      await page.mouse.up();
      await app.frames(3);
    },
    // Replaces the text of an ImGui field like a person: click it (number fields
    // near their left edge with {number: true}, clear of the −/+ buttons; other
    // click options pass through), select all, type (or Delete for ''), Enter,
    // a frame between each step so no keystroke is lost.
    type: async (label, text, opts = {}) => {
      const { number = false, ...clickOpts } = opts;
      await app.click(label, number ? { dx: 20, ...clickOpts } : clickOpts);
      await page.keyboard.press('Control+A');
      await app.frames(1);
      if (text) await page.keyboard.type(text);
      else await page.keyboard.press('Delete');
      await app.frames(2);
      await page.keyboard.press('Enter');
      await app.frames(3);
    },
    // File > Export PyTorch script, as a person clicks it: the downloaded file's name and text.
    exportTorchScript: async () => {
      await app.click('File');
      const pending = page.waitForEvent('download', { timeout: 30000 });
      await app.click('Export PyTorch script');
      const d = await pending;
      return { name: d.suggestedFilename(), text: fs.readFileSync(await d.path(), 'utf8') };
    },
    // Pastes `text` into the field `label` through the system clipboard (select all,
    // Ctrl+V, Enter): how a long text arrives, too long to type key by key.
    paste: async (label, text) => {
      await page.evaluate((x) => navigator.clipboard.writeText(x), text);
      await app.click(label);
      await page.keyboard.press('Control+A');
      await app.frames(1);
      await page.keyboard.press('Control+V');
      await app.frames(3);
      await page.keyboard.press('Enter');
      await app.frames(3);
    },
    // A fresh screenshot decoded to RGBA: {width, height, rgba: Buffer, at(x, y) → [r, g, b]}
    // in device pixels; `clip` ({x, y, width, height}, CSS pixels) limits it to a region.
    image: async (clip) => decodePng(page, await page.screenshot(clip ? { clip } : {})),
    // Colours [r, g, b] at CSS-pixel points [[x, y], ...] of a fresh screenshot.
    pixels: async (points) => {
      const img = await app.image();
      const dpr = opts.deviceScaleFactor || 1;
      return points.map(([x, y]) => img.at(Math.round(x * dpr), Math.round(y * dpr)));
    },
    // Centre of cell (i, j) of a heatmap whose label is `label`, offset by (fx, fy)
    // fractions of a cell from its top-left (0.5, 0.5 = centre, where the value text is).
    cellPoint: async (label, rows, cols, i, j, fx = 0.5, fy = 0.5) => {
      const r = await app.rect(label);
      if (!r) throw new Error(`no heatmap "${label}"`);
      return [r.x + (j + fx) * r.w / cols, r.y + (i + fy) * r.h / rows];
    },
    // What heatmap `label` drew in the last frame (window.attnviz.heatmapInfo), or null.
    heatmap: (label) => settle(1, label, 'heatmapInfo'),
    // Draws frames until long map `label` has no visible pooled row still computing
    // (heatmapInfo's pending is 0); its heatmapInfo. One round trip: the page asks for
    // frames itself while it waits. Throws after `seconds`, saying how many rows remain.
    mapSettled: async (label, seconds = 120) => {
      await app.frames(1);
      const r = await page.evaluate(async ([l, ms]) => {
        const a = window.attnviz, t0 = performance.now();
        for (;;) {
          const m = a.heatmapInfo(l);
          if (m && m.pending === 0) return m;
          if (performance.now() - t0 > ms) return { error: `${l}: ${m ? m.pending : 'not drawn'} rows still computing` };
          a.requestFrames(1);
          await new Promise((res) => requestAnimationFrame(res));
        }
      }, [label, seconds * 1000]);
      if (r.error) throw new Error(r.error);
      return r;
    },
    // Scrolls the Stages tab with the wheel until heatmap `label` is wholly inside the
    // Views window (title and column labels included); returns its heatmapInfo. The
    // wheel turns over an operation line of the flow, not over a map (maps take the
    // wheel to zoom where the tab cannot scroll); ImGui takes a wheel that came with
    // the pointer's move a frame after the move, so the pointer is there first. The
    // first turn of the page is a notch (120); how far the map moved for it gives the
    // tab's pixels per unit of wheel, and each later turn is as long as the rest of the
    // way: a turn or two where notches took twenty (at 2× a frame takes a quarter of a
    // second in SwiftShader).
    showMap: async (label) => {
      const views = await app.rect('Views window');
      const top = views.y + 40, bottom = views.y + views.h;
      let last = null;
      for (let k = 0; k < 40; k++) {
        const [m, handle] = await page.evaluate(([l, ops, lo, hi]) => {
          const a = window.attnviz;
          for (const op of ops) {
            const r = a.itemRect(op);
            if (r && r.h > 4 && r.y > lo && r.y + r.h < hi) return [a.heatmapInfo(l), r];
          }
          return [a.heatmapInfo(l), null];
        }, [label, FLOW_OPS, top, bottom]);
        if (!m) throw new Error(`no heatmap "${label}" is drawn`);
        if (mapInView(m, views)) return m;
        const below = m.y + m.h > bottom;
        if (last && m.y !== last.y) app.wheelUnit = Math.abs((m.y - last.y) / last.delta);
        if (!handle) throw new Error(`no operation line is visible to scroll the Stages tab by (${label})`);
        await page.mouse.move(handle.x + 5, handle.y + handle.h / 2);
        // Downwards (content up) is positive: the map's edge to the window's, plus a
        // margin of up to 20 px the window has room for.
        const margin = Math.min(20, Math.max(0, bottom - top - m.h - 60) / 2);
        const rest = below ? m.y + m.h - bottom + margin : m.y - 60 - top - margin;
        const delta = app.wheelUnit ? rest / app.wheelUnit : (below ? 120 : -120);
        await page.mouse.wheel(0, delta);
        await app.frames(2);
        last = { y: m.y, delta };
      }
      throw new Error(`${label} could not be scrolled into view`);
    },
    wheelUnit: 0,
    // Calls check(label, heatmapInfo) once for each Stages map of `labels`, from a frame
    // in which that map is wholly in view (as showMap leaves it): the maps in view
    // together are read from the same frame, and the tab is scrolled (showMap) only to
    // the nearest of those still unread.
    eachMapInView: async (labels, check) => {
      const views = await app.rect('Views window');
      const left = new Set(labels);
      while (left.size) {
        const infos = await page.evaluate((ls) => ls.map((l) => window.attnviz.heatmapInfo(l)), [...left]);
        let nearest = null, far = Infinity;
        [...left].forEach((label, k) => {
          const m = infos[k];
          if (!m) throw new Error(`no heatmap "${label}" is drawn`);
          if (mapInView(m, views)) { check(label, m); left.delete(label); return; }
          const d = Math.min(Math.abs(m.y - views.y), Math.abs(m.y + m.h - views.y - views.h));
          if (d < far) { far = d; nearest = label; }
        });
        if (nearest) await app.showMap(nearest);
      }
    },
    shot: async (name) => {
      fs.mkdirSync(artifactsDir, { recursive: true });
      const file = path.join(artifactsDir, name + '.png');
      await page.screenshot({ path: file });
      return file;
    },
    closed: false,
    // Ends the test's browser context; throws if the page logged any error.
    close: async () => {
      if (app.closed) return;
      app.closed = true;
      await context.close();
      if (errors.length) throw new Error('the page logged errors:\n' + errors.join('\n'));
    },
  };
  // A test that failed before close() still releases its browser context.
  t.after?.(() => (app.closed ? undefined : app.close().catch(() => {})));
  return app;
}
