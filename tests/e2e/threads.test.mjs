// threads.test.mjs: the two builds of the module. On a cross-origin isolated
// page (web/serve.mjs sends COOP/COEP) with more than one core the page loads
// attnviz-mt, whose engine splits its matrix products among Web Workers;
// ?threads=1 loads the single-threaded attnviz. Both must show the same bits:
// the same state, edited with the same real clicks and keys, gives identical
// matrices in both.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './harness.mjs';

// 24 tokens (on a window tall enough that the Parameters panel shows every control),
// d_model 512, four heads, causal, dropout in training, output projection: the
// Q/K/V and output products are big enough to split in two (at least 1 M
// multiply-adds and 12 rows a part, engine/src/kernels/kernels.cpp).
const tokens = Array.from({ length: 24 }, (_, i) => 'w' + i);
const state = {
  tokens, d_model: 512, d_out: 512, num_heads: 4, out_proj: true, qkv_bias: true, causal: true,
  dropout: { p: 0.1, training: true, seed: 7 }, weights: { init: 'torch_linear', seed: 11 },
};
const viewport = { width: 1440, height: 1300 };
const stages = [['Q', 0], ['weights', 0], ['weights', 3], ['dropped', 2], ['context', 1], ['concat', 0], ['output', 0]];

// Every stage's numbers, read after the app has drawn the state.
async function read(app) {
  await app.frames(3);
  const out = {};
  for (const [name, head] of stages) out[name + head] = await app.matrix(name, head);
  return out;
}

function assertSameBits(a, b, when) {
  for (const key of Object.keys(a)) {
    assert.ok(a[key] && b[key], `${when}: ${key} missing`);
    assert.equal(a[key].rows, b[key].rows, `${when}: ${key} rows`);
    assert.equal(a[key].cols, b[key].cols, `${when}: ${key} cols`);
    const fa = new Float32Array(a[key].data), fb = new Float32Array(b[key].data);
    const ua = new Uint32Array(fa.buffer), ub = new Uint32Array(fb.buffer);
    const k = ua.findIndex((v, i) => v !== ub[i]);
    assert.equal(k, -1, `${when}: ${key}[${Math.floor(k / a[key].cols)}][${k % a[key].cols}] ` +
                        `${fa[k]} (attnviz-mt) vs ${fb[k]} (attnviz)`);
  }
}

// Sets the state, then edits it like a learner: the causal mask off with a
// click, then the temperature typed into its field.
async function drive(app) {
  const r = await app.setState(state);
  assert.equal(r.ok, true, JSON.stringify(r));
  const before = await read(app);
  await app.click('Causal mask');
  assert.equal((await app.state()).causal, false, 'the click turned the causal mask off');
  const causalOff = await read(app);
  await app.type('Temperature', '0.5', { number: true });
  assert.equal((await app.state()).temperature, 0.5, 'the temperature typed in');
  return { before, causalOff, temperature: await read(app) };
}

test('an isolated page runs attnviz-mt on every core, with the bits of the single-threaded build', async (t) => {
  const mt = await openApp(t, { viewport });
  const info = await mt.page.evaluate(() => ({
    build: window.attnviz.build, isolated: self.crossOriginIsolated, cores: navigator.hardwareConcurrency,
  }));
  assert.equal(info.isolated, true, 'serve.mjs makes the page cross-origin isolated');
  assert.ok(info.cores > 1, 'this test needs a machine with more than one core');
  assert.equal(info.build, 'attnviz-mt');
  const jobs0 = (await mt.stats()).parallel_jobs;
  assert.equal((await mt.stats()).threads, Math.min(info.cores, 8), 'one thread per core, at most 8');
  const many = await drive(mt);
  assert.ok((await mt.stats()).parallel_jobs > jobs0, 'the workers computed part of the products');
  await mt.shot('threads-mt');

  // A worker may grow the memory (the engine's head groups allocate). The
  // module's views then end where the memory used to until Emscripten's own
  // code next touches the heap, so the glue reads through views of the memory
  // as it is now. Grown here from the page, the way a worker grows it.
  const grown = await mt.page.evaluate(() => {
    const before = Module.HEAPU8.length;
    Module.wasmMemory.grow(16);
    return { before, stale: Module.HEAPU8.length, glue: Module.attnvizHeap().u8.length,
             now: Module.wasmMemory.buffer.byteLength };
  });
  assert.equal(grown.stale, grown.before, 'the module\'s own views did not follow the growth');
  assert.equal(grown.now, grown.before + 16 * 65536);
  assert.equal(grown.glue, grown.now, 'the glue\'s views cover the grown memory');
  assertSameBits({ output0: await mt.matrix('output', 0) }, { output0: many.temperature.output0 },
                 'read again after the memory grew');
  await mt.close();

  const one = await openApp(t, { viewport, query: 'threads=1' });
  assert.equal(await one.page.evaluate(() => window.attnviz.build), 'attnviz');
  assert.equal((await one.stats()).threads, 1);
  const single = await drive(one);
  await one.close();

  assertSameBits(many.before, single.before, 'the state as set');
  assertSameBits(many.causalOff, single.causalOff, 'after clicking the causal mask off');
  assertSameBits(many.temperature, single.temperature, 'after typing temperature 0.5');
});
