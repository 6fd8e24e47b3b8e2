// torch.test.mjs: "PyTorch code out" through the real interface. File → Export
// PyTorch script downloads attnviz.py and Edit → Copy as PyTorch puts the same text
// on the system clipboard; both must be exactly what `attnviz-cli export-torch`
// prints for the state the page shows (the page only hands over the engine's
// script; tests/engine/torch_script_check.cpp runs such scripts with PyTorch).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, cli, repoRoot, artifactsDir } from './harness.mjs';

const CLIPBOARD = ['clipboard-read', 'clipboard-write'];
const preset = (file) => JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/presets', file), 'utf8')).state;

// `attnviz-cli export-torch -` of `state`, as text.
const exportTorch = (state) => cli('export-torch', state);

function keep(name, text) {
  fs.mkdirSync(artifactsDir, { recursive: true });
  fs.writeFileSync(path.join(artifactsDir, name), text);
}

test('File > Export PyTorch script downloads attnviz.py: attnviz-cli export-torch of the state shown', async (t) => {
  const app = await openApp(t);
  await app.click('Causal mask');  // a state of the page's own, not the default
  const state = await app.state();
  assert.equal(state.causal, true);
  const { name, text } = await app.exportTorchScript();
  assert.equal(name, 'attnviz.py');
  keep('torch-attnviz.py', text);
  const want = exportTorch(state);
  assert.ok(text === want, `the download differs from attnviz-cli export-torch (${text.length} vs ${want.length} bytes; ` +
                           `first difference at ${[...text].findIndex((c, i) => c !== want[i])})`);
  assert.match(text, /^#!\/usr\/bin\/env python3\n/);
  assert.match(text, /masked_scores = scaled_scores\.masked_fill\(mask, -torch\.inf\)\n/, 'the causal mask is in it');
  await app.close();
});

test('Edit > Copy as PyTorch puts the same script on the clipboard, Chinese tokens intact, with a notice', async (t) => {
  const app = await openApp(t, { permissions: CLIPBOARD });
  assert.ok((await app.setState(preset('06-chinese.json'))).ok);
  await app.frames(2);
  const state = await app.state();
  await app.click('Edit');
  await app.click('Copy as PyTorch');
  await app.page.waitForFunction(async () => (await navigator.clipboard.readText()).startsWith('#!/usr/bin/env python3'),
                                 null, { polling: 100 });
  const text = await app.page.evaluate(() => navigator.clipboard.readText());
  keep('torch-clipboard.py', text);
  const want = exportTorch(state);
  assert.ok(text === want, `the clipboard differs from attnviz-cli export-torch (${text.length} vs ${want.length} chars)`);
  assert.match(text, /tokens = \["我", "爱", "自然", "语言", "处理"\]/);
  assert.match(text, /W_query\.append\(nn\.Linear\(d_model, head_dim, bias=False\)\)/, 'per-head nn.Linear weights');
  const notice = await app.page.waitForFunction(
    () => { const n = window.attnviz.notice()?.text || ''; return n.includes('PyTorch script copied') && n; },
    null, { polling: 50 });
  const lines = text.split('\n').length - 1;
  assert.match(await notice.jsonValue(), new RegExp(`PyTorch script copied \\(${lines} lines\\)`));
  await app.close();
});
