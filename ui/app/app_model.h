// app_model.h: everything the panels read and edit, in one struct.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/engine_session.h"
#include "app/heatmap.h"
#include "app/texture_host.h"

namespace attnviz::ui {

// A cell of a stage, for linked inspection.
struct CellRef {
  bool valid = false;
  std::string stage;  // "scores", "weights", "Q", ...
  int head = 0;
  int row = 0, col = 0;
};

struct CompareCache;  // panel_compare.cpp: analysis results keyed by stage versions
struct LinesCache;    // panel_lines.cpp: heads shown and the lines worth drawing

enum class MainTab : int { stages = 0, data, compare, lines, values };

struct AppModel {
  TextureHost* textures = nullptr;
  EngineSession engine;

  // --- UI selections (part of what a shared link restores)
  int head = 0;                        // selected head
  int head_b = 1;                      // the second head of the A/B comparison
  std::string compare_stage = "weights";
  Colormap weights_cmap = Colormap::viridis;  // viridis or cividis (colour-blind safe)
  MainTab tab = MainTab::stages;
  bool help_open = false;              // the keyboard shortcuts window (help.cpp)

  // --- linked inspection: the hovered cell this frame, or the pinned one
  CellRef hover;       // written while drawing, read next frame
  CellRef hover_next;  // collects this frame's hover
  CellRef pinned;

  // --- editing: controls edit `draft`; a valid draft becomes the state at once, an
  // invalid one stays here with its reason while the views keep the last valid result
  nlohmann::json draft;
  std::string tokens_text;             // the `Tokens` box, split on Enter / leaving it
  std::string error;                   // last rejected edit, shown beside its control
  std::string error_field;

  // --- text the font atlas must cover beyond Latin (see App::glyphs)
  std::vector<ImWchar> glyphs;
  uint64_t glyphs_version = 0;

  // --- retained per-heatmap textures, keyed by label ("weights h0")
  std::unordered_map<std::string, HeatmapCache> heatmaps;

  // --- retained state of the Compare heads and Lines tabs, created by their panels on
  // first draw (shared_ptr because the types are private to those files)
  std::shared_ptr<CompareCache> compare_cache;
  std::shared_ptr<LinesCache> lines_cache;

  // Applies an edited state: on success the views update and the draft becomes
  // the canonical state; on failure the last valid state stays and `error` says why.
  bool apply(const nlohmann::json& state);
  // Applies `draft` (after a control changed it).
  bool apply_draft() { return apply(draft); }
  // The cell every view highlights: the pinned one, else the hovered one.
  const CellRef& focus() const { return pinned.valid ? pinned : hover; }
};

}  // namespace attnviz::ui
