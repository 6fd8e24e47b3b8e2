// attnviz-weights.js: the page side of File > Open weights… (docs/ui.md, "Trained
// weights in"). Loaded after attnviz-glue.js.
//   file picker  the module calls Module.attnvizOpenWeightsPicker(): the hidden
//                <input type=file id=attnviz-weights-file multiple> (.safetensors,
//                .npz, .npy); several files chosen together (W_q.npy, W_k.npy,
//                W_v.npy) are one import, each .npy's tensor named by its file's stem
//   drop         .safetensors / .npz / .npy files dropped anywhere on the page, one
//                or several at once (caught before attnviz-export.js's drop handler,
//                which takes .json). A .safetensors file whose metadata holds an
//                attnviz state (File > Save state (.safetensors)) is read whole and
//                opened as the state instead of the dialog (weights_import.cpp)
//   reading      the module says which bytes it needs (attnviz_weights_next): the
//                header, the zip directory, then only the tensors chosen in the
//                dialog. Each range is read with File.slice, so a checkpoint of
//                gigabytes is never loaded whole; deflated .npz members go through
//                DecompressionStream('deflate-raw'), stopping once enough is out.
//   test API     window.attnviz.weightsDialog(): what the dialog shows (docs/test-api.md)
'use strict';
var attnvizCore = (typeof attnvizCore !== 'undefined' && attnvizCore) || {};
(function (core) {
  core.installWeights = function installWeights(view) {
    const { env, withCString } = view;
    const M = () => view.Module;
    let files = [];  // the Files being read: one import (the module says which file each range is in)
    let busy = false;

    // The inflated bytes [skip, skip + want) of a raw deflate stream, or null.
    async function inflateRange(blob, skip, want) {
      const end = skip + want;
      const out = new Uint8Array(end);
      let got = 0;
      const reader = blob.stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
      try {
        while (got < end) {
          const { value, done } = await reader.read();
          if (done) break;
          const n = Math.min(value.length, end - got);
          out.set(value.subarray(0, n), got);
          got += n;
        }
      } catch (e) {
        return null;  // a damaged stream
      } finally {
        reader.cancel().catch(() => {});
      }
      return got === end ? out.subarray(skip, end) : null;
    }

    // A big plain range (a state file read whole, a large tensor) is read as slices of
    // CHUNK bytes all at once, each copied straight into the module's memory at `ptr`:
    // Chrome hands a 105 MB File over in about half the time that way (400-600 ms in 13
    // to 16 slices against 800-1200 ms in one, measured on this loaded 2-core machine),
    // and the whole range is never a second copy in the page. False if a slice came short.
    const CHUNK = 8 << 20;
    async function readInto(req, ptr) {
      const file = files[req.file || 0];
      if (!file) return false;
      const starts = [];
      for (let a = 0; a < req.length; a += CHUNK) starts.push(a);
      const slice = async (a) => {
        const n = Math.min(CHUNK, req.length - a);
        const b = new Uint8Array(await file.slice(req.offset + a, req.offset + a + n).arrayBuffer());
        if (b.length !== n) return false;
        M().attnvizHeap().u8.set(b, ptr + a);  // views of the memory as it is now (it may have grown)
        return true;
      };
      try {
        if ((await Promise.all(starts.map(slice))).every(Boolean)) return true;
      } catch (e) { /* a browser short of memory may refuse many reads at once: one at a time below */ }
      for (const a of starts) if (!(await slice(a))) return false;
      return true;
    }

    async function readRange(req) {
      const file = files[req.file || 0];
      if (!file) return null;
      const blob = file.slice(req.offset, req.offset + req.length);
      if (req.inflate) return inflateRange(blob, req.skip, req.out_length);
      return new Uint8Array(await blob.arrayBuffer());
    }

    // Reads whatever the module asks for until it asks for nothing.
    async function pump() {
      const Module = M();
      if (busy || !files.length || !Module._attnviz_weights_next) return;
      busy = true;
      try {
        for (;;) {
          const req = JSON.parse(Module.UTF8ToString(Module._attnviz_weights_next()));
          if (!req.want) break;
          if (!req.inflate && req.length > CHUNK) {
            const ptr = Module._malloc(req.length);
            if (!ptr) { Module._attnviz_weights_fail(); continue; }
            try {
              let ok = false;
              try { ok = await readInto(req, ptr); } catch (e) { ok = false; }
              if (ok) Module._attnviz_weights_feed(ptr, req.length);
              else Module._attnviz_weights_fail();
            } finally {
              Module._free(ptr);
            }
            continue;
          }
          let bytes = null;
          try { bytes = await readRange(req); } catch (e) { bytes = null; }
          if (!bytes) { Module._attnviz_weights_fail(); continue; }
          const ptr = Module._malloc(Math.max(1, bytes.length));
          if (!ptr) { Module._attnviz_weights_fail(); continue; }
          try {
            Module.attnvizHeap().u8.set(bytes, ptr);
            Module._attnviz_weights_feed(ptr, bytes.length);
          } finally {
            Module._free(ptr);
          }
        }
      } finally {
        busy = false;
      }
    }

    // One file or several (an array of File): one import.
    function open(list) {
      const Module = M();
      if (!Module._attnviz_weights_begin_files || !list.length) return;
      files = list;
      const meta = list.map((f) => ({ name: String(f.name || 'the file'), size: f.size }));
      withCString(JSON.stringify(meta), (p) => Module._attnviz_weights_begin_files(p));
      pump();
    }

    M().attnvizWeightsPump = () => { pump(); };
    // attnviz-export.js: a .safetensors file picked in Open state… or dropped under another
    // name. The module tells a state file (read whole, opened as the state) from weights.
    M().attnvizWeightsOpen = (list) => { open(list); };

    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'attnviz-weights-file' + env.idSuffix;
    input.accept = '.safetensors,.npz,.npy';
    input.multiple = true;  // W_q.npy, W_k.npy, W_v.npy (and W_o.npy) together
    input.setAttribute('aria-label', view.lang.t('weights.pickerLabel'));
    input.className = 'sr-only';
    input.tabIndex = -1;
    env.container.appendChild(input);
    M().attnvizOpenWeightsPicker = () => {
      input.value = '';
      input.click();
      return true;
    };
    input.addEventListener('change', () => {
      const list = Array.from(input.files || []);
      if (list.length) open(list);
      input.value = '';
      env.canvas.focus();
    });

    const isWeights = (name) => /\.(safetensors|npz|npy)$/i.test(String(name || ''));
    // Capture phase: runs before attnviz-export.js's (bubbling) drop handler.
    // The weights files of a drop are one import; a drop of only other files (.json) goes on.
    env.dropRoot.addEventListener('drop', (e) => {
      const list = Array.from((e.dataTransfer && e.dataTransfer.files) || []).filter((f) => isWeights(f.name));
      if (!list.length) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      open(list);
    }, true);

    view.api.weightsDialog = () => {
      const Module = M();
      if (!Module._attnviz_weights_dialog) return null;
      return JSON.parse(Module.UTF8ToString(Module._attnviz_weights_dialog()));
    };
  };
})(attnvizCore);
