// Issue 36's page at its size: 8,192 tokens, d_model 768, 12 heads, causal, in the page's
// build. The engine keeps no (S × S) buffer (long mode), so the page stays within its
// memory budget; the Stages tab's weights map is an overview of 32 × 32 blocks whose
// pooled values are the engine's rows pooled; an edit of the last token changes only the
// last pooled row and is redrawn. Times are printed as diagnostics (docs/bench.md: speed
// is measured by `make bench`'s bench-long, never asserted here).
import test from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

const S = 8192;
const LABEL = 'weights h0';
const MIB = 2 ** 20;

function state(last = `t${S - 1}`) {
  const tokens = Array.from({ length: S }, (_, i) => `t${i}`);
  tokens[S - 1] = last;
  return { tokens, d_model: 768, d_out: 768, num_heads: 12, causal: true, qkv_bias: true, out_proj: true,
           embedding: { init: 'torch_randn', seed: 123 }, weights: { init: 'torch_linear', seed: 123 } };
}

// Frames until `label` has no visible pooled row computing; its heatmapInfo and the time.
async function settled(app, label) {
  const t0 = Date.now();
  const m = await app.mapSettled(label, 300);
  return { m, ms: Date.now() - t0 };
}

// Pooled row R (rows 32R … 32R + 31) of the drawn map against getRow's rows pooled (max).
function pooledRowMatches(app, R) {
  return app.page.evaluate(([l, R]) => {
    const a = window.attnviz, m = a.heatmapInfo(l), p = m.pooled, I = R - p.row0;
    if (I < 0 || I >= p.rows) return { skipped: true };
    const want = new Array(p.cols).fill(-Infinity);
    for (let i = R * 32; i < Math.min((R + 1) * 32, m.rows); i++) {
      const row = a.getRow('weights', 0, i).data;
      for (let c = 0; c < p.cols; c++) {
        for (let j = (p.col0 + c) * 32; j < Math.min((p.col0 + c + 1) * 32, m.cols); j++) want[c] = Math.max(want[c], row[j]);
      }
    }
    const bad = [];
    for (let c = 0; c < p.cols; c++) if (!Object.is(Math.fround(want[c]), p.data[I][c])) bad.push(c);
    return { bad };
  }, [LABEL, R]);
}

test('8,192 tokens, d_model 768, 12 heads: within 512 MB, an overview of the engine\'s rows, a last-token edit redrawn', async (t) => {
  // One viewport: the memory and the rows do not depend on it, and each load of this state
  // costs the suite about 25 s (long_input.test.mjs screenshots the long preset's maps at
  // 1280×720, 1440×900 and 1920×1080).
  for (const viewport of [{ width: 1280, height: 720 }]) {
    const app = await openApp(t, { viewport });
    const t0 = Date.now();
    const r = await app.setState(state());
    assert.equal(r.ok, true, r.error);
    const loaded = Date.now() - t0;
    if (app.stagesTab) await app.showMap(LABEL);
    const first = await settled(app, LABEL);
    assert.ok(first.m, 'the weights map of head 0 is drawn');
    assert.equal(first.m.overview, true);
    assert.equal(first.m.block, 32, '8,192 tokens: 32 × 32 blocks, 256 pooled cells across');
    assert.equal(first.m.pending, 0, 'every visible pooled row computed');
    const mem = await app.page.evaluate(() => window.attnviz.memoryStats());
    t.diagnostic(`${viewport.width}×${viewport.height}: setState ${loaded} ms, then the overview ${first.ms} ms; ` +
                 `pipeline ${(mem.pipeline_bytes / MIB).toFixed(0)} MiB, wasm memory ${(mem.wasm_bytes / MIB).toFixed(0)} MiB`);
    assert.ok(mem.wasm_bytes <= 512 * MIB, `the page's memory ${(mem.wasm_bytes / MIB).toFixed(0)} MiB is within 512 MiB`);
    assert.ok(mem.pipeline_bytes < S * S * 4, 'less than one head\'s (S × S) stage');

    // The drawn pooled row 128 (rows 4096 … 4127) is the engine's rows pooled (max).
    const check = await pooledRowMatches(app, 128);
    assert.ok(check.skipped || check.bad.length === 0, `pooled row 128 differs at ${JSON.stringify(check.bad)}`);
    await app.shot(`long-8192-weights-${viewport.width}x${viewport.height}`);

    // Renaming the last token to an earlier word changes X's last row only: under the
    // causal mask only the last pooled row of the map may change.
    const before = first.m.pooled;
    const t1 = Date.now();
    const r2 = await app.setState(state('t5'));
    assert.equal(r2.ok, true, r2.error);
    const after = await settled(app, LABEL);
    t.diagnostic(`${viewport.width}×${viewport.height}: last-token edit redrawn in ${Date.now() - t1} ms (setState included)`);
    const changed = [];
    for (let I = 0; I < after.m.pooled.rows; I++) {
      if (after.m.pooled.data[I].some((x, c) => !Object.is(x, before.data[I][c]))) changed.push(after.m.pooled.row0 + I);
    }
    assert.deepEqual(changed.filter((I) => I !== 255), [], 'rows before the last pooled row keep their values');
    const last = await pooledRowMatches(app, 255);
    assert.ok(last.skipped || last.bad.length === 0, `the last pooled row shows the edit: it differs at ${JSON.stringify(last.bad)}`);
    assert.deepEqual(app.errors, []);
  }
});
