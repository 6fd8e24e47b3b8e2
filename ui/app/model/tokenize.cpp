// tokenize.cpp: see tokenize.h.
#include "app/model/tokenize.h"

#include <algorithm>

#include <cstdint>

namespace attnviz::ui {

namespace {

// One code point of UTF-8 text starting at text[i]: its value and byte length. An
// ill-formed sequence is one byte with the value 0xFFFD (a word character).
struct CodePoint {
  uint32_t cp;
  size_t len;
};

CodePoint decode(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  const size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (len == 0 || i + len > s.size()) return {0xFFFD, 1};
  uint32_t cp = c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {0xFFFD, 1};
    cp = (cp << 6) | (b & 0x3F);
  }
  return {cp, len};
}

enum class Kind { space, cjk, punct, word };

bool in(uint32_t cp, uint32_t lo, uint32_t hi) { return cp >= lo && cp <= hi; }

Kind kind_of(uint32_t cp) {
  if (cp == ' ' || in(cp, 0x09, 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 || in(cp, 0x2000, 0x200A) ||
      cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF)
    return Kind::space;
  if (in(cp, 0x4E00, 0x9FFF) || in(cp, 0x3400, 0x4DBF) || in(cp, 0x20000, 0x2FA1F) || in(cp, 0xF900, 0xFAFF) ||
      in(cp, 0x3040, 0x30FF) || in(cp, 0x31F0, 0x31FF) || in(cp, 0xFF66, 0xFF9F) ||  // kana, half-width kana
      in(cp, 0xAC00, 0xD7AF) || in(cp, 0x1100, 0x11FF) || in(cp, 0x3130, 0x318F) ||  // hangul
      cp == 0x3005 || cp == 0x3007)                                                     // 々 〇
    return Kind::cjk;
  if (cp < 0x80) {
    const bool alnum = in(cp, '0', '9') || in(cp, 'A', 'Z') || in(cp, 'a', 'z');
    return alnum || cp == '_' ? Kind::word : Kind::punct;
  }
  if (in(cp, 0xA1, 0xBF) || cp == 0xD7 || cp == 0xF7 ||  // ¡ « » ¿ × ÷ ...
      in(cp, 0x2010, 0x2027) || in(cp, 0x2030, 0x205E) ||  // dashes, quotes, …, ‰
      in(cp, 0x3001, 0x3004) || in(cp, 0x3008, 0x303F) ||  // 、。〈〉《》「」【】
      in(cp, 0xFE30, 0xFE4F) || in(cp, 0xFE50, 0xFE6F) ||  // CJK compatibility and small forms
      in(cp, 0xFF01, 0xFF0F) || in(cp, 0xFF1A, 0xFF20) || in(cp, 0xFF3B, 0xFF40) || in(cp, 0xFF5B, 0xFF65))
    return Kind::punct;  // fullwidth ！，．：；？（）etc.; fullwidth letters and digits are word characters
  return Kind::word;
}

bool is_digit(uint32_t cp) { return in(cp, '0', '9') || in(cp, 0xFF10, 0xFF19); }

// A mark that stays inside a word when a word character follows it: a hyphen or
// apostrophe (GPT-2, don't, l’été); a point or comma between digits (3.14, 1,000).
bool joins(uint32_t mark, uint32_t before, uint32_t after) {
  if (kind_of(after) != Kind::word) return false;
  if (mark == '-' || mark == '\'' || mark == 0x2019 || mark == 0x2010 || mark == 0x2011) return true;
  return (mark == '.' || mark == ',') && is_digit(before) && is_digit(after);
}

std::vector<std::string> split_whitespace(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0, start = std::string_view::npos;
  while (i < s.size()) {
    const CodePoint c = decode(s, i);
    const bool sp = kind_of(c.cp) == Kind::space;
    if (sp && start != std::string_view::npos) {
      out.emplace_back(s.substr(start, i - start));
      start = std::string_view::npos;
    } else if (!sp && start == std::string_view::npos) {
      start = i;
    }
    i += c.len;
  }
  if (start != std::string_view::npos) out.emplace_back(s.substr(start));
  return out;
}

}  // namespace

const char* split_mode_name(SplitMode m) { return m == SplitMode::whitespace ? "whitespace" : "words"; }

bool split_mode_from_name(std::string_view name, SplitMode* out) {
  if (name == "words") *out = SplitMode::words_and_chars;
  else if (name == "whitespace") *out = SplitMode::whitespace;
  else return false;
  return true;
}

std::vector<std::string> split_text(std::string_view s, SplitMode mode) {
  if (mode == SplitMode::whitespace) return split_whitespace(s);
  std::vector<std::string> out;
  size_t word = std::string_view::npos;  // start of the word being read
  uint32_t prev = 0;                     // the last code point of that word
  auto end_word = [&](size_t at) {
    if (word != std::string_view::npos) out.emplace_back(s.substr(word, at - word));
    word = std::string_view::npos;
  };
  for (size_t i = 0; i < s.size();) {
    const CodePoint c = decode(s, i);
    const Kind k = kind_of(c.cp);
    if (k == Kind::word) {
      if (word == std::string_view::npos) word = i;
      prev = c.cp;
    } else if (k == Kind::punct && word != std::string_view::npos && i + c.len < s.size() &&
               joins(c.cp, prev, decode(s, i + c.len).cp)) {
      prev = c.cp;  // inside the word: the next character continues it
    } else {
      end_word(i);
      if (k != Kind::space) out.emplace_back(s.substr(i, c.len));  // a CJK character or a mark
    }
    i += c.len;
  }
  end_word(s.size());
  return out;
}

std::vector<std::string> split_for_vocabulary(std::string_view text, const std::vector<std::string>& vocabulary) {
  auto known = [&](std::string_view w) { return std::find(vocabulary.begin(), vocabulary.end(), w) != vocabulary.end(); };
  std::vector<std::string> out;
  for (std::string& piece : split_text(text, SplitMode::whitespace)) {
    std::vector<std::string> chars;
    bool all = !known(piece);
    for (size_t i = 0; all && i < piece.size();) {
      size_t n = 1;  // one UTF-8 character: the lead byte says how many bytes
      const unsigned char c = static_cast<unsigned char>(piece[i]);
      if (c >= 0xF0) n = 4;
      else if (c >= 0xE0) n = 3;
      else if (c >= 0xC0) n = 2;
      chars.push_back(piece.substr(i, n));
      all = known(chars.back());
      i += n;
    }
    if (all) {
      for (std::string& ch : chars) out.push_back(std::move(ch));
    } else {
      out.push_back(std::move(piece));
    }
  }
  return out;
}

size_t keep_first_tokens(std::vector<std::string>* tokens, size_t max) {
  if (tokens->size() <= max) return 0;
  const size_t left_out = tokens->size() - max;
  tokens->resize(max);
  return left_out;
}

}  // namespace attnviz::ui
