// frame_bench.mjs: the browser frame time with every head's weights on screen.
// Opens the site in headless Chromium (tests/e2e/harness.mjs: playwright-core +
// /usr/bin/chromium, SwiftShader WebGL), loads a state of S tokens, d_model =
// d_out = 768, 12 heads, causal, switches to the "Compare heads" tab (a grid of
// every head's weights) and reads window.attnviz.frameStats() before and after
// a window of idle frames. Prints one JSON line:
//   {"S", "heads", "heads_visible", "frames", "frame_ms", "engine_ms_last", "set_state_ms",
//    "click_S", "click_seeded_ms", "click_explicit_ms", "click_ratio"}
// frame_ms: mean time of the app's frame function (events, engine, ImGui, texture
// uploads, GL calls; not the buffer swap) over the window, as frameStats() measures it.
// click_*: a learner's own weights against seeded ones (issue 32). GPT-2 small's
// attention shape (d_model 768, 12 heads, W_o and b_o; tests/e2e/gpt2.mjs) at S =
// --click-tokens (16), seeded and then with every weight explicit: the median over
// --clicks (5) clicks on "Causal mask" of the time from the mouse press to the first
// frame drawn after the state changed, on the Stages tab.
//
//   ATTNVIZ_SITE_DIR=build/wasm/site node bench/frame_bench.mjs [--tokens 256] [--frames 120]
//       [--width 1600 --height 1000] [--shot]
import { openApp, closeShared } from '../tests/e2e/harness.mjs';
import { clickToFrame, explicitState, seededState } from '../tests/e2e/gpt2.mjs';

const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const S = arg('--tokens', 256), heads = arg('--heads', 12), d = arg('--d-model', 768);
const windowFrames = arg('--frames', 120);
const width = arg('--width', 1600), height = arg('--height', 1000);

const app = await openApp({}, { viewport: { width, height } });
try {
  const state = {
    tokens: Array.from({ length: S }, (_, i) => `t${i}`), d_model: d, d_out: d, num_heads: heads,
    weights: { init: 'torch_linear', seed: 123 }, qkv_bias: true, out_proj: true, causal: true,
  };
  const t0 = performance.now();
  const res = await app.setState(state);
  const setStateMs = performance.now() - t0;
  if (!res.ok) throw new Error('setState refused: ' + res.error);
  await app.click('Compare heads');
  let visible = 0;
  for (let h = 0; h < heads; ++h) if (await app.rect(`weights h${h}`)) ++visible;
  await app.page.mouse.move(5, height - 5);  // away from every map (no hover tooltips)
  await app.frames(10);
  const a = await app.stats();
  await app.frames(windowFrames);
  const b = await app.stats();
  if (argv.includes('--shot')) await app.shot('frame-bench');  // tests/e2e/artifacts/frame-bench.png
  const clickS = arg('--click-tokens', 16), clicks = arg('--clicks', 5);
  const clickMedian = async (state) => {
    const r = await app.setState(state);
    if (!r.ok) throw new Error('setState refused: ' + r.error);
    await app.click('Stages');
    await app.frames(3);
    const ms = [];
    for (let i = 0; i < clicks; ++i) ms.push(await clickToFrame(app, 'Causal mask'));
    ms.sort((x, y) => x - y);
    return ms[Math.floor(ms.length / 2)];
  };
  const clickSeeded = await clickMedian(seededState(clickS));
  const clickExplicit = await clickMedian(explicitState(clickS));
  const n = b.frames - a.frames;
  const frameMs = (b.frame_ms_avg * b.frames - a.frame_ms_avg * a.frames) / n;
  const r3 = (x) => Math.round(x * 1000) / 1000;
  process.stdout.write(JSON.stringify({
    S, heads, heads_visible: visible, frames: n, frame_ms: r3(frameMs),
    engine_ms_last: r3(b.engine_ms_last), set_state_ms: r3(setStateMs),
    click_S: clickS, click_seeded_ms: clickSeeded, click_explicit_ms: clickExplicit,
    click_ratio: r3(clickExplicit / clickSeeded),
  }) + '\n');
} finally {
  await app.close();
  await closeShared();
}
