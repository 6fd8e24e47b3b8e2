// statefile.test.mjs: big states in files and links (docs/ui.md, "Export and import"
// and "Sharing"; engine: attnviz/state_file.h). With GPT-2-sized explicit weights set
// through the test API: File → Save state (.safetensors) with the mouse downloads a
// plain safetensors file, Open state… and a drop bring it back equal, a trained-weights
// file picked there still opens the weights dialog, the address holds no stale link
// and no session text is built after a change, and Copy share link says the link would
// be too long, offering the file (its button saves it). A small state keeps its link.
// A 100 MB state is opened by a drop and saved through the menu, timed (a print).
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, artifactsDir } from './harness.mjs';

const SMALL = { width: 1280, height: 720 };
const TOO_BIG_HASH = '#too-big-for-a-link';

// Clicks `label` and returns the download it starts: {name, bytes}.
async function download(app, label) {
  const pending = app.page.waitForEvent('download', { timeout: 60000 });
  await app.click(label);
  const d = await pending;
  const bytes = fs.readFileSync(await d.path());
  return { name: d.suggestedFilename(), bytes };
}

// A safetensors file's parts, read as the format says (no attnviz code).
function readSafetensors(bytes) {
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  return { n, header, data: bytes.subarray(8 + n) };
}

// GPT-2's attention, built in the page and set through the test API: d_model 768, 12
// heads, W_q W_k W_v W_o and their biases (2.36 M explicit values, 9.4 MB as float32).
// Values k/1024: exact in float32 and short as text.
async function setGpt2State(app) {
  const r = await app.page.evaluate(() => {
    const d = 768;
    const mat = (k) => Array.from({ length: d }, (_, i) =>
      Array.from({ length: d }, (_, j) => (((i * 131 + j * 71 + k * 997) % 2001) - 1000) / 1024));
    const vec = (k) => Array.from({ length: d }, (_, j) => (((j * 37 + k * 11) % 201) - 100) / 1024);
    const s = {
      tokens: ['Once', 'upon', 'a', 'time', 'there', 'were', 'four', 'heads'], d_model: d, d_out: d, num_heads: 12,
      qkv_bias: true, out_proj: true, causal: true,
      weights: { W_q: mat(1), W_k: mat(2), W_v: mat(3), W_o: mat(4), b_q: vec(1), b_k: vec(2), b_v: vec(3), b_o: vec(4) },
    };
    return window.attnviz.setState(s);
  });
  assert.equal(r.ok, true, r.error);
}

// Waits for the notice and returns its text (the notice fades after 5 s: read at once).
async function noticeMatching(app, re) {
  const h = await app.page.waitForFunction((src) => {
    const n = window.attnviz.notice();
    return n && new RegExp(src).test(n.text) && n;
  }, re.source, { timeout: 60000 });
  return h.jsonValue();
}

test('a GPT-2-sized state: Save state (.safetensors), Open state… and a drop bring it back; its link is too long and says so', async (t) => {
  const app = await openApp(t, { viewport: SMALL, permissions: ['clipboard-read', 'clipboard-write'] });
  await setGpt2State(app);
  await app.frames(3);
  // Kept in the page (24 MB of text): compared there.
  await app.page.evaluate(() => { window.__gpt2 = JSON.stringify(window.attnviz.getState()); });

  // The address holds no stale link, and no session text is built after a change.
  await app.page.waitForFunction((h) => window.location.hash === h, TOO_BIG_HASH);
  assert.equal(await app.page.evaluate(() => window.localStorage.getItem('attnviz.session')), null,
    'no saved session that would bring back an older state');
  await app.page.evaluate(() => {
    // Emscripten's export binds itself on its first call (Module._f = the raw export):
    // the counter puts itself back after each call.
    const get = window.Module._attnviz_session_get;
    window.__sessionTexts = 0;
    const counting = (...a) => {
      window.__sessionTexts++;
      const r = get(...a);
      window.Module._attnviz_session_get = counting;
      return r;
    };
    window.Module._attnviz_session_get = counting;
  });
  await app.click('Causal mask');
  await app.page.waitForTimeout(800);  // past the page's 250 ms save delay
  await app.frames(2);
  assert.equal(await app.page.evaluate(() => window.__sessionTexts), 0, 'no session text built for the address');
  assert.equal(await app.page.evaluate(() => window.location.hash), TOO_BIG_HASH);
  await app.click('Causal mask');  // back to the state saved above

  // The File menu at 1280×720, the .json item's tooltip saying which one is quick.
  await app.click('File');
  const json = await app.rect('Save state (.json)');
  await app.page.mouse.move(json.x + json.w / 2, json.y + json.h / 2);
  await app.frames(45);  // ImGui's tooltip delay
  const menuShot = await app.shot('statefile-menu-1280x720');
  t.diagnostic(`File menu: ${menuShot}`);
  const st = await app.rect('Save state (.safetensors)');
  assert.ok(st && st.y > json.y, 'the .safetensors item is under the .json one');
  await app.page.mouse.move(st.x + st.w / 2, st.y + st.h / 2);
  await app.frames(45);
  t.diagnostic(`its tooltip: ${await app.shot('statefile-menu-safetensors-1280x720')}`);

  // Save with the mouse.
  const saved = await download(app, 'Save state (.safetensors)');
  assert.equal(saved.name, 'attnviz-state.safetensors');
  fs.mkdirSync(artifactsDir, { recursive: true });
  fs.writeFileSync(path.join(artifactsDir, 'statefile-gpt2.safetensors'), saved.bytes);
  const f = readSafetensors(saved.bytes);
  assert.equal((8 + f.n) % 8, 0, 'the data starts at a multiple of 8');
  assert.deepEqual(f.header['weights.W_q'], { dtype: 'F32', shape: [768, 768], data_offsets: [0, 768 * 768 * 4] });
  assert.deepEqual(f.header['weights.b_o'].shape, [768]);
  const meta = f.header.__metadata__;
  assert.equal(meta.attnviz_state_format, '1');
  const named = JSON.parse(meta.attnviz_state);
  assert.equal(named.weights.W_v, 'weights.W_v');
  assert.equal(f.data.length, 4 * (4 * 768 * 768 + 4 * 768), 'the floats, nothing else');
  assert.equal(f.data.readFloatLE(4 * (768 * 768 + 768 + 5)), (((1 * 131 + 5 * 71 + 2 * 997) % 2001) - 1000) / 1024, 'W_k[1][5]');
  t.diagnostic(`attnviz-state.safetensors: ${(saved.bytes.length / 1e6).toFixed(2)} MB`);

  // Open it back through Open state… (the page's picker), from the default state.
  assert.equal((await app.setState({})).ok, true);
  await app.frames(2);
  await app.click('File');
  const chooser = app.page.waitForEvent('filechooser');
  await app.click('Open state…');
  await (await chooser).setFiles({ name: 'gpt2.safetensors', mimeType: 'application/octet-stream', buffer: saved.bytes });
  await noticeMatching(app, /Opened “gpt2.safetensors”/);
  assert.equal(await app.page.evaluate(() => JSON.stringify(window.attnviz.getState()) === window.__gpt2), true,
    'getState() after Open state… equals the state saved');
  assert.equal((await app.page.evaluate(() => window.attnviz.weightsDialog())).open, false, 'no weights dialog');

  // Ctrl+Z goes back to the default state (one undo step); then drop the file under another name.
  await app.page.mouse.click(5, 450);
  await app.frames(2);
  await app.tap('Control+z', 3);  // down and up in one go: a loaded machine's delay between them made it repeat
  assert.equal((await app.state()).d_model, 4, 'Ctrl+Z undoes the open');
  const dt = await app.page.evaluateHandle((b64) => {
    const bin = atob(b64);
    const u = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    const d = new DataTransfer();
    d.items.add(new File([u], 'renamed.bin'));  // told by its first bytes, not its name
    return d;
  }, saved.bytes.toString('base64'));
  await app.page.dispatchEvent('#canvas', 'dragover', { dataTransfer: dt });
  await app.page.dispatchEvent('#canvas', 'drop', { dataTransfer: dt });
  await noticeMatching(app, /Opened “renamed.bin”/);
  assert.equal(await app.page.evaluate(() => JSON.stringify(window.attnviz.getState()) === window.__gpt2), true,
    'getState() after the drop equals the state saved');

  // Edit → Copy share link: a sentence, the file offered, nothing copied.
  await app.page.evaluate(() => navigator.clipboard.writeText('sentinel'));
  await app.click('Edit');
  await app.click('Copy share link');
  const n = await noticeMatching(app, /too long for an address/);
  assert.equal(n.error, true);
  assert.equal(n.action, 'save_safetensors');
  assert.match(n.text, /about 14\.\d MB, too long for an address \(at most 1\.0 MB\)/);
  assert.match(n.text, /2362368 numbers/);
  assert.match(n.text, /File → Save state \(\.safetensors\)/);
  assert.equal(await app.page.evaluate(() => navigator.clipboard.readText()), 'sentinel', 'nothing was copied');
  await app.frames(3);
  const noticeShot = await app.shot('statefile-link-too-long-1280x720');
  t.diagnostic(`notice: ${noticeShot}`);
  const button = await app.rect('notice action');
  const notice = await app.rect('share notice');
  assert.ok(button && notice, 'the notice and its button are drawn');
  assert.ok(button.x + button.w <= SMALL.width && button.y + button.h <= SMALL.height, 'the button is on the screen');
  // The same sentence in 简体中文 (the menus keep their English labels for tests).
  assert.equal((await app.page.evaluate(() => window.attnviz.setLanguage('zh-CN'))).ok, true);
  await app.click('Edit');
  await app.click('Copy share link');
  const zh = await noticeMatching(app, /放进地址太长/);
  assert.match(zh.text, /文件 → 保存状态（\.safetensors）/);
  await app.page.waitForFunction(() => !window.attnviz.frameStats().fonts_pending);
  await app.frames(3);
  t.diagnostic(`notice in 简体中文: ${await app.shot('statefile-link-too-long-zh-1280x720')}`);
  assert.equal((await app.page.evaluate(() => window.attnviz.setLanguage('en'))).ok, true);
  await app.click('Edit');
  await app.click('Copy share link');
  await noticeMatching(app, /too long for an address/);
  await app.frames(3);
  // Its button saves the file (the same bytes: the same state).
  const again = await download(app, 'notice action');
  assert.equal(again.name, 'attnviz-state.safetensors');
  assert.ok(again.bytes.equals(saved.bytes), 'the button saves the same file as the menu');
  const after = await app.page.evaluate(() => window.attnviz.notice());
  assert.ok(after === null || /^Saved attnviz-state\.safetensors/.test(after.text), 'the sentence makes way for the save\'s');

  // A small state gets its link again, in the address and on the clipboard.
  assert.equal((await app.setState({ causal: true })).ok, true);
  await app.page.waitForFunction(() => window.location.hash.startsWith('#s1.'));
  assert.ok(await app.page.evaluate(() => window.__sessionTexts) > 0, 'the counter above counts: this link was built');
  await app.click('Edit');
  await app.click('Copy share link');
  await noticeMatching(app, /Share link copied/);
  const link = await app.page.evaluate(() => navigator.clipboard.readText());
  assert.match(link, /#s1\.[A-Za-z0-9_-]+$/);
  const decoded = await app.page.evaluate((l) => window.attnviz.decodeLink(l), link);
  assert.equal(JSON.parse(decoded.text).state.causal, true);
  await app.close();
});

test('Open state… with a trained-weights .safetensors still opens the weights dialog', async (t) => {
  const app = await openApp(t, { viewport: SMALL });
  // A bare W_q, W_k, W_v checkpoint (4 × 4 each), written by hand; no attnviz metadata.
  const names = ['W_q', 'W_k', 'W_v'];
  const header = {};
  names.forEach((n, k) => { header[n] = { dtype: 'F32', shape: [4, 4], data_offsets: [64 * k, 64 * (k + 1)] }; });
  let text = Buffer.from(JSON.stringify(header));
  text = Buffer.concat([text, Buffer.alloc((8 - (text.length % 8)) % 8, 0x20)]);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(text.length));
  const data = Buffer.alloc(192);
  for (let i = 0; i < 48; i++) data.writeFloatLE((i % 7) / 8, 4 * i);
  await app.click('File');
  const chooser = app.page.waitForEvent('filechooser');
  await app.click('Open state…');
  await (await chooser).setFiles({ name: 'trained.safetensors', mimeType: 'application/octet-stream',
    buffer: Buffer.concat([len, text, data]) });
  const d = await (await app.page.waitForFunction(() => {
    const w = window.attnviz.weightsDialog();
    return w.open && w;
  })).jsonValue();
  assert.equal(d.family, 'W_q');
  assert.deepEqual(d.tensors.map((x) => x.name).sort(), names.slice().sort());
  await app.click('Cancel weights');
  await app.close();
});

test('an address from a state too big for a link says so when opened', async (t) => {
  const app = await openApp(t, { viewport: SMALL, hash: TOO_BIG_HASH.slice(1) });
  const n = await noticeMatching(app, /This address holds no state/);
  assert.match(n.text, /File → Save state \(\.safetensors\)/);
  assert.equal((await app.state()).d_model, 4, 'the default state');
  await app.close();
});

test('a 100 MB state opens from a drop and saves through the menu (timed)', async (t) => {
  const app = await openApp(t, { viewport: SMALL });
  // Built in the page (105.6 MB): d_model = d_out = 2560, 20 heads, W_q W_k W_v W_o and
  // their biases, 16 tokens; as attnviz/state_file.h lays it out.
  const size = await app.page.evaluate(() => {
    const d = 2560;
    const tensors = [];
    [['weights.W_q', 1], ['weights.W_k', 2], ['weights.W_v', 3], ['weights.W_o', 4]].forEach(([name, k]) => {
      const a = new Float32Array(d * d);
      for (let i = 0; i < a.length; i++) a[i] = Math.fround(Math.sin(0.37 * k * (i % 100003)) * 0.02);
      tensors.push([name, [d, d], a]);
    });
    for (const b of ['b_q', 'b_k', 'b_v', 'b_o']) tensors.push(['weights.' + b, [d], new Float32Array(d).fill(0.01)]);
    const state = {
      tokens: Array.from({ length: 16 }, (_, i) => 't' + i), d_model: d, d_out: d, num_heads: 20,
      qkv_bias: true, out_proj: true, weights: Object.fromEntries(tensors.map(([n]) => [n.slice(8), n])),
    };
    const header = { __metadata__: { attnviz_state_format: '1', attnviz_state: JSON.stringify(state) } };
    let off = 0;
    for (const [n, shape, a] of tensors) { header[n] = { dtype: 'F32', shape, data_offsets: [off, off + a.byteLength] }; off += a.byteLength; }
    let text = JSON.stringify(header);
    while (text.length % 8) text += ' ';
    const bytes = new Uint8Array(8 + text.length + off);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(text.length), true);
    bytes.set(new TextEncoder().encode(text), 8);
    let at = 8 + text.length;
    for (const [, , a] of tensors) { bytes.set(new Uint8Array(a.buffer), at); at += a.byteLength; }
    // One File for every run (a page holding several 100 MB blobs at once may find one unreadable).
    window.__big = { file: new File([bytes], 'big.safetensors'), W_o: tensors[3][2], sha: null };
    window.__bigData = bytes.subarray(8 + text.length);
    // Times the module's reading of the whole file (parse + validate), and the download's hand-over.
    const feed = window.Module._attnviz_weights_feed;
    window.__feedMs = [];
    const timed = (p, n) => {
      const t0 = performance.now();
      const r = feed(p, n);
      if (n > 1e6) window.__feedMs.push([t0, performance.now()]);
      window.Module._attnviz_weights_feed = timed;  // emscripten's export rebinds itself on its first call
      return r;
    };
    window.Module._attnviz_weights_feed = timed;
    const dl = window.Module.attnvizDownload;
    window.Module.attnvizDownload = (...a) => { const r = dl(...a); window.__downloaded = performance.now(); return r; };
    window.addEventListener('mouseup', () => { window.__mouseUp = performance.now(); }, true);
    return bytes.length;
  });
  t.diagnostic(`state file of ${(size / 1e6).toFixed(1)} MB`);
  // The tensors' bytes, hashed once (then let go).
  const theirs = await app.page.evaluate(async () => {
    const h = await crypto.subtle.digest('SHA-256', window.__bigData);
    window.__bigData = null;
    return Array.from(new Uint8Array(h)).map((b) => b.toString(16).padStart(2, '0')).join('');
  });

  const runs = [];
  for (let r = 0; r < 3; r++) {
    assert.equal((await app.setState({})).ok, true);
    await app.frames(2);
    const open = await app.page.evaluate(async () => {
      const t0 = performance.now();
      const d = new DataTransfer();
      d.items.add(window.__big.file);
      document.getElementById('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: d, bubbles: true, cancelable: true }));
      await new Promise((resolve) => {
        const poll = () => {
          const n = window.attnviz.notice();
          if (n && n.text.includes('“big.safetensors”')) resolve(); else setTimeout(poll, 2);
        };
        poll();
      });
      const [f0, f1] = window.__feedMs[window.__feedMs.length - 1];
      // read: the page reads the File and copies it into the module; parse: state_from_safetensors
      // (header, tensors, state, validate_state); apply: the next frame hands it to the engine,
      // which computes what the panels show, and draws it.
      return { total: performance.now() - t0, read: f0 - t0, parse: f1 - f0, apply: performance.now() - f1 };
    });
    const n = await app.page.evaluate(() => window.attnviz.notice());
    assert.match(n.text, /Opened “big.safetensors”/);
    // Spot values of W_o, read back from the engine.
    assert.equal(await app.page.evaluate(() => {
      const m = window.attnviz.getMatrix('W_o', 0);
      const want = window.__big.W_o;
      return m.rows === 2560 && m.cols === 2560 && [0, 1, 2559, 1234567, 6553599].every((i) => m.data[i] === want[i]);
    }), true);
    await app.click('File');
    const saved = await download(app, 'Save state (.safetensors)');
    const saveMs = await app.page.evaluate(() => window.__downloaded - window.__mouseUp);
    // The tensors' bytes are the ones opened (the header is attnviz's canonical one).
    const f = readSafetensors(saved.bytes);
    assert.equal(crypto.createHash('sha256').update(f.data).digest('hex'), theirs, 'the same floats, in the same order');
    const engineMs = (await app.stats()).engine_ms_last;
    runs.push({ ...open, saveMs, engineMs });
    t.diagnostic(`run ${r + 1}: open ${open.total.toFixed(0)} ms (drop → the state shown: read ${open.read.toFixed(0)}, ` +
                 `parse ${open.parse.toFixed(0)}, apply and draw ${open.apply.toFixed(0)}, of which the engine ` +
                 `${engineMs.toFixed(0)}); save ${saveMs.toFixed(0)} ms (mouse up → download handed over)`);
  }
  const median = (k) => runs.map((x) => x[k]).sort((a, b) => a - b)[1].toFixed(0);
  t.diagnostic(`medians of 3 (${await app.page.evaluate(() => window.attnviz.build)}): open ${median('total')} ms ` +
               `(read ${median('read')}, parse ${median('parse')}, apply and draw ${median('apply')}, engine ` +
               `${median('engineMs')}), save ${median('saveMs')} ms`);
  await app.close();
});
