// test_fixtures.cpp: the engine against PyTorch, stage by stage.
//
// [SECTION] What this checks
// [SECTION] Loading the fixtures
// [SECTION] The tests
//
// ---------------------------------------------------------------------------
// [SECTION] What this checks
// tests/fixtures/data/ holds cases made by tests/fixtures/make_fixtures.py with
// PyTorch 1.13 (see tests/fixtures/README.md). Each is {"name", "state",
// "expected"}; index.json lists them. For every case we run the state through
// attnviz::run_state_json and compare the report with `expected`
// (report_compare.h, where the tolerances and their reasons are):
//   - the same keys (W_o / b_* present exactly when the options say so), the
//     same tokens, the same number of heads, the same shape for every stage;
//   - non-finite entries ("-inf", "inf", "nan") must be the same string;
//   - finite entries must be numbers within the tolerance.
// One test instance per case (Torch/FixtureTest.Matches/<name>), so a failure
// names the case, the stage, the entry, both values and the tolerance.

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnviz/report.h"
#include "attnviz/status.h"
#include "report_compare.h"

namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------
// [SECTION] Loading the fixtures
struct FixtureCase {
  std::string file;
  std::string name;
};

// gtest prints the parameter of a failing instance; show the case, not bytes.
void PrintTo(const FixtureCase& c, std::ostream* os) { *os << c.name; }

std::string fixtures_dir() {
  if (const char* d = std::getenv("ATTNVIZ_FIXTURES_DIR")) return d;
  return "tests/fixtures/data";  // ctest runs the tests from the repository root
}

bool read_json(const std::string& path, json* out, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = "cannot open " + path + " (tests run from the repository root)";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  *out = json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) {
    *err = path + " is not valid JSON";
    return false;
  }
  return true;
}

// index.json rather than a directory listing: the same code works natively and
// under node (NODERAWFS) without relying on directory iteration there.
std::vector<FixtureCase> load_index() {
  std::vector<FixtureCase> cases;
  json idx;
  std::string err;
  if (!read_json(fixtures_dir() + "/index.json", &idx, &err)) return cases;
  if (!idx.contains("cases") || !idx["cases"].is_array()) return cases;
  for (const json& c : idx["cases"]) cases.push_back({c.value("file", ""), c.value("name", "")});
  return cases;
}

std::string test_name(const testing::TestParamInfo<FixtureCase>& info) {
  std::string s = info.param.name;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s.empty() ? "case_" + std::to_string(info.index) : s;
}

// ---------------------------------------------------------------------------
// [SECTION] The tests
class FixtureTest : public testing::TestWithParam<FixtureCase> {};

TEST_P(FixtureTest, Matches) {
  const FixtureCase& fc = GetParam();
  json fixture;
  std::string err;
  ASSERT_TRUE(read_json(fixtures_dir() + "/" + fc.file, &fixture, &err)) << err;
  const json& state = fixture.at("state");
  const json& exp = fixture.at("expected");

  json report;
  const attnviz::Status st = attnviz::run_state_json(state, &report);
  ASSERT_TRUE(st.ok) << fc.name << ": engine refused the state: " << st.error << " (field "
                     << st.field << ")";
  ASSERT_TRUE(report.is_object()) << fc.name << ": report is not an object";

  attnviz_test::compare_reports(fc.name, state, exp, report);
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FixtureTest);  // the count test below reports it
INSTANTIATE_TEST_SUITE_P(Torch, FixtureTest, testing::ValuesIn(load_index()), test_name);

// The parameterised test above would pass vacuously with no cases; this cannot.
TEST(Fixtures, IndexListsAtLeast40Cases) {
  const std::vector<FixtureCase> cases = load_index();
  EXPECT_GE(cases.size(), 40u) << "read " << fixtures_dir()
                               << "/index.json from the repository root; regenerate it with "
                                  "/usr/bin/python3 tests/fixtures/make_fixtures.py";
  std::set<std::string> names;
  for (const FixtureCase& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
    std::ifstream f(fixtures_dir() + "/" + c.file);
    EXPECT_TRUE(bool(f)) << "index lists " << c.file << " but it cannot be opened";
  }
}

}  // namespace
