// attnviz-share.js: the page half of sharing (docs/ui.md "Sharing"). Loaded after
// attnviz-glue.js. attnvizCore.installShare(view) adds it to a view; the module calls it
// as Module.attnvizShare (ui/platform/web_share.cpp).
//   - on the page (env.page), the session (state + view) in location.hash, as a share link:
//       #s1.<base64url of deflate-raw of the UTF-8 JSON {"v": 1, "state", "view"}>
//     and in localStorage ('attnviz.session'); a link wins over the saved session.
//     A state whose link would pass 1 MB (its explicit weights; the module estimates
//     that without building text) gets #too-big-for-a-link instead, and Copy share
//     link says so and offers File → Save state (.safetensors).
//     An embedded view touches neither: it opens with env.open(view) (its mount
//     options) and its links are the "#s1.…" part alone
//   - links are decoded defensively: a damaged or hostile one gets a sentence and the
//     app keeps its last valid state
//   - the system clipboard: ImGui's copy → navigator.clipboard; the paste event (on the
//     page, or in the view's box) → ImGui's paste (in a text field) or "Paste state"
//   - text input methods (Chinese, Japanese, dead keys, AltGr): a hidden textarea at
//     ImGui's text cursor takes composition and input events and forwards the text
'use strict';
var attnvizCore = (typeof attnvizCore !== 'undefined' && attnvizCore) || {};
(function (core) {
  const FORMAT = 1;                  // link format this page writes and reads ("s1.")
  const MAX_LINK_CHARS = 8 << 20;    // longer link data is refused before decoding
  const MAX_INFLATED = 16 << 20;     // a link may expand to at most this many bytes
  const MAX_HASH_WRITE = 1 << 20;    // = kShareMaxAddressChars (ui/app/model/share.h): the longest link put in the address
  // The address of a state too big for a link (its explicit weights): never an older
  // state's link, and whoever opens it is told why it holds no state.
  const TOO_BIG_HASH = '#too-big-for-a-link';
  const STORAGE_KEY = 'attnviz.session';
  const SAVE_DELAY_MS = 250;         // hash and storage follow changes after this quiet time

  // --- codec (the same for every view)
  function toBase64url(bytes) {
    let bin = '';
    for (let k = 0; k < bytes.length; k += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(k, k + 0x8000));
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function fromBase64url(s) {
    let b = s.replace(/-/g, '+').replace(/_/g, '/');
    while (b.length % 4) b += '=';
    const bin = atob(b);  // throws on impossible lengths
    const out = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) out[k] = bin.charCodeAt(k);
    return out;
  }
  // Runs bytes through a (De)CompressionStream; stops past `limit` output bytes.
  async function pipe(stream, bytes, limit) {
    const writer = stream.writable.getWriter();
    writer.write(bytes).catch(() => {});
    writer.close().catch(() => {});
    const reader = stream.readable.getReader();
    const chunks = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();  // rejects on corrupt data
      if (done) break;
      total += value.length;
      if (total > limit) {
        reader.cancel().catch(() => {});
        const e = new Error('too big');
        e.tooBig = true;
        throw e;
      }
      chunks.push(value);
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) { out.set(c, at); at += c.length; }
    return out;
  }
  async function encode(text) {
    const packed = await pipe(new CompressionStream('deflate-raw'), new TextEncoder().encode(text), Infinity);
    return 's' + FORMAT + '.' + toBase64url(packed);
  }
  // A link (whole URL, "#s1.…" or "s1.…") → {ok: true, text} or {ok: false, error: sentence}.
  async function decode(link, t) {
    let s = String(link).trim();
    const hash = s.indexOf('#');
    if (hash >= 0) s = s.slice(hash + 1);
    const m = /^s(\d+)\.([\s\S]*)$/.exec(s);
    if (!m) return { ok: false, error: t('link.notLink', FORMAT) };
    const ver = Number(m[1]);
    if (ver > FORMAT) {
      return { ok: false, error: t('link.newer', ver, FORMAT) };
    }
    if (ver < FORMAT) return { ok: false, error: t('link.older', ver, FORMAT) };
    const data = m[2];
    if (data.length > MAX_LINK_CHARS) return { ok: false, error: t('link.tooLong') };
    if (!/^[A-Za-z0-9_-]*$/.test(data) || data.length % 4 === 1) {
      return { ok: false, error: t('link.badChars') };
    }
    let bytes;
    try {
      bytes = await pipe(new DecompressionStream('deflate-raw'), fromBase64url(data), MAX_INFLATED);
    } catch (e) {
      if (e && e.tooBig) return { ok: false, error: t('link.tooBig') };
      return { ok: false, error: t('link.corrupt') };
    }
    let text;
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch (e) {
      return { ok: false, error: t('link.notText') };
    }
    return { ok: true, text };
  }
  // --- text input: a hidden textarea at ImGui's text cursor. Returns what the share
  // part asks of it: whether ImGui wants text, following that after a frame, the cursor.
  function installTextInput(view) {
    const { env, withCString } = view;
    const Module = view.Module;
    const canvas = env.canvas;
    const ta = document.createElement('textarea');
    ta.id = 'attnviz-text-input' + env.idSuffix;
    ta.setAttribute('aria-label', 'text of the active attnviz field');
    ta.setAttribute('autocomplete', 'off');
    ta.setAttribute('autocapitalize', 'off');
    ta.setAttribute('spellcheck', 'false');
    ta.style.cssText = 'position:' + (env.page ? 'fixed' : 'absolute') + ';left:0;top:0;width:2px;height:1.2em;padding:0;margin:0;border:0;' +
                       'resize:none;overflow:hidden;opacity:0;z-index:5;font:16px system-ui,sans-serif;' +
                       'color:#fff;background:#22222a;outline:1px solid #8fb3ff;white-space:pre;';
    env.container.appendChild(ta);
    let wantsText = false, composing = false, justComposed = null;
    const sendText = (text) => {
      if (text && wantsText) withCString(text, (p) => Module._attnviz_text_input(p));
    };
    ta.addEventListener('compositionstart', () => {
      composing = true;
      ta.style.opacity = '1';  // the input method's preview shows where the text will go
      ta.style.width = '12em';
    });
    ta.addEventListener('compositionend', (e) => {
      composing = false;
      ta.style.opacity = '0';
      ta.style.width = '2px';
      sendText(e.data);
      justComposed = e.data;
      setTimeout(() => { justComposed = null; }, 0);
      ta.value = '';
    });
    ta.addEventListener('input', (e) => {
      if (e.isComposing || composing) return;  // committed at compositionend
      if (e.inputType === 'insertText' && e.data !== justComposed) sendText(e.data);
      ta.value = '';
    });
    // Keys SDL must not see (window capture, before SDL's window listeners):
    // - a key an input method is using (it commits through compositionend);
    // - Ctrl+V: SDL cancels every Ctrl key's default, which would cancel the paste event;
    // - AltGr (Ctrl+Alt) characters: same cancelling; the browser then sends them as text.
    // On the page they come to the window; in an embedded view to its box.
    env.keyRoot.addEventListener('keydown', (e) => {
      if (e.isComposing || e.keyCode === 229) { e.stopImmediatePropagation(); return; }
      const k = (e.key || '').toLowerCase();
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && k === 'v') { e.stopImmediatePropagation(); return; }
      if (e.ctrlKey && e.altKey && e.key && e.key.length === 1 && wantsText) e.stopImmediatePropagation();
    }, true);
    // An embedded view takes the keyboard when clicked (SDL's mousedown keeps the browser
    // from focusing the canvas): keys then go to this view alone (env.keyTarget).
    if (env.keyTarget) {
      canvas.addEventListener('mousedown', () => (wantsText ? ta : canvas).focus({ preventScroll: true }), true);
    }
    return {
      wants: () => wantsText,
      follow(wants) {
        if (wants === wantsText) return;
        wantsText = wants;
        if (wants) ta.focus({ preventScroll: true });
        else if (document.activeElement === ta) canvas.focus({ preventScroll: true });
      },
      rect(x, y, h) {
        ta.style.left = Math.round(x) + 'px';
        ta.style.top = Math.round(y) + 'px';
        ta.style.fontSize = Math.max(10, Math.round(h * 0.85)) + 'px';
        ta.style.height = Math.max(12, Math.round(h)) + 'px';
      },
    };
  }

  // --- the page's session: in the address bar and in localStorage (never an embedded
  // view's). `open` applies the address's link, else the saved session, then ?lang=;
  // `changed(serial)` saves the session a moment after it changes.
  function pageSession(view, s) {
    const { api, lang } = view;
    const t = lang.t;
    const { sessionText, sessionSet, notify, openLink, linkEstimate, lower, isStarted } = s;
    let lastSerial = -1, lastHash = null, saveTimer = 0, saveSeq = 0;
    // A state too big for a link: the address says so instead of keeping an older link,
    // and the saved session goes too (it would bring back an older state on reload).
    function tooBigForLink() {
      try { window.localStorage.removeItem(STORAGE_KEY); } catch (e) {}
      lastHash = TOO_BIG_HASH;
      if (window.location.hash !== TOO_BIG_HASH) window.history.replaceState(window.history.state, '', TOO_BIG_HASH);
    }
    async function save() {
      saveTimer = 0;
      const seq = ++saveSeq;
      if (linkEstimate() > MAX_HASH_WRITE) return tooBigForLink();  // no text built at all
      const text = sessionText();
      try { window.localStorage.setItem(STORAGE_KEY, text); } catch (e) { /* private mode or full: the link still works */ }
      const link = await encode(text);
      if (seq !== saveSeq) return;  // a newer save follows
      if (link.length > MAX_HASH_WRITE) return tooBigForLink();
      const hash = '#' + link;
      lastHash = hash;
      if (window.location.hash !== hash) window.history.replaceState(window.history.state, '', hash);
    }
    // Leaving the page (a reload, a link followed, the tab closed) within SAVE_DELAY_MS
    // of a change: the waiting save is done now, into storage (the address no longer
    // matters), so the next visit opens on the last change and not on the one before.
    window.addEventListener('pagehide', () => {
      if (!saveTimer) return;
      clearTimeout(saveTimer);
      saveTimer = 0;
      if (linkEstimate() > MAX_HASH_WRITE) return tooBigForLink();
      try { window.localStorage.setItem(STORAGE_KEY, sessionText()); } catch (e) {}
    });
    window.addEventListener('hashchange', () => {
      if (!isStarted() || window.location.hash === lastHash || window.location.hash.length <= 1) return;
      lastHash = window.location.hash;
      openLink(window.location.hash, 'link.openFailed');
    });

    async function open() {
      const hash = window.location.hash;
      let opened = false;
      if (hash.length > 1) {
        lastHash = hash;  // a bad link stays in the address bar until the next change
        opened = await openLink(hash, 'link.openFailed');
      }
      if (!opened) {
        let saved = null;
        try { saved = window.localStorage.getItem(STORAGE_KEY); } catch (e) {}
        if (saved) {
          const r = sessionSet(saved);
          if (!r.ok && hash.length <= 1) notify(t('session.savedFailed', lower(r.error)), true);
        }
      }
      // ?lang= in the address wins over a link's or the saved session's language.
      if (lang.override) api.setLanguage(lang.override);
      else if (lang.unknown !== null) notify(t('lang.unknown', lang.unknown.slice(0, 40)), true);
    }
    return {
      open,
      changed(serial) {
        if (serial === lastSerial) return;
        lastSerial = serial;
        if (saveTimer) clearTimeout(saveTimer);
        saveTimer = setTimeout(() => { save().catch(() => {}); }, SAVE_DELAY_MS);
      },
    };
  }

  core.installShare = function installShare(view) {
    const { env, api, withCString } = view;
    const Module = view.Module;
    const lang = view.lang;
    const t = lang.t;

    let started = false;       // the initial session (link, saved or given) has been applied
    let startedResolve;
    const startedPromise = new Promise((res) => { startedResolve = res; });
    const glueReady = api.ready;
    api.ready = glueReady.then(() => startedPromise);  // tests see the restored session
    api.ready.catch(() => {});

    // --- module calls
    const sessionText = () => Module.UTF8ToString(Module._attnviz_session_get());
    view.sessionText = sessionText;
    const sessionSet = (text) => JSON.parse(withCString(text, (p) => Module.UTF8ToString(Module._attnviz_session_set(p))));
    const notify = (text, error) => withCString(text, (p) => Module._attnviz_notify(p, error ? 1 : 0));
    view.sessionSet = sessionSet;
    view.notify = notify;
    // About how long the session's link would be, from its explicit values alone: asked
    // before any text is built (GPT-2-sized weights take seconds to become a link).
    const linkEstimate = () => Module._attnviz_session_link_estimate();

    // A sentence from the module ("It is not valid JSON.") continued after "…: ".
    const lower = lang.continued;

    // Opens a link; `why` ('link.openFailed', 'clip.unusable') words a refusal. True when applied.
    async function openLink(link, why) {
      if ('#' + String(link).trim().split('#').pop() === TOO_BIG_HASH) {
        notify(t('link.tooBigHere'), true);
        return false;
      }
      const d = await decode(link, t);
      const r = d.ok ? sessionSet(d.text) : { ok: false, error: d.error };
      if (!r.ok) notify(t(why, lower(r.error)), true);
      return r.ok;
    }

    async function start() {
      if (page) await page.open();  // the address, else the saved session, then ?lang=
      else if (env.open) await env.open(view);  // an embedded view: its mount options, never the page's address or storage
      Module._attnviz_history_clear();  // Ctrl+Z must not undo the opening into the default state
      started = true;
      startedResolve();
    }

    const page = env.page ? pageSession(view, { sessionText, sessionSet, notify, openLink, linkEstimate, lower,
                                                isStarted: () => started }) : null;

    // --- clipboard
    function clipboardWrite(text, done) {
      if (!navigator.clipboard || !navigator.clipboard.writeText) {
        notify(t('clip.unreachable'), true);
        return Promise.resolve(false);
      }
      return navigator.clipboard.writeText(text).then(() => { if (done) notify(done, false); return true; }, (e) => {
        notify(t('clip.writeDenied', e && e.message ? e.message : e), true);
        return false;
      });
    }
    // The page's address with the link; an embedded view's link is "#s1.…" alone (its page
    // is not attnviz's): Paste state in any attnviz opens it.
    const linkBase = () => (env.page ? window.location.href.split('#')[0] : '');
    async function shareLink() {
      const link = await encode(sessionText());
      return linkBase() + '#' + link;
    }
    function pasteState(text) {
      const s = String(text || '').trim();
      if (!s) { notify(t('clip.empty'), true); return Promise.resolve(false); }
      const why = 'clip.unusable';
      if (s[0] === '{') {
        const r = sessionSet(s);
        notify(r.ok ? t('clip.pasted') : t(why, lower(r.error)), !r.ok);
        return Promise.resolve(r.ok);
      }
      return openLink(s, why).then((ok) => { if (ok) notify(t('clip.pastedLink'), false); return ok; });
    }

    const input = installTextInput(view);
    env.pasteRoot.addEventListener('paste', (e) => {
      if (!started) return;
      const text = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
      e.preventDefault();
      if (input.wants()) withCString(text, (p) => Module._attnviz_paste_into_text(p));
      else pasteState(text);
    });

    // --- what the module calls
    Module.attnvizShare = {
      start: () => { start().catch((e) => { started = true; startedResolve(); notify(t('session.failed', e), true); }); },
      afterFrame: (serial, wants) => {
        input.follow(wants);
        if (page && started) page.changed(serial);
      },
      imeRect: (visible, x, y, h) => input.rect(x, y, h),
      clipboardWrite: (text) => { clipboardWrite(text, null); },  // failures only: the copier says what it copied
      copyLink: () => {
        // Too long for an address: a sentence (the module's, with File → Save state
        // (.safetensors) as its button), and nothing copied, rather than a cut link.
        const estimate = linkEstimate();
        if (estimate > MAX_HASH_WRITE) { Module._attnviz_link_too_long(estimate); return; }
        encode(sessionText()).then((link) => {
          if (link.length > MAX_HASH_WRITE) { Module._attnviz_link_too_long(link.length); return; }
          const url = linkBase() + '#' + link;
          return clipboardWrite(url, t('link.copied', url.length));
        }).catch((e) => notify(t('link.makeFailed', e), true));
      },
      pasteFromClipboard: () => {
        if (!navigator.clipboard || !navigator.clipboard.readText) {
          notify(t('clip.readUnsupported'), true);
          return;
        }
        navigator.clipboard.readText().then(pasteState,
          () => notify(t('clip.readDenied'), true));
      },
    };

    // --- test API additions (docs/test-api.md)
    api.session = () => JSON.parse(sessionText());
    api.shareLink = shareLink;
    api.decodeLink = (link) => decode(link, t);
    api.notice = () => JSON.parse(Module.UTF8ToString(Module._attnviz_notice()));
    api.history = () => JSON.parse(Module.UTF8ToString(Module._attnviz_history_info()));
  };
})(attnvizCore);
