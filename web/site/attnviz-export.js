// attnviz-export.js: the page side of export and import (docs/ui.md, "Export and
// import"). Loaded after attnviz-glue.js.
//   downloads   the module hands over finished files (PNG, CSV, JSON, state):
//               Module.attnvizDownload(name, mime, bytes) saves them through a
//               Blob and an <a download> click
//   file picker File > Open state… clicks the hidden <input type=file id=attnviz-state-file>
//   drop        a .json file dropped anywhere on the page is imported
//   .safetensors a file that starts like one (an 8-byte header length, then '{'), picked
//               or dropped whatever its name, goes to the weights reader
//               (attnviz-weights.js), which reads it by ranges: a state file (its
//               metadata holds a state, attnviz/state_file.h) is then read whole and
//               opened as the state, trained weights open the weights dialog
//   sentences   the app's notice line says what happened (window.attnviz.notice())
// Files over 16 MB are refused before they are read; everything else goes to the
// module, which parses and validates it and keeps the state when it is invalid.
'use strict';
var attnvizCore = (typeof attnvizCore !== 'undefined' && attnvizCore) || {};
(function (core) {
  const MAX_BYTES = 16 * 1024 * 1024;  // = kMaxStateFileBytes in ui/app/panels/export.h

  core.installExport = function installExport(view) {
    const { env, withCString } = view;
    const M = () => view.Module;
    const t = view.lang.t;

    M().attnvizDownload = (name, mime, bytes) => {
      try {
        const url = URL.createObjectURL(new Blob([bytes], { type: mime }));
        const a = document.createElement('a');
        a.href = url;
        a.download = name;
        a.style.display = 'none';
        env.container.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60000);
        return true;
      } catch (e) {
        console.warn('attnviz: download failed', e);
        return false;
      }
    };

    // The file picker for File > Open state…
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'attnviz-state-file' + env.idSuffix;
    input.accept = '.json,.safetensors,application/json';
    input.setAttribute('aria-label', t('import.pickerLabel'));
    input.className = 'sr-only';
    input.tabIndex = -1;
    env.container.appendChild(input);
    M().attnvizOpenPicker = () => {
      input.value = '';
      input.click();
      return true;
    };

    // Whether a File starts like a .safetensors file (state_file.h, looks_like_safetensors):
    // an 8-byte little-endian header length that fits in the file, then '{'. A JSON
    // state starts with '{' or white space, whose 8 bytes make a far larger length.
    async function looksLikeSafetensors(file) {
      if (file.size < 9) return false;
      const b = new Uint8Array(await file.slice(0, 9).arrayBuffer());
      if (b[8] !== 0x7b) return false;
      let n = 0;
      for (let i = 7; i >= 0; i--) n = n * 256 + b[i];
      return n >= 2 && n <= file.size - 8;
    }

    // Reads a File and hands it to the module; resolves to {ok, error}.
    async function importFile(file) {
      const Module = M();
      if (!Module || !Module._attnviz_import_state) return { ok: false, error: t('import.loading') };
      const name = String(file.name || 'the file');
      let binary = false;
      try { binary = await looksLikeSafetensors(file); } catch (e) { binary = false; }
      if (binary && Module.attnvizWeightsOpen) {
        Module.attnvizWeightsOpen([file]);  // a state file or trained weights: told by its metadata
        return { ok: true, error: '' };
      }
      if (file.size > MAX_BYTES) {
        return JSON.parse(withCString(name, (p) => Module.UTF8ToString(Module._attnviz_import_too_large(p, file.size))));
      }
      let bytes;
      try {
        bytes = new Uint8Array(await file.arrayBuffer());
      } catch (e) {
        const msg = '“' + name + '” could not be read by the browser, so it was not opened.';
        withCString(msg, (p) => Module._attnviz_notice_error(p));
        return { ok: false, error: msg };
      }
      const ptr = Module._malloc(Math.max(1, bytes.length));
      try {
        Module.attnvizHeap().u8.set(bytes, ptr);  // views of the memory as it is now (attnviz-glue.js)
        return JSON.parse(withCString(name, (p) => Module.UTF8ToString(Module._attnviz_import_state(p, ptr, bytes.length))));
      } finally {
        Module._free(ptr);
      }
    }

    input.addEventListener('change', () => {
      const f = input.files && input.files[0];
      if (f) importFile(f);
      input.value = '';
      env.canvas.focus();
    });

    // Drop anywhere on the page, or on an embedded view (SDL's drop events do not reach
    // the browser build).
    const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
    env.dropRoot.addEventListener('dragover', (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    });
    env.dropRoot.addEventListener('drop', (e) => {
      if (!e.dataTransfer) return;
      e.preventDefault();
      const f = e.dataTransfer.files && e.dataTransfer.files[0];
      if (f) {
        importFile(f);
      } else if (M()._attnviz_notice_error) {
        withCString(t('import.onlyFiles'), (p) => M()._attnviz_notice_error(p));
      }
    });
    // The bytes of a state file (JSON or .safetensors) handed over whole, as if picked:
    // an embedded view's opening stateFile. {ok, error}; the app shows a refusal.
    view.importBytes = (name, bytes) => {
      const Module = M();
      const ptr = Module._malloc(Math.max(1, bytes.length));
      try {
        view.heap().u8.set(bytes, ptr);
        return JSON.parse(withCString(name, (p) => Module.UTF8ToString(Module._attnviz_import_state(p, ptr, bytes.length))));
      } finally {
        Module._free(ptr);
      }
    };
  };
})(attnvizCore);
