// The models built into attnviz: bytes embedded from assets/models at build time
// (cmake/embed_models.cmake writes model_sources()).
#pragma once

#include <string_view>
#include <vector>

namespace attnviz::detail {

struct ModelSource {
  const char* name;               // the card's file name without ".json"
  std::string_view card;          // <name>.json
  std::string_view checkpoints;   // <name>-checkpoints.safetensors
};

const std::vector<ModelSource>& model_sources();

}  // namespace attnviz::detail
