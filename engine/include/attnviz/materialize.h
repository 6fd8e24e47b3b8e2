// attnviz/materialize.h: seeded inputs as explicit values.
//
// A learner who edits one cell of X or of a weight matrix starts from exactly the
// numbers on screen: the UI swaps the seeded spec for these values on the first
// edit, and every other number stays bit for bit the same.
#pragma once

#include <string>
#include <vector>

#include "attnviz/state.h"

namespace attnviz {

// s with embedding.init = values holding the embedding rows s produces (before
// positions are added: the positional setting is kept and still applies).
State materialize_embedding(const State& s);
// s with weights.init = values holding every parameter s produces (x·W orientation).
State materialize_weights(const State& s);

// s with its tokens replaced by `tokens` (the token chips' insert, delete, move,
// rename and split), where from[i] is the index in s.tokens that token i comes from,
// or -1 for a new token. What belongs to a token goes with it:
// - its key_padding flag (a new token is a real key; no padded key left: no padding);
// - with explicit embedding values (one row per token), its row. A new token's row
//   is a copy of the row of the first token of the same text that came from s, if
//   any (a repeated token repeats its row, as in a lookup table), else the row s's
//   embedding seed draws for it among `tokens`: nn.Embedding's row for its place in
//   the vocabulary (the distinct tokens in order of first appearance), exactly what
//   the seeded embedding would give it. Every other field is s's.
// - with captured layers (State::layers), the same for every layer's input, each
//   with its own rows and its own embedding seed (123 after JSON): the layers keep
//   S rows each, a kept token its row in every layer.
// from's entries out of range count as -1; a from shorter than tokens, as -1s.
State retokenize(const State& s, std::vector<std::string> tokens, const std::vector<int>& from);

}  // namespace attnviz
