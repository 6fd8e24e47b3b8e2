// presets.h: the example sessions in assets/presets/*.json, compiled into the app.
// Each file is {"title": str, "about": str, "zh-CN": {"title": str, "about": str},
// "decimals": 0|2|3|4 (optional), "state": <session state>}: the English title and
// about, and the same in 简体中文 (tests/ui/test_presets.cpp fails when it is missing).
// "decimals" is what View → Decimals becomes when the preset loads: the tutorials'
// presets ask for the 4 PyTorch prints; absent means auto. "view" (optional) is a
// share link's view (share.h: tab, layer, head, pinned cell ...) applied with it.
// "long_text" (optional) makes the state's tokens at load time instead of storing them
// (a preset of thousands of tokens would not fit the compact embed build's budget):
//   "long_text": {"first": ["<s>"], "sentences": ["the tide comes in .", ...], "count": 2048}
// expands to the `first` tokens, then the sentences in turn, each split at its spaces,
// round and round until `count` tokens (expand_long_text; the state's "tokens" is
// replaced). scripts/make_long_preset.py writes the long-context preset this way.
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
  std::string id, title, about;  // English: the Presets menu registers the item by `title`
  nlohmann::json state;
  int decimals = 0;  // View → Decimals on loading it (0: auto)
  nlohmann::json view;  // the view it opens with, as a share link's; null: the view stays
  std::string title_zh, about_zh;  // 简体中文 ("zh-CN" in the file)
};
// The tokens a "long_text" description stands for (above), into *out. False (and *out
// empty) when it is not such a description: not an object, no sentences, an empty
// sentence, a count below 1 or past 1 << 20. Pure; tests/ui/test_presets.cpp.
bool expand_long_text(const nlohmann::json& desc, std::vector<std::string>* out);

// Parsed presets, in file-name order.
const std::vector<Preset>& presets();

// What the Presets menu shows: the title and about in the interface's language
// (i18n.h language()); English when the preset has no text in it.
const std::string& preset_title(const Preset& p);
const std::string& preset_about(const Preset& p);

}  // namespace attnviz::ui
