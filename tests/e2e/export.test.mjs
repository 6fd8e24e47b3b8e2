// export.test.mjs: export and import through the real interface (docs/ui.md,
// "Export and import"): a heatmap's right-click menu (PNG at 2×, CSV, JSON, Copy as
// TSV), the File menu (Save state, Open state…, Export window as PNG), a state file
// picked or dropped on the page, and bad files refused with a sentence.
// Downloads are caught with playwright's 'download' event; PNGs are decoded and
// their pixels compared with the colormap; every exported number is compared bit
// for bit with window.attnviz.getMatrix().
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, artifactsDir, decodePng } from './harness.mjs';
import { colour, distance } from './colormap.mjs';

// Clicks `label` and returns the download it starts: {name, bytes}.
async function download(app, label) {
  const pending = app.page.waitForEvent('download', { timeout: 30000 });
  await app.click(label);
  const d = await pending;
  const bytes = fs.readFileSync(await d.path());
  fs.mkdirSync(artifactsDir, { recursive: true });
  fs.writeFileSync(path.join(artifactsDir, 'export-' + d.suggestedFilename()), bytes);
  return { name: d.suggestedFilename(), bytes };
}

// A heatmap's export menu: right-click without moving, then the item.
async function panelExport(app, heatmap, item) {
  await app.click(heatmap, { button: 'right' });
  return download(app, item);
}

// Exported text numbers → float32, with the spelled-out specials.
const num = (s) => (s === '-inf' ? -Infinity : s === 'inf' ? Infinity : s === 'nan' ? NaN : Math.fround(Number(s)));
function sameFloat(a, b) {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  return Object.is(a, b);  // also tells −0 from 0
}

test('a heatmap exports as PNG at 2×: title, labels, cells and colour bar, rendered (not upscaled)', async (t) => {
  const app = await openApp(t);
  const panel = await app.rect('weights h0 panel');
  const cells = await app.rect('weights h0');
  const w = await app.matrix('weights', 0);
  const { name, bytes } = await panelExport(app, 'weights h0', 'Export PNG (2×)');
  assert.equal(name, 'attnviz-weights-h0.png');
  const png = await decodePng(app.page, bytes);
  t.diagnostic(`panel ${panel.w}×${panel.h} CSS px → PNG ${png.width}×${png.height}`);
  // Twice the panel's rectangle; ±2 device pixels for rounding its edges outwards.
  assert.ok(Math.abs(png.width - 2 * panel.w) <= 2, `width ${png.width} vs 2×${panel.w}`);
  assert.ok(Math.abs(png.height - 2 * panel.h) <= 2, `height ${png.height} vs 2×${panel.h}`);

  const X = (x) => 2 * (x - panel.x), Y = (y) => 2 * (y - panel.y);
  // Cells: viridis at the engine's value (off-centre, away from the printed number).
  const S = w.rows;
  for (const [i, j] of [[0, 0], [2, 1], [4, 3]]) {
    const p = png.at(X(cells.x + (j + 0.15) * cells.w / S), Y(cells.y + (i + 0.12) * cells.h / S));
    assert.ok(distance(p, colour('viridis', w.data[i * S + j])) <= 3, `cell (${i},${j}) ${p}`);
  }
  // Colour bar: under the cells (4 px below, 8 px tall), as wide as them but at
  // least 120 px, 32 steps from 0 (left) to 1.
  const barY = Y(cells.y + cells.h + 4 + 4), barW = Math.max(cells.w, 120);
  for (const k of [0, 8, 16, 24, 31]) {
    const p = png.at(X(cells.x + barW * (k + 0.5) / 32), barY);
    assert.ok(distance(p, colour('viridis', (k + 0.5) / 32)) <= 3, `colour bar step ${k}: ${p}`);
  }
  // Text: the title row, the key labels over the cells and the query labels left of
  // them hold bright glyph pixels; rendered at 2×, many 2×2 blocks are not uniform
  // (an upscaled 1× picture would have none).
  const region = (x0, y0, x1, y1) => {
    let bright = 0, blocks = 0, mixed = 0;
    for (let y = Math.ceil(Y(y0) / 2) * 2; y + 1 < Y(y1); y += 2)
      for (let x = Math.ceil(X(x0) / 2) * 2; x + 1 < X(x1); x += 2) {
        const q = [png.at(x, y), png.at(x + 1, y), png.at(x, y + 1), png.at(x + 1, y + 1)];
        bright += q.filter((c) => Math.max(...c) > 110).length;
        blocks++;
        if (q.some((c) => distance(c, q[0]) > 24)) mixed++;
      }
    return { bright, blocks, mixed };
  };
  const title = region(panel.x, panel.y, panel.x + panel.w, cells.y - 18);
  const keys = region(cells.x, cells.y - 18, cells.x + cells.w, cells.y);
  const queries = region(panel.x, cells.y, cells.x, cells.y + cells.h);
  t.diagnostic(`text pixels: title ${JSON.stringify(title)} keys ${JSON.stringify(keys)} queries ${JSON.stringify(queries)}`);
  for (const [what, r] of [['title', title], ['key labels', keys], ['query labels', queries]]) {
    assert.ok(r.bright > 20, `${what}: glyph pixels`);
    assert.ok(r.mixed / r.blocks > 0.04, `${what}: detail finer than 2×2 blocks (${r.mixed}/${r.blocks})`);
  }
  await app.close();
});

// A map at the window's left edge (the flow's first card): its picture still has a
// margin before the title's first letter (it started at x = 0), filled with the
// window's background where the window ends.
test('a PNG of a map at the left edge of the window keeps a margin before its title', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  const panel = await app.rect('Q h0 panel');
  const views = await app.rect('Views window');
  t.diagnostic(`Q h0 panel at x ${panel.x}, Views at x ${views.x}`);
  const { bytes } = await panelExport(app, 'Q h0', 'Export PNG (2×)');
  const png = await decodePng(app.page, bytes);
  assert.ok(Math.abs(png.width - 2 * panel.w) <= 2, `width ${png.width} vs 2×${panel.w}`);
  let bright = 0;
  for (let y = 0; y < png.height; y++)
    for (let x = 0; x < 6; x++) if (Math.max(...png.at(x, y)) > 110) bright++;
  assert.equal(bright, 0, 'no glyph within 3 px of the picture\'s left edge');
  let title = 0;  // the title is there, right of the margin
  for (let y = 0; y < 30; y++)
    for (let x = 6; x < 80; x++) if (Math.max(...png.at(x, y)) > 110) title++;
  assert.ok(title > 20, `the title's glyphs (${title})`);
  await app.close();
});

test('File > Export window as PNG (2×) downloads the whole window at twice its size', async (t) => {
  const app = await openApp(t);
  await app.click('File');
  const { name, bytes } = await download(app, 'Export window as PNG (2×)');
  assert.equal(name, 'attnviz-window.png');
  const png = await decodePng(app.page, bytes);
  assert.equal(png.width, 2880);
  assert.equal(png.height, 1800);
  // The same cell colour as the screen shows, at twice the coordinates.
  const cells = await app.rect('weights h0');
  const w = await app.matrix('weights', 0);
  const p = png.at(2 * (cells.x + 0.15 * cells.w / w.rows), 2 * (cells.y + 0.12 * cells.h / w.rows));
  assert.ok(distance(p, colour('viridis', w.data[0])) <= 3, `weights[0][0] ${p}`);
  await app.close();
});

test('CSV and JSON of a matrix hold exactly the engine\'s float32 numbers, −inf spelled out, tokens as labels', async (t) => {
  const app = await openApp(t);
  await app.click('Causal mask');
  const tokens = (await app.state()).tokens;

  const csv = await panelExport(app, 'masked h0', 'Export CSV');
  assert.equal(csv.name, 'attnviz-masked-h0.csv');
  const m = await app.matrix('masked', 0);
  const lines = csv.bytes.toString('utf8').split('\r\n');
  assert.equal(lines.pop(), '', 'every line ends with CRLF');
  assert.equal(lines.length, m.rows + 1);
  assert.deepEqual(lines[0].split(','), ['', ...tokens], 'header: an empty corner, then the key tokens');
  let infs = 0;
  lines.slice(1).forEach((line, i) => {
    const f = line.split(',');
    assert.equal(f[0], tokens[i], 'first column: the query token');
    assert.equal(f.length, m.cols + 1);
    f.slice(1).forEach((s, j) => {
      const v = m.data[i * m.cols + j];
      if (v === -Infinity) { infs++; assert.equal(s, '-inf'); }
      assert.ok(sameFloat(num(s), v), `masked[${i}][${j}]: "${s}" vs ${v}`);
    });
  });
  assert.equal(infs, m.rows * (m.rows - 1) / 2, 'the causal mask\'s −inf cells');

  const js = await panelExport(app, 'weights h0', 'Export JSON');
  assert.equal(js.name, 'attnviz-weights-h0.json');
  const doc = JSON.parse(js.bytes.toString('utf8'));
  const w = await app.matrix('weights', 0);
  assert.equal(doc.matrix, 'weights h0');
  assert.deepEqual([doc.rows, doc.cols], [w.rows, w.cols]);
  assert.deepEqual(doc.row_labels, tokens);
  assert.deepEqual(doc.col_labels, tokens);
  doc.data.forEach((row, i) => row.forEach((x, j) => {
    const v = typeof x === 'string' ? num(x) : Math.fround(x);
    assert.ok(sameFloat(v, w.data[i * w.cols + j]), `weights[${i}][${j}]: ${x} vs ${w.data[i * w.cols + j]}`);
  }));
  // Shared matrices (Q K V & output tab): rows are tokens, columns feature indices.
  await app.click('Q K V & output');
  const qcsv = (await panelExport(app, 'Q', 'Export CSV')).bytes.toString('utf8').split('\r\n');
  const Q = await app.matrix('Q', 0);
  assert.deepEqual(qcsv[0].split(','), ['', ...Array.from({ length: Q.cols }, (_, j) => String(j))]);
  qcsv.slice(1, -1).forEach((line, i) => {
    const f = line.split(',');
    assert.equal(f[0], tokens[i]);
    f.slice(1).forEach((s, j) => assert.ok(sameFloat(num(s), Q.data[i * Q.cols + j]), `Q[${i}][${j}] ${s}`));
  });
  await app.close();
});

test('Copy as TSV puts the matrix on the system clipboard: key tokens across, query tokens down', async (t) => {
  const app = await openApp(t, { permissions: ['clipboard-read', 'clipboard-write'] });
  await app.click('weights h0', { button: 'right' });
  await app.click('Copy as TSV');
  await app.page.waitForFunction(async () => (await navigator.clipboard.readText()).includes('\t'));
  const text = await app.page.evaluate(() => navigator.clipboard.readText());
  const tokens = (await app.state()).tokens;
  const w = await app.matrix('weights', 0);
  const rows = text.split('\n');
  assert.equal(rows.pop(), '');
  assert.deepEqual(rows[0].split('\t'), ['', ...tokens]);
  rows.slice(1).forEach((r, i) => {
    const f = r.split('\t');
    assert.equal(f[0], tokens[i]);
    f.slice(1).forEach((s, j) => assert.ok(sameFloat(num(s), w.data[i * w.cols + j]), `[${i}][${j}] ${s}`));
  });
  assert.match((await app.page.evaluate(() => window.attnviz.notice())).text, /Copied weights h0 \(5×5\)/);
  await app.close();
});

test('Save state writes getState() as indented JSON; Open state… and a drop bring it back; Ctrl+Z undoes an import', async (t) => {
  const app = await openApp(t);
  await app.click('File');
  const saved = await download(app, 'Save state (.json)');
  assert.equal(saved.name, 'attnviz-state.json');
  const text = saved.bytes.toString('utf8');
  const original = await app.state();
  assert.deepEqual(JSON.parse(text), original);
  assert.match(text, /^\{\n  "/, 'indented');

  // Change something, then open the saved file through the menu's file picker.
  await app.click('Causal mask');
  assert.equal((await app.state()).causal, true);
  const changed = await app.state();
  await app.click('File');
  const chooser = app.page.waitForEvent('filechooser');
  await app.click('Open state…');
  await (await chooser).setFiles({ name: 'attnviz-state.json', mimeType: 'application/json', buffer: saved.bytes });
  // Read together with the state: the notice lasts 5 s, which a loaded machine
  // can spend between two separate reads. The state applies at once and its notice
  // in the next frame (export_overlay), so wait for the notice that names this file:
  // the one before may still be showing in between.
  const opened = await (await app.page.waitForFunction(() => {
    const n = window.attnviz.notice();
    return window.attnviz.getState().causal === false && n && n.text.startsWith('Opened “attnviz-state.json”') &&
           { notice: n.text, state: window.attnviz.getState() };
  })).jsonValue();
  assert.deepEqual(opened.state, original);
  assert.match(opened.notice, /Opened “attnviz-state.json”/);

  // Undo (Edit menu's Ctrl+Z) goes back to the state before the import.
  await app.page.mouse.click(5, 450);  // focus the canvas outside any text field
  await app.frames(2);
  await app.tap('Control+z', 3);  // down and up in one go: a loaded machine's delay between them made it repeat
  assert.deepEqual(await app.state(), changed, 'Ctrl+Z undoes the import');

  // Drop the file anywhere on the page.
  const dt = await app.page.evaluateHandle((s) => {
    const d = new DataTransfer();
    d.items.add(new File([s], 'dropped.json', { type: 'application/json' }));
    return d;
  }, text);
  await app.page.dispatchEvent('#canvas', 'dragover', { dataTransfer: dt });
  await app.page.dispatchEvent('#canvas', 'drop', { dataTransfer: dt });
  const dropped = await (await app.page.waitForFunction(() => {
    const n = window.attnviz.notice();  // the open's notice may still show until the next frame
    return window.attnviz.getState().causal === false && n && n.text.includes('dropped.json') &&
           { notice: n.text, state: window.attnviz.getState() };
  })).jsonValue();
  assert.deepEqual(dropped.state, original);
  assert.match(dropped.notice, /Opened “dropped.json”/);
  await app.close();
});

test('bad state files are refused with a sentence and the state stays', async (t) => {
  const app = await openApp(t);
  await app.click('Causal mask');
  const before = await app.state();
  const pick = (name, buffer) => app.page.setInputFiles('#attnviz-state-file', { name, mimeType: 'application/json', buffer });
  const sentence = async (seen) => {
    await app.page.waitForFunction((s) => { const n = window.attnviz.notice(); return n && n.error && n.text !== s; }, seen);
    await app.frames(2);
    assert.ok(await app.rect('share notice'), 'the sentence is shown in the app');
    return (await app.page.evaluate(() => window.attnviz.notice())).text;
  };

  await pick('notes.json', Buffer.from('these are not the numbers you want'));
  const s1 = await sentence('');
  assert.match(s1, /“notes.json” is not a JSON file/);
  assert.deepEqual(await app.state(), before);

  await pick('three-heads.json', Buffer.from(JSON.stringify({ ...before, heads: 3 })));
  const s2 = await sentence(s1);
  assert.match(s2, /“three-heads.json” is not a valid attnviz state: /);
  assert.deepEqual(await app.state(), before);

  const huge = Buffer.alloc(17 * 1024 * 1024, 0x20);
  await pick('huge.json', huge);
  const s3 = await sentence(s2);
  assert.match(s3, /“huge.json” is 17.0 MB; a state file is at most 16 MB/);
  assert.deepEqual(await app.state(), before);

  // Dropping text rather than a file.
  const dt = await app.page.evaluateHandle(() => { const d = new DataTransfer(); d.setData('text/plain', 'hello'); return d; });
  await app.page.dispatchEvent('#canvas', 'drop', { dataTransfer: dt });
  const s4 = await sentence(s3);
  assert.match(s4, /drop a \.json state file/);
  assert.deepEqual(await app.state(), before);
  await app.close();
});
