// weights_import.cpp: File → Open weights…, the mapping dialog, and reading the
// chosen tensors (weights_import.h).
//
// [SECTION] index
//   Import      the import's progress (Import g): files listed, scanned, read; its
//               phases and the sentences of its failures
//   Reading     desktop reading (seeks into the file), the loading of the chosen tensors
//   Dialog      applying the tensors read, the mapping role by role, the tensors
//               table, heads and K/V heads, the dialog itself and the desktop's path dialog
//   Platform    the calls the browser and the desktop make (weights_begin_files,
//               weights_next, weights_feed, weights_fail), opening paths, the menu
//               item, the overlay and the test API's dialog info
#include "app/panels/weights_import.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "attnviz/state_file.h"
#include "attnviz/weights_map.h"
#include "app/panels/export.h"
#include "app/model/app_model.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/text/weights_text.h"
#include "imgui.h"
#include "imgui_stdlib.h"

namespace attnviz::ui {

namespace {

using namespace attnviz::weights;

// reading_state: the file scanned is an attnviz state file (its metadata holds a
// state, attnviz/state_file.h), read whole and handed to the state import.
enum class Phase { idle, scanning, choosing, loading, reading_state };
// [SECTION] Import -------------------------------------------------------------------

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::scanning: return "scanning";
    case Phase::choosing: return "choosing";
    case Phase::loading: return "loading";
    case Phase::reading_state: return "reading_state";
    default: return "idle";
  }
}

struct File {
  std::string name;  // as shown
  std::string path;  // desktop: the file on disk
  uint64_t size = 0;
  Format format = Format::unknown;
};

struct Import {
  Phase phase = Phase::idle;
  std::vector<File> files;  // one import: a checkpoint, or several .npy files chosen together
  size_t file = 0;          // the file being scanned
  int serial = 0;           // a fresh tensors table (its column widths) for each import
  float rest_h = 0;         // the dialog's height below the tensors table, in the last frame
  bool clear_notice = false;  // a new import: the last file's error under the menu bar goes
  std::unique_ptr<Scanner> scanner;
  std::vector<TensorInfo> tensors;
  std::vector<int> tensor_file;  // the file each tensor is in
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
  // A state file, read (reading_state): applied by the next weights_overlay (or at once
  // on the desktop) through import_state_read.
  bool state_ready = false;
  Status state_status;
  State state;
};

Import g;
int g_serial = 0;

std::string quote_name(std::string_view s) { return "“" + std::string(s) + "”"; }

// The files' names, quoted: “W_q.npy”, “W_k.npy”, “W_v.npy”.
std::string quoted_names() {
  std::string out;
  for (const File& f : g.files) out += (out.empty() ? "" : ", ") + quote_name(f.name);
  return out;
}

// Their formats, each once: "npy", "npz, safetensors".
std::string formats_text() {
  std::string out;
  for (size_t k = 0; k < g.files.size(); ++k) {
    bool seen = false;
    for (size_t j = 0; j < k; ++j) seen = seen || g.files[j].format == g.files[k].format;
    if (!seen) out += (out.empty() ? "" : ", ") + std::string(format_name(g.files[k].format));
  }
  return out;
}

void fail_with(const Error& e) {
  const std::string name = g.file < g.files.size() ? g.files[g.file].name : std::string();
  g.notice = tr_args("{0} was not opened: {1} The state is unchanged.", {quote_name(name), weights_sentence(e)});
  g.notice_pending = true;
  g.phase = Phase::idle;
  g.scanner.reset();
  g.open_dialog = false;
}

// A new import: the previous file's error no longer stands under the menu bar (over the dialog).
void clear_error_notice(AppModel& m) {
  g.clear_notice = false;
  if (m.notice.error) m.notice.text.clear();
  if (m.exports.notice_error) m.exports.notice_shown = m.exports.notice_seq;  // one still queued
}

void propose_heads() {
  MappedShapes s;
  g.heads = check_mapping(g.mapping, g.tensors, &s).ok() ? default_heads(g.current_heads, s.d_out, s.kv_dim) : 0;
}

void choose_layer(int k) {
  g.layer = k;
  g.mapping = propose_mapping(g.tensors, k < static_cast<int>(g.layers.size()) ? g.layers[k] : std::string());
  propose_heads();
}

// Every file listed: the dialog.
void scanned() {
  g.order.resize(g.tensors.size());
  for (size_t i = 0; i < g.order.size(); ++i) g.order[i] = static_cast<int>(i);
  std::stable_sort(g.order.begin(), g.order.end(), [](int a, int b) { return weights::natural_less(g.tensors[a].name, g.tensors[b].name); });
  g.layers = layer_prefixes(g.tensors);
  choose_layer(0);
  g.dialog_error.clear();
  g.phase = Phase::choosing;
  g.open_dialog = true;
}

void start_scan(size_t k);

// The one file opened is an attnviz state file: read it whole (the state import's).
void start_state_read() {
  g.scanner.reset();
  if ((double)g.files[0].size > kMaxStateBinaryBytes) {
    g.notice = state_binary_too_large_text(g.files[0].name, (double)g.files[0].size);
    g.notice_pending = true;
    g.phase = Phase::idle;
    return;
  }
  g.phase = Phase::reading_state;
}

// One file listed: its tensors join the list (named by the file's stem for an .npy;
// a name already taken gets the file's name beside it), then the next file.
void file_scanned() {
  // Told by its metadata, not its name (a seeded state's file holds no tensors at all).
  if (g.files.size() == 1 && scanner_found_state(*g.scanner)) return start_state_read();
  if (!g.scanner->error().ok()) return fail_with(g.scanner->error());
  File& f = g.files[g.file];
  f.format = g.scanner->format();
  for (TensorInfo t : g.scanner->tensors()) {
    const bool taken = std::any_of(g.tensors.begin(), g.tensors.end(), [&](const TensorInfo& o) { return o.name == t.name; });
    if (taken) t.name += " (" + f.name + ")";
    g.tensors.push_back(std::move(t));
    g.tensor_file.push_back(static_cast<int>(g.file));
  }
  g.scanner.reset();
  if (g.file + 1 < g.files.size()) return start_scan(g.file + 1);
  scanned();
}

void start_scan(size_t k) {
  g.file = k;
  g.scanner = std::make_unique<Scanner>(g.files[k].size, g.files[k].name);
  if (g.scanner->finished()) file_scanned();
}

void loaded() {
  g.apply_now = true;  // weights_overlay applies it in the frame
}

// [SECTION] Reading ------------------------------------------------------------------

// --- Desktop reading: seeks into the file.
size_t g_reading_file = 0;  // which of g.files read_file reads
bool read_file(uint64_t offset, uint64_t length, std::string* out) {
  if (g_reading_file >= g.files.size()) return false;
  std::ifstream f(std::filesystem::u8path(g.files[g_reading_file].path), std::ios::binary);
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
  int file = 0;
  while (weights_next(&r, &file)) {
    g_reading_file = static_cast<size_t>(file);
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
  if (!g.files.empty() && !g.files[0].path.empty()) pump_sync();
  else if (weights_hooks().pump) weights_hooks().pump();
}

// [SECTION] Dialog -------------------------------------------------------------------

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
  const Error e = apply_mapping(g.mapping, g.tensors, g.data, m.engine.state(), g.heads, &st);
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
  m.view.pinned = CellRef{};
  const std::string from = g.mapping.prefix.empty() ? quoted_names()
                                                    : tr_args("{0} (layer {1})", {quoted_names(), g.mapping.prefix});
  const State& now = m.engine.state();
  const int G = now.kv_heads();
  const std::string heads =
      G != now.num_heads ? tr_args(G == 1 ? N_("{0} heads, 1 K/V head") : N_("{0} heads, {1} K/V heads"),
                                   {std::to_string(now.num_heads), std::to_string(G)})
                         : tr_args(now.num_heads == 1 ? N_("{0} head") : N_("{0} heads"), {std::to_string(now.num_heads)});
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

// What each tensor is used as: "W_q (1/3), W_k (2/3), W_v (3/3)" for a fused one.
std::string used_as(int i) {
  std::string used;
  for (int r = 0; r < kRoleCount; ++r) {
    const RoleChoice& c = g.mapping.roles[r];
    if (c.tensor != i) continue;
    used += (used.empty() ? "" : ", ") + std::string(role_name(static_cast<Role>(r)));
    if (c.part >= 0) used += " (" + std::to_string(c.part + 1) + "/3)";
  }
  return used;
}

const char* dtype_text(const TensorInfo& t, char* buf, size_t n) {
  if (t.type == DType::unsupported) std::snprintf(buf, n, tr("%s (not read)"), t.dtype.c_str());
  else if (t.type == DType::f32) std::snprintf(buf, n, "%s", NO_TR("float32"));
  else std::snprintf(buf, n, NO_TR("%s → float32"), dtype_label(t.type));
  return buf;
}

// The tensors, with their shapes in the file, dtypes and what each is used as. The
// shape, dtype and "used as" columns are as wide as their widest text (a fused
// tensor's three roles included); the names take the rest and show a cut one whole
// on hover.
void tensors_table() {
  const float pad = ImGui::GetStyle().CellPadding.x * 2 + 2;
  char buf[96];
  float shape_w = ImGui::CalcTextSize(tr("shape in the file")).x, dtype_w = ImGui::CalcTextSize(NO_TR("dtype")).x;
  float used_w = ImGui::CalcTextSize(tr("used as")).x;
  for (const TensorInfo& t : g.tensors) {
    shape_w = std::max(shape_w, ImGui::CalcTextSize(shape_text(t.shape).c_str()).x);
    dtype_w = std::max(dtype_w, ImGui::CalcTextSize(dtype_text(t, buf, sizeof buf)).x);
  }
  for (const RoleChoice& c : g.mapping.roles)
    if (c.tensor >= 0) used_w = std::max(used_w, ImGui::CalcTextSize(used_as(c.tensor).c_str()).x);
  // As tall as its rows, and no taller than what the rest of the dialog (its height in
  // the last frame) leaves, so that Apply stays in view; at least a header and 3 rows.
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
  const float rows_h = row_h * static_cast<float>(g.tensors.size() + 1) + 4;
  const float room = g.rest_h > 0 ? ImGui::GetContentRegionAvail().y - g.rest_h : ImGui::GetContentRegionAvail().y * 0.4f;
  const float list_h = std::min(rows_h, std::max(row_h * 4 + 4, room));
  ImGui::PushID(g.serial);  // each import's own column widths
  if (ImGui::BeginTable("weights tensors", 4,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable,
                        ImVec2(0, list_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn(tr("tensor"), ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn(tr("shape in the file"), ImGuiTableColumnFlags_WidthFixed, shape_w + pad);
    ImGui::TableSetupColumn(NO_TR("dtype"), ImGuiTableColumnFlags_WidthFixed, dtype_w + pad);
    // The scroll bar, when the list is long, is taken from the last column.
    ImGui::TableSetupColumn(tr("used as"), ImGuiTableColumnFlags_WidthFixed, used_w + pad + ImGui::GetStyle().ScrollbarSize);
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
        ImGui::TextUnformatted(dtype_text(t, buf, sizeof buf));
        ImGui::TableNextColumn();
        const std::string used = used_as(i);
        ImGui::TextUnformatted(used.c_str());
        if (!used.empty()) item_register("used as " + t.name);  // its whole text, for the tests that it fits
        if (unsupported) ImGui::PopStyleColor();
      }
    }
    ImGui::EndTable();
  }
  ImGui::PopID();
  item_register("weights tensors");
}

// Registers a combo by its frame (`w` wide), not its label beside: a click at the
// centre of the frame opens it.
void register_combo(const char* label, float w) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  item_registry().add(label, a, ImVec2(std::min(b.x, a.x + w), b.y));
}

// A choice of heads for the dialog's combos: registered as "<what>: <n>".
bool count_item(const char* what, int n, bool selected, const char* shown) {
  const bool picked = ImGui::Selectable(shown, selected);
  item_register(std::string(what) + ": " + std::to_string(n));
  return picked;
}

// The K/V heads combo, beside the heads: choosing G chooses the heads G · d_out / kv_dim.
void kv_heads_combo(const MappedShapes& s, const std::vector<int>& choices) {
  const int G = g.heads ? kv_heads_for(g.heads, s.d_out, s.kv_dim) : 0;
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
  char shown[48];
  auto kv_shown = [&](int k) {  // as the Variants' K/V heads combo says it: "2 (GQA)", "1 (MQA)"
    std::snprintf(shown, sizeof shown, k == 1 ? tr("%d (MQA)") : tr("%d (GQA)"), k);
    return shown;
  };
  ImGui::SetNextItemWidth(120);
  if (ImGui::BeginCombo(L("K/V heads##weights"), G ? kv_shown(G) : tr("choose"))) {
    for (auto it = choices.rbegin(); it != choices.rend(); ++it) {  // most K/V heads first
      const int k = kv_heads_for(*it, s.d_out, s.kv_dim);
      if (count_item("Weights K/V heads", k, k == G, kv_shown(k))) g.heads = *it;
    }
    ImGui::EndCombo();
  }
  register_combo("Weights K/V heads", 120);
}

// Heads, and with K and V narrower than d_out (Llama's num_key_value_heads), the K/V
// heads they give: G = kv_dim / head_dim. Either can be chosen; the other follows,
// since the shapes fix heads / G = d_out / kv_dim.
void heads_rows(const MappedShapes& s) {
  const std::vector<int> choices = head_choices(s.d_out, s.kv_dim);
  if (g.heads != 0 && kv_heads_for(g.heads, s.d_out, s.kv_dim) == 0) g.heads = default_heads(g.current_heads, s.d_out, s.kv_dim);
  ImGui::SetNextItemWidth(120);
  const std::string preview = g.heads ? std::to_string(g.heads) : tr("choose");
  if (ImGui::BeginCombo(L("Number of heads##weights"), preview.c_str())) {
    for (int h : choices)
      if (count_item("Weights heads", h, h == g.heads, std::to_string(h).c_str())) g.heads = h;
    ImGui::EndCombo();
  }
  register_combo("Weights heads", 120);
  const bool gqa = s.kv_dim != s.d_out;
  if (g.heads) {
    ImGui::SameLine();
    ImGui::TextDisabled(NO_TR("head_dim %d"), s.d_out / g.heads);
  }
  if (gqa) kv_heads_combo(s, choices);
  if (g.heads == 0 && !gqa) {
    ImGui::TextWrapped(tr("The current %d heads do not divide d_out %d: choose how many heads."), g.current_heads, s.d_out);
  } else if (g.heads == 0) {
    ImGui::TextWrapped(tr("The current %d heads do not fit K and V %d wide (d_out %d): choose how many heads."),
                       g.current_heads, s.kv_dim, s.d_out);
  }
  if (!gqa) return;
  const int G = g.heads ? kv_heads_for(g.heads, s.d_out, s.kv_dim) : 0;
  const std::string why =
      G ? tr_args(G == 1 ? N_("W_k and W_v have {0} outputs (k_proj's and v_proj's rows in the file): {0} / head_dim {1} "
                             "= 1 K/V head for all {2} heads, multi-query attention (MQA).")
                         : N_("W_k and W_v have {0} outputs (k_proj's and v_proj's rows in the file): {0} / head_dim {1} "
                             "= {3} K/V heads, each shared by {4} query heads, grouped-query attention (GQA)."),
                  {std::to_string(s.kv_dim), std::to_string(s.d_out / g.heads), std::to_string(g.heads), std::to_string(G),
                   std::to_string(g.heads / G)})
        : tr_args("W_k and W_v have {0} outputs, fewer than W_q's {1}: grouped-query attention, num_kv_heads = {0} / "
                  "head_dim. Choose the heads or the K/V heads.",
                  {std::to_string(s.kv_dim), std::to_string(s.d_out)});
  ImGui::TextWrapped("%s", why.c_str());
  item_register("weights kv why");
}

// When what is open cannot fill W_q, W_k and W_v (one .npy, or two): what to do.
std::string fill_hint(const Error& check) {
  if (check.code != Problem::role_missing || check.values.empty() || check.values[0] == "W_o") return {};
  int matrices = 0;
  for (const TensorInfo& t : g.tensors) matrices += t.shape.size() == 2 && t.type != DType::unsupported;
  if (matrices >= 3) return {};
  return tr("To fill W_q, W_k and W_v, open them together as .npy files (and W_o if there is one: select them all in "
            "the file picker, or drop them at once), or open one .npz or .safetensors file that holds them all.");
}

void red_text(const std::string& text, const char* label) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
  item_register(label);
}

// Opens the dialog when an import was just listed. False while it is not open; an
// import whose dialog was closed some other way is over.
bool begin_dialog() {
  if (g.open_dialog) {
    ImGui::OpenPopup(L("Open weights"));
    g.open_dialog = false;
  }
  if (g.phase != Phase::choosing && g.phase != Phase::loading) return false;
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(std::min(820.0f, ds.x - 40), std::min(600.0f, ds.y - 40)), ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal(L("Open weights"), nullptr)) {
    g.phase = Phase::idle;  // closed some other way
    return false;
  }
  const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  item_registry().add("Open weights dialog", at, ImVec2(at.x + size.x, at.y + size.y));
  return true;
}

// A checkpoint with several layers: whose attention to read.
void layer_combo() {
  if (g.layers.size() <= 1) return;
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

// The mapping, role by role, then what it gives (the shapes and a choice of heads)
// or why it cannot be applied. Returns check_mapping's verdict.
Error mapping_rows() {
  ImGui::Spacing();
  ImGui::TextUnformatted(g.mapping.family.empty() ? tr("No known names: choose the tensors.")
                                                  : tr("Proposed from the names; correct anything:"));
  roles_table();
  MappedShapes s;
  const Error check = check_mapping(g.mapping, g.tensors, &s);
  if (check.ok()) {
    ImGui::TextUnformatted(summary(s).c_str());
    heads_rows(s);
  } else {
    red_text(weights_sentence(check), "weights check");
    const std::string hint = fill_hint(check);
    if (!hint.empty()) {
      ImGui::TextWrapped("%s", hint.c_str());
      item_register("weights hint");
    }
  }
  return check;
}

void weights_dialog(AppModel& m) {
  if (!begin_dialog()) return;
  ImGui::TextWrapped(tr("%s: %s, %d tensors"), quoted_names().c_str(), formats_text().c_str(),
                     static_cast<int>(g.tensors.size()));
  layer_combo();
  tensors_table();
  const float rest_top = ImGui::GetCursorPosY();
  const Error check = mapping_rows();
  if (!g.dialog_error.empty()) red_text(g.dialog_error, "weights error");
  const bool can = check.ok() && g.heads > 0 && g.phase == Phase::choosing;
  ImGui::BeginDisabled(!can);
  const bool apply = ImGui::Button(L("Apply weights"));
  ImGui::EndDisabled();
  ImGui::SameLine();
  const bool cancel =
      ImGui::Button(L("Cancel##weights")) || (ImGui::IsKeyPressed(ImGuiKey_Escape) && g.phase == Phase::choosing);
  item_register("Cancel weights");
  if (g.phase == Phase::loading) {
    ImGui::SameLine();
    ImGui::Text(tr("Reading %d of %d tensors…"), static_cast<int>(g.reading), static_cast<int>(g.to_read.size()));
  }
  g.rest_h = ImGui::GetCursorPosY() - rest_top;
  if (apply && can) start_loading();
  if (g.apply_now) apply_loaded(m);
  if (cancel) g.phase = Phase::idle;
  if (g.phase == Phase::idle) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

// Desktop only (no file picker): a path typed (m.widgets.open_weights).
void path_dialog(AppModel& m) {
  PathDialogState& dialog = m.widgets.open_weights;
  if (dialog.request) {
    ImGui::OpenPopup(L("Open weights file"));
    dialog.request = false;
  }
  if (!ImGui::BeginPopupModal(L("Open weights file"), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted(tr("Path of a .safetensors, .npz or .npy file (or drop the file on the window):"));
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(420);
  const bool enter = ImGui::InputText("##weights path", &dialog.path, ImGuiInputTextFlags_EnterReturnsTrue);
  item_register("Open weights path");
  const bool ok = ImGui::Button(L("Open##weights path")) || enter;
  ImGui::SameLine();
  if (ImGui::Button(L("Cancel##weights path")) || ImGui::IsKeyPressed(ImGuiKey_Escape)) ImGui::CloseCurrentPopup();
  if (ok && !dialog.path.empty()) {
    ImGui::CloseCurrentPopup();
    weights_open_path(m, dialog.path);
  }
  ImGui::EndPopup();
}

}  // namespace

// [SECTION] Platform -----------------------------------------------------------------

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

void weights_begin(std::string name, uint64_t size) { weights_begin_files({WeightsFile{std::move(name), size}}); }

void weights_begin_files(const std::vector<WeightsFile>& files) {
  g = Import{};
  g.serial = ++g_serial;
  g.clear_notice = true;
  for (const WeightsFile& f : files) g.files.push_back(File{f.name, std::string(), f.size, Format::unknown});
  if (g.files.empty()) return;
  g.phase = Phase::scanning;
  start_scan(0);
}

bool weights_next(ByteRange* want, int* file) {
  if (g.phase == Phase::scanning && g.scanner) {
    if (file) *file = static_cast<int>(g.file);
    return g.scanner->next(want);
  }
  if (g.phase == Phase::loading && g.reading < g.to_read.size()) {
    const int i = g.to_read[g.reading];
    *want = g.tensors[i].data;
    if (file) *file = g.tensor_file[i];
    return true;
  }
  if (g.phase == Phase::reading_state) {
    *want = ByteRange{0, g.files[0].size};
    if (file) *file = 0;
    return true;
  }
  return false;
}

void weights_feed(std::string_view bytes) {
  if (g.phase == Phase::reading_state) {
    // Read here, where the bytes are (no copy of a 100 MB file); applied with the app.
    g.state_status = state_from_safetensors(bytes, &g.state);
    g.state_ready = true;
    g.phase = Phase::idle;
    return;
  }
  if (g.phase == Phase::scanning && g.scanner) {
    g.scanner->feed(bytes);
    if (g.scanner->finished()) file_scanned();
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
  if (g.phase == Phase::reading_state) {
    g.notice = tr_args("{0} could not be read.", {quote_name(g.files[0].name)});
    g.notice_pending = true;
    g.phase = Phase::idle;
    return;
  }
  if (g.phase == Phase::scanning && g.scanner) {
    g.scanner->fail_read();
    file_scanned();
    return;
  }
  if (g.phase == Phase::loading && g.reading < g.to_read.size()) {
    const TensorInfo& t = g.tensors[g.to_read[g.reading]];
    g.dialog_error = weights_sentence(t.data.inflate ? Error::make(Problem::zip_inflate_failed, {t.name + ".npy"})
                                                     : Error::make(Problem::read_failed, {t.name}));
    g.phase = Phase::choosing;
  }
}

// A state file read whole (reading_state): to the state import, which applies it or
// says why not; the import is over.
static nlohmann::json take_state(AppModel& m) {
  g.state_ready = false;
  State state = std::move(g.state);
  g.state = State();
  const std::string name = g.files.empty() ? std::string() : g.files[0].name;
  return import_state_read(m, name, g.state_status, std::move(state));
}

nlohmann::json weights_open_path(AppModel& m, const std::string& path) { return weights_open_paths(m, {path}); }

nlohmann::json weights_open_paths(AppModel& m, const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<WeightsFile> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::path p = fs::u8path(path);
    const uint64_t size = fs::is_regular_file(p, ec) ? fs::file_size(p, ec) : 0;
    if (ec || !fs::is_regular_file(p, ec)) {
      const std::string s = ec ? tr_args("{0} could not be read ({1}).", {quote_name(path), ec.message()})
                               : tr_args("{0} could not be read: it is not a file.", {quote_name(path)});
      export_notify(m.exports, s, true);
      return {{"ok", false}, {"error", s}};
    }
    files.push_back(WeightsFile{p.filename().u8string(), size});
  }
  weights_begin_files(files);
  for (size_t k = 0; k < g.files.size(); ++k) g.files[k].path = paths[k];
  g.current_heads = m.engine.state().num_heads;
  clear_error_notice(m);
  pump_sync();
  if (g.state_ready) return take_state(m);
  if (g.notice_pending) {
    g.notice_pending = false;
    export_notify(m.exports, g.notice, true);
    return {{"ok", false}, {"error", g.notice}};
  }
  return {{"ok", true}, {"error", ""}};
}

void weights_menu_item(AppModel& m) {
  if (menu_item("Open weights…")) {
    if (!(weights_hooks().open_picker && weights_hooks().open_picker())) m.widgets.open_weights.request = true;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s", tr("Trained W_q, W_k, W_v (and W_o, biases) from a .safetensors or .npz file, or from\n"
                               ".npy files chosen together. Or drop the file (or the .npy files) on the window."));
  }
}

void weights_overlay(AppModel& m) {
  if (g.clear_notice) clear_error_notice(m);  // before this import's own sentence, if it has one
  if (g.state_ready) take_state(m);           // a state file, read by weights_feed
  if (g.phase == Phase::choosing && g.open_dialog) {  // just listed: heads proposed from the current state
    g.current_heads = m.engine.state().num_heads;
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
  json files = json::array();
  std::string names;
  for (const File& f : g.files) {
    files.push_back(f.name);
    names += (names.empty() ? "" : ", ") + f.name;
  }
  json j = {{"open", g.phase == Phase::choosing || g.phase == Phase::loading}, {"phase", phase_name(g.phase)},
            {"file", names}, {"files", files}, {"format", formats_text()}};
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
  j["hint"] = e.ok() ? std::string() : fill_hint(e);
  j["d_model"] = s.d_model;
  j["d_out"] = s.d_out;
  j["kv_dim"] = s.kv_dim;
  j["kv_heads"] = e.ok() && g.heads ? kv_heads_for(g.heads, s.d_out, s.kv_dim) : 0;
  return j;
}

}  // namespace attnviz::ui
