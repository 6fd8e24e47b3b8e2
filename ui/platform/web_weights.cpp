// web_weights.cpp: File → Open weights… in the browser (weights_import.h). The page
// (web/site/attnviz-weights.js) holds the File: it asks attnviz_weights_next()
// which bytes to read, reads them with File.slice (inflating deflated .npz members
// with DecompressionStream) and hands them to attnviz_weights_feed(). Only the
// header, the zip directory and the tensors chosen in the dialog are read, so a
// checkpoint of several gigabytes is never loaded whole.
#include <emscripten.h>

#include <cstdint>
#include <string>
#include <vector>

#include "app/panels/weights_import.h"
#include "platform/web_share.h"  // web_wake

#include <nlohmann/json.hpp>

EM_JS(int, js_open_weights_picker, (), {
  return Module.attnvizOpenWeightsPicker && Module.attnvizOpenWeightsPicker() ? 1 : 0;
});
EM_JS(void, js_weights_pump, (), {
  if (Module.attnvizWeightsPump) Module.attnvizWeightsPump();
});

namespace {
// Installed before main(): the app asks the page for its picker and for reads.
const int g_installed = [] {
  auto& h = attnviz::ui::weights_hooks();
  h.open_picker = [] { return js_open_weights_picker() != 0; };
  h.pump = [] { js_weights_pump(); };
  return 0;
}();

std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }
}  // namespace

extern "C" {

// A file picked or dropped: its name and size in bytes. Reading starts with attnviz_weights_next().
EMSCRIPTEN_KEEPALIVE void attnviz_weights_begin(const char* name, double size) {
  attnviz::ui::weights_begin(name ? name : "", size > 0 ? static_cast<uint64_t>(size) : 0);
  attnviz::platform::web_wake();
}

// Several files picked or dropped together, as one import: [{"name", "size"}, ...] (JSON).
EMSCRIPTEN_KEEPALIVE void attnviz_weights_begin_files(const char* list) {
  std::vector<attnviz::ui::WeightsFile> files;
  const nlohmann::json j = nlohmann::json::parse(list ? list : "", nullptr, false);
  if (j.is_array()) {
    for (const auto& f : j) {
      if (!f.is_object()) continue;
      const double size = f.value("size", 0.0);
      files.push_back({f.value("name", std::string("the file")), size > 0 ? static_cast<uint64_t>(size) : 0});
    }
  }
  attnviz::ui::weights_begin_files(files);
  attnviz::platform::web_wake();
}

// What to read next: {"want": false} or {"want": true, "file", "offset", "length", "inflate", "skip",
// "out_length"}; "file" is the index of the file in the list begun.
EMSCRIPTEN_KEEPALIVE const char* attnviz_weights_next() {
  static std::string s;
  attnviz::weights::ByteRange r;
  int file = 0;
  if (!attnviz::ui::weights_next(&r, &file)) {
    s = "{\"want\":false}";
  } else {
    s = dump({{"want", true}, {"file", file}, {"offset", static_cast<double>(r.offset)},
              {"length", static_cast<double>(r.length)}, {"inflate", r.inflate}, {"skip", static_cast<double>(r.skip)},
              {"out_length", static_cast<double>(r.out_length)}});
  }
  attnviz::platform::web_wake();  // the dialog's phase may change
  return s.c_str();
}

// The bytes asked for (`len` of them at `bytes`).
EMSCRIPTEN_KEEPALIVE void attnviz_weights_feed(const char* bytes, double len) {
  attnviz::ui::weights_feed(std::string_view(bytes ? bytes : "", len > 0 ? static_cast<size_t>(len) : 0));
  attnviz::platform::web_wake();
}

// The range could not be read or inflated.
EMSCRIPTEN_KEEPALIVE void attnviz_weights_fail() {
  attnviz::ui::weights_fail();
  attnviz::platform::web_wake();
}

// The dialog's content, for tests (window.attnviz.weightsDialog()).
EMSCRIPTEN_KEEPALIVE const char* attnviz_weights_dialog() {
  static std::string s;
  s = dump(attnviz::ui::weights_dialog_info());
  return s.c_str();
}

}  // extern "C"
