// web_export.cpp: exports and imports in the browser. Files the app saves become
// downloads (web/site/attnviz-export.js: Blob + <a download>); File > Open state…
// clicks the page's hidden <input type=file>; the page hands picked or dropped
// files back through attnviz_import_state.
#include <emscripten.h>

#include <cstdint>
#include <string>

#include "app/app.h"

#include <nlohmann/json.hpp>
#include "app/text/i18n.h"
#include "app/panels/export.h"
#include "platform/png_capture.h"
#include "platform/runner.h"
#include "platform/web_share.h"  // web_wake

static attnviz::ui::App* g_export_app = nullptr;

// 1 when the page started the download.
EM_JS(int, js_download, (const char* name, const char* mime, const uint8_t* data, int len), {
  if (!Module.attnvizDownload) return 0;
  return Module.attnvizDownload(UTF8ToString(name), UTF8ToString(mime), HEAPU8.slice(data, data + len)) ? 1 : 0;
});
EM_JS(int, js_open_picker, (), {
  return Module.attnvizOpenPicker && Module.attnvizOpenPicker() ? 1 : 0;
});

namespace attnviz::platform {

void web_export_init(ui::App* app) {
  g_export_app = app;
  app->exports().has_file_picker = true;
}

void web_export_after_frame(Runner& r) {
  exports_drain(r, [](const ui::ExportRequest& req, std::string* where) {
    if (req.kind == ui::ExportKind::open_picker) {
      if (js_open_picker()) return true;
      *where = ui::tr("The file picker could not open; drop a .json state file on the page instead.");
      return false;
    }
    if (!js_download(req.filename.c_str(), req.mime.c_str(), reinterpret_cast<const uint8_t*>(req.bytes.data()),
                     (int)req.bytes.size())) {
      *where = ui::tr_args("The browser did not start the download of {0}.", {req.filename});
      return false;
    }
    *where = ui::tr("to the browser's downloads");
    return true;
  });
}

}  // namespace attnviz::platform

extern "C" {

// A state file picked or dropped on the page: `len` bytes (not NUL-terminated).
// Returns {"ok": bool, "error": "..."}; on error the state is unchanged and the app says why.
EMSCRIPTEN_KEEPALIVE const char* attnviz_import_state(const char* name, const char* bytes, int len) {
  static std::string s;
  s = g_export_app->import_state(name ? name : "", std::string_view(bytes ? bytes : "", len > 0 ? (size_t)len : 0))
          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  attnviz::platform::web_wake();
  return s.c_str();
}

// A file the page refused to read because of its size (bytes).
EMSCRIPTEN_KEEPALIVE const char* attnviz_import_too_large(const char* name, double size) {
  static std::string s;
  s = g_export_app->import_state_too_large(name ? name : "", size).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  attnviz::platform::web_wake();
  return s.c_str();
}

// A sentence from the page (a file that could not be read, a drop with no file).
EMSCRIPTEN_KEEPALIVE void attnviz_notice_error(const char* text) {
  attnviz::ui::export_notify(g_export_app->exports(), text ? text : "", true);
  attnviz::platform::web_wake();
}

}  // extern "C"
