// attnviz-embed-boot.js: the outside of build/embed/attnviz-embed.js, the embeddable app
// in one file (docs/ui.md, "Embedded views"). scripts/pack_embed.py writes
//   (function attnvizEmbedBoot(P, N, V) { …this function… })("<payload>", <bytes>, "<version>");
// where the payload is one raw-deflate stream of the module (attnviz-embed.wasm and its
// Emscripten JS, a MODULARIZE factory), the glue the page uses too (attnviz-lang, -glue,
// -export, -weights, -share.js) and three subset fonts, written in base 85 with an
// alphabet that has no quote, backslash, <, >, &, $, ` or / (so the file can sit inside a
// <script> element, a JS string or JSON as it is). Nothing is fetched: the bytes are
// unpacked in the browser (DecompressionStream) at the first mount.
//
//   attnvizEmbed.mount(element, {state, stateFile, view, lang, height, title}) → Promise<api>
//
// Each view is its own module instance on its own canvas; it writes neither the page's
// address nor its storage. Its api is the page's window.attnviz (docs/test-api.md), plus
// `element`, and is pushed to window.attnvizViews in mount order.
/* eslint-disable no-new-func */
(function attnvizEmbedBoot(P, N, V) {
  'use strict';
  const G = typeof window !== 'undefined' ? window : self;
  // The same file evaluated again (each notebook output carries it): the first serves.
  if (G.attnvizEmbed && G.attnvizEmbed.version === V) return;

  const ALPHABET = '!#%()*+,-.0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~';
  // Sentences needed before the glue (and its catalogue) is unpacked.
  const EARLY = {
    en: { unpack: 'This browser cannot unpack the embedded attnviz: {0} Use a current Chrome, Firefox or Safari.',
          title: 'attnviz could not start.' },
    'zh-CN': { unpack: '这个浏览器无法解压嵌入的 attnviz：{0}请使用新版 Chrome、Firefox 或 Safari。',
               title: 'attnviz 无法启动。' },
  };

  // Base 85, 4 bytes → 5 characters, most significant first; N bytes in all.
  function decode85(s, n) {
    const idx = new Uint8Array(128);
    for (let i = 0; i < ALPHABET.length; i++) idx[ALPHABET.charCodeAt(i)] = i;
    const out = new Uint8Array(Math.ceil(n / 4) * 4);
    for (let i = 0, o = 0; o < out.length; i += 5, o += 4) {
      let v = 0;
      for (let k = 0; k < 5; k++) v = v * 85 + idx[s.charCodeAt(i + k)];
      out[o] = v >>> 24; out[o + 1] = (v >>> 16) & 255; out[o + 2] = (v >>> 8) & 255; out[o + 3] = v & 255;
    }
    return out.subarray(0, n);
  }
  async function inflate(bytes, format) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(format));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  function fromBase64(s) {
    const bin = atob(String(s).replace(/\s+/g, ''));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  // The payload, unpacked once for every view: {factory, core, wasm, fonts}.
  let unpacked = null;
  function unpack() {
    if (unpacked) return unpacked;
    unpacked = (async () => {
      if (typeof DecompressionStream === 'undefined') throw new Error('DecompressionStream is missing.');
      const all = await inflate(decode85(P, N), 'deflate-raw');
      const headLen = all[0] | (all[1] << 8) | (all[2] << 16) | (all[3] << 24);
      const head = JSON.parse(new TextDecoder().decode(all.subarray(4, 4 + headLen)));
      const files = {};
      let at = 4 + headLen;
      for (const f of head.files) { files[f.name] = all.subarray(at, at + f.size); at += f.size; }
      const text = (name) => new TextDecoder().decode(files[name]);
      // Evaluated with define, exports and module hidden: in a notebook with require.js
      // Emscripten's wrapper would otherwise call define() and upset require.js.
      const factory = new Function('define', 'exports', 'module',
                                   text('attnviz-embed.js') + '\nreturn attnvizEmbedModule;')();
      const core = new Function('attnvizCore', text('glue.js') + '\nreturn attnvizCore;')({});
      const wasm = await WebAssembly.compile(files['attnviz-embed.wasm']);
      const fonts = ['regular.ttf', 'mono.ttf', 'cjk.ttf'].map((n) => files[n].slice().buffer);
      return { factory, core, wasm, fonts };
    })();
    return unpacked;
  }

  const CSS = `
.attnviz-embed{position:relative;display:flex;flex-direction:column;width:100%;box-sizing:border-box;
  background:#17171c;color:#e6e6ea;font:13px/1.4 system-ui,sans-serif;border:1px solid #2c2c36;border-radius:4px;overflow:hidden}
.attnviz-embed .ae-head{flex:0 0 auto;display:flex;align-items:center;gap:1em;height:24px;padding:0 8px;
  background:#1f1f27;border-bottom:1px solid #2c2c36;white-space:nowrap;overflow:hidden}
.attnviz-embed .ae-name{font-weight:600;letter-spacing:.02em}
.attnviz-embed .ae-title{flex:1 1 auto;overflow:hidden;text-overflow:ellipsis;color:#a8a8b4}
.attnviz-embed .ae-open{color:#8fb3ff;text-decoration:none;margin-left:auto}
.attnviz-embed .ae-open:hover,.attnviz-embed .ae-open:focus{text-decoration:underline}
.attnviz-embed .ae-box{position:relative;flex:1 1 auto;min-height:0;overflow:hidden}
.attnviz-embed canvas{display:block;width:100%;height:100%;outline:none}
.attnviz-embed .ae-overlay{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;
  background:#17171c;font-size:15px;text-align:center}
.attnviz-embed .ae-overlay.hidden{display:none}
.attnviz-embed .ae-overlay .ae-msg{max-width:36em;padding:1em 2em}
.attnviz-embed .ae-overlay .ae-t{font-size:1.3em;margin-bottom:.4em}
.attnviz-embed .ae-overlay.error .ae-t{color:#ff8a7a}
.attnviz-embed .ae-spin{width:2em;height:2em;margin:0 auto 1em;border-radius:50%;border:.25em solid #3a3a46;
  border-top-color:#8fb3ff;animation:ae-spin 1s linear infinite}
.attnviz-embed .ae-overlay.error .ae-spin,.attnviz-embed .ae-overlay.error .ae-bar{display:none}
@keyframes ae-spin{to{transform:rotate(360deg)}}
.attnviz-embed .ae-bar{width:16em;height:.35em;margin:.8em auto 0;background:#2a2a33;border-radius:.2em;overflow:hidden}
.attnviz-embed .ae-bar div{height:100%;width:0;background:#8fb3ff;transition:width .2s}
.attnviz-embed .sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}`;
  function addStyle() {
    if (document.getElementById('attnviz-embed-style')) return;
    const st = document.createElement('style');
    st.id = 'attnviz-embed-style';
    st.textContent = CSS;
    (document.head || document.documentElement).appendChild(st);
  }
  function el(tag, cls, parent) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }

  // The view's elements inside `element`.
  function build(element, opts) {
    addStyle();
    const root = el('div', 'attnviz-embed', element);
    const fill = opts.height === 'fill';
    const h = Number(opts.height) > 0 ? Number(opts.height) : 640;
    root.style.height = fill ? '100%' : h + 'px';
    const head = el('div', 'ae-head', root);
    el('span', 'ae-name', head).textContent = 'attnviz';
    const title = el('span', 'ae-title', head);
    title.textContent = opts.title ? String(opts.title) : '';
    const open = el('a', 'ae-open', opts.standalone ? null : head);
    open.target = '_blank';
    open.rel = 'noopener';
    open.href = '#';
    const box = el('div', 'ae-box', root);
    const canvas = el('canvas', '', box);
    canvas.tabIndex = 0;
    canvas.addEventListener('contextmenu', (e) => e.preventDefault());
    const overlay = el('div', 'ae-overlay', box);
    overlay.setAttribute('role', 'status');
    const msg = el('div', 'ae-msg', overlay);
    el('div', 'ae-spin', msg);
    const t = el('div', 'ae-t', msg);
    const text = el('div', '', msg);
    const bar = el('div', '', el('div', 'ae-bar', msg));
    const live = el('div', 'sr-only', box);
    live.setAttribute('aria-live', 'polite');
    return { root, open, box, canvas, live, overlay: { root: overlay, title: t, text, bar } };
  }

  // The page "Open as a page ↗" opens: this file and a mount of the view's state, filling
  // the window. A Blob URL: no server and no network.
  function standalonePage(state, code) {
    const me = '(' + attnvizEmbedBoot.toString() + ')(' + JSON.stringify(P) + ',' + N + ',' + JSON.stringify(V) + ');';
    const opts = JSON.stringify({ state, lang: code, height: 'fill', standalone: true }).replace(/</g, '\\u003c');
    return '<!doctype html>\n<html lang="' + code + '"><head><meta charset="utf-8">' +
      '<meta name="viewport" content="width=device-width, initial-scale=1"><title>attnviz</title>' +
      '<style>html,body{margin:0;height:100%;overflow:hidden;background:#17171c}</style></head>' +
      '<body><div id="attnviz-view" style="height:100%"></div><script>' + me + '<\/script>' +
      '<script>attnvizEmbed.mount(document.getElementById("attnviz-view"), ' + opts + ');<\/script></body></html>';
  }

  let count = 0;
  function mount(element, opts) {
    opts = opts || {};
    if (!element || !element.appendChild) return Promise.reject(new Error('attnvizEmbed.mount needs an element'));
    // `ready` from the start: the glue's own promise is made only once the payload is unpacked.
    let settle = null;
    const api = { element, ready: new Promise((resolve, reject) => { settle = { resolve, reject }; }) };
    api.ready.catch(() => {});
    (G.attnvizViews = G.attnvizViews || []).push(api);
    const n = ++count;
    const dom = build(element, opts);
    const first = opts.lang ? opts.lang : (navigator.languages || [navigator.language])[0];
    const early = EARLY[/^zh/i.test(String(first || '')) ? 'zh-CN' : 'en'];
    const ready = api.ready;
    return unpack().then((u) => {
      const opened = start(u, api, dom, opts, n);
      api.ready.then(settle.resolve, settle.reject);  // the glue's (and attnviz-share.js's) promise
      api.ready = ready;
      return opened;
    }, (e) => {
      dom.overlay.root.classList.add('error');
      dom.overlay.title.textContent = early.title;
      dom.overlay.text.textContent = early.unpack.replace('{0}', String(e && e.message ? e.message : e) + ' ');
      settle.reject(e);
      throw e;
    });
  }

  function start(u, api, dom, opts, n) {
    const core = u.core;
    let layout = null, openError = null;
    const lang = core.language({
      initial: core.normalizeLanguage(opts.lang) || core.preferredLanguage(),
      apply: (l) => {
        dom.root.lang = l.current;
        dom.canvas.setAttribute('aria-label', l.t('canvas'));
        dom.open.textContent = l.t('embed.openPage');
        dom.open.title = l.t('embed.openPageTitle');
      },
    });
    dom.overlay.title.textContent = lang.t('loading.title');
    if (!core.hasWebGL2()) {
      dom.overlay.root.classList.add('error');
      dom.overlay.title.textContent = lang.t('webgl.title');
      dom.overlay.text.textContent = lang.t('webgl.text');
      api.ready = Promise.reject(new Error(lang.t('webgl.title') + ' ' + lang.t('webgl.text')));
      api.ready.catch(() => {});
      return api.ready;
    }
    const view = core.createView({
      canvas: dom.canvas, overlay: dom.overlay, lang, api,
      fonts: (kind) => Promise.resolve(u.fonts[kind]),
      layout: { load: () => layout, save: (text) => { layout = text; } },  // this view's alone
      live: (text) => { dom.live.textContent = text; },
      keyTarget: dom.box, keyRoot: dom.box, pasteRoot: dom.box, dropRoot: dom.box,
      container: dom.box, idSuffix: '-' + n, page: false,
      open: async (v) => { openError = await openState(v, opts, lang, core.normalizeLanguage(opts.lang)); },
    });
    core.installExport(view);
    core.installWeights(view);
    core.installShare(view);
    const Module = view.Module;
    Module.instantiateWasm = (imports, receive) => {
      WebAssembly.instantiate(u.wasm, imports).then((inst) => receive(inst, u.wasm),
                                                     (e) => view.fail(lang.t('start.title'), String(e)));
      return {};
    };
    // The box follows its container (a notebook's width): the drawing buffer follows it.
    if (typeof ResizeObserver !== 'undefined') {
      new ResizeObserver(() => {
        if (api._readyDone && Module._attnviz_canvas_resized) Module._attnviz_canvas_resized();
      }).observe(dom.canvas);
    }
    const refresh = () => {
      try {
        const url = URL.createObjectURL(new Blob([standalonePage(view.sessionText(), lang.current)], { type: 'text/html' }));
        if (dom.open.dataset.url) URL.revokeObjectURL(dom.open.dataset.url);
        dom.open.dataset.url = url;
        dom.open.href = url;  // the click's navigation reads it after this handler
      } catch (e) { /* not started yet: the link stays "#" */ }
    };
    dom.open.addEventListener('click', (e) => { if (!api._readyDone) e.preventDefault(); else refresh(); });
    dom.open.addEventListener('auxclick', refresh);
    dom.open.addEventListener('contextmenu', refresh);
    // A view taken out of the page (a notebook cell run again replaces its output) stops
    // drawing; its entry stays in attnvizViews, marked `detached`.
    const watch = setInterval(() => {
      if (dom.root.isConnected) return;
      clearInterval(watch);
      api.detached = true;
      if (Module.pauseMainLoop) Module.pauseMainLoop();
    }, 2000);
    u.factory(Module).catch((e) => view.fail(lang.t('start.title'), String(e)));
    return api.ready.then(() => {
      if (openError) throw new Error(openError);
      return api;
    });
  }

  // The state the view opens with: a gzip'd .safetensors state file (base64), or a state
  // (or share payload) as an object or JSON text, then the language asked for. Returns the
  // refusal's sentence, or null.
  async function openState(view, opts, lang, asked) {
    const t = lang.t;
    let error = null;
    if (opts.stateFile) {
      let bytes = null;
      try { bytes = await inflate(fromBase64(opts.stateFile), 'gzip'); } catch (e) {
        error = t('embed.stateFileDamaged');
        view.notify(error, true);
      }
      if (bytes) {
        const r = view.importBytes(t('embed.stateFileName'), bytes);  // the app shows a refusal itself
        if (!r.ok) error = r.error;
        // Opening what the notebook gave is no news: "Opened …" would sit over the layer
        // bar for its first seconds on screen (a view scrolled to later draws it then).
        else view.notify('', false);
      }
    } else if (opts.state !== undefined && opts.state !== null) {
      const r = view.sessionSet(typeof opts.state === 'string' ? opts.state : JSON.stringify(opts.state));
      if (!r.ok) {
        error = t('embed.stateRefused', lang.continued(r.error));
        view.notify(error, true);
      }
    }
    // A view to open on (a share link's "view": {"tab": "compare"} for a captured model's
    // layers × heads grid): the session as it now is, with that view.
    if (!error && opts.view && typeof opts.view === 'object') {
      const session = JSON.parse(view.sessionText());
      session.view = Object.assign(session.view || {}, opts.view);
      const r = view.sessionSet(JSON.stringify(session));
      if (!r.ok) view.notify(r.error, true);
    }
    // An explicit language wins over the one a share payload carries.
    if (asked && view.api.language() !== asked) view.api.setLanguage(asked);
    return error;
  }

  G.attnvizEmbed = { version: V, mount };
})
