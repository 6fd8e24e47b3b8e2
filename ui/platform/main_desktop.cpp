// main_desktop.cpp: the native desktop build: the same app in an SDL2 + OpenGL3 window.
//   attnviz [--frames N] [--state FILE]
//   --frames N   draw N frames and exit (for smoke tests and screenshots under Xvfb)
//   --state FILE start from a session state file instead of the default
//   --screenshot FILE  with --frames: write the last frame as a PNG before exiting
//   --link LINK  open a share link (the page's URL, its "#s1.…" part, or "s1.…")
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "app/app.h"
#include "imgui.h"
#include "platform/runner.h"
#include "platform/share_codec.h"

#ifndef ATTNVIZ_ASSETS_DIR
#define ATTNVIZ_ASSETS_DIR "assets"
#endif

static std::vector<uint8_t> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

int main(int argc, char** argv) {
  long max_frames = -1;
  const char* state_path = nullptr;
  const char* link = nullptr;
  const char* shot_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) {
      max_frames = std::strtol(argv[++i], nullptr, 10);
    } else if (!std::strcmp(argv[i], "--screenshot") && i + 1 < argc) {
      shot_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--state") && i + 1 < argc) {
      state_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--link") && i + 1 < argc) {
      link = argv[++i];
    } else {
      std::fprintf(stderr, "usage: attnviz [--frames N] [--state FILE] [--screenshot FILE] [--link LINK]\n");
      return 2;
    }
  }

  attnviz::platform::Runner runner;
  if (!runner.init("attnviz", 1440, 900)) return 1;
  runner.fonts.regular = read_file("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
  runner.fonts.mono = read_file("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf");
  runner.request_cjk = [&runner] {
    runner.fonts.cjk = read_file("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf");
    runner.fonts_dirty = true;
  };

  // The window layout is remembered in $XDG_CONFIG_HOME/attnviz (or ~/.config/attnviz).
  static std::string ini;
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if ((xdg && *xdg) || (home && *home)) {
    std::string dir = (xdg && *xdg) ? std::string(xdg) + "/attnviz" : std::string(home) + "/.config/attnviz";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    ini = dir + "/layout.ini";
    ImGui::GetIO().IniFilename = ec ? nullptr : ini.c_str();
  } else {
    ImGui::GetIO().IniFilename = nullptr;
  }

  attnviz::ui::App app(&runner.textures);
  runner.app = &app;
  if (state_path) {
    std::ifstream f(state_path);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    nlohmann::json r = app.set_state_text(text);
    if (!r.value("ok", false)) {
      std::fprintf(stderr, "attnviz: %s\n", r.value("error", std::string("bad state")).c_str());
      runner.shutdown();
      return 2;
    }
  }
  attnviz::platform::desktop_share_hooks(app);  // Edit menu: copy link, paste state
  if (link) {
    std::string err = attnviz::platform::share_open_link(app, link);
    if (!err.empty()) {
      std::fprintf(stderr, "attnviz: %s\n", err.c_str());
      runner.shutdown();
      return 2;
    }
  }
  while (!runner.quit && (max_frames < 0 || (long)runner.frames < max_frames)) {
    if (shot_path && max_frames >= 0 && (long)runner.frames == max_frames - 1) runner.screenshot_path = shot_path;
    runner.frame();
  }
  int rc = 0;
  if (shot_path && !runner.screenshot_ok) {
    std::fprintf(stderr, "attnviz: could not write %s\n", shot_path);
    rc = 1;
  }
  runner.shutdown();
  return rc;
}
