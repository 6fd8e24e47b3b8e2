// tokenize.h: how the Tokens box's text becomes tokens (pure; tests call it).
//
//   kind of text                      words_and_chars     whitespace
//   "我爱自然语言处理, GPT-2 很好"    我 爱 自 然 语 言 处 理 , GPT-2 很 好
//                                                        我爱自然语言处理, GPT-2 很好
//   "don't stop 3.14 e-mail!"         don't stop 3.14 e-mail !
//                                                        don't stop 3.14 e-mail!
//
// words_and_chars (the default): a Han character, kana or hangul syllable is a
// token of its own; a run of letters and digits is one token, kept whole across an
// inner hyphen or apostrophe (GPT-2, don't, l’été) and across a point or comma
// between digits (3.14, 1,000); every punctuation mark is a token of its own;
// whitespace (including the ideographic space U+3000) only separates.
// whitespace: tokens are what spaces separate, as a sentence.split() would give.
// A chip edited on its own keeps what was typed (自然 stays one token).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::ui {

enum class SplitMode : int { words_and_chars = 0, whitespace };

// "words" / "whitespace": the names a shared link's view uses.
const char* split_mode_name(SplitMode m);
bool split_mode_from_name(std::string_view name, SplitMode* out);

// The tokens of `text` (UTF-8; an ill-formed byte is kept as part of a word).
std::vector<std::string> split_text(std::string_view text, SplitMode mode);

// For a trained model's vocabulary (attnviz/model.h): what whitespace separates,
// and a piece that is not a word of `vocabulary` but whose characters all are is
// split into them ("<s> abcabc" → <s> a b c a b c). Other pieces stay whole (the
// engine names the one it does not know).
std::vector<std::string> split_for_vocabulary(std::string_view text, const std::vector<std::string>& vocabulary);

// The rule for a text of more tokens than a state may hold (a long paste into the
// Tokens box, a chip edited into many words): the first `max` tokens stay and the
// rest are left out, rather than the whole text being refused. Returns how many were
// left out (0 when all fit). The app passes Limits::kMaxTokens and says the count.
size_t keep_first_tokens(std::vector<std::string>* tokens, size_t max);

}  // namespace attnviz::ui
