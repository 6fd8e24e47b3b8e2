// png_capture.h: delivering the app's export requests (app/export.h) on a platform.
// PNG requests are rendered here: one extra ImGui frame into an offscreen
// framebuffer at `scale` device pixels per logical pixel, with the font atlas
// rasterised at that scale (so text is crisp, not an upscaled screenshot), then the
// panel's rectangle is read back and encoded with stb_image_write (libstb-dev).
#pragma once
#include <functional>
#include <string>

#include "app/panels/export.h"

namespace attnviz::platform {

struct Runner;

// Hands a finished export to the user: a file (kind file, bytes filled) or the
// platform's file picker (kind open_picker). Returns true and says where the file
// went in *where ("to the browser's downloads", "in /home/me"), or false with a
// sentence saying why not.
using ExportDeliver = std::function<bool(const ui::ExportRequest&, std::string* where)>;

// Renders heatmap `label` ("" = the whole window) at `scale`× into `png_out`.
// Returns false with a sentence in *error (panel not on screen, GL failure).
bool png_capture(Runner& r, const std::string& label, float scale, std::string* png_out, int* w_out, int* h_out,
                 std::string* error);

// Call after each frame, outside ImGui::NewFrame/Render: empties ui::export_queue(),
// capturing PNGs, and hands each result to `deliver`. Failures become the app's notice.
void exports_drain(Runner& r, const ExportDeliver& deliver);

}  // namespace attnviz::platform
