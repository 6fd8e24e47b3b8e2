// panel_params.cpp: the Parameters panel: tokens (text box and chips), shapes, mask
// and dropout, then scaling, embedding and weight initialisation in collapsing
// headers. Controls edit the draft state; a valid draft is applied at once, an
// invalid one shows its reason beside the control.
#include <algorithm>
#include <cfloat>
#include <initializer_list>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "app/app_model.h"
#include "app/fonts.h"
#include "app/item_registry.h"
#include "app/panels.h"
#include "imgui.h"
#include "imgui_stdlib.h"

namespace attnviz::ui {

namespace {

using json = nlohmann::json;

std::vector<std::string> split_tokens(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// The reason the draft was refused, under the control it concerns.
void error_line(const AppModel& m, const char* field) {
  if (m.error.empty()) return;
  const std::string& f = m.error_field;
  bool match = *field ? f.rfind(field, 0) == 0 : f.empty();
  if (!match) return;
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 138, 122, 255));
  ImGui::TextWrapped("%s", m.error.c_str());
  ImGui::PopStyleColor();
  item_register("error");
}

json& at(json& d, const char* key) { return d[key]; }

bool combo(const char* label, std::string* value, const char* const* options, int n) {
  bool changed = false;
  if (ImGui::BeginCombo(label, value->c_str())) {
    for (int k = 0; k < n; ++k) {
      bool sel = *value == options[k];
      if (ImGui::Selectable(options[k], sel)) {
        *value = options[k];
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  item_register(label);
  return changed;
}

// A string field chosen from `options`: applied at once, with an optional tooltip.
void choice_field(AppModel& m, const char* label, json& obj, const char* key, const char* def,
                  const char* const* options, int n, const char* tooltip = nullptr) {
  std::string v = obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : def;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  if (combo(label, &v, options, n)) {
    obj[key] = v;
    m.apply_draft();
  }
  if (tooltip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
}

void int_field(AppModel& m, const char* label, json& obj, const char* key, int def, int step = 1) {
  int v = obj.value(key, def);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::InputInt(label, &v, step, step * 4)) {
    obj[key] = v;
    m.apply_draft();
  }
  item_register(label);
}

void seed_field(AppModel& m, const char* label, json& obj) {
  long long v = obj.value("seed", 123LL);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::InputScalar(label, ImGuiDataType_S64, &v, nullptr, nullptr, "%lld")) {
    obj["seed"] = v;
    m.apply_draft();
  }
  item_register(label);
  ImGui::SameLine();
  ImGui::PushID(label);
  if (ImGui::SmallButton("+1")) {
    obj["seed"] = v + 1;
    m.apply_draft();
  }
  ImGui::PopID();
}

bool checkbox(AppModel& m, const char* label, json& obj, const char* key, bool def) {
  bool v = obj.value(key, def);
  bool changed = ImGui::Checkbox(label, &v);
  item_register(label);
  if (changed) {
    obj[key] = v;
    m.apply_draft();
  }
  return changed;
}

void section(const char* title) {
  ImGui::Spacing();
  ImGui::SeparatorText(title);
}

constexpr int kChipRows = 4;  // rows of token chips shown before their box scrolls

// Token chips: click to edit, right-click for more, drag to reorder.
void token_chips(AppModel& m) {
  json& d = m.draft;
  if (!d.contains("tokens") || !d["tokens"].is_array()) return;
  json& toks = d["tokens"];
  json pad = d.contains("key_padding") && d["key_padding"].is_array() ? d["key_padding"] : json();
  const int n = (int)toks.size();
  static int editing = -1;
  static std::string edit_buf;
  int move_from = -1, move_to = -1, remove = -1, insert_at = -1, toggle_pad = -1;
  const float avail = ImGui::GetContentRegionAvail().x;
  float line_x = 0;
  for (int i = 0; i < n && i < 512; ++i) {
    std::string t = toks[i].is_string() ? toks[i].get<std::string>() : "?";
    bool padded = pad.is_array() && i < (int)pad.size() && pad[i] == 0;
    ImGui::PushID(i);
    if (editing == i) {
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
      if (ImGui::IsWindowAppearing() || !ImGui::IsAnyItemActive()) ImGui::SetKeyboardFocusHere();
      bool enter = ImGui::InputText("##edit", &edit_buf, ImGuiInputTextFlags_EnterReturnsTrue);
      if (enter || ImGui::IsItemDeactivated()) {
        auto parts = split_tokens(edit_buf);
        if (!parts.empty()) {
          toks.erase(toks.begin() + i);
          for (size_t k = 0; k < parts.size(); ++k) toks.insert(toks.begin() + i + (int)k, parts[k]);
          if (pad.is_array()) {
            for (size_t k = 1; k < parts.size(); ++k) pad.insert(pad.begin() + i, 1);
            d["key_padding"] = pad;
          }
          m.apply_draft();
        }
        editing = -1;
      }
    } else {
      std::string label = padded ? "[pad] " + t : t;
      float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
      if (i > 0 && line_x + w < avail) ImGui::SameLine();
      else line_x = 0;
      line_x += w + ImGui::GetStyle().ItemSpacing.x;
      if (padded) ImGui::PushStyleColor(ImGuiCol_Button, IM_COL32(70, 70, 80, 255));
      if (ImGui::Button(label.c_str())) {
        editing = i;
        edit_buf = t;
      }
      if (padded) ImGui::PopStyleColor();
      char reg[32];
      std::snprintf(reg, sizeof reg, "token %d", i);
      item_register(reg);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("\"%s\" (token %d)%s\nclick: edit · right-click: more · drag: move",
                                                    t.c_str(), i, padded ? ", padded key" : "");
      if (ImGui::BeginDragDropSource()) {
        ImGui::SetDragDropPayload("ATTNVIZ_TOKEN", &i, sizeof i);
        ImGui::Text("move \"%s\"", t.c_str());
        ImGui::EndDragDropSource();
      }
      if (ImGui::BeginDragDropTarget()) {
        if (const ImGuiPayload* p = ImGui::AcceptDragDropPayload("ATTNVIZ_TOKEN")) {
          move_from = *(const int*)p->Data;
          move_to = i;
        }
        ImGui::EndDragDropTarget();
      }
      if (ImGui::BeginPopupContextItem("chip menu")) {
        if (menu_item("Edit")) { editing = i; edit_buf = t; }
        if (menu_item("Insert before")) insert_at = i;
        if (menu_item("Insert after")) insert_at = i + 1;
        if (menu_item(padded ? "Unmark padding" : "Mark as padding")) toggle_pad = i;
        if (menu_item("Delete", false, n > 1)) remove = i;
        ImGui::EndPopup();
      }
    }
    ImGui::PopID();
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("+")) insert_at = n;
  item_register("add token");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("add a token at the end");

  auto ensure_pad = [&] {
    if (!pad.is_array() || (int)pad.size() != n) pad = json(std::vector<int>(n, 1));
  };
  if (move_from >= 0 && move_to >= 0 && move_from != move_to) {
    json t = toks[move_from];
    toks.erase(toks.begin() + move_from);
    toks.insert(toks.begin() + move_to, t);
    if (pad.is_array() && (int)pad.size() == n) {
      json p = pad[move_from];
      pad.erase(pad.begin() + move_from);
      pad.insert(pad.begin() + move_to, p);
      d["key_padding"] = pad;
    }
    if (d.contains("embedding") && d["embedding"].contains("values")) {
      json& rows = d["embedding"]["values"];
      if (rows.is_array() && (int)rows.size() == n) {
        json r = rows[move_from];
        rows.erase(rows.begin() + move_from);
        rows.insert(rows.begin() + move_to, r);
      }
    }
    m.apply_draft();
  }
  if (remove >= 0) {
    toks.erase(toks.begin() + remove);
    if (pad.is_array() && (int)pad.size() == n) {
      pad.erase(pad.begin() + remove);
      d["key_padding"] = pad;
    }
    m.apply_draft();
  }
  if (insert_at >= 0) {
    toks.insert(toks.begin() + insert_at, "new");
    if (pad.is_array() && (int)pad.size() == n) {
      pad.insert(pad.begin() + insert_at, 1);
      d["key_padding"] = pad;
    }
    m.apply_draft();
    editing = insert_at;
    edit_buf = "new";
  }
  if (toggle_pad >= 0) {
    ensure_pad();
    pad[toggle_pad] = pad[toggle_pad] == 0 ? 1 : 0;
    bool any = false;
    for (auto& v : pad) any |= v == 0;
    if (any) d["key_padding"] = pad;
    else d.erase("key_padding");
    m.apply_draft();
  }
}

// --- The groups of the panel, top to bottom. What a learner toggles most (the
// tokens, heads, mask and dropout) comes first and is always open; the rarer set-up
// (scaling, embedding, weight initialisation) sits in collapsing headers below.

void tokens_group(AppModel& m) {
  json& d = m.draft;
  ImGui::TextUnformatted("Tokens");
  ImGui::SetNextItemWidth(-1);
  bool enter = ImGui::InputTextWithHint("##Tokens", "type a sentence, press Enter", &m.tokens_text,
                                        ImGuiInputTextFlags_EnterReturnsTrue);
  item_register("Tokens");
  if (enter || ImGui::IsItemDeactivatedAfterEdit()) {
    auto toks = split_tokens(m.tokens_text);
    if (toks.size() != d["tokens"].size()) {
      d.erase("key_padding");
      if (d.contains("embedding") && d["embedding"].contains("values")) d["embedding"] = {{"init", "torch_randn"}, {"seed", d["embedding"].value("seed", 123)}};
    }
    d["tokens"] = toks;
    m.apply_draft();
  }
  // The reason comes right under the box, before the chips: a refused 5000-token
  // paste would otherwise push it thousands of pixels down.
  error_line(m, "tokens");
  // The chips scroll in a box of their own (at most kChipRows rows high), so a
  // long sentence never pushes the controls below out of reach.
  const float row = ImGui::GetFrameHeightWithSpacing();
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, row * kChipRows + 2 * ImGui::GetStyle().FramePadding.y));
  if (ImGui::BeginChild("token chips", ImVec2(0, 0), ImGuiChildFlags_AutoResizeY | ImGuiChildFlags_FrameStyle))
    token_chips(m);
  ImGui::EndChild();
  item_register("token chips");
  error_line(m, "key_padding");
}

void shapes_group(AppModel& m) {
  json& d = m.draft;
  section("Shapes");
  int_field(m, "d_model", d, "d_model", 4);
  error_line(m, "d_model");
  int_field(m, "d_out", d, "d_out", 4);
  error_line(m, "d_out");
  int_field(m, "Heads", d, "num_heads", 1);
  ImGui::SameLine();
  int heads = d.value("num_heads", 1), d_out = d.value("d_out", 4);
  if (heads > 0 && d_out % heads == 0) ImGui::TextDisabled("head_dim %d", d_out / heads);
  else ImGui::TextDisabled("head_dim ?");
  error_line(m, "num_heads");
}

// Dropout p: a slider for dragging and, beside it, a field for an exact value
// (typed; the slider itself also turns into a field with Ctrl+click).
void dropout_p_control(AppModel& m) {
  json& dr = at(m.draft, "dropout");
  const double p = dr.value("p", 0.0);
  const ImGuiStyle& st = ImGui::GetStyle();
  const float field_w = ImGui::GetFontSize() * 3.6f;
  const float label_w = ImGui::CalcTextSize("Dropout p").x;
  const float slider_w = ImGui::GetContentRegionAvail().x - field_w - label_w - 2 * st.ItemInnerSpacing.x;
  ImGui::SetNextItemWidth(std::max(slider_w, ImGui::GetFontSize() * 5));
  float pf = (float)p;
  if (ImGui::SliderFloat("##Dropout p", &pf, 0.0f, 1.0f, "%.3g")) {
    dr["p"] = std::round((double)pf * 100.0) / 100.0;
    m.apply_draft();
  }
  item_register("Dropout p");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("drag, or type an exact p in the field beside (Ctrl+click also types)");
  ImGui::SameLine(0, st.ItemInnerSpacing.x);
  // Applied when the field is left (Enter, Tab, a click elsewhere), not per
  // keystroke: on the way to typing 1.5, p = 1 would otherwise be applied.
  static double typed = 0.0;
  static bool typing = false;
  if (!typing) typed = p;
  ImGui::SetNextItemWidth(field_w);
  ImGui::InputDouble("##Dropout p value", &typed, 0, 0, "%.4g");
  typing = ImGui::IsItemActive();
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    at(m.draft, "dropout")["p"] = typed;  // the slider may have replaced `dr`
    m.apply_draft();
  }
  item_register("Dropout p value");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("an exact p, from 0 to 1");
  ImGui::SameLine(0, st.ItemInnerSpacing.x);
  ImGui::TextUnformatted("Dropout p");
}

void mask_dropout_group(AppModel& m) {
  json& d = m.draft;
  section("Mask & dropout");
  checkbox(m, "Causal mask", d, "causal", false);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("each token attends only to itself and the tokens before it");
  dropout_p_control(m);
  checkbox(m, "Training", at(m.draft, "dropout"), "training", false);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("nn.Dropout only drops in training mode; in eval it is the identity");
  seed_field(m, "Dropout seed", at(m.draft, "dropout"));
  error_line(m, "dropout");
}

// A collapsing header for a rarer group; it opens by itself when the reason a
// draft was refused concerns one of its fields, so the sentence is never hidden.
bool group_header(const AppModel& m, const char* title, bool open_by_default,
                  std::initializer_list<const char*> fields) {
  for (const char* f : fields)
    if (!m.error.empty() && m.error_field.rfind(f, 0) == 0) ImGui::SetNextItemOpen(true);
  bool open = ImGui::CollapsingHeader(title, open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
  item_register(title);
  return open;
}

// Scaling and softmax starts open when the screen has room for it beside a
// readable Inspector (1440×900 and up); on a 1280×720 one it starts closed.
bool scaling_open_by_default() { return ImGui::GetMainViewport()->Size.y >= 820.0f; }

void scaling_group(AppModel& m) {
  if (!group_header(m, "Scaling and softmax", scaling_open_by_default(), {"scale", "temperature", "mask_fill"}))
    return;
  json& d = m.draft;
  static const char* kScale[] = {"head_dim", "d_out", "none"};
  choice_field(m, "Scale", d, "scale", "head_dim", kScale, 3,
               "divide scores by sqrt(head_dim) (standard), sqrt(d_out) (tutorial 000's MultiHeadAttention) or 1");
  double temp = d.value("temperature", 1.0);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  if (ImGui::InputDouble("Temperature", &temp, 0.1, 0.5, "%.3g")) {
    d["temperature"] = temp;
    m.apply_draft();
  }
  item_register("Temperature");
  error_line(m, "temperature");
  error_line(m, "scale");
  std::string fill_mode = d.contains("mask_fill") && d["mask_fill"].is_number() ? "number" : "-inf";
  static const char* kFill[] = {"-inf", "number"};
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (combo("Mask fill", &fill_mode, kFill, 2)) {
    d["mask_fill"] = fill_mode == "-inf" ? json("-inf") : json(-1e9);
    m.apply_draft();
  }
  if (fill_mode == "number") {
    ImGui::SameLine();
    double fill = d["mask_fill"].get<double>();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::InputDouble("##fill", &fill, 0, 0, "%.3g")) {
      d["mask_fill"] = fill;
      m.apply_draft();
    }
    item_register("Mask fill value");
  }
  error_line(m, "mask_fill");
  checkbox(m, "Safe softmax", d, "safe_softmax", false);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("A row whose every key is masked with -inf gives NaN in torch.softmax;\n"
                      "safe softmax (newer scaled_dot_product_attention) gives zeros instead.");
}

void embedding_group(AppModel& m) {
  if (!group_header(m, "Embedding", false, {"embedding", "positional"})) return;
  json& d = m.draft;
  json& emb = at(d, "embedding");
  if (emb.contains("values")) {
    ImGui::TextDisabled("explicit values (edited cell by cell)");
    ImGui::SameLine();
    if (ImGui::SmallButton("back to seeded")) {
      emb = {{"init", "torch_randn"}, {"seed", 123}};
      m.apply_draft();
    }
  } else {
    seed_field(m, "Embedding seed", emb);
  }
  error_line(m, "embedding");
  static const char* kPos[] = {"none", "sinusoidal"};
  choice_field(m, "Positional", m.draft, "positional", "none", kPos, 2);
  error_line(m, "positional");
}

void weights_group(AppModel& m) {
  if (!group_header(m, "Weights", false, {"weights", "qkv_bias", "out_proj", "out_bias"})) return;
  json& d = m.draft;
  json& w = at(d, "weights");
  if (w.contains("W_q")) {
    ImGui::TextDisabled("explicit values");
    ImGui::SameLine();
    if (ImGui::SmallButton("back to seeded##w")) {
      w = {{"init", "torch_linear"}, {"seed", 123}, {"layout", "fused"}};
      m.apply_draft();
    }
  } else {
    static const char* kInit[] = {"torch_linear", "torch_rand"};
    choice_field(m, "Init", w, "init", "torch_rand", kInit, 2,
                 "torch_linear: nn.Linear(d_model, d_out) for query, key, value (then out_proj)\n"
                 "torch_rand: torch.rand(d_model, d_out) for W_q, W_k, W_v (tutorial 000 / 004 §2)");
    // A control that applied the draft replaced it: `w` no longer points into it.
    seed_field(m, "Weight seed", at(m.draft, "weights"));
    if (at(m.draft, "weights").value("init", std::string("torch_rand")) == "torch_linear") {
      static const char* kLayout[] = {"fused", "per_head"};
      choice_field(m, "Layout", at(m.draft, "weights"), "layout", "fused", kLayout, 2,
                   "fused: one nn.Linear per Q, K, V (MultiHeadAttention)\n"
                   "per_head: each head its own Q, K, V nn.Linear (MultiHeadAttentionWrapper)");
    }
  }
  error_line(m, "weights");
  checkbox(m, "QKV bias", m.draft, "qkv_bias", false);
  checkbox(m, "Output projection", m.draft, "out_proj", false);
  if (m.draft.value("out_proj", false)) {
    ImGui::SameLine();
    checkbox(m, "bias##out", m.draft, "out_bias", true);
  }
}

}  // namespace

void parameters_panel(AppModel& m) {
  if (!m.draft.is_object()) return;
  // Each group reads m.draft afresh: a control that applied the draft replaced it.
  tokens_group(m);
  shapes_group(m);
  mask_dropout_group(m);
  ImGui::Spacing();
  scaling_group(m);
  embedding_group(m);
  weights_group(m);
  error_line(m, "");
}

float parameters_height_wanted() {
  // Rows of the panel as it opens (one row of chips; the scaling group open on a
  // tall screen, the others closed), in the style's metrics at the app's font
  // size; the fonts may not be loaded yet when the first layout is made.
  const ImGuiStyle& st = ImGui::GetStyle();
  const float frame = kFontSize + 2 * st.FramePadding.y, row = frame + st.ItemSpacing.y;
  const float title = frame, text = kFontSize + st.ItemSpacing.y;
  const float chips = frame + 2 * st.FramePadding.y + st.ItemSpacing.y;
  const float section = text + 2 * st.ItemSpacing.y + st.SeparatorTextPadding.y * 2;
  const float scaling = row + (scaling_open_by_default() ? 4 * row : 0.0f);
  const float controls = text + row + chips + 2 * section + 3 * row + 4 * row + st.ItemSpacing.y +
                         scaling + 2 * row;
  return title + 2 * st.WindowPadding.y + controls;
}

}  // namespace attnviz::ui
