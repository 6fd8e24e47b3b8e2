// weights_import.h: File → Open weights… (docs/ui.md, "Trained weights in").
//
// A .safetensors, .npz or .npy file is read by byte ranges (attnviz/weights_file.h):
// the platform asks weights_next() what to read, reads it (the browser with
// File.slice, web/site/attnviz-weights.js; the desktop with seeks, here) and hands
// it to weights_feed(). Once the tensors are listed, a dialog shows them with
// their shapes and dtypes and the proposed mapping (attnviz/weights_map.h), which
// the learner may correct; Apply reads only the chosen tensors the same way and
// applies them as explicit weights, one undo step. Problems become one sentence
// (weights_text.h) under the menu bar or in the dialog; the state is kept.
//
// Platform-free. One import at a time per process: the state lives here, not in
// AppModel, and everything that touches the app happens in weights_overlay().
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>  // the full header only where JSON is built or read (.cpp)

#include "attnviz/weights_file.h"

namespace attnviz::ui {

struct AppModel;

// The platform's side (set once at start-up; all optional).
struct WeightsHooks {
  std::function<bool()> open_picker;  // browser: show the page's file picker; false if it could not
  std::function<void()> pump;         // browser: start reading what weights_next() asks for
  weights::InflateFn inflate;         // desktop: raw inflate (zlib) for deflated .npz members
};
WeightsHooks& weights_hooks();

// True for names ending in .safetensors, .npz or .npy (any case).
bool is_weights_file(std::string_view name);

// Starts reading a file of `size` bytes (the browser; the previous import is dropped).
void weights_begin(std::string name, uint64_t size);
// Several files as one import (several .npy chosen or dropped together): listed one
// after the other, their tensors in one list (an .npy's named by its file's stem).
struct WeightsFile {
  std::string name;
  uint64_t size = 0;
};
void weights_begin_files(const std::vector<WeightsFile>& files);
// What to read next (scan, then the chosen tensors) and from which file (an index
// into the files begun); false when nothing is wanted.
bool weights_next(weights::ByteRange* want, int* file = nullptr);
// The bytes of that range (for an inflated range: the inflated bytes asked for).
void weights_feed(std::string_view bytes);
// The range could not be read (or inflated).
void weights_fail();

// Desktop: opens a file on disk (File → Open weights…, a dropped file) and reads
// what is needed at once. Returns {"ok", "error"} like import_state_path.
nlohmann::json weights_open_path(AppModel& m, const std::string& path);
// Several at once (files dropped together): one import, as weights_begin_files.
nlohmann::json weights_open_paths(AppModel& m, const std::vector<std::string>& paths);

// The File menu's item, and the dialogs (each frame, from export_overlay).
void weights_menu_item(AppModel& m);
void weights_overlay(AppModel& m);

// For tests (window.attnviz.weightsDialog(), docs/test-api.md): the dialog's content
// {open, phase, file, files, format, tensors: [{name, shape, dtype, type}], layers, layer,
//  roles: {W_q: {tensor, part, transpose}, ...}, heads, ok, error, hint, d_model, d_out,
//  kv_dim, kv_heads}.
nlohmann::json weights_dialog_info();

}  // namespace attnviz::ui
