// presets.h: the example sessions in assets/presets/*.json, compiled into the app.
// Each file is {"title": str, "about": str, "decimals": 0|2|3|4 (optional), "state": <session state>}.
// "decimals" is what View → Decimals becomes when the preset loads: the tutorials'
// presets ask for the 4 PyTorch prints; absent means auto.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnviz::ui {

struct PresetSource {
  const char* id;    // file name without extension, e.g. "01-once-upon-a-time"
  const char* text;  // the file's JSON text
};
// Generated at build time (cmake/embed_presets.cmake).
const std::vector<PresetSource>& preset_sources();

struct Preset {
  std::string id, title, about;
  nlohmann::json state;
  int decimals = 0;  // View → Decimals on loading it (0: auto)
};
// Parsed presets, in file-name order.
const std::vector<Preset>& presets();

}  // namespace attnviz::ui
