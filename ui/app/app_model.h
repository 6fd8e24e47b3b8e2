// app_model.h: everything the panels read and edit, in one struct.
#pragma once
#include <string>
#include <vector>
#include <unordered_map>

#include "app/engine_session.h"
#include "app/heatmap.h"
#include "app/texture_host.h"

namespace attnviz::ui {

struct AppModel {
  TextureHost* textures = nullptr;
  EngineSession engine;

  // --- UI selections (part of what a shared link restores)
  int head = 0;                        // selected head
  Colormap weights_cmap = Colormap::viridis;

  // --- editing buffers and messages
  std::string tokens_text;             // the `Tokens` box, split on Enter / leaving it
  std::string error;                   // last rejected edit, shown beside the controls
  std::string error_field;

  // --- text the font atlas must cover beyond Latin (see App::glyphs)
  std::vector<ImWchar> glyphs;
  uint64_t glyphs_version = 0;

  // --- retained per-heatmap textures, keyed by label ("weights h0")
  std::unordered_map<std::string, HeatmapCache> heatmaps;

  // Applies an edited state: on success the views update; on failure the last
  // valid state stays and `error` says why.
  bool apply(const nlohmann::json& state);
};

}  // namespace attnviz::ui
