// menu_file.h: the File menu, and state files read back in (docs/ui.md, "Export and
// import"): JSON or .safetensors, from the browser's file picker, the desktop's
// dialog, a dropped file or the test API. Code: menu_file.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>  // the full header only where JSON is built or read (.cpp)

#include "attnviz/state.h"
#include "attnviz/status.h"

namespace attnviz::ui {

struct AppModel;

// --- Import

constexpr double kMaxStateFileBytes = 16.0 * 1024 * 1024;
// A .safetensors state file (attnviz/state_file.h) may be far bigger: the largest state
// the engine's limits allow, every matrix explicit, is about 330 MB.
constexpr double kMaxStateBinaryBytes = 512.0 * 1024 * 1024;
// Explicit values beyond which the state's JSON is slow to write and read: Save state
// (.json) then says that the .safetensors file is the quick one, and how big the JSON
// would be at kJsonBytesPerValue (Save state (.json) indents every number on a line
// of its own: GPT-2's 2.36 M values made 47.3 MB, 20 bytes each).
constexpr uint64_t kBigJsonValues = 250000;
constexpr double kJsonBytesPerValue = 20.0;

// Replaces the state with a state file's contents (undoable like any state change).
// On any problem the state stays, and the returned {"ok": false, "error": sentence}
// is also the app's notice. Files over kMaxStateFileBytes are refused unread:
nlohmann::json import_state_text(AppModel& m, std::string_view name, std::string_view text);
nlohmann::json import_state_too_large(AppModel& m, std::string_view name, double size);
// The sentence for a .safetensors state file over kMaxStateBinaryBytes (not read).
std::string state_binary_too_large_text(std::string_view name, double size);
// A .safetensors state file's bytes (attnviz/state_file.h), read and applied the same way.
nlohmann::json import_state_safetensors(AppModel& m, std::string_view name, std::string_view bytes);
// A state file already read (the weights import reads a .safetensors file that turns out
// to hold a state, weights_import.cpp): `st` is how reading it went; applied when ok.
nlohmann::json import_state_read(AppModel& m, std::string_view name, const Status& st, State state);
// The same for a file on disk (desktop: Open state…, a file dropped on the window): JSON,
// or a .safetensors file told by its first bytes (a state, or trained weights: the
// weights import, which hands a state file back to import_state_read).
nlohmann::json import_state_path(AppModel& m, const std::string& path);
// Files dropped together: the weights files among them are one import (several .npy
// files fill W_q, W_k, W_v together), the others are opened one by one. The last answer.
nlohmann::json import_paths(AppModel& m, const std::vector<std::string>& paths);

// The File menu, inside the main menu bar.
void file_menu(AppModel& m);
// File → Save state (.safetensors): the state as attnviz-state.safetensors (state_file.h).
void save_state_safetensors(AppModel& m);
// The state as a PyTorch script (attnviz/torch_script.h) whose comments and headings are
// in the interface's language: File → Export PyTorch script, Edit → Copy as PyTorch.
std::string torch_script_in_language(const AppModel& m);
// Passes the export notice on, and draws the desktop's Open state dialog; once per frame.
void export_overlay(AppModel& m);

}  // namespace attnviz::ui
