// attnviz-page.js: the page (index.html) as one view. Loaded last: it makes the page's
// language (?lang=, else the language used last in this browser, else the browser's),
// the view (attnvizCore.createView, attnviz-glue.js) with the page's elements, publishes
// window.attnvizLang, window.Module and window.attnviz (docs/test-api.md), and loads one
// of the two builds of the module.
'use strict';
(function (core) {
  const LANG_KEY = 'attnviz.lang';
  const LAYOUT_KEY = 'attnviz.layout';
  const LESSONS_KEY = 'attnviz.lessons';
  const canvas = document.getElementById('canvas');

  // ?lang= overrides everything, links included (attnviz-share.js applies it last).
  const asked = new URLSearchParams(window.location.search).get('lang');
  const override = asked === null ? null : core.normalizeLanguage(asked);
  let remembered = null;
  try { remembered = core.normalizeLanguage(window.localStorage.getItem(LANG_KEY)); } catch (e) {}
  // The page around the canvas follows the language: <html lang>, the title, the label.
  const apply = (l) => {
    document.documentElement.lang = l.current;
    document.title = l.t('title');
    if (canvas) canvas.setAttribute('aria-label', l.t('canvas'));
  };
  const lang = core.language({
    initial: override || remembered || core.preferredLanguage(),
    override,
    unknown: asked !== null && !override ? asked : null,
    remember: (code) => { try { window.localStorage.setItem(LANG_KEY, code); } catch (e) { /* private mode: not remembered */ } },
    apply,
  });
  window.attnvizLang = lang;
  // The loading overlay is in the page's HTML in English: word it now.
  const set = (id, key) => { const el = document.getElementById(id); if (el) el.textContent = lang.t(key); };
  set('overlay-title', 'loading.title');
  set('overlay-text', 'loading.text');

  const api = {};
  window.attnviz = api;
  const overlay = {
    root: document.getElementById('overlay'),
    title: document.getElementById('overlay-title'),
    text: document.getElementById('overlay-text'),
    bar: document.querySelector('#progress div'),
  };
  if (!core.hasWebGL2()) {  // without it the module cannot draw anything
    api.ready = Promise.reject(new Error(lang.t('webgl.title') + ' ' + lang.t('webgl.text')));
    api.ready.catch(() => {});
    overlay.root.classList.add('error');
    overlay.title.textContent = lang.t('webgl.title');
    overlay.text.textContent = lang.t('webgl.text');
    return;
  }

  const fetchFont = (url) => fetch(url).then((r) => (r.ok ? r.arrayBuffer() : null)).catch(() => null);
  const FONTS = ['assets/fonts/DejaVuSans.ttf', 'assets/fonts/DejaVuSansMono.ttf', 'assets/fonts/DroidSansFallbackFull.ttf'];
  const live = document.getElementById('live');
  const view = core.createView({
    canvas,
    overlay,
    lang,
    api,
    fonts: (kind) => fetchFont(FONTS[kind]),
    // Window layout survives reloads: ImGui's settings live in localStorage.
    layout: {
      load: () => { try { return window.localStorage.getItem(LAYOUT_KEY); } catch (e) { return null; } },
      save: (text) => { try { window.localStorage.setItem(LAYOUT_KEY, text); } catch (e) {} },
    },
    // How far the learner got in each lesson survives reloads too.
    lessons: {
      load: () => { try { return window.localStorage.getItem(LESSONS_KEY); } catch (e) { return null; } },
      save: (text) => { try { window.localStorage.setItem(LESSONS_KEY, text); } catch (e) {} },
    },
    live: (text) => { if (live) live.textContent = text; },
    keyTarget: null,
    keyRoot: window,
    pasteRoot: document,
    dropRoot: window,
    container: document.body,
    idSuffix: '',
    page: true,
  });
  const Module = view.Module;

  // Two builds of the module: attnviz-mt runs the engine (whole heads, large
  // products) on several cores (Web Workers sharing memory), which browsers allow only on a
  // cross-origin isolated page (web/serve.mjs sends COOP/COEP); attnviz runs
  // on one. Both give the same numbers. ?threads=1 asks for the single one.
  const cores = Math.min(navigator.hardwareConcurrency || 1, 8);
  const threaded = self.crossOriginIsolated === true && cores > 1 &&
                   new URLSearchParams(location.search).get('threads') !== '1';
  api.build = threaded ? 'attnviz-mt' : 'attnviz';
  Module.attnvizPoolSize = cores - 1;  // attnviz-mt's workers (ui/CMakeLists.txt)
  window.Module = Module;
  window.addEventListener('error', (e) => {
    if (!view.aborted && /attnviz(-mt)?(\.worker)?\.(js|wasm)/.test(String(e.filename || ''))) {
      view.fail(lang.t('start.title'), String(e.message || e));
    }
  });
  core.installExport(view);
  core.installWeights(view);
  core.installShare(view);

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
      view.fail(lang.t('load.title'), lang.t('load.text', name + '.js'));
    };
    document.body.appendChild(script);
  }
  load(api.build);
})(attnvizCore);
