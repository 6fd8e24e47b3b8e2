// main_desktop.cpp: the native desktop build: the same app in an SDL2 + OpenGL3 window.
//   attnviz [--frames N] [--state FILE]
//   --frames N   draw N frames and exit (for smoke tests and screenshots under Xvfb)
//   --state FILE start from a session state file instead of the default
//   --screenshot FILE  with --frames: write the last frame as a PNG before exiting
//   --link LINK  open a share link (the page's URL, its "#s1.…" part, or "s1.…")
//   --export WHAT  with --frames: export heatmap WHAT ("weights h0") or the "window"
//                as a 2× PNG into the working directory, as the menus do (tests)
//   --lang CODE  the interface's language: en or zh-CN (also zh, zh-Hans, en-GB ...);
//                without it, the language used last (remembered beside the layout),
//                else $LANGUAGE / $LC_ALL / $LC_MESSAGES / $LANG, else English
// The layout, the language and the progress through the lessons are remembered in
// $XDG_CONFIG_HOME/attnviz (or ~/.config/attnviz).
// Exports (File menu, a heatmap's right-click menu) are written to the working
// directory; a .json state file dropped on the window is opened.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "app/app.h"

#include <nlohmann/json.hpp>
#include "app/panels/export.h"
#include "app/text/i18n.h"
#include "attnviz/parallel.h"
#include "imgui.h"
#include "platform/png_capture.h"
#include "platform/runner.h"
#include "platform/share_codec.h"

#ifndef ATTNVIZ_ASSETS_DIR
#define ATTNVIZ_ASSETS_DIR "assets"
#endif

static std::vector<uint8_t> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Writes an export into the working directory, never over an existing file
// (attnviz-weights-h0.png, then attnviz-weights-h0-2.png, ...).
static bool save_export(const attnviz::ui::ExportRequest& req, std::string* where) {
  namespace fs = std::filesystem;
  if (req.kind != attnviz::ui::ExportKind::file) {
    *where = attnviz::ui::tr("There is no file picker here: use File > Open state… and type a path, or drop the file on the window.");
    return false;
  }
  std::error_code ec;
  fs::path dir = fs::current_path(ec);
  fs::path stem = fs::path(req.filename).stem(), ext = fs::path(req.filename).extension();
  fs::path file = dir / req.filename;
  for (int k = 2; fs::exists(file, ec) && k < 1000; ++k) file = dir / (stem.string() + "-" + std::to_string(k) + ext.string());
  std::ofstream f(file, std::ios::binary);
  f.write(req.bytes.data(), (std::streamsize)req.bytes.size());
  if (!f) {
    *where = attnviz::ui::tr_args("Could not write {0}.", {file.string()});
    return false;
  }
  *where = attnviz::ui::tr_args("as {0}", {file.string()});
  return true;
}

// SDL_DROPFILE: the dropped path is kept for the main loop and the event dropped
// from SDL's queue (the filter owns the path string, so it frees it).
static int drop_filter(void* userdata, SDL_Event* ev) {
  if (ev->type != SDL_DROPFILE) return 1;
  if (ev->drop.file) static_cast<std::vector<std::string>*>(userdata)->push_back(ev->drop.file);
  SDL_free(ev->drop.file);
  return 0;
}

// The language to open in without --lang: the one used last (a file beside the
// layout), else the environment's locale (zh_CN.UTF-8 → zh-CN), else English.
static std::string initial_language(const std::string& lang_file) {
  std::string remembered;
  if (!lang_file.empty()) std::getline(std::ifstream(lang_file) >> std::ws, remembered);
  attnviz::ui::Lang l;
  if (attnviz::ui::lang_from_code(remembered, &l)) return remembered;
  for (const char* var : {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    std::string tag(v);
    tag = tag.substr(0, tag.find_first_of(".:@"));  // zh_CN.UTF-8, LANGUAGE=zh_CN:en
    if (attnviz::ui::lang_from_code(tag, &l)) return attnviz::ui::lang_code(l);
    break;  // the first one set decides (C, POSIX, fr_FR: English)
  }
  return "en";
}

// The command line (usage in the header).
struct Args {
  long max_frames = -1;  // --frames N: draw exactly N frames, then quit (-1: until closed)
  const char* state_path = nullptr;
  const char* link = nullptr;
  const char* shot_path = nullptr;
  const char* export_what = nullptr;
  const char* lang = nullptr;
};

static bool parse_args(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const bool value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--frames") && value) a->max_frames = std::strtol(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--screenshot") && value) a->shot_path = argv[++i];
    else if (!std::strcmp(argv[i], "--export") && value) a->export_what = argv[++i];
    else if (!std::strcmp(argv[i], "--state") && value) a->state_path = argv[++i];
    else if (!std::strcmp(argv[i], "--link") && value) a->link = argv[++i];
    else if (!std::strcmp(argv[i], "--lang") && value) a->lang = argv[++i];
    else return false;
  }
  return true;
}

// The window layout is remembered in $XDG_CONFIG_HOME/attnviz (or ~/.config/attnviz):
// its file's path, "" when there is no home to keep it in. ImGui keeps the pointer.
static std::string remember_layout() {
  static std::string ini;
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  ImGui::GetIO().IniFilename = nullptr;
  if (!(xdg && *xdg) && !(home && *home)) return ini;
  std::string dir = (xdg && *xdg) ? std::string(xdg) + "/attnviz" : std::string(home) + "/.config/attnviz";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  ini = dir + "/layout.ini";
  if (!ec) ImGui::GetIO().IniFilename = ini.c_str();
  return ini;
}

// The language, the state and the link the command line asks for (or the remembered
// language). A refusal is printed; false: quit with 2.
static bool open_start(attnviz::ui::App& app, const Args& a, const std::string& lang_file) {
  auto refuse = [](const std::string& why) {
    std::fprintf(stderr, "attnviz: %s\n", why.c_str());
    return false;
  };
  if (a.lang) {  // asked for: an unknown code is an error, as a bad --state is
    nlohmann::json r = app.set_language(a.lang);
    if (!r.value("ok", false)) return refuse(r.value("error", std::string()));
  } else {
    app.set_language(initial_language(lang_file));
  }
  if (a.state_path) {
    std::ifstream f(a.state_path);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    nlohmann::json r = app.set_state_text(text);
    if (!r.value("ok", false)) return refuse(r.value("error", std::string("bad state")));
  }
  attnviz::platform::desktop_share_hooks(app);  // Edit menu: copy link, paste state
  attnviz::platform::desktop_weights_hooks();   // Open weights…: zlib for compressed .npz
  if (a.link) {
    std::string err = attnviz::platform::share_open_link(app, a.link);
    if (!err.empty()) return refuse(err);
    if (a.lang) app.set_language(a.lang);  // --lang wins over the link's view.lang
  }
  return true;
}

// Until the window closes (or --frames N are drawn). An idle window rests
// (frame_pacer.h): the loop sleeps in SDL_WaitEventTimeout until input arrives or the
// heartbeat or a timer is due. --frames N draws every frame.
static void run(attnviz::platform::Runner& runner, attnviz::ui::App& app, const Args& a) {
  static std::vector<std::string> dropped;
  SDL_SetEventFilter(drop_filter, &dropped);
  runner.pacing = a.max_frames < 0;
  while (!runner.quit && (a.max_frames < 0 || (long)runner.frames < a.max_frames)) {
    if (!dropped.empty()) runner.wake();  // the drop's SDL_DROPCOMPLETE woke the wait
    if (!runner.should_draw()) {
      SDL_WaitEventTimeout(nullptr, (int)std::ceil(runner.wait_ms()));
      continue;
    }
    if (a.shot_path && a.max_frames >= 0 && (long)runner.frames == a.max_frames - 1) runner.screenshot_path = a.shot_path;
    if (a.export_what && a.max_frames >= 0 && (long)runner.frames == a.max_frames - 3) {
      std::string what = std::strcmp(a.export_what, "window") ? a.export_what : "";
      attnviz::ui::export_request_png(app.exports(), what,
                                      attnviz::ui::export_file_stem(what.empty() ? "window" : what) + ".png");
    }
    runner.frame();
    attnviz::platform::exports_drain(runner, save_export);
    if (!dropped.empty()) app.import_files(dropped);  // dropped together: several .npy files are one import
    dropped.clear();
  }
}

int main(int argc, char** argv) {
  // The engine (whole heads, large products) on every core, at most 8, as attnviz-mt does
  // in the browser (attnviz/parallel.h: the numbers are the same bits).
  const unsigned cores = std::thread::hardware_concurrency();
  attnviz::set_threads(cores == 0 ? 1 : (cores > 8 ? 8 : static_cast<int>(cores)));
  Args args;
  if (!parse_args(argc, argv, &args)) {
    std::fprintf(stderr, "usage: attnviz [--frames N] [--state FILE] [--screenshot FILE] [--link LINK] [--export WHAT] [--lang en|zh-CN]\n");
    return 2;
  }

  attnviz::platform::Runner runner;
  if (!runner.init("attnviz", 1440, 900)) return 1;
  runner.fonts.regular = read_file("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
  runner.fonts.mono = read_file("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf");
  runner.request_cjk = [&runner] {
    runner.fonts.cjk = read_file("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf");
    runner.fonts_dirty = true;
  };
  const std::string ini = remember_layout();

  attnviz::ui::App app(&runner.textures);
  runner.app = &app;
  const std::string lang_file = ini.empty() ? std::string() : ini.substr(0, ini.rfind('/')) + "/language";
  // The learner's progress through the lessons, remembered beside them too.
  const std::string lessons_file = ini.empty() ? std::string() : ini.substr(0, ini.rfind('/')) + "/lessons.json";
  if (!lessons_file.empty()) {
    std::ifstream f(lessons_file);
    if (f) app.load_lesson_progress(std::string(std::istreambuf_iterator<char>(f), {}));
  }
  if (!open_start(app, args, lang_file)) {
    runner.shutdown();
    return 2;
  }
  run(runner, app, args);
  if (!lang_file.empty()) std::ofstream(lang_file) << app.language() << "\n";  // remembered for next time
  if (!lessons_file.empty() && app.lesson_progress() != "{}") std::ofstream(lessons_file) << app.lesson_progress() << "\n";
  int rc = 0;
  if (args.shot_path && !runner.screenshot_ok) {
    std::fprintf(stderr, "attnviz: could not write %s\n", args.shot_path);
    rc = 1;
  }
  runner.shutdown();
  return rc;
}
