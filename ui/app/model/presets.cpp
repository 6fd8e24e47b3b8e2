// presets.cpp: see presets.h.
#include "app/model/presets.h"

#include "app/text/i18n.h"

namespace attnviz::ui {

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
