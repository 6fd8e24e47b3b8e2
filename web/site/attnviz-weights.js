// attnviz-weights.js: the page side of File > Open weights… (docs/ui.md, "Trained
// weights in"). Loaded after attnviz-glue.js.
//   file picker  the module calls Module.attnvizOpenWeightsPicker(): the hidden
//                <input type=file id=attnviz-weights-file> (.safetensors, .npz, .npy)
//   drop         a .safetensors / .npz / .npy file dropped anywhere on the page
//                (caught before attnviz-export.js's drop handler, which takes .json)
//   reading      the module says which bytes it needs (attnviz_weights_next): the
//                header, the zip directory, then only the tensors chosen in the
//                dialog. Each range is read with File.slice, so a checkpoint of
//                gigabytes is never loaded whole; deflated .npz members go through
//                DecompressionStream('deflate-raw'), stopping once enough is out.
//   test API     window.attnviz.weightsDialog(): what the dialog shows (docs/test-api.md)
'use strict';
(function () {
  if (!window.Module) return;  // the page could not start
  const M = () => window.Module;
  let file = null;  // the File being read
  let busy = false;

  function withCString(str, fn) {
    const Module = M();
    const n = Module.lengthBytesUTF8(str) + 1;
    const p = Module._malloc(n);
    Module.stringToUTF8(str, p, n);
    try { return fn(p); } finally { Module._free(p); }
  }

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

  async function readRange(req) {
    const blob = file.slice(req.offset, req.offset + req.length);
    if (req.inflate) return inflateRange(blob, req.skip, req.out_length);
    return new Uint8Array(await blob.arrayBuffer());
  }

  // Reads whatever the module asks for until it asks for nothing.
  async function pump() {
    const Module = M();
    if (busy || !file || !Module._attnviz_weights_next) return;
    busy = true;
    try {
      for (;;) {
        const req = JSON.parse(Module.UTF8ToString(Module._attnviz_weights_next()));
        if (!req.want) break;
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

  function open(f) {
    const Module = M();
    if (!Module._attnviz_weights_begin) return;
    file = f;
    withCString(String(f.name || 'the file'), (p) => Module._attnviz_weights_begin(p, f.size));
    pump();
  }

  M().attnvizWeightsPump = () => { pump(); };

  const input = document.createElement('input');
  input.type = 'file';
  input.id = 'attnviz-weights-file';
  input.accept = '.safetensors,.npz,.npy';
  input.setAttribute('aria-label', window.attnvizLang.t('weights.pickerLabel'));
  input.className = 'sr-only';
  input.tabIndex = -1;
  document.body.appendChild(input);
  M().attnvizOpenWeightsPicker = () => {
    input.value = '';
    input.click();
    return true;
  };
  input.addEventListener('change', () => {
    const f = input.files && input.files[0];
    if (f) open(f);
    input.value = '';
    document.getElementById('canvas')?.focus();
  });

  const isWeights = (name) => /\.(safetensors|npz|npy)$/i.test(String(name || ''));
  // Capture phase on window: runs before attnviz-export.js's (bubbling) drop handler.
  window.addEventListener('drop', (e) => {
    const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
    if (!f || !isWeights(f.name)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    open(f);
  }, true);

  window.attnviz.weightsDialog = () => {
    const Module = M();
    if (!Module._attnviz_weights_dialog) return null;
    return JSON.parse(Module.UTF8ToString(Module._attnviz_weights_dialog()));
  };
})();
