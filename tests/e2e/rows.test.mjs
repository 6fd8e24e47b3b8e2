// Rows on demand (issue 36): window.attnviz.getRow(name, head, i) computes one row of a
// stage without the head's (S × S) matrices (Pipeline::row), in the page's build.
// Its rows are PyTorch's within the tolerances tests/fixtures/rows.py derives (S = 1024,
// seeded), and bit for bit the full matrices' rows (getMatrix) for every stage, head and
// row of states with every variant; memoryStats() says what the page and the engine hold.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, repoRoot } from './harness.mjs';

const fixture = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tests/e2e/data/rows_torch.json'), 'utf8'));

const longCase = (c) => c.state.tokens.length > 2048;  // Limits::kMaxFullTokens: long mode

test('getRow at S = 1024 is PyTorch\'s row within the derived tolerance, and getMatrix\'s row bit for bit', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  for (const c of fixture.cases.filter((c) => !longCase(c))) {
    const r = await app.setState(c.state);
    assert.equal(r.ok, true, `${c.name}: ${r.error}`);
    await app.frames(2);
    const got = await app.page.evaluate((rows) => rows.map(({ stage, head, i }) => {
      const row = window.attnviz.getRow(stage, head, i);
      const m = window.attnviz.getMatrix(stage, head);
      const full = m ? m.data.slice(i * m.cols, (i + 1) * m.cols) : null;
      return { row, same: !!row && !!full && row.data.length === full.length && row.data.every((x, j) => Object.is(x, full[j])) };
    }), c.rows.map(({ stage, head, i }) => ({ stage, head, i })));
    c.rows.forEach((want, k) => {
      const where = `${c.name}: ${want.stage} head ${want.head} row ${want.i}`;
      const { row, same } = got[k];
      assert.ok(row, `${where}: no row`);
      assert.equal(row.cols, want.data.length, where);
      assert.ok(same, `${where}: not getMatrix's row bit for bit`);
      let worst = 0;
      row.data.forEach((x, j) => {
        const err = Math.abs(x - want.data[j]);
        assert.ok(err <= want.tol[j], `${where}, key ${j}: ${x} vs torch ${want.data[j]} (|Δ| ${err} > ${want.tol[j]})`);
        worst = Math.max(worst, err / want.tol[j]);
      });
      if (want.stage === 'weights' && want.i === 1023) t.diagnostic(`${where}: worst |Δ| at ${(100 * worst).toFixed(1)}% of its tolerance`);
    });
  }
  assert.deepEqual(app.errors, []);
});

// Issue 36's length: 8,192 tokens in the page's build. The engine keeps no (S × S)
// matrix (getMatrix of weights is null, the pipeline holds megabytes, not the gigabytes
// 8,192² floats a head and stage would take), and getRow computes PyTorch's rows.
test('getRow at S = 8192 in long mode is PyTorch\'s row within the derived tolerance', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  for (const c of fixture.cases.filter(longCase)) {
    const r = await app.setState(c.state);
    assert.equal(r.ok, true, `${c.name}: ${r.error}`);
    await app.frames(2);
    const got = await app.page.evaluate((rows) => {
      const a = window.attnviz;
      return {
        weights: a.getMatrix('weights', 0),
        mem: a.memoryStats(),
        rows: rows.map(({ stage, head, i }) => {
          const row = a.getRow(stage, head, i);
          const m = stage === 'context' ? a.getMatrix('context', head) : null;
          const same = !m || (!!row && row.data.every((x, j) => Object.is(x, m.data[i * m.cols + j])));
          return { row, same };
        }),
      };
    }, c.rows.map(({ stage, head, i }) => ({ stage, head, i })));
    assert.equal(got.weights, null, `${c.name}: no (S × S) matrix in long mode`);
    const S = c.state.tokens.length;
    assert.ok(got.mem.pipeline_bytes < S * S * 4, `${c.name}: the pipeline holds ${got.mem.pipeline_bytes} B, less than one ${S}² stage`);
    t.diagnostic(`${c.name}: pipeline ${(got.mem.pipeline_bytes / 2 ** 20).toFixed(1)} MiB, wasm memory ${(got.mem.wasm_bytes / 2 ** 20).toFixed(0)} MiB`);
    c.rows.forEach((want, k) => {
      const where = `${c.name}: ${want.stage} head ${want.head} row ${want.i}`;
      const { row, same } = got.rows[k];
      assert.ok(row, `${where}: no row`);
      assert.equal(row.cols, want.data.length, where);
      assert.ok(same, `${where}: not getMatrix's context row bit for bit`);
      row.data.forEach((x, j) => {
        const tol = want.tol ? want.tol[j] : Math.max(Math.abs(want.data[j]) * want.tol_rel, 1e-30);
        const err = Math.abs(x - want.data[j]);
        assert.ok(err <= tol, `${where}, key ${j}: ${x} vs torch ${want.data[j]} (|Δ| ${err} > ${tol})`);
      });
    });
  }
  assert.deepEqual(app.errors, []);
});

test('getRow is getMatrix\'s row bit for bit for every stage, head and row, with every variant; bad rows are null', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  const tokens = Array.from({ length: 13 }, (_, k) => `w${k}`);
  const base = { tokens, d_model: 16, d_out: 16, num_heads: 4, embedding: { init: 'torch_randn', seed: 123 },
                 weights: { init: 'torch_linear', seed: 7 } };
  const variants = {
    causal: { causal: true },
    padding: { key_padding: tokens.map((_, k) => (k % 4 === 3 ? 0 : 1)) },
    'RoPE, GQA, window': { positional: 'rope', num_kv_heads: 2, window: 4, causal: true },
    'ALiBi, MQA': { alibi: true, num_kv_heads: 1 },
    dropout: { causal: true, dropout: { p: 0.4, training: true, seed: 5 } },
  };
  for (const [name, extra] of Object.entries(variants)) {
    const r = await app.setState({ ...base, ...extra });
    assert.equal(r.ok, true, `${name}: ${r.error}`);
    await app.frames(2);
    const bad = await app.page.evaluate(() => {
      const a = window.attnviz;
      const stages = ['scores', 'scaled', 'bias', 'masked', 'weights', 'dropped', 'context'];
      const wrong = [];
      let rows = 0;
      for (const st of stages) {
        for (let h = 0; h < 4; h++) {
          const m = a.getMatrix(st, h);
          if (!m) { if (a.getRow(st, h, 0) !== null) wrong.push(`${st} h${h}: a row of an absent stage`); continue; }
          for (let i = 0; i < m.rows; i++, rows++) {
            const row = a.getRow(st, h, i);
            if (!row || row.cols !== m.cols || row.data.some((x, j) => !Object.is(x, m.data[i * m.cols + j]))) wrong.push(`${st} h${h} row ${i}`);
          }
        }
      }
      return { wrong, rows };
    });
    assert.deepEqual(bad.wrong, [], name);
    assert.ok(bad.rows >= 4 * 13 * 5, `${name}: ${bad.rows} rows compared`);
  }
  const nulls = await app.page.evaluate(() => [
    window.attnviz.getRow('weights', 4, 0), window.attnviz.getRow('weights', 0, 13),
    window.attnviz.getRow('weights', 0, -1), window.attnviz.getRow('no such stage', 0, 0)]);
  assert.deepEqual(nulls, [null, null, null, null]);
  assert.deepEqual(app.errors, []);
});

test('memoryStats: the heap holds the engine\'s buffers, which grow as H·S² when S does', async (t) => {
  const app = await openApp(t, { viewport: { width: 1280, height: 720 } });
  const at = async (S) => {
    const tokens = Array.from({ length: S }, (_, k) => `t${k}`);
    const r = await app.setState({ tokens, d_model: 32, d_out: 32, num_heads: 4, causal: true,
                                   embedding: { init: 'torch_randn', seed: 1 }, weights: { init: 'torch_linear', seed: 2 } });
    assert.equal(r.ok, true, r.error);
    await app.frames(2);
    return app.page.evaluate(() => window.attnviz.memoryStats());
  };
  const small = await at(128), big = await at(512);
  for (const m of [small, big]) {
    assert.ok(m.pipeline_bytes > 0 && m.wasm_bytes > m.pipeline_bytes, JSON.stringify(m));
  }
  // Per head at least scores and weights (S² floats each): 4 heads × 2 × 512² × 4 bytes.
  assert.ok(big.pipeline_bytes >= 4 * 2 * 512 * 512 * 4, JSON.stringify(big));
  const ratio = big.pipeline_bytes / small.pipeline_bytes;
  assert.ok(ratio > 10 && ratio < 17, `4× the tokens: ${ratio.toFixed(1)}× the bytes (S² grows 16×)`);
  t.diagnostic(`S 128: ${small.pipeline_bytes} B in a ${small.wasm_bytes} B heap; S 512: ${big.pipeline_bytes} B`);
  assert.deepEqual(app.errors, []);
});
