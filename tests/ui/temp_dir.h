// temp_dir.h: a scratch folder of the test's own. The native, ASan and TSan builds
// run the same tests at the same time in make test, so a fixed /tmp path lets one
// build truncate a file the other is reading (a 105 MB state read as "empty" once).
// The process id keeps each run's files apart.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace attnviz::ui::testing {

inline std::filesystem::path test_temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace attnviz::ui::testing
