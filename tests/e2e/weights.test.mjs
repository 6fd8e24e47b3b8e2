// weights.test.mjs: File → Open weights… (docs/ui.md, "Trained weights in").
// The checkpoint is written here by tests/engine/make_weights.py with Debian's
// python3-torch (two nn.MultiheadAttention layers as layers.<i>.self_attn.*),
// opened through the menu's file chooser; the dialog's list and proposal are read
// through window.attnviz.weightsDialog(), "Apply weights" is clicked, and the
// state's weights are compared with the file's tensors, transposed to x·W.
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
  await app.page.keyboard.press('Control+Z');
  await app.frames(3);
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
