// presets.cpp: see presets.h.
#include "app/model/presets.h"

#include "app/model/tokenize.h"
#include "app/text/i18n.h"

namespace attnviz::ui {

bool expand_long_text(const nlohmann::json& desc, std::vector<std::string>* out) {
  out->clear();
  if (!desc.is_object()) return false;
  const nlohmann::json sentences = desc.value("sentences", nlohmann::json());
  const nlohmann::json first = desc.value("first", nlohmann::json::array());
  const long long count = desc.value("count", 0LL);
  if (!sentences.is_array() || sentences.empty() || !first.is_array() || count < 1 || count > (1 << 20)) return false;
  std::vector<std::vector<std::string>> split;  // each sentence's tokens, split once
  for (const nlohmann::json& s : sentences) {
    if (!s.is_string()) return false;
    split.push_back(split_text(s.get<std::string>(), SplitMode::whitespace));
    if (split.back().empty()) return false;
  }
  for (const nlohmann::json& t : first)
    if (t.is_string() && (long long)out->size() < count) out->push_back(t.get<std::string>());
  for (size_t k = 0; (long long)out->size() < count; ++k)
    for (const std::string& t : split[k % split.size()]) {
      if ((long long)out->size() == count) break;
      out->push_back(t);
    }
  return true;
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> list = [] {
    std::vector<Preset> out;
    for (const PresetSource& src : preset_sources()) {
      nlohmann::json j = nlohmann::json::parse(src.text, nullptr, false);
      if (j.is_discarded() || !j.is_object()) continue;  // tests/ui checks every preset loads
      int decimals = j.value("decimals", 0);
      if (decimals != 2 && decimals != 3 && decimals != 4) decimals = 0;
      Preset p;
      p.id = src.id;
      p.title = j.value("title", std::string(src.id));
      p.about = j.value("about", std::string());
      p.state = j.value("state", nlohmann::json());
      std::vector<std::string> tokens;  // a long text made at load time (presets.h)
      if (j.contains("long_text") && p.state.is_object() && expand_long_text(j["long_text"], &tokens))
        p.state["tokens"] = std::move(tokens);
      p.decimals = decimals;
      p.view = j.value("view", nlohmann::json());
      const nlohmann::json zh = j.value("zh-CN", nlohmann::json::object());
      if (zh.is_object()) {
        p.title_zh = zh.value("title", std::string());
        p.about_zh = zh.value("about", std::string());
      }
      out.push_back(std::move(p));
    }
    return out;
  }();
  return list;
}

const std::string& preset_title(const Preset& p) {
  return language() == Lang::zh_CN && !p.title_zh.empty() ? p.title_zh : p.title;
}
const std::string& preset_about(const Preset& p) {
  return language() == Lang::zh_CN && !p.about_zh.empty() ? p.about_zh : p.about;
}

}  // namespace attnviz::ui
