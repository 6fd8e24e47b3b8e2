// panel_tokens.cpp: the Parameters panel's tokens, top to bottom: the Tokens box with
// its Split choice, the line that says how many tokens a long paste left out, the token
// chips in a box of their own, and Go to token.
//
// [SECTION] a long paste: more tokens than a state holds
// [SECTION] token chips: edits (click, menu, drag) applied to the draft
// [SECTION] token chips: the virtualised box (chips_layout.h)
// [SECTION] Go to token
// [SECTION] the group
//
// The chips box is virtualised: the chips' widths and lines are measured when the
// tokens, the fonts, the language or the box's width change (ChipsLayoutCache), and a
// frame submits only the lines ImGuiListClipper finds in view, plus the line of a
// chip being edited or dragged, so thousands of tokens cost what a few lines do.
#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>
#include <vector>

#include "app/model/app_model.h"
#include "app/model/notice.h"
#include "app/model/tokenize.h"
#include "app/panels/chips_layout.h"
#include "app/panels/model_controls.h"
#include "app/panels/panel_tokens.h"
#include "app/panels/panels.h"
#include "app/text/i18n.h"
#include "app/widgets/fonts.h"
#include "app/widgets/item_registry.h"
#include "attnviz/materialize.h"
#include "imgui.h"
#include "imgui_stdlib.h"

namespace attnviz::ui {

namespace {

// --- [SECTION] a long paste: more tokens than a state holds

// 2048 → "2,048": counts of thousands of tokens read at a glance.
std::string count_text(size_t n) {
  std::string s = std::to_string(n);
  for (int at = static_cast<int>(s.size()) - 3; at > 0; at -= 3) s.insert(static_cast<size_t>(at), ",");
  return s;
}

// The sentence for tokens left out (keep_first_tokens), in the interface's language.
std::string left_out_text(size_t left_out) {
  const std::string kept = count_text(static_cast<size_t>(Limits::kMaxTokens)), out = count_text(left_out);
  return tr_args("Kept the first {0} tokens: {1} more were left out, as a state holds at most {0}.", {kept, out});
}

// After an applied edit that left `left_out` tokens out: the line under the box says
// so (while the state keeps the tokens kept), and so does the notice under the menu bar.
void note_left_out(AppModel& m, size_t left_out) {
  ParamsWidgets& p = m.widgets.params;
  p.left_out = left_out;
  p.kept = m.draft.seq_len();
  if (left_out > 0) notify(m, left_out_text(left_out), false);
}

// The line under the box, while the state still holds the tokens a paste kept.
void left_out_line(AppModel& m) {
  ParamsWidgets& p = m.widgets.params;
  if (p.left_out == 0) return;
  if (p.kept != m.engine.state().seq_len() || !m.error.empty()) {  // another sentence of tokens since
    p.left_out = 0;
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(240, 196, 110, 255));
  ImGui::TextWrapped("%s", left_out_text(p.left_out).c_str());
  ImGui::PopStyleColor();
  item_register("tokens left out");
}

// --- [SECTION] token chips: edits (click, menu, drag) applied to the draft

constexpr int kChipRows = 4;  // rows of token chips shown before their box scrolls

// What a chip's click, menu or drag asked for this frame (applied after the loop).
struct ChipEdit {
  int move_from = -1, move_to = -1, remove = -1, insert_at = -1, toggle_pad = -1;
};

// What "+" and Insert put in a new chip: a word in the interface's language, or a
// trained model's first symbol (a word it knows).
std::string new_token(const AppModel& m) {
  const TrainedModel* model = m.engine.stack().model();
  return model && model->vocabulary.size() > 1 ? model->vocabulary[1] : std::string(tr("new"));
}

// Applies a chip edit to the draft: tokens, their padding flags and (when the
// embedding is explicit) their embedding rows move together (engine: retokenize; a
// new token's row is the one the embedding seed gives it, Edit values says so).
void apply_chip_edit(AppModel& m, const ChipEdit& e) {
  if (e.move_from < 0 && e.remove < 0 && e.insert_at < 0 && e.toggle_pad < 0) return;  // most frames: no allocation
  const State& d = m.draft;
  const int n = d.seq_len();
  std::vector<std::string> toks = d.tokens;
  std::vector<int> from(n);
  for (int i = 0; i < n; ++i) from[i] = i;
  if (e.move_from >= 0 && e.move_to >= 0 && e.move_from != e.move_to) {
    toks.erase(toks.begin() + e.move_from);
    toks.insert(toks.begin() + e.move_to, d.tokens[e.move_from]);
    from.erase(from.begin() + e.move_from);
    from.insert(from.begin() + e.move_to, e.move_from);
  } else if (e.remove >= 0) {
    toks.erase(toks.begin() + e.remove);
    from.erase(from.begin() + e.remove);
  } else if (e.insert_at >= 0) {
    toks.insert(toks.begin() + e.insert_at, new_token(m));
    from.insert(from.begin() + e.insert_at, -1);
  } else if (e.toggle_pad >= 0) {
    State& w = m.draft;
    std::vector<uint8_t>& pad = w.key_padding;
    if ((int)pad.size() != n) pad.assign(n, 1);
    pad[e.toggle_pad] = pad[e.toggle_pad] == 0 ? 1 : 0;
    if (std::find(pad.begin(), pad.end(), 0) == pad.end()) pad.clear();  // no padded key: no padding
    apply_edit(m);
    return;
  } else {
    return;  // a chip dropped on itself
  }
  m.draft = retokenize(d, std::move(toks), from);
  apply_edit(m);
}

// A chip being edited in place: Enter or leaving it replaces the token by what was
// typed, split only at spaces (自然 stays one token; "a b" becomes two).
void chip_editor(AppModel& m, int i, int* editing, std::string* buf) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (ImGui::IsWindowAppearing() || !ImGui::IsAnyItemActive()) ImGui::SetKeyboardFocusHere();
  bool enter = ImGui::InputText("##edit", buf, ImGuiInputTextFlags_EnterReturnsTrue);
  if (!enter && !ImGui::IsItemDeactivated()) return;
  *editing = -1;
  // A trained model's chip: its words (typed "abc" is a b c); else what spaces separate.
  auto parts = m.engine.is_model() ? m.split_tokens(*buf) : split_text(*buf, SplitMode::whitespace);
  if (parts.empty()) return;
  // The chip's row and padding flag stay with the part that keeps its text (else the
  // first part: a rename); the other parts are new tokens.
  const State& d = m.draft;
  const int n = d.seq_len(), k = (int)parts.size();
  const int keep = (int)(std::find(parts.begin(), parts.end(), d.tokens[i]) - parts.begin()) % k;
  std::vector<std::string> toks(d.tokens.begin(), d.tokens.begin() + i);
  std::vector<int> from(i);
  for (int t = 0; t < i; ++t) from[t] = t;
  for (int p = 0; p < k; ++p) {
    toks.push_back(parts[p]);
    from.push_back(p == keep ? i : -1);
  }
  for (int t = i + 1; t < n; ++t) {
    toks.push_back(d.tokens[t]);
    from.push_back(t);
  }
  // Many words typed into one chip may pass the limit: the first ones stay (a paste's rule).
  const size_t left_out = keep_first_tokens(&toks, static_cast<size_t>(Limits::kMaxTokens));
  from.resize(toks.size());
  m.draft = retokenize(d, std::move(toks), from);
  if (apply_edit(m)) note_left_out(m, left_out);
}

// Opens chip i's field on its token.
void open_chip_edit(ChipEditState& chip, int i, const std::string& token) {
  chip.editing = i;
  chip.token = token;
  chip.text = token;
}

// A chip's field belongs to the token it opened on. A new state (a preset, a link, a
// file) may have fewer tokens or others: what was typed must not rename another token,
// nor the field reopen when the tokens grow back past its index.
void end_stale_chip_edit(ChipEditState& chip, const State& d) {
  if (chip.editing < 0) return;
  if (chip.editing < d.seq_len() && d.tokens[chip.editing] == chip.token) return;
  chip.editing = -1;
}


// --- [SECTION] token chips: the virtualised box (chips_layout.h)

bool padded_at(const State& d, int i) { return i < (int)d.key_padding.size() && d.key_padding[i] == 0; }

// A chip's text: the token, after "[pad] " when its key is padded (into `out`, reused).
void chip_label(const State& d, int i, std::string& out) {
  out.assign(padded_at(d, i) ? tr("[pad]") : "");
  if (!out.empty()) out += ' ';
  out += d.tokens[i];
}

// The chips' widths and lines, measured again only when what they depend on changed.
void chips_relayout(AppModel& m, float avail) {
  const State& d = m.draft;
  ChipsLayoutCache& L = m.widgets.params.chips;
  if (L.avail == avail && L.fonts == g_fonts.generation && L.lang == language_generation() &&
      L.padding == d.key_padding && L.tokens == d.tokens)
    return;  // most frames: compared, nothing allocated
  L.avail = avail;
  L.fonts = g_fonts.generation;
  L.lang = language_generation();
  L.padding = d.key_padding;
  L.tokens = d.tokens;
  const int n = d.seq_len();
  const float pad = ImGui::GetStyle().FramePadding.x * 2;
  L.widths.resize(static_cast<size_t>(n) + 1);
  std::string& label = m.widgets.params.chip.label;
  for (int i = 0; i < n; ++i) {
    chip_label(d, i, label);
    L.widths[i] = ImGui::CalcTextSize(label.c_str()).x + pad;
  }
  L.widths[n] = ImGui::CalcTextSize("+").x + pad;  // the "+" after the last chip (a small button)
  chips_lines(L.widths, avail, ImGui::GetStyle().ItemSpacing.x, &L.starts);
}

// One chip: click to edit, right-click for its menu, drag onto another to move it.
void chip_button(AppModel& m, int i, ChipEdit& e) {
  const State& d = m.draft;
  ChipEditState& chip = m.widgets.params.chip;
  const std::string& t = d.tokens[i];
  const bool padded = padded_at(d, i), selected = i == m.widgets.params.go_to.selected;
  chip_label(d, i, chip.label);
  if (padded) ImGui::PushStyleColor(ImGuiCol_Button, IM_COL32(70, 70, 80, 255));
  if (selected) ImGui::PushStyleColor(ImGuiCol_Button, IM_COL32(214, 150, 40, 255));  // Go to's token
  if (ImGui::Button(chip.label.c_str())) open_chip_edit(chip, i, t);
  ImGui::PopStyleColor((padded ? 1 : 0) + (selected ? 1 : 0));
  char reg[32];
  std::snprintf(reg, sizeof reg, "token %d", i);
  item_register(reg);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(padded ? tr("\"%s\" (token %d), a padded key\nclick: edit · right-click: more · drag: move")
                             : tr("\"%s\" (token %d)\nclick: edit · right-click: more · drag: move"),
                      t.c_str(), i);
  if (ImGui::BeginDragDropSource()) {
    ImGui::SetDragDropPayload("ATTNVIZ_TOKEN", &i, sizeof i);
    ImGui::Text(tr("move \"%s\""), t.c_str());
    ImGui::EndDragDropSource();
  }
  if (ImGui::BeginDragDropTarget()) {
    if (const ImGuiPayload* p = ImGui::AcceptDragDropPayload("ATTNVIZ_TOKEN")) {
      e.move_from = *(const int*)p->Data;
      e.move_to = i;
    }
    ImGui::EndDragDropTarget();
  }
  if (ImGui::BeginPopupContextItem("chip menu")) {
    if (menu_item("Edit")) open_chip_edit(chip, i, t);
    if (menu_item("Insert before")) e.insert_at = i;
    if (menu_item("Insert after")) e.insert_at = i + 1;
    if (menu_item(padded ? N_("Unmark padding") : N_("Mark as padding"))) e.toggle_pad = i;
    if (menu_item("Delete", false, d.seq_len() > 1)) e.remove = i;
    ImGui::EndPopup();
  }
}

// The chip being dragged (-1: none): its line stays submitted while the box scrolls,
// so the drag keeps its source and its preview.
int dragged_chip() {
  const ImGuiPayload* p = ImGui::GetDragDropPayload();
  return p && p->IsDataType("ATTNVIZ_TOKEN") ? *(const int*)p->Data : -1;
}

// Token chips: only the lines in view are submitted (ImGuiListClipper over the lines
// chips_lines made), plus the lines of the chip being edited and of the one dragged.
void token_chips(AppModel& m) {
  const State& d = m.draft;
  const int n = d.seq_len();
  ChipEditState& chip = m.widgets.params.chip;
  end_stale_chip_edit(chip, d);
  chips_relayout(m, ImGui::GetContentRegionAvail().x);
  const ChipsLayoutCache& L = m.widgets.params.chips;
  const int lines = static_cast<int>(L.starts.size()) - 1;
  const float line_h = ImGui::GetFrameHeightWithSpacing();
  GoToState& go = m.widgets.params.go_to;
  if (go.scroll && go.selected >= 0 && go.selected < n) {
    ImGui::SetScrollY(chips_scroll_to(chips_line_of(L.starts, go.selected), ImGui::GetWindowHeight(), line_h, lines));
    go.scroll = false;
  }
  ChipEdit e;
  bool stop = false;  // a chip's field closed and changed the tokens: the rest are drawn next frame
  ImGuiListClipper clip;
  clip.Begin(lines, line_h);
  if (chip.editing >= 0 && chip.editing < n) clip.IncludeItemByIndex(chips_line_of(L.starts, chip.editing));
  const int drag = dragged_chip();
  if (drag >= 0 && drag < n) clip.IncludeItemByIndex(chips_line_of(L.starts, drag));
  while (!stop && clip.Step()) {
    for (int line = clip.DisplayStart; line < clip.DisplayEnd && !stop; ++line) {
      for (int i = L.starts[line]; i < L.starts[line + 1] && !stop; ++i) {
        if (i > L.starts[line]) ImGui::SameLine();
        if (i == n) {  // the "+" after the last chip
          if (ImGui::SmallButton("+")) e.insert_at = n;
          item_register("add token");
          tooltip(N_("add a token at the end"));
          continue;
        }
        ImGui::PushID(i);
        if (chip.editing == i) {
          chip_editor(m, i, &chip.editing, &chip.text);
          stop = chip.editing < 0;
        } else {
          chip_button(m, i, e);
        }
        ImGui::PopID();
      }
    }
  }
  clip.End();
  apply_chip_edit(m, e);
  if (e.insert_at >= 0) open_chip_edit(chip, e.insert_at, new_token(m));  // the token apply_chip_edit inserted
}

// --- [SECTION] Go to token

// Brings token i into view in every map that shows a row or a column per token, through
// the maps' own reveal (HeatmapCache::reveal_row / reveal_col, which a lesson's task
// uses too): a square (S × S) stage shows cell (i, i); a map of token rows (X, Q, K, V,
// context, output) row i at the column already in view.
void reveal_in_maps(AppModel& m, int i) {
  const int S = m.engine.state().seq_len();
  for (auto& [label, c] : m.heatmaps) {
    if (c.rows == S && c.cols == S) {
      c.reveal_row = c.reveal_col = i;
    } else if (c.rows == S && c.cols > 0) {
      c.reveal_row = i;
      c.reveal_col = std::clamp(c.drawn.j0, 0, c.cols - 1);
    }
  }
}

// "Go to token": an index or a text; Enter scrolls the chips box to that token (its chip
// highlighted) and brings its row and column into view in the maps. Enter again on a
// text goes to its next match.
void go_to_row(AppModel& m) {
  GoToState& go = m.widgets.params.go_to;
  const std::vector<std::string>& toks = m.engine.state().tokens;
  if (go.selected >= (int)toks.size()) go.selected = -1;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("Go to token"));
  ImGui::SameLine();
  // The field leaves room for what it found ("token 1548 of 2048") on the same line.
  char found[64] = "";
  if (go.not_found) std::snprintf(found, sizeof found, "%s", tr("not found"));
  else if (go.selected >= 0) std::snprintf(found, sizeof found, tr("token %d of %d"), go.selected, (int)toks.size());
  const float found_w = *found ? ImGui::CalcTextSize(found).x + ImGui::GetStyle().ItemSpacing.x : 0.0f;
  const float font = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(std::clamp(ImGui::GetContentRegionAvail().x - found_w, font * 4, font * 9));
  const bool enter = ImGui::InputTextWithHint("##Go to token", tr("index or text"), &go.typed,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  item_register("Go to token");
  tooltip(N_("Type a token's index (0 is the first) or its text and press Enter: the chips scroll to it and the maps "
             "bring its row and column into view. Enter again finds the next token with that text."));
  if (enter) {
    const int i = chips_find(toks, parse_go_to(go.typed), go.selected);
    go.not_found = i < 0;
    if (i >= 0) {
      go.selected = i;
      go.scroll = true;
      reveal_in_maps(m, i);
    }
    ImGui::SetKeyboardFocusHere(-1);  // the field stays active: Enter again finds the next match
  }
  if (*found) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", found);
    item_register("Go to result");
  }
}

// --- [SECTION] the group

// Split: how the box's text becomes tokens (tokenize.h). Choosing a mode splits
// the box's text again at once, so the two can be compared.
void split_control(AppModel& m) {
  // English keys: the options are registered under them in every language.
  static const char* const kLabel[] = {N_("words & characters"), N_("whitespace only")};
  const float w = std::max(ImGui::CalcTextSize(tr(kLabel[0])).x, ImGui::CalcTextSize(tr(kLabel[1])).x) + combo_room();
  ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetContentRegionMax().x - w -
                                                       ImGui::CalcTextSize(tr("Split")).x -
                                                       ImGui::GetStyle().ItemInnerSpacing.x));
  ImGui::SetNextItemWidth(w);
  const int cur = static_cast<int>(m.view.split);
  if (ImGui::BeginCombo(L("Split"), tr(kLabel[cur]))) {
    for (int k = 0; k < 2; ++k) {
      if (ImGui::Selectable(tr(kLabel[k]), k == cur) && k != cur) {
        m.view.split = static_cast<SplitMode>(k);
        m.split_now = true;
      }
      item_register(kLabel[k]);
    }
    ImGui::EndCombo();
  }
  item_register("Split");
  tooltip(N_("words & characters: each Chinese/Japanese/Korean character is a token, words stay whole (GPT-2, "
             "don't), punctuation is a token of its own. whitespace only: what spaces separate, like text.split().\n"
             "A chip edited on its own keeps what you type (自然 stays one token)."));
}


}  // namespace

void tokens_group(AppModel& m) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("Tokens"));
  split_control(m);
  ImGui::SetNextItemWidth(-1);
  bool enter = ImGui::InputTextWithHint("##Tokens", tr("type a sentence, press Enter"), &m.tokens_text,
                                        ImGuiInputTextFlags_EnterReturnsTrue);
  item_register("Tokens");
  if (ImGui::IsItemEdited()) m.tokens_edited = true;
  // Enter or leaving the box splits its text when it was edited (so Enter on the
  // text as shown keeps chips edited by hand, such as 自然), and so does a new Split.
  if (((enter || ImGui::IsItemDeactivated()) && m.tokens_edited) || m.split_now) {
    m.split_now = false;
    m.tokens_edited = false;
    State& d = m.draft;
    auto toks = m.split_tokens(m.tokens_text);
    // A paste longer than a state holds keeps its first tokens (and says so) instead of being refused.
    const size_t left_out = keep_first_tokens(&toks, static_cast<size_t>(Limits::kMaxTokens));
    if (toks.size() != d.tokens.size()) {  // per-token settings no longer line up
      d.key_padding.clear();
      if (d.embedding.init == EmbeddingInit::values) d.embedding = EmbeddingSpec{EmbeddingInit::torch_randn, d.embedding.seed, {}};
    }
    d.tokens = std::move(toks);
    if (apply_edit(m)) note_left_out(m, left_out);
  }
  // The reason comes right under the box, before the chips: a refused 5000-token
  // paste would otherwise push it thousands of pixels down.
  error_line(m, "tokens");
  left_out_line(m);
  // The chips scroll in a box of their own (at most kChipRows rows high), so a
  // long sentence never pushes the controls below out of reach. A box that scrolls
  // gives its last row to Go to token: the group is as tall either way.
  const float row = ImGui::GetFrameHeightWithSpacing();
  const bool go_to = static_cast<int>(m.widgets.params.chips.starts.size()) - 1 > kChipRows;
  const float rows = static_cast<float>(go_to ? kChipRows - 1 : kChipRows);
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, row * rows + 2 * ImGui::GetStyle().FramePadding.y));
  if (ImGui::BeginChild("token chips", ImVec2(0, 0), ImGuiChildFlags_AutoResizeY | ImGuiChildFlags_FrameStyle))
    token_chips(m);
  ImGui::EndChild();
  item_register("token chips");
  if (go_to) go_to_row(m);  // once the chips are more than their box shows
  error_line(m, "key_padding");
  if (m.engine.is_model()) model_group(m);  // the model's words, its probe, its sizes (model_controls.cpp)
}

}  // namespace attnviz::ui
