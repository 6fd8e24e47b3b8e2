// i18n.cpp: see i18n.h.
#include "app/text/i18n.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "attnviz/messages.h"

namespace attnviz::ui {

Catalogue catalogue_zh_cn();          // lang_zh_cn.cpp: the interface
Catalogue catalogue_zh_cn_lessons();  // lang_zh_cn_lessons.cpp: the lessons' text (docs/lessons.md)

namespace {

struct I18n {
  Lang lang = Lang::en;
  int generation = 0;
  // Per language: key → translated text, and label key → "text###key". Both views
  // point into `store` (a deque never moves what it holds).
  std::unordered_map<std::string_view, const char*> text[kLangCount];
  std::unordered_map<std::string_view, const char*> labels[kLangCount];
  std::deque<std::string> store;
  bool loaded[kLangCount] = {};
  std::vector<std::string> misses;
  std::unordered_set<std::string> missed;
};

I18n& g() {
  static I18n s;
  return s;
}

std::unordered_map<std::string_view, const char*>& table(Lang l) {
  I18n& s = g();
  const int i = static_cast<int>(l);
  if (!s.loaded[i]) {
    s.loaded[i] = true;
    const Catalogue c = catalogue(l);
    s.text[i].reserve(static_cast<size_t>(c.count));
    for (int k = 0; k < c.count; ++k) s.text[i].emplace(c.entries[k].en, c.entries[k].text);
  }
  return s.text[i];
}

const char* lookup(Lang l, std::string_view key, const char* fallback) {
  if (l == Lang::en) return fallback;
  auto& t = table(l);
  auto it = t.find(key);
  if (it != t.end()) return it->second;
  // Digits and signs ("2", "+inf" aside) read the same everywhere: not a miss.
  if (std::none_of(key.begin(), key.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
    return fallback;
  I18n& s = g();
  if (s.missed.insert(std::string(key)).second) s.misses.emplace_back(key);
  return fallback;
}

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

const char* lang_code(Lang l) { return l == Lang::zh_CN ? "zh-CN" : "en"; }
const char* lang_native_name(Lang l) { return l == Lang::zh_CN ? "简体中文" : "English"; }

bool lang_from_code(std::string_view code, Lang* out) {
  std::string c;
  for (char ch : code) c += ch == '_' ? '-' : lower(ch);
  const std::string primary = c.substr(0, c.find('-'));
  if (primary == "en" && (c == "en" || c.size() > 3)) {
    *out = Lang::en;
    return true;
  }
  // Every Chinese tag is offered the simplified interface (the only Chinese one).
  if (primary == "zh" && (c == "zh" || c.size() > 3)) {
    *out = Lang::zh_CN;
    return true;
  }
  return false;
}

Lang lang_from_preferences(const std::vector<std::string>& tags) {
  for (const std::string& t : tags) {
    Lang l;
    if (lang_from_code(t, &l)) return l;
  }
  return Lang::en;
}

Lang language() { return g().lang; }
void set_language(Lang l) {
  if (g().lang == l) return;
  g().lang = l;
  ++g().generation;
}
int language_generation() { return g().generation; }

// The Chinese catalogue is two files' tables, joined once.
Catalogue catalogue(Lang l) {
  if (l != Lang::zh_CN) return Catalogue{nullptr, 0};
  static const std::vector<CatalogueEntry> all = [] {
    std::vector<CatalogueEntry> v;
    for (const Catalogue c : {catalogue_zh_cn(), catalogue_zh_cn_lessons()}) v.insert(v.end(), c.entries, c.entries + c.count);
    return v;
  }();
  return {all.data(), static_cast<int>(all.size())};
}

const char* tr(const char* en) { return lookup(g().lang, en, en); }

const char* L(const char* key) {
  I18n& s = g();
  auto& labels = s.labels[static_cast<int>(s.lang)];
  const std::string_view k(key);
  auto it = labels.find(k);
  if (it != labels.end()) return it->second;
  // The shown part ends at the first "##"; the ID is "###" + key, or the key's own
  // "###id" when it has one.
  const size_t hashes = k.find("##");
  const std::string_view shown = k.substr(0, hashes);
  const size_t own_id = k.find("###");
  const std::string_view id = own_id == std::string_view::npos ? k : k.substr(own_id + 3);
  const std::string& stored_shown = s.store.emplace_back(shown);
  const char* text = lookup(s.lang, stored_shown, stored_shown.c_str());
  const std::string& stored_key = s.store.emplace_back(k);
  const std::string& label = s.store.emplace_back(std::string(text) + "###" + std::string(id));
  labels.emplace(stored_key, label.c_str());
  return label.c_str();
}

// The engine's filler (attnviz/messages.h msg_format), on the translated template.
std::string tr_args(const char* tmpl, std::initializer_list<std::string_view> args) {
  return msg_format(tr(tmpl), std::vector<std::string>(args.begin(), args.end()));
}
std::string tr_args(const char* tmpl, const std::vector<std::string>& args) { return msg_format(tr(tmpl), args); }

const std::vector<std::string>& i18n_misses() { return g().misses; }
void i18n_clear_misses() {
  g().misses.clear();
  g().missed.clear();
}

}  // namespace attnviz::ui
