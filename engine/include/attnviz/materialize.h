// attnviz/materialize.h: seeded inputs as explicit values.
//
// A learner who edits one cell of X or of a weight matrix starts from exactly the
// numbers on screen: the UI swaps the seeded spec for these values on the first
// edit, and every other number stays bit for bit the same.
#pragma once

#include "attnviz/state.h"

namespace attnviz {

// s with embedding.init = values holding the embedding rows s produces (before
// positions are added: the positional setting is kept and still applies).
State materialize_embedding(const State& s);
// s with weights.init = values holding every parameter s produces (x·W orientation).
State materialize_weights(const State& s);

}  // namespace attnviz
