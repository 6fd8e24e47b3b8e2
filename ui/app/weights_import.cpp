// weights_import.cpp: File → Open weights…, the mapping dialog, and reading the
// chosen tensors (weights_import.h).
#include "app/weights_import.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "attnviz/weights_map.h"
#include "app/app_model.h"
#include "app/i18n.h"
#include "app/item_registry.h"
#include "app/weights_text.h"
#include "imgui.h"
#include "imgui_stdlib.h"

namespace attnviz::ui {

namespace {

using namespace attnviz::weights;

enum class Phase { idle, scanning, choosing, loading };
const char* phase_name(Phase p) {
  switch (p) {
    case Phase::scanning: return "scanning";
    case Phase::choosing: return "choosing";
    case Phase::loading: return "loading";
    default: return "idle";
  }
}

struct Import {
  Phase phase = Phase::idle;
  std::string name;  // the file's name as shown
  std::string path;  // desktop: the file on disk
  uint64_t size = 0;
  std::unique_ptr<Scanner> scanner;
  Format format = Format::unknown;
  std::vector<TensorInfo> tensors;
  std::vector<int> order;  // tensors in natural name order, for the list
  std::vector<std::string> layers;
  int layer = 0;
  Mapping mapping;
  int heads = 0;  // 0: not chosen yet
  int current_heads = 1;
  // Loading the chosen tensors
  std::vector<int> to_read;
  size_t reading = 0;
  std::vector<std::vector<float>> data;
  // Results for the frame to act on (weights_overlay)
  bool open_dialog = false;
  bool apply_now = false;
  bool notice_pending = false;
  std::string notice;
  std::string dialog_error;  // shown in the dialog (a tensor that would not convert)
};

Import g;
struct PathDialog {
  bool request = false;
  std::string path;
} g_path;

std::string quote_name(std::string_view s) { return "“" + std::string(s) + "”"; }

void fail_with(const Error& e) {
  g.notice = tr_args("{0} was not opened: {1} The state is unchanged.", {quote_name(g.name), weights_sentence(e)});
  g.notice_pending = true;
  g.phase = Phase::idle;
  g.scanner.reset();
  g.open_dialog = false;
}


void propose_heads() {
  MappedShapes s;
  g.heads = check_mapping(g.mapping, g.tensors, &s).ok() ? default_heads(g.current_heads, s.d_out) : 0;
}

void choose_layer(int k) {
  g.layer = k;
  g.mapping = propose_mapping(g.tensors, k < static_cast<int>(g.layers.size()) ? g.layers[k] : std::string());
  propose_heads();
}

void scanned() {
  if (!g.scanner->error().ok()) return fail_with(g.scanner->error());
  g.format = g.scanner->format();
  g.tensors = g.scanner->tensors();
  g.scanner.reset();
  g.order.resize(g.tensors.size());
  for (size_t i = 0; i < g.order.size(); ++i) g.order[i] = static_cast<int>(i);
  std::stable_sort(g.order.begin(), g.order.end(), [](int a, int b) { return weights::natural_less(g.tensors[a].name, g.tensors[b].name); });
  g.layers = layer_prefixes(g.tensors);
  choose_layer(0);
  g.dialog_error.clear();
  g.phase = Phase::choosing;
  g.open_dialog = true;
}

void loaded() {
  g.apply_now = true;  // weights_overlay applies it in the frame
}

// --- Desktop reading: seeks into the file.
bool read_file(uint64_t offset, uint64_t length, std::string* out) {
  std::ifstream f(std::filesystem::u8path(g.path), std::ios::binary);
  if (!f) return false;
  f.seekg(static_cast<std::streamoff>(offset));
  out->assign(length, '\0');
  f.read(out->data(), static_cast<std::streamsize>(length));
  out->resize(static_cast<size_t>(f.gcount()));
  return true;
}

void pump_sync() {
  ByteRange r;
  std::string bytes;
  while (weights_next(&r)) {
    bytes.clear();
    if (read_range(r, read_file, weights_hooks().inflate, &bytes)) weights_feed(bytes);
    else weights_fail();
  }
}

void start_loading() {
  g.to_read = mapping_tensors(g.mapping);
  g.reading = 0;
  g.data.assign(g.tensors.size(), {});
  g.dialog_error.clear();
  g.phase = Phase::loading;
  if (!g.path.empty()) pump_sync();
  else if (weights_hooks().pump) weights_hooks().pump();
}

std::string summary(const MappedShapes& s) {
  const char* bias = s.qkv_bias ? N_("Q/K/V biases") : N_("no Q/K/V biases");
  const char* proj = s.out_proj ? (s.out_bias ? N_("output projection with bias") : N_("output projection without bias"))
                                : N_("no output projection");
  return tr_args("d_model {0}, d_out {1}, {2}, {3}",
                 {std::to_string(s.d_model), std::to_string(s.d_out), tr(bias), tr(proj)});
}

std::string tensor_label(int i) {
  if (i < 0) return tr("(none)");
  const TensorInfo& t = g.tensors[i];
  return t.name + "  " + shape_text(t.shape);
}

const char* const kParts[] = {N_("whole"), N_("1st third"), N_("2nd third"), N_("3rd third")};

void apply_loaded(AppModel& m) {
  g.apply_now = false;
  State st;
  const Error e = apply_mapping(g.mapping, g.tensors, g.data, m.engine.typed_state(), g.heads, &st);
  if (!e.ok()) {
    g.dialog_error = weights_sentence(e);
    g.phase = Phase::choosing;
    return;
  }
  if (!m.apply(std::move(st), Change::replace)) {
    g.dialog_error = weights_sentence(Error::make(Problem::state_refused, {m.error}));
    g.phase = Phase::choosing;
    return;
  }
  m.pinned = CellRef{};
  const std::string from = g.mapping.prefix.empty() ? quote_name(g.name)
                                                    : tr_args("{0} (layer {1})", {quote_name(g.name), g.mapping.prefix});
  const State& now = m.engine.typed_state();
  const std::string heads =
      tr_args(now.num_heads == 1 ? N_("{0} head") : N_("{0} heads"), {std::to_string(now.num_heads)});
  export_notify(m.exports,
                tr_args("Weights from {0}: d_model {1}, d_out {2}, {3}. Ctrl+Z goes back.",
                        {from, std::to_string(now.d_model), std::to_string(now.d_out), heads}),
                false);
  g.phase = Phase::idle;
  g.data.clear();
}

void role_row(Role role) {
  RoleChoice& c = g.mapping[role];
  const char* rn = role_name(role);
  const bool bias = role_is_bias(role);
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(rn);
  ImGui::TableNextColumn();
  ImGui::SetNextItemWidth(-FLT_MIN);
  const std::string combo_id = std::string("##tensor ") + rn;
  if (ImGui::BeginCombo(combo_id.c_str(), tensor_label(c.tensor).c_str())) {
    if (ImGui::Selectable(tr("(none)"), c.tensor < 0)) c = RoleChoice{};
    for (int i : g.order) {
      const TensorInfo& t = g.tensors[i];
      if (t.shape.size() != (bias ? 1u : 2u)) continue;  // only what can be this role
      ImGui::PushID(i);
      if (ImGui::Selectable(tensor_label(i).c_str(), c.tensor == i)) {
        c.tensor = i;
        c.part = -1;
        // A guess the learner can untick: nn.Linear's "….weight" is out × in; Conv1D's c_attn/c_proj are not.
        const bool conv = t.name.find("c_attn") != std::string::npos || t.name.find("c_proj") != std::string::npos;
        c.transpose = !bias && !conv && (t.name.size() >= 6 && t.name.compare(t.name.size() - 6, 6, "weight") == 0);
      }
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  item_register(std::string(rn) + " tensor");
  ImGui::TableNextColumn();
  if (!bias && c.tensor >= 0) {
    const std::string id = std::string(tr("transpose")) + "###transpose " + rn;  // the same ID in every language
    ImGui::Checkbox(id.c_str(), &c.transpose);
    item_register(std::string(rn) + " transpose");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", tr("nn.Linear stores its weight out × in: transpose it to x·W.\n"
                                 "GPT-2's Conv1D and bare nn.Parameter(d_in, d_out) are x·W already."));
  }
  ImGui::TableNextColumn();
  if (c.tensor >= 0) {
    // As wide as the longest choice in the interface's language.
    const char* parts[4];
    float widest = 0;
    for (int p = 0; p < 4; ++p) {
      parts[p] = tr(kParts[p]);
      widest = std::max(widest, ImGui::CalcTextSize(parts[p]).x);
    }
    ImGui::SetNextItemWidth(widest + ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.x * 2);
    int k = c.part + 1;
    const std::string id = std::string("##part ") + rn;
    if (ImGui::Combo(id.c_str(), &k, parts, 4)) c.part = k - 1;
    item_register(std::string(rn) + " part");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", tr("A fused tensor (in_proj_weight, qkv, c_attn) holds Q, K and V in thirds along its "
                                 "output axis."));
  }
}

// The mapping, role by role: which tensor (and which third of it, transposed or not).
void roles_table() {
  if (!ImGui::BeginTable("weights roles", 4, ImGuiTableFlags_SizingFixedFit)) return;
  // Widths from the translated words (and the part combo's widest choice).
  const float pad = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x * 2;
  float part_w = 0;
  for (const char* p : kParts) part_w = std::max(part_w, ImGui::CalcTextSize(tr(p)).x);
  ImGui::TableSetupColumn(tr("role"), ImGuiTableColumnFlags_WidthFixed,
                          std::max(40.0f, ImGui::CalcTextSize(tr("role")).x));
  ImGui::TableSetupColumn(tr("tensor"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn(tr("transpose"), ImGuiTableColumnFlags_WidthFixed,
                          std::max(100.0f, ImGui::CalcTextSize(tr("transpose")).x + pad));
  ImGui::TableSetupColumn(tr("part"), ImGuiTableColumnFlags_WidthFixed,
                          std::max(115.0f, part_w + pad + ImGui::GetStyle().FramePadding.x * 2));
  for (int r = 0; r < kRoleCount; ++r) role_row(static_cast<Role>(r));
  ImGui::EndTable();
}

void weights_dialog(AppModel& m) {
  if (g.open_dialog) {
    ImGui::OpenPopup(L("Open weights"));
    g.open_dialog = false;
  }
  if (g.phase != Phase::choosing && g.phase != Phase::loading) return;
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(std::min(820.0f, ds.x - 40), std::min(600.0f, ds.y - 40)), ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal(L("Open weights"), nullptr)) {
    g.phase = Phase::idle;  // closed some other way
    return;
  }
  {
    const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    item_registry().add("Open weights dialog", at, ImVec2(at.x + size.x, at.y + size.y));
  }
  ImGui::Text(tr("%s: %s, %d tensors"), quote_name(g.name).c_str(), format_name(g.format),
              static_cast<int>(g.tensors.size()));
  if (g.layers.size() > 1) {
    ImGui::SetNextItemWidth(360);
    if (ImGui::BeginCombo(L("Layer"), g.layers[g.layer].c_str())) {
      for (int k = 0; k < static_cast<int>(g.layers.size()); ++k) {
        ImGui::PushID(k);
        if (ImGui::Selectable(g.layers[k].c_str(), k == g.layer)) choose_layer(k);
        item_register("Layer: " + g.layers[k]);  // only while the list is open
        ImGui::PopID();
      }
      ImGui::EndCombo();
    }
    item_register("Layer");
  }
  // The tensors, with what each is used as.
  const float list_h = std::max(120.0f, ImGui::GetContentRegionAvail().y * 0.4f);
  if (ImGui::BeginTable("weights tensors", 4,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable,
                        ImVec2(0, list_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    // Names and roles share what the fixed columns leave: a fused in_proj_weight is
    // "W_q (1/3), W_k (2/3), W_v (3/3)", wider than any fixed width would be.
    ImGui::TableSetupColumn(tr("tensor"), ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableSetupColumn(tr("shape"), ImGuiTableColumnFlags_WidthFixed, 120);
    ImGui::TableSetupColumn(NO_TR("dtype"), ImGuiTableColumnFlags_WidthFixed, 150);
    ImGui::TableSetupColumn(tr("used as"), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(g.order.size()));
    while (clip.Step()) {
      for (int row = clip.DisplayStart; row < clip.DisplayEnd; ++row) {
        const int i = g.order[row];
        const TensorInfo& t = g.tensors[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        const bool unsupported = t.type == DType::unsupported;
        if (unsupported) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextUnformatted(t.name.c_str());
        if (ImGui::IsItemHovered() && ImGui::CalcTextSize(t.name.c_str()).x > ImGui::GetContentRegionAvail().x)
          ImGui::SetTooltip("%s", t.name.c_str());  // a long layer path the column cuts
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(shape_text(t.shape).c_str());
        ImGui::TableNextColumn();
        if (unsupported) ImGui::Text(tr("%s (not read)"), t.dtype.c_str());
        else if (t.type == DType::f32) ImGui::TextUnformatted(NO_TR("float32"));
        else ImGui::Text(NO_TR("%s → float32"), dtype_label(t.type));
        ImGui::TableNextColumn();
        std::string used;
        for (int r = 0; r < kRoleCount; ++r) {
          const RoleChoice& c = g.mapping.roles[r];
          if (c.tensor != i) continue;
          used += (used.empty() ? "" : ", ") + std::string(role_name(static_cast<Role>(r)));
          if (c.part >= 0) used += " (" + std::to_string(c.part + 1) + "/3)";
        }
        ImGui::TextUnformatted(used.c_str());
        if (ImGui::IsItemHovered() && ImGui::CalcTextSize(used.c_str()).x > ImGui::GetContentRegionAvail().x)
          ImGui::SetTooltip("%s", used.c_str());  // the column is narrower than the roles
        if (unsupported) ImGui::PopStyleColor();
      }
    }
    ImGui::EndTable();
  }
  item_register("weights tensors");
  // The mapping, role by role.
  ImGui::Spacing();
  ImGui::TextUnformatted(g.mapping.family.empty() ? tr("No known names: choose the tensors.")
                                                  : tr("Proposed from the names; correct anything:"));
  roles_table();
  MappedShapes s;
  const Error check = check_mapping(g.mapping, g.tensors, &s);
  if (check.ok()) {
    ImGui::TextUnformatted(summary(s).c_str());
    const std::vector<int> choices = head_choices(s.d_out);
    if (g.heads != 0 && s.d_out % g.heads != 0) g.heads = default_heads(g.current_heads, s.d_out);
    ImGui::SetNextItemWidth(120);
    const std::string preview = g.heads ? std::to_string(g.heads) : tr("choose");
    if (ImGui::BeginCombo(L("Number of heads##weights"), preview.c_str())) {
      for (int h : choices) {
        if (ImGui::Selectable(std::to_string(h).c_str(), h == g.heads)) g.heads = h;
      }
      ImGui::EndCombo();
    }
    item_register("Weights heads");
    ImGui::SameLine();
    if (g.heads == 0) {
      ImGui::TextWrapped(tr("The current %d heads do not divide d_out %d: choose how many heads."), g.current_heads,
                         s.d_out);
    } else {
      ImGui::TextDisabled(NO_TR("head_dim %d"), s.d_out / g.heads);
    }
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("%s", weights_sentence(check).c_str());
    ImGui::PopStyleColor();
  }
  if (!g.dialog_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("%s", g.dialog_error.c_str());
    ImGui::PopStyleColor();
    item_register("weights error");
  }
  const bool can = check.ok() && g.heads > 0 && g.phase == Phase::choosing;
  ImGui::BeginDisabled(!can);
  const bool apply = ImGui::Button(L("Apply weights"));
  item_register("Apply weights");
  ImGui::EndDisabled();
  ImGui::SameLine();
  const bool cancel =
      ImGui::Button(L("Cancel##weights")) || (ImGui::IsKeyPressed(ImGuiKey_Escape) && g.phase == Phase::choosing);
  item_register("Cancel weights");
  if (g.phase == Phase::loading) {
    ImGui::SameLine();
    ImGui::Text(tr("Reading %d of %d tensors…"), static_cast<int>(g.reading), static_cast<int>(g.to_read.size()));
  }
  if (apply && can) start_loading();
  if (g.apply_now) apply_loaded(m);
  if (cancel) g.phase = Phase::idle;
  if (g.phase == Phase::idle) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

void path_dialog(AppModel& m) {
  if (g_path.request) {
    ImGui::OpenPopup(L("Open weights file"));
    g_path.request = false;
  }
  if (!ImGui::BeginPopupModal(L("Open weights file"), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted(tr("Path of a .safetensors, .npz or .npy file (or drop the file on the window):"));
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(420);
  const bool enter = ImGui::InputText("##weights path", &g_path.path, ImGuiInputTextFlags_EnterReturnsTrue);
  item_register("Open weights path");
  const bool ok = ImGui::Button(L("Open##weights path")) || enter;
  ImGui::SameLine();
  if (ImGui::Button(L("Cancel##weights path")) || ImGui::IsKeyPressed(ImGuiKey_Escape)) ImGui::CloseCurrentPopup();
  if (ok && !g_path.path.empty()) {
    ImGui::CloseCurrentPopup();
    weights_open_path(m, g_path.path);
  }
  ImGui::EndPopup();
}

}  // namespace

// A function-local static: the platform may set hooks from a static initializer.
WeightsHooks& weights_hooks() {
  static WeightsHooks hooks;
  return hooks;
}

bool is_weights_file(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto ends = [&](std::string_view s) { return lower.size() >= s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0; };
  return ends(".safetensors") || ends(".npz") || ends(".npy");
}

void weights_begin(std::string name, uint64_t size) {
  g = Import{};
  g.name = std::move(name);
  g.size = size;
  g.phase = Phase::scanning;
  g.scanner = std::make_unique<Scanner>(size, g.name);
  if (g.scanner->finished()) scanned();
}

bool weights_next(ByteRange* want) {
  if (g.phase == Phase::scanning && g.scanner) return g.scanner->next(want);
  if (g.phase == Phase::loading && g.reading < g.to_read.size()) {
    *want = g.tensors[g.to_read[g.reading]].data;
    return true;
  }
  return false;
}

void weights_feed(std::string_view bytes) {
  if (g.phase == Phase::scanning && g.scanner) {
    g.scanner->feed(bytes);
    if (g.scanner->finished()) scanned();
    return;
  }
  if (g.phase != Phase::loading || g.reading >= g.to_read.size()) return;
  const int i = g.to_read[g.reading];
  const Error e = to_float32(g.tensors[i], bytes, &g.data[i]);
  if (!e.ok()) {
    g.dialog_error = weights_sentence(e);
    g.phase = Phase::choosing;
    return;
  }
  if (++g.reading == g.to_read.size()) loaded();
}

void weights_fail() {
  if (g.phase == Phase::scanning && g.scanner) {
    g.scanner->fail_read();
    scanned();
    return;
  }
  if (g.phase == Phase::loading && g.reading < g.to_read.size()) {
    const TensorInfo& t = g.tensors[g.to_read[g.reading]];
    g.dialog_error = weights_sentence(t.data.inflate ? Error::make(Problem::zip_inflate_failed, {t.name + ".npy"})
                                                     : Error::make(Problem::read_failed, {t.name}));
    g.phase = Phase::choosing;
  }
}

nlohmann::json weights_open_path(AppModel& m, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p = fs::u8path(path);
  const uint64_t size = fs::is_regular_file(p, ec) ? fs::file_size(p, ec) : 0;
  if (ec || !fs::is_regular_file(p, ec)) {
    const std::string s = ec ? tr_args("{0} could not be read ({1}).", {quote_name(path), ec.message()})
                             : tr_args("{0} could not be read: it is not a file.", {quote_name(path)});
    export_notify(m.exports, s, true);
    return {{"ok", false}, {"error", s}};
  }
  weights_begin(p.filename().u8string(), size);
  g.path = path;
  g.current_heads = m.engine.typed_state().num_heads;
  pump_sync();
  if (g.notice_pending) {
    g.notice_pending = false;
    export_notify(m.exports, g.notice, true);
    return {{"ok", false}, {"error", g.notice}};
  }
  return {{"ok", true}, {"error", ""}};
}

void weights_menu_item(AppModel& m) {
  if (menu_item("Open weights…")) {
    if (!(weights_hooks().open_picker && weights_hooks().open_picker())) g_path.request = true;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s", tr("Trained W_q, W_k, W_v (and W_o, biases) from a .safetensors, .npz or .npy file.\n"
                               "Or drop the file on the window."));
  }
}

void weights_overlay(AppModel& m) {
  if (g.phase == Phase::choosing && g.open_dialog) {  // just listed: heads proposed from the current state
    g.current_heads = m.engine.typed_state().num_heads;
    propose_heads();
  }
  if (g.notice_pending) {
    g.notice_pending = false;
    export_notify(m.exports, g.notice, true);
  }
  path_dialog(m);
  weights_dialog(m);
}

nlohmann::json weights_dialog_info() {
  using nlohmann::json;
  json j = {{"open", g.phase == Phase::choosing || g.phase == Phase::loading}, {"phase", phase_name(g.phase)},
            {"file", g.name}, {"format", format_name(g.format)}};
  json ts = json::array();
  for (int i : g.order) {
    const TensorInfo& t = g.tensors[i];
    ts.push_back({{"name", t.name}, {"shape", t.shape}, {"dtype", t.dtype}, {"type", dtype_label(t.type)}});
  }
  j["tensors"] = ts;
  j["layers"] = g.layers;
  j["layer"] = g.layer;
  json roles = json::object();
  for (int r = 0; r < kRoleCount; ++r) {
    const RoleChoice& c = g.mapping.roles[r];
    roles[role_name(static_cast<Role>(r))] = {{"tensor", c.tensor >= 0 ? json(g.tensors[c.tensor].name) : json(nullptr)},
                                              {"part", c.part}, {"transpose", c.transpose}};
  }
  j["roles"] = roles;
  j["family"] = g.mapping.family;
  j["heads"] = g.heads;
  MappedShapes s;
  const Error e = check_mapping(g.mapping, g.tensors, &s);
  j["ok"] = e.ok();
  j["error"] = e.ok() ? g.dialog_error : weights_sentence(e);
  j["d_model"] = s.d_model;
  j["d_out"] = s.d_out;
  return j;
}

}  // namespace attnviz::ui
