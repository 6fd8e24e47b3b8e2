// attnviz-glue.js: the page side of attnviz. Checks WebGL2, loads the module with a
// progress indicator, hands it the fonts, shows a readable message instead of a
// blank page when something fails, and publishes the test API as window.attnviz
// (docs/test-api.md).
'use strict';
(function () {
  const overlay = document.getElementById('overlay');
  const titleEl = document.getElementById('overlay-title');
  const textEl = document.getElementById('overlay-text');
  const barEl = document.querySelector('#progress div');
  const canvas = document.getElementById('canvas');
  const lang = window.attnvizLang;  // attnviz-lang.js: the language and the page's sentences
  const t = lang.t;

  function fail(title, text) {
    overlay.classList.remove('hidden');
    overlay.classList.add('error');
    titleEl.textContent = title;
    textEl.textContent = text;
    readyReject(new Error(title + ' ' + text));
  }

  let readyResolve, readyReject;
  const ready = new Promise((res, rej) => { readyResolve = res; readyReject = rej; });
  ready.catch(() => {});  // a failure is shown on the page; tests inspect it themselves

  const api = { ready };
  window.attnviz = api;

  // WebGL2 first: without it the module cannot draw anything.
  const probe = document.createElement('canvas').getContext('webgl2');
  if (!probe) {
    fail(t('webgl.title'), t('webgl.text'));
    return;
  }

  // Fonts by kind (0 regular, 1 mono, 2 CJK). In Chinese the CJK font (4 MB) loads with
  // the page, so the first frame is already in Chinese; in English only once a token
  // or the language needs it (attnvizLoadFont).
  const CJK_FONT = 'assets/fonts/DroidSansFallbackFull.ttf';
  const fontFiles = ['assets/fonts/DejaVuSans.ttf', 'assets/fonts/DejaVuSansMono.ttf'];
  if (lang.current === 'zh-CN') fontFiles.push(CJK_FONT);
  const fetchFont = (url) => fetch(url).then((r) => (r.ok ? r.arrayBuffer() : null)).catch(() => null);
  const fontFetches = fontFiles.map(fetchFont);
  let cjkFetch = lang.current === 'zh-CN' ? fontFetches[2] : null;

  // Two builds of the module: attnviz-mt runs the engine (whole heads, large
  // products) on several cores (Web Workers sharing memory), which browsers allow only on a
  // cross-origin isolated page (web/serve.mjs sends COOP/COEP); attnviz runs
  // on one. Both give the same numbers. ?threads=1 asks for the single one.
  const cores = Math.min(navigator.hardwareConcurrency || 1, 8);
  const threaded = self.crossOriginIsolated === true && cores > 1 &&
                   new URLSearchParams(location.search).get('threads') !== '1';
  api.build = threaded ? 'attnviz-mt' : 'attnviz';

  let aborted = false;
  const Module = {
    canvas,
    attnvizPoolSize: cores - 1,  // attnviz-mt's workers (ui/CMakeLists.txt)
    print: (t) => console.log(t),
    printErr: (t) => console.warn(t),
    setStatus: (s) => {
      const m = /\((\d+(\.\d+)?)\/(\d+)\)/.exec(s || '');
      if (m) barEl.style.width = (100 * Number(m[1]) / Number(m[3])).toFixed(0) + '%';
    },
    onAbort: (what) => {
      aborted = true;
      fail(t('abort.title'), t('abort.text', String(what)));
    },
    attnvizFatal: (msg) => fail(t('start.title'), msg),
    attnvizLanguage: () => lang.current,           // the language the app opens in
    attnvizLanguageChanged: (code) => lang.changed(code),
    attnvizAfterFrame: (frames, fontsReady) => {
      if (fontsReady && !api._readyDone) {
        api._readyDone = true;
        overlay.classList.add('hidden');
        canvas.focus();
        readyResolve();
      }
    },
    // Hands font bytes to the module (kind 0 regular, 1 mono, 2 CJK).
    attnvizSetFont: (kind, buf) => {
      const bytes = buf ? new Uint8Array(buf) : new Uint8Array(0);
      const ptr = Module._malloc(Math.max(1, bytes.length));
      heap().u8.set(bytes, ptr);
      Module._attnviz_set_font_data(kind, ptr, bytes.length);
      Module._free(ptr);
    },
    // Called by the module when a token needs a font it does not have yet.
    // Fetched once: the page may already be loading it (Chinese).
    attnvizLoadFont: (kind, url) => {
      if (kind === 2 && cjkFetch) return;
      const f = fetchFont(url);
      if (kind === 2) cjkFetch = f;
      f.then((buf) => { if (buf) Module.attnvizSetFont(kind, buf); });
    },
    attnvizHeap: () => heap(),
    onRuntimeInitialized: () => {
      barEl.style.width = '100%';
      textEl.textContent = t('loading.starting');
      Promise.all(fontFetches).then((fonts) => fonts.forEach((buf, kind) => Module.attnvizSetFont(kind, buf)));
    },
  };
  window.Module = Module;
  window.addEventListener('error', (e) => {
    if (!aborted && /attnviz(-mt)?(\.worker)?\.(js|wasm)/.test(String(e.filename || ''))) {
      fail(t('start.title'), String(e.message || e));
    }
  });

  // Views of the module's memory as it is now. In attnviz-mt a worker thread
  // may grow the memory (the engine's head groups allocate); Emscripten's own
  // code refreshes Module.HEAP* the next time it touches the heap, but this
  // glue may read first, through views that end where the memory used to.
  let views = null;
  function heap() {
    const buf = Module.wasmMemory ? Module.wasmMemory.buffer : Module.HEAPU8.buffer;
    if (!views || views.buf !== buf) {
      views = { buf, u8: new Uint8Array(buf), i32: new Int32Array(buf), f32: new Float32Array(buf) };
    }
    return views;
  }

  function withCString(str, fn) {
    const n = Module.lengthBytesUTF8(str) + 1;
    const p = Module._malloc(n);
    Module.stringToUTF8(str, p, n);
    try { return fn(p); } finally { Module._free(p); }
  }

  api.getState = () => JSON.parse(Module.UTF8ToString(Module._attnviz_get_state()));
  api.setState = (obj) => {
    const text = typeof obj === 'string' ? obj : JSON.stringify(obj);
    return JSON.parse(withCString(text, (p) => Module.UTF8ToString(Module._attnviz_set_state(p))));
  };
  api.getMatrix = (name, head) => withCString(String(name), (p) => {
    const dims = Module._malloc(8);
    try {
      const data = Module._attnviz_matrix(p, head | 0, dims);
      if (!data) return null;
      const { i32, f32 } = heap();
      const rows = i32[dims >> 2], cols = i32[(dims >> 2) + 1];
      const out = Array.from(f32.subarray(data >> 2, (data >> 2) + rows * cols));
      return { rows, cols, data: out };
    } finally { Module._free(dims); }
  });
  api.stageCurrent = (name, head) => withCString(String(name), (p) => Module._attnviz_stage_current(p, head | 0) === 1);
  api.itemRect = (label) => withCString(String(label), (p) => {
    const out = Module._malloc(16);
    try {
      if (!Module._attnviz_item_rect(p, out)) return null;
      const f = heap().f32.subarray(out >> 2, (out >> 2) + 4);
      return { x: f[0], y: f[1], w: f[2], h: f[3] };
    } finally { Module._free(out); }
  });
  api.heatmapInfo = (label) => withCString(String(label), (p) => JSON.parse(Module.UTF8ToString(Module._attnviz_heatmap_info(p))));
  // The interface's language: "en" or "zh-CN"; setLanguage takes any tag attnviz reads
  // ("zh", "en-GB") and returns {ok, error} (an unknown one: a sentence, shown too).
  api.heatmapsDrawn = () => JSON.parse(Module.UTF8ToString(Module._attnviz_heatmaps_drawn()));
  api.inspectorText = () => Module.UTF8ToString(Module._attnviz_inspector_text());
  // Each layer's each head's scores, as `attnviz-cli head-scores` prints them.
  api.headScores = () => JSON.parse(Module.UTF8ToString(Module._attnviz_head_scores()));
  api.language = () => Module.UTF8ToString(Module._attnviz_language());
  api.setLanguage = (code) => JSON.parse(withCString(String(code), (p) => Module.UTF8ToString(Module._attnviz_set_language(p))));
  api.frameStats = () => JSON.parse(Module.UTF8ToString(Module._attnviz_frame_stats()));
  // A resting page draws once a second (docs/ui.md, "An idle window rests"): this asks for
  // at least n frames from now, as input would.
  api.requestFrames = (n = 1) => { Module._attnviz_request_frames(Math.max(1, n | 0)); };

  function load(name) {
    const script = document.createElement('script');
    script.src = name + '.js';
    script.async = true;
    script.onerror = () => {
      if (name === 'attnviz-mt') {  // a site built without it: one thread it is
        api.build = 'attnviz';
        load('attnviz');
        return;
      }
      fail(t('load.title'), t('load.text', name + '.js'));
    };
    document.body.appendChild(script);
  }
  load(api.build);
})();
