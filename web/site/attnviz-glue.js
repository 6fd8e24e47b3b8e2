// attnviz-glue.js: one view of attnviz, the part the page and the embedded views share.
// attnvizCore.createView(env) makes the Module object handed to the module and the
// test API (docs/test-api.md) around it: a readable message instead of a blank view when
// something fails, the fonts handed to the module, the layout and the screen-reader line
// where the host keeps them. attnviz-export.js, attnviz-weights.js and attnviz-share.js
// add their parts to the same view; the page (attnviz-page.js) publishes it as
// window.attnviz, an embedded view (web/embed) pushes it to window.attnvizViews.
//
// env, what the host gives a view:
//   canvas        the <canvas> (Module.canvas; SDL's "#canvas" means this one)
//   overlay       {root, title, text, bar}: the loading and error box over the canvas
//   lang          attnvizCore.language(...) (attnviz-lang.js)
//   api           the object to fill (the test API); {} when not given
//   fonts(kind)   → Promise of the font's bytes (ArrayBuffer) or null; kind 0 regular,
//                 1 mono, 2 CJK
//   layout        {load() → text or null, save(text)}: ImGui's window settings
//   lessons       {load() → text or null, save(text)}: the learner's progress in the lessons (optional)
//   live(text)    the screen-reader line (aria-live)
//   keyTarget     an element whose key events SDL reads (an embedded view's box), or
//                 null for the window (the page)
//   keyRoot, pasteRoot, dropRoot  where keys are filtered, paste and drop are caught
//                 (the page: window, document, window; a view: its box)
//   container     where hidden inputs (file pickers, the text-input textarea) go
//   idSuffix      appended to their ids ('' on the page)
//   page          true on the page: the session lives in the address and localStorage
//   open(view)    an embedded view's opening state, applied instead (attnviz-share.js)
'use strict';
var attnvizCore = (typeof attnvizCore !== 'undefined' && attnvizCore) || {};
(function (core) {
  core.createView = function createView(env) {
    const { canvas, lang } = env;
    const { root: overlay, title: titleEl, text: textEl, bar: barEl } = env.overlay;
    const t = lang.t;
    const api = env.api || {};

    let readyResolve, readyReject;
    const ready = new Promise((res, rej) => { readyResolve = res; readyReject = rej; });
    ready.catch(() => {});  // a failure is shown in the view; tests inspect it themselves
    api.ready = ready;

    function fail(title, text) {
      overlay.classList.remove('hidden');
      overlay.classList.add('error');
      titleEl.textContent = title;
      textEl.textContent = text;
      readyReject(new Error(title + ' ' + text));
    }

    // Fonts by kind (0 regular, 1 mono, 2 CJK). In Chinese the CJK font loads with the
    // view, so the first frame is already in Chinese; in English only once a token or the
    // language needs it (attnvizLoadFont).
    const fontFetches = [env.fonts(0), env.fonts(1)];
    if (lang.current === 'zh-CN') fontFetches.push(env.fonts(2));
    let cjkFetch = lang.current === 'zh-CN' ? fontFetches[2] : null;

    const view = { api, env, lang, fail, aborted: false };
    const Module = {
      canvas,
      attnvizKeyTarget: env.keyTarget || null,  // main_web.cpp: SDL's keyboard element
      attnvizEmbedded: !env.page,              // no window title
      print: (s) => console.log(s),
      printErr: (s) => console.warn(s),
      setStatus: (s) => {
        const m = /\((\d+(\.\d+)?)\/(\d+)\)/.exec(s || '');
        if (m) barEl.style.width = (100 * Number(m[1]) / Number(m[3])).toFixed(0) + '%';
      },
      onAbort: (what) => {
        view.aborted = true;
        fail(t('abort.title'), t('abort.text', String(what)));
      },
      attnvizFatal: (msg) => fail(t('start.title'), msg),
      attnvizNoGraphics: () => fail(t('start.title'), t('start.noGraphics')),
      attnvizLanguage: () => lang.current,           // the language the app opens in
      attnvizLanguageChanged: (code) => lang.changed(code),
      attnvizLayoutLoad: () => env.layout.load(),
      attnvizLayoutSave: (text) => env.layout.save(text),
      attnvizLessonsLoad: () => (env.lessons ? env.lessons.load() : null),
      attnvizLessonsSave: (text) => { if (env.lessons) env.lessons.save(text); },
      attnvizLive: (text) => env.live(text),
      attnvizAfterFrame: (frames, fontsReady) => {
        if (fontsReady && !api._readyDone) {
          api._readyDone = true;
          overlay.classList.add('hidden');
          if (env.page) canvas.focus();  // an embedded view waits to be clicked: the notebook keeps its focus
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
      // Asked once: the view may already be loading it (Chinese).
      attnvizLoadFont: (kind) => {
        if (kind === 2 && cjkFetch) return;
        const f = env.fonts(kind);
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
    view.Module = Module;

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
    view.heap = heap;

    function withCString(str, fn) {
      const n = Module.lengthBytesUTF8(str) + 1;
      const p = Module._malloc(n);
      Module.stringToUTF8(str, p, n);
      try { return fn(p); } finally { Module._free(p); }
    }
    view.withCString = withCString;
    const json = (ptr) => JSON.parse(Module.UTF8ToString(ptr));

    api.getState = () => json(Module._attnviz_get_state());
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
    // Row i of a stage of a head, computed on demand without the head's (S × S) matrices:
    // {cols, data}, or null when there is no such row (docs/test-api.md).
    api.getRow = (name, head, i) => withCString(String(name), (p) => {
      const len = Module._malloc(4);
      try {
        const data = Module._attnviz_row(p, head | 0, i | 0, len);
        if (!data) return null;
        const { i32, f32 } = heap();
        const cols = i32[len >> 2];
        return { cols, data: Array.from(f32.subarray(data >> 2, (data >> 2) + cols)) };
      } finally { Module._free(len); }
    });
    // The page's memory: the WebAssembly heap's size and what the engine's buffers hold.
    api.memoryStats = () => ({
      wasm_bytes: heap().f32.buffer.byteLength,
      pipeline_bytes: Module._attnviz_pipeline_bytes(),
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
    api.heatmapInfo = (label) => withCString(String(label), (p) => json(Module._attnviz_heatmap_info(p)));
    api.heatmapsDrawn = () => json(Module._attnviz_heatmaps_drawn());
    api.inspectorText = () => Module.UTF8ToString(Module._attnviz_inspector_text());
    // Lessons (docs/lessons.md): the list, the open one and its task, and opening one.
    api.lessons = () => json(Module._attnviz_lessons());
    api.lesson = () => json(Module._attnviz_lesson());
    api.startLesson = (id, step = 0) =>
      withCString(String(id ?? ''), (p) => json(Module._attnviz_start_lesson(p, Number(step) | 0)));
    // Each layer's each head's scores, as `attnviz-cli head-scores` prints them.
    api.headScores = () => json(Module._attnviz_head_scores());
    // The interface's language: "en" or "zh-CN"; setLanguage takes any tag attnviz reads
    // ("zh", "en-GB") and returns {ok, error} (an unknown one: a sentence, shown too).
    api.language = () => Module.UTF8ToString(Module._attnviz_language());
    api.setLanguage = (code) => JSON.parse(withCString(String(code), (p) => Module.UTF8ToString(Module._attnviz_set_language(p))));
    api.frameStats = () => json(Module._attnviz_frame_stats());
    // A resting view draws once a second (docs/ui.md, "An idle window rests"): this asks
    // for at least n frames from now, as input would.
    api.requestFrames = (n = 1) => { Module._attnviz_request_frames(Math.max(1, n | 0)); };
    return view;
  };

  // WebGL2 first: without it the module cannot draw anything.
  core.hasWebGL2 = () => !!document.createElement('canvas').getContext('webgl2');
})(attnvizCore);
