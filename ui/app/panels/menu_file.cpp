// menu_file.cpp: the File menu (Save state as .json or .safetensors, Open state…,
// Export PyTorch script, Export window as PNG), importing state files (JSON text, or
// .safetensors told by their first bytes), and passing their sentences to the app's
// notice line.
// Per-matrix exports live on the heatmaps (export.cpp, export_context_menu).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "attnviz/messages.h"
#include "attnviz/state.h"
#include "attnviz/state_file.h"
#include "attnviz/state_json.h"
#include "attnviz/torch_script.h"
#include "app/model/app_model.h"
#include "app/panels/export.h"
#include "app/panels/menu_file.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/model/share.h"
#include "app/text/status_text.h"
#include "app/panels/weights_import.h"
#include "imgui.h"
#include "imgui_stdlib.h"

namespace attnviz::ui {

using json = nlohmann::json;

namespace {

json refuse(AppModel& m, std::string sentence) {
  export_notify(m.exports, sentence, true);
  return {{"ok", false}, {"error", std::move(sentence)}};
}

std::string in_quotes(std::string_view name) {
  return "“" + (name.empty() ? std::string(tr("the file")) : std::string(name)) + "”";
}

std::string megabytes(double bytes, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, bytes / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

// --- [SECTION] Import

json import_state_too_large(AppModel& m, std::string_view name, double size) {
  return refuse(m, tr_args("{0} is {1} MB; a state file is at most {2} MB, so it was not opened.",
                           {in_quotes(name), megabytes(size, 1), megabytes(kMaxStateFileBytes, 0)}));
}

json import_state_text(AppModel& m, std::string_view name, std::string_view text) {
  // A .safetensors state file handed over as bytes: told by its first bytes, not its name.
  if (looks_like_safetensors(text, text.size())) return import_state_safetensors(m, name, text);
  if ((double)text.size() > kMaxStateFileBytes) return import_state_too_large(m, name, (double)text.size());
  // The engine's strict reader: never throws (1e400, 100k-deep nesting, bad UTF-8 all
  // come back as a sentence), so a hostile file cannot abort the page.
  json parsed;
  Status st = parse_json_text(text, &parsed);
  if (!st.ok) {
    // Not JSON at all (a syntax error) or JSON the engine will not read (a number too
    // large, bad UTF-8 in a field, nesting): told apart by the refusal's code.
    const bool syntax = st.code == msg_code(Msg::not_json) || st.code == msg_code(Msg::not_json_at) ||
                        st.code == msg_code(Msg::not_json_because);
    return refuse(m, tr_args(syntax ? N_("{0} is not a JSON file: {1}; it was not opened and the state is unchanged.")
                                    : N_("{0} cannot be read: {1}; it was not opened and the state is unchanged."),
                             {in_quotes(name), word_status(st)}));
  }
  if (!m.apply(parsed, Change::replace))  // the engine's validator says what is wrong; the last state stays
    return refuse(m, tr_args("{0} is not a valid attnviz state: {1}", {in_quotes(name), m.error}));
  m.view.pinned = CellRef{};  // a new scene, as when a preset is chosen
  export_notify(m.exports, tr_args("Opened {0}.", {in_quotes(name)}), false);
  return {{"ok", true}, {"error", ""}};
}

std::string state_binary_too_large_text(std::string_view name, double size) {
  return tr_args("{0} is {1} MB; a .safetensors state file is at most {2} MB, so it was not opened.",
                 {in_quotes(name), megabytes(size, 1), megabytes(kMaxStateBinaryBytes, 0)});
}

json import_state_safetensors(AppModel& m, std::string_view name, std::string_view bytes) {
  if ((double)bytes.size() > kMaxStateBinaryBytes) return refuse(m, state_binary_too_large_text(name, (double)bytes.size()));
  State state;
  const Status st = state_from_safetensors(bytes, &state);
  return import_state_read(m, name, st, std::move(state));
}

json import_state_read(AppModel& m, std::string_view name, const Status& st, State state) {
  if (!st.ok) return refuse(m, tr_args("{0} is not a valid attnviz state: {1}", {in_quotes(name), word_status(st)}));
  if (!m.apply(std::move(state), Change::replace))  // one undo step, like a paste
    return refuse(m, tr_args("{0} is not a valid attnviz state: {1}", {in_quotes(name), m.error}));
  m.view.pinned = CellRef{};  // a new scene, as when a preset is chosen
  export_notify(m.exports, tr_args("Opened {0}.", {in_quotes(name)}), false);
  return {{"ok", true}, {"error", ""}};
}

json import_state_path(AppModel& m, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string name = fs::path(path).filename().string();
  if (is_weights_file(name)) return weights_open_path(m, path);  // a checkpoint, or a .safetensors state file
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return refuse(m, tr_args("{0} is a folder; choose a .json state file.", {in_quotes(path)}));
  auto size = fs::file_size(path, ec);
  if (ec) return refuse(m, tr_args("{0} could not be read ({1}).", {in_quotes(path), ec.message()}));
  {
    // Whatever its name, a file that starts like a .safetensors file is read as one (the
    // weights import tells a state file from trained weights by its metadata).
    std::ifstream head(path, std::ios::binary);
    char first[9] = {};
    head.read(first, sizeof first);
    if (looks_like_safetensors(std::string_view(first, (size_t)head.gcount()), size)) return weights_open_path(m, path);
  }
  if ((double)size > kMaxStateFileBytes) return import_state_too_large(m, name, (double)size);
  std::ifstream f(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!f.good() && !f.eof()) return refuse(m, tr_args("{0} could not be read.", {in_quotes(path)}));
  return import_state_text(m, name, text);
}

json import_paths(AppModel& m, const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> weights;
  json last = {{"ok", true}, {"error", ""}};
  for (const std::string& path : paths) {
    if (is_weights_file(fs::path(path).filename().string())) weights.push_back(path);
    else last = import_state_path(m, path);
  }
  if (!weights.empty()) last = weights_open_paths(m, weights);  // together: W_q.npy, W_k.npy, W_v.npy
  return last;
}

// --- [SECTION] The File menu

std::string torch_script_in_language(const AppModel& m) {
  TorchScriptOptions o;
  o.language = lang_code(language());  // a language without a table gets English
  o.layer = m.engine.layer();           // captured layers: the layer shown, alone
  return torch_script(m.engine.state(), o);
}

void save_state_safetensors(AppModel& m) {
  // attnviz/state_file.h: the explicit matrices as float32 tensors, the rest as JSON metadata.
  export_request_file(m.exports, "attnviz-state.safetensors", "application/octet-stream",
                      state_to_safetensors(m.engine.state()));
}

void file_menu(AppModel& m) {
  bool open = ImGui::BeginMenu(L("File"));
  if (!open) return;
  const State& state = m.engine.state();
  const uint64_t values = state_explicit_values(state);  // a few multiplications: fine per frame
  if (menu_item("Save state (.json)")) {
    // The same JSON as window.attnviz.getState(), indented.
    export_request_file(m.exports, "attnviz-state.json", "application/json", m.engine.state_json().dump(2) + "\n");
  }
  if (ImGui::IsItemHovered()) {
    if (values > kBigJsonValues)
      ImGui::SetTooltip("%s", tr_args("About {0} MB of JSON text for this state's {1} explicit values: slow to save\n"
                                      "and to open. Save state (.safetensors) is the quick one.",
                                      {megabytes(kJsonBytesPerValue * (double)values, 0), std::to_string(values)})
                                  .c_str());
    else
      ImGui::SetTooltip("%s", tr("The state as JSON text (what a share link and window.attnviz.getState() hold)."));
  }
  if (menu_item("Save state (.safetensors)")) save_state_safetensors(m);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr_args("The state as a .safetensors file ({0} MB): its explicit matrices as float32\n"
                                    "tensors, the rest as JSON in the file's metadata. Quick to save and open at any\n"
                                    "size; PyTorch's safetensors (or a few lines of Python) reads it too.",
                                    {megabytes(4.0 * (double)values, 1)})
                                .c_str());
  if (menu_item("Open state…")) {
    if (m.exports.has_file_picker) {
      ExportRequest r;
      r.kind = ExportKind::open_picker;
      m.exports.pending.push_back(r);
    } else {
      m.widgets.open_state.request = true;  // desktop only: the path dialog
    }
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("A .json or .safetensors state file. Or drop it on the window."));
  weights_menu_item(m);  // weights_import.h: trained weights from .safetensors / .npz / .npy
  if (menu_item("Export PyTorch script")) {
    // The engine writes the script (attnviz/torch_script.h), its comments and headings
    // in the interface's language; the app only delivers it.
    export_request_file(m.exports, "attnviz.py", "text/x-python", torch_script_in_language(m));
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("attnviz.py: this state in PyTorch, as the tutorials write it. python3 attnviz.py prints\n"
                               "every stage; python3 attnviz.py --json prints them in attnviz-cli's report format."));
  ImGui::Separator();
  if (menu_item("Export window as PNG (2×)")) export_request_png(m.exports, "", "attnviz-window.png", 2.0f);
  ImGui::TextDisabled("%s", tr("One matrix: right-click its heatmap"));
  ImGui::EndMenu();
}

// --- [SECTION] Notice line and the desktop's Open dialog

static void open_dialog(AppModel& m) {
  PathDialogState& dialog = m.widgets.open_state;
  if (dialog.request) {
    ImGui::OpenPopup(L("Open state"));
    dialog.request = false;
  }
  if (!ImGui::BeginPopupModal(L("Open state"), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted(tr("Path of a .json or .safetensors state file (or drop the file on the window):"));
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(420);
  bool enter = ImGui::InputText("##path", &dialog.path, ImGuiInputTextFlags_EnterReturnsTrue);
  item_register("Open state path");
  bool ok = ImGui::Button(L("Open")) || enter;
  ImGui::SameLine();
  if (ImGui::Button(L("Cancel")) || ImGui::IsKeyPressed(ImGuiKey_Escape)) ImGui::CloseCurrentPopup();
  if (ok && !dialog.path.empty() && import_state_path(m, dialog.path).value("ok", false)) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

void export_overlay(AppModel& m) {
  open_dialog(m);
  weights_overlay(m);
  ExportQueue& q = m.exports;
  if (q.notice_shown != q.notice_seq) {
    q.notice_shown = q.notice_seq;
    notify(m, q.notice, q.notice_error);  // drawn (next frame) under the menu bar
  }
}

}  // namespace attnviz::ui
