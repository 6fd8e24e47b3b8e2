// i18n.h: the interface's language (English, 简体中文) and its catalogues.
//
// Every string a person reads goes through this file. The English text is the key,
// as gettext's msgid: code reads as it always did, and the English catalogue is the
// text in the source. The Chinese catalogue (lang_zh_cn.cpp) maps each key to its
// translation. tests/i18n/check_catalogue.py extracts every key from the source
// (tr, L, N_, menu_item, tr_args) and fails when one has no Chinese entry, when an
// entry's key is no longer used, or when the placeholders (printf's %d / %.3f, the
// {0} {1} of tr_args) differ between the two.
//
//   tr("Causal mask")          text to show: "Causal mask" or "因果掩码"
//   L("Causal mask")           an ImGui label with a stable ID: "因果掩码###Causal mask";
//                              the ID (hash of "###Causal mask") is the same in every
//                              language, so windows keep their place, tabs their
//                              selection and tests their item names when the language
//                              changes. "Decimals##view" → "小数位###Decimals##view".
//   N_("Stages")               marks a key stored in a table and translated where shown
//   tr_args("{0} × {1}", {a, b})  a sentence with positional values (engine refusals
//                              and any sentence whose order differs between languages)
//
// Lookups allocate nothing once a label has been built (a frame must not allocate).
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::ui {

enum class Lang : int { en = 0, zh_CN = 1 };
constexpr int kLangCount = 2;

const char* lang_code(Lang l);  // "en", "zh-CN": what ?lang=, share links and language() use
// The language a BCP 47 tag asks for: "en", "en-GB" → en; "zh", "zh-CN", "zh-Hans",
// "zh-SG" → zh_CN (case-insensitive, '_' accepted for '-'). False for anything else
// (the caller says so in a sentence and keeps the language it had).
bool lang_from_code(std::string_view code, Lang* out);
// The first of a browser's languages (navigator.languages, most preferred first) that
// attnviz speaks; en when none is.
Lang lang_from_preferences(const std::vector<std::string>& tags);
// Name of a language in itself, for the View → Language menu: "English", "简体中文".
const char* lang_native_name(Lang l);

Lang language();
void set_language(Lang l);
// Changes with every set_language (labels and text widths change).
int language_generation();

// The text of `en` in the current language (`en` itself when English, or when the
// catalogue lacks it: then the miss is recorded for tests, see i18n_misses).
const char* tr(const char* en);
// An ImGui label with a language-independent ID (see above).
const char* L(const char* key);
#define N_(s) (s)
// Marks a literal that reads the same in every language (PyTorch code, formulas,
// numbers): the catalogue check neither wants an entry for it nor flags it as untranslated.
#define NO_TR(s) (s)

// `tmpl` translated, with {0}, {1}, ... replaced by args (used once each or more).
std::string tr_args(const char* tmpl, std::initializer_list<std::string_view> args);
std::string tr_args(const char* tmpl, const std::vector<std::string>& args);

// --- Catalogues (lang_zh_cn.cpp)
struct CatalogueEntry {
  const char* en;
  const char* text;
};
struct Catalogue {
  const CatalogueEntry* entries;
  int count;
};
Catalogue catalogue(Lang l);  // en: empty (the keys are the text)

// Keys tr()/L() were asked for in a language whose catalogue lacks them, since the
// last clear: a test draws every panel in Chinese and expects none.
const std::vector<std::string>& i18n_misses();
void i18n_clear_misses();

}  // namespace attnviz::ui
