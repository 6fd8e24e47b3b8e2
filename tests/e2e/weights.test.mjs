// weights.test.mjs: File → Open weights… (docs/ui.md, "Trained weights in").
// The checkpoints are written here by tests/engine/make_weights.py with Debian's
// python3-torch (two nn.MultiheadAttention layers as layers.<i>.self_attn.*; a
// Llama-style attention with 2 K/V heads for 4 heads; the first MultiheadAttention
// layer as four .npy files), opened through the menu's file chooser or dropped;
// the dialog's list and proposal are read through window.attnviz.weightsDialog(),
// "Apply weights" is clicked, and the state's weights are compared with the
// file's tensors, transposed to x·W.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnviz-weights-'));
execFileSync('/usr/bin/python3', [path.join(repoRoot, 'tests/engine/make_weights.py'), dir]);
const mhaPath = path.join(dir, 'mha.safetensors');
const llamaPath = path.join(dir, 'llama_gqa.safetensors');
const npyPaths = ['W_q', 'W_k', 'W_v', 'W_o'].map((n) => path.join(dir, 'npy', n + '.npy'));

// The float32 array of an .npy file written by np.save (format 1.0, '<f4', C order): {shape, data}.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  const n = buf.readUInt16LE(8);
  const header = buf.subarray(10, 10 + n).toString('latin1');
  assert.match(header, /'descr': '<f4'/);
  const shape = header.match(/'shape': \((\d+), (\d+)\)/).slice(1).map(Number);
  const bytes = buf.subarray(10 + n);
  return { shape, data: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)) };
}

// The float32 tensors of a safetensors file, by name: {shape, data}.
function readSafetensors(file) {
  const buf = fs.readFileSync(file);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const out = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__' || t.dtype !== 'F32') continue;
    const [b, e] = t.data_offsets;
    const bytes = buf.subarray(8 + n + b, 8 + n + e);
    out[name] = { shape: t.shape, data: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)) };
  }
  return out;
}

async function waitDialog(app, pred) {
  return (await app.page.waitForFunction((p) => {
    const d = window.attnviz.weightsDialog();
    return d && new Function('d', 'return ' + p)(d) && d;
  }, pred.toString().replace(/^\(?d\)?\s*=>\s*/, ''))).jsonValue();
}

test('Open weights… lists the tensors, proposes nn.MultiheadAttention\'s mapping, and applies it as one undo step', async (t) => {
  const app = await openApp(t);
  const before = await app.state();
  await app.click('File');
  const chooser = app.page.waitForEvent('filechooser');
  await app.click('Open weights…');
  await (await chooser).setFiles(mhaPath);
  const d = await waitDialog(app, (d) => d.open && d.tensors.length > 0);
  await app.frames(2);
  assert.ok(await app.rect('Open weights dialog'), 'the dialog is drawn');
  assert.ok(await app.rect('weights tensors'), 'with the list of tensors');

  // Every tensor with its shape and dtype, in natural order.
  const names = d.tensors.map((x) => x.name);
  assert.deepEqual(names, [
    'layers.0.position_ids',
    'layers.0.self_attn.in_proj_bias', 'layers.0.self_attn.in_proj_weight',
    'layers.0.self_attn.out_proj.bias', 'layers.0.self_attn.out_proj.weight',
    'layers.1.self_attn.in_proj_bias', 'layers.1.self_attn.in_proj_weight',
    'layers.1.self_attn.out_proj.bias', 'layers.1.self_attn.out_proj.weight',
  ]);
  const inProj = d.tensors.find((x) => x.name === 'layers.0.self_attn.in_proj_weight');
  assert.deepEqual(inProj.shape, [24, 8]);
  assert.equal(inProj.dtype, 'F32');
  assert.equal(d.tensors[0].type, 'unsupported', 'the int64 buffer is listed, not read');
  assert.deepEqual(d.layers, ['layers.0.self_attn.', 'layers.1.self_attn.']);
  assert.equal(d.family, 'in_proj');
  assert.deepEqual(d.roles.W_k, { tensor: 'layers.0.self_attn.in_proj_weight', part: 1, transpose: true });
  assert.deepEqual(d.roles.b_v, { tensor: 'layers.0.self_attn.in_proj_bias', part: 2, transpose: false });
  assert.equal(d.roles.W_o.tensor, 'layers.0.self_attn.out_proj.weight');
  assert.equal(d.ok, true);
  assert.equal(d.d_model, 8);
  assert.equal(d.d_out, 8);
  assert.equal(d.heads, 1, 'the current head count divides d_out: kept');

  await app.click('Apply weights');
  const s = await (await app.page.waitForFunction(() => {
    const st = window.attnviz.getState();
    return st.weights.W_q && !window.attnviz.weightsDialog().open && st;
  })).jsonValue();
  assert.equal(s.d_model, 8);
  assert.equal(s.d_out, 8);
  assert.equal(s.num_heads, 1);
  assert.equal(s.qkv_bias, true);
  assert.equal(s.out_proj, true);
  assert.equal(s.out_bias, true);
  assert.deepEqual(s.tokens, before.tokens, 'tokens kept');
  // W_role[i][j] = in_proj_weight[part·8 + j][i] (nn.Linear's out × in, transposed); W_o = out_projᵀ.
  const file = readSafetensors(mhaPath);
  const w = file['layers.0.self_attn.in_proj_weight'].data;
  const b = file['layers.0.self_attn.in_proj_bias'].data;
  const o = file['layers.0.self_attn.out_proj.weight'].data;
  ['W_q', 'W_k', 'W_v'].forEach((role, part) => {
    for (let i = 0; i < 8; i++) {
      for (let j = 0; j < 8; j++) {
        assert.equal(Math.fround(s.weights[role][i][j]), w[(part * 8 + j) * 8 + i], `${role}[${i}][${j}]`);
      }
    }
    for (let j = 0; j < 8; j++) assert.equal(Math.fround(s.weights['b_' + role[2]][j]), b[part * 8 + j]);
  });
  for (let i = 0; i < 8; i++) for (let j = 0; j < 8; j++) assert.equal(Math.fround(s.weights.W_o[i][j]), o[j * 8 + i]);
  assert.match((await app.page.evaluate(() => window.attnviz.notice())).text, /Weights from “mha.safetensors” \(layer layers\.0\.self_attn\.\)/);

  // One undo step back to the state before.
  await app.page.mouse.click(5, 450);
  await app.frames(2);
  await app.tap('Control+z', 3);  // down and up in one go: a loaded machine's delay between them made it repeat
  assert.deepEqual(await app.state(), before);
  await app.close();
});

test('a corrupt weights file gets a sentence and the state stays', async (t) => {
  const app = await openApp(t);
  await app.click('Causal mask');
  const before = await app.state();
  const pick = (name, buffer) => app.page.setInputFiles('#attnviz-weights-file', { name, mimeType: 'application/octet-stream', buffer });
  const sentence = async (seen) => {
    const n = await (await app.page.waitForFunction((s) => {
      const x = window.attnviz.notice();
      return x && x.error && x.text !== s && x;
    }, seen)).jsonValue();
    await app.frames(2);
    assert.ok(await app.rect('share notice'), 'the sentence is shown in the app');
    return n.text;
  };
  const whole = fs.readFileSync(mhaPath);
  await pick('cut.safetensors', whole.subarray(0, 200));
  const s1 = await sentence('');
  assert.match(s1, /“cut.safetensors” was not opened: The file is cut short: reading the safetensors header needs \d+ bytes, but the file has 200\. The state is unchanged\./);
  assert.deepEqual(await app.state(), before);
  assert.equal((await app.page.evaluate(() => window.attnviz.weightsDialog())).open, false);

  await pick('archive.npz', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100, 7)]));
  const s2 = await sentence(s1);
  assert.match(s2, /“archive.npz” was not opened: This is not a zip archive/);
  assert.deepEqual(await app.state(), before);
  await app.close();
});

// Dropping the file on the page opens it too: a compressed .npz (deflate, read by the
// browser's DecompressionStream), here with the interface in Chinese; the second layer
// is picked in the dialog's Layer list with the mouse and applied.
test('a compressed .npz dropped on the page, its second layer picked, applies that layer (interface in Chinese)', async (t) => {
  const app = await openApp(t, { query: 'lang=zh-CN' });
  const bytes = fs.readFileSync(path.join(dir, 'mha_compressed.npz')).toString('base64');
  const dt = await app.page.evaluateHandle((b64) => {
    const bin = atob(b64);
    const u8 = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) u8[k] = bin.charCodeAt(k);
    const d = new DataTransfer();
    d.items.add(new File([u8], 'mha_compressed.npz'));
    return d;
  }, bytes);
  await app.page.dispatchEvent('#canvas', 'drop', { dataTransfer: dt });
  let d = await waitDialog(app, (d) => d.open && d.phase === 'choosing' && d.tensors.length > 0);
  assert.equal(d.format, 'npz');
  assert.deepEqual(d.layers, ['layers.0.self_attn.', 'layers.1.self_attn.']);
  assert.equal(d.layer, 0);
  await app.frames(2);
  await app.click('Layer');
  await app.click('Layer: layers.1.self_attn.');
  d = await waitDialog(app, (d) => d.layer === 1);
  assert.equal(d.roles.W_q.tensor, 'layers.1.self_attn.in_proj_weight');
  assert.equal(d.ok, true);
  await app.shot('weights-dialog-zh-CN');
  await app.click('Apply weights');
  const s = await (await app.page.waitForFunction(() => {
    const st = window.attnviz.getState();
    return st.weights.W_q && !window.attnviz.weightsDialog().open && st;
  })).jsonValue();
  const file = readSafetensors(mhaPath);  // the same tensors, written by the same script
  const w = file['layers.1.self_attn.in_proj_weight'].data;
  for (let i = 0; i < 8; i++) {
    for (let j = 0; j < 8; j++) assert.equal(Math.fround(s.weights.W_v[i][j]), w[(2 * 8 + j) * 8 + i], `W_v[${i}][${j}]`);
  }
  const notice = (await app.page.evaluate(() => window.attnviz.notice())).text;
  assert.match(notice, /mha_compressed\.npz/);
  assert.match(notice, /layers\.1\.self_attn\./);
  assert.doesNotMatch(notice, /Weights from/, `worded in Chinese: ${notice}`);
  await app.close();
});

// Llama's grouped-query attention: k_proj and v_proj are (4, 8) in the file, q_proj
// (8, 8). The dialog accepts them, waits for a head count that fits (the page's one
// head gives head_dim 8, wider than K), proposes 2 K/V heads for 4 heads, lets the
// K/V heads be chosen too, and Apply sets num_kv_heads.
test('a Llama GQA checkpoint: the K/V heads come from k_proj\'s rows, and Apply sets num_kv_heads', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  await app.click('File');
  const chooser = app.page.waitForEvent('filechooser');
  await app.click('Open weights…');
  await (await chooser).setFiles(llamaPath);
  let d = await waitDialog(app, (d) => d.open && d.phase === 'choosing' && d.tensors.length > 0);
  assert.equal(d.family, 'q_proj');
  assert.deepEqual(d.layers, ['model.layers.0.self_attn.', 'model.layers.1.self_attn.']);
  assert.deepEqual(d.tensors.find((x) => x.name === 'model.layers.0.self_attn.k_proj.weight').shape, [4, 8]);
  assert.deepEqual(d.roles.W_k, { tensor: 'model.layers.0.self_attn.k_proj.weight', part: -1, transpose: true });
  assert.equal(d.ok, true, d.error);
  assert.equal(d.d_model, 8);
  assert.equal(d.d_out, 8);
  assert.equal(d.kv_dim, 4);
  assert.equal(d.heads, 0, 'one head (head_dim 8) does not fit K and V 4 wide: Apply waits');
  assert.equal(d.kv_heads, 0);
  await app.frames(2);
  await app.click('Weights heads');
  await app.click('Weights heads: 4');
  d = await waitDialog(app, (d) => d.heads === 4);
  assert.equal(d.kv_heads, 2, "k_proj's 4 rows / head_dim 2");
  assert.ok(await app.rect('Weights K/V heads'), 'the K/V heads combo is drawn');
  assert.ok(await app.rect('weights kv why'), 'and the sentence that says where the number comes from');
  // Choosing the K/V heads chooses the heads: 1 K/V head (MQA) is 2 heads of head_dim 4.
  await app.click('Weights K/V heads');
  await app.click('Weights K/V heads: 1');
  d = await waitDialog(app, (d) => d.kv_heads === 1);
  assert.equal(d.heads, 2);
  await app.click('Weights K/V heads');
  await app.click('Weights K/V heads: 2');
  d = await waitDialog(app, (d) => d.kv_heads === 2);
  assert.equal(d.heads, 4);
  await app.shot('weights-dialog-llama-gqa-1280');
  await app.click('Apply weights');
  const s = await (await app.page.waitForFunction(() => {
    const st = window.attnviz.getState();
    return st.weights.W_k && !window.attnviz.weightsDialog().open && st;
  })).jsonValue();
  assert.equal(s.num_heads, 4);
  assert.equal(s.num_kv_heads, 2);
  assert.equal(s.d_out, 8);
  assert.equal(s.qkv_bias, false);
  assert.equal(s.out_proj, true);
  // W_k = k_projᵀ: (8, 4), W_k[i][j] = k_proj[j][i].
  const file = readSafetensors(llamaPath);
  const k = file['model.layers.0.self_attn.k_proj.weight'].data;
  assert.equal(s.weights.W_k.length, 8);
  assert.equal(s.weights.W_k[0].length, 4);
  for (let i = 0; i < 8; i++) for (let j = 0; j < 4; j++) assert.equal(Math.fround(s.weights.W_k[i][j]), k[j * 8 + i], `W_k[${i}][${j}]`);
  const notice = (await app.page.evaluate(() => window.attnviz.notice())).text;
  assert.match(notice, /llama_gqa\.safetensors/);
  assert.match(notice, /4 heads, 2 K\/V heads/);
  await app.close();
});

// One .npy fills one role: the dialog says what to do. The four .npy files chosen
// together in the picker (it is `multiple`) are one import, each tensor named by its
// file's stem; three dropped at once are one import too. A previous file's error
// goes once another file is opened.
test('several .npy files chosen or dropped together are one import; one alone says what to do', async (t) => {
  const app = await openApp(t);
  const input = await app.page.$('#attnviz-weights-file');
  assert.equal(await input.evaluate((el) => el.multiple), true, 'the picker takes several files');

  // A cut file first: its sentence stays under the menu bar until another file is opened.
  await app.page.setInputFiles('#attnviz-weights-file',
    { name: 'cut.safetensors', mimeType: 'application/octet-stream', buffer: fs.readFileSync(mhaPath).subarray(0, 200) });
  await app.page.waitForFunction(() => { const x = window.attnviz.notice(); return x && x.error; });

  await app.page.setInputFiles('#attnviz-weights-file', npyPaths[0]);
  let d = await waitDialog(app, (d) => d.open && d.phase === 'choosing' && d.tensors.length === 1);
  await app.frames(2);
  assert.equal(await app.page.evaluate(() => window.attnviz.notice()), null, 'the cut file\'s sentence is gone');
  assert.equal(await app.rect('share notice'), null, 'nothing over the dialog\'s title');
  assert.equal(d.format, 'npy');
  assert.equal(d.ok, false);
  assert.equal(d.error, 'Choose a tensor for W_k.');
  assert.match(d.hint, /open them together as \.npy files/);
  assert.match(d.hint, /\.npz or \.safetensors/);
  assert.ok(await app.rect('weights hint'), 'the sentence is drawn in the dialog');
  await app.click('Cancel weights');

  await app.page.setInputFiles('#attnviz-weights-file', npyPaths);
  d = await waitDialog(app, (d) => d.open && d.phase === 'choosing' && d.tensors.length === 4);
  assert.deepEqual([...d.files].sort(), ['W_k.npy', 'W_o.npy', 'W_q.npy', 'W_v.npy']);
  assert.deepEqual(d.tensors.map((x) => x.name), ['W_k', 'W_o', 'W_q', 'W_v']);
  assert.equal(d.family, 'W_q');
  assert.equal(d.roles.W_q.tensor, 'W_q');
  assert.equal(d.roles.W_q.transpose, false, 'bare arrays are x·W already');
  assert.equal(d.roles.W_o.tensor, 'W_o');
  assert.equal(d.ok, true, d.error);
  assert.equal(d.hint, '');
  assert.equal(d.heads, 1);
  await app.frames(2);
  await app.click('Apply weights');
  const s = await (await app.page.waitForFunction(() => {
    const st = window.attnviz.getState();
    return st.weights.W_q && !window.attnviz.weightsDialog().open && st;
  })).jsonValue();
  assert.equal(s.d_model, 8);
  assert.equal(s.d_out, 8);
  assert.equal(s.qkv_bias, false);
  assert.equal(s.out_proj, true);
  assert.equal(s.out_bias, false);
  // Each .npy as stored, and the same numbers as mha.safetensors' layer 0 transposed.
  const inProj = readSafetensors(mhaPath)['layers.0.self_attn.in_proj_weight'].data;
  ['W_q', 'W_k', 'W_v', 'W_o'].forEach((role, part) => {
    const a = readNpy(npyPaths[part]);
    assert.deepEqual(a.shape, [8, 8]);
    for (let i = 0; i < 8; i++) {
      for (let j = 0; j < 8; j++) {
        assert.equal(Math.fround(s.weights[role][i][j]), a.data[i * 8 + j], `${role}[${i}][${j}]`);
        if (part < 3) assert.equal(a.data[i * 8 + j], inProj[(part * 8 + j) * 8 + i], `${role}.npy = in_proj_weight's thirdᵀ`);
      }
    }
  });
  assert.match((await app.page.evaluate(() => window.attnviz.notice())).text, /W_q\.npy/);

  // Three dropped at once.
  const b64 = npyPaths.slice(0, 3).map((p) => [path.basename(p), fs.readFileSync(p).toString('base64')]);
  const dt = await app.page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const [name, b] of list) {
      const bin = atob(b);
      const u8 = new Uint8Array(bin.length);
      for (let k = 0; k < bin.length; k++) u8[k] = bin.charCodeAt(k);
      dt.items.add(new File([u8], name));
    }
    return dt;
  }, b64);
  await app.page.dispatchEvent('#canvas', 'drop', { dataTransfer: dt });
  d = await waitDialog(app, (d) => d.open && d.phase === 'choosing' && d.tensors.length === 3);
  assert.deepEqual(d.tensors.map((x) => x.name), ['W_k', 'W_q', 'W_v']);
  assert.equal(d.ok, true, d.error);
  assert.equal(d.roles.W_o.tensor, null);
  await app.click('Cancel weights');
  await app.close();
});
