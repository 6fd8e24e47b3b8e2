// test_share_codec.cpp: the desktop's share-link codec (zlib raw deflate +
// base64url) reads what the browser wrote (a link made by Chromium's
// CompressionStream in tests/e2e/share.test.mjs, kept as a fixture), round-trips its
// own links, and refuses damaged or hostile links with a sentence.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "app/app.h"
#include "app/widgets/fonts.h"
#include "imgui.h"
#include "platform/share_codec.h"

#ifndef ATTNVIZ_FIXTURES_DIR
#define ATTNVIZ_FIXTURES_DIR "tests/fixtures"
#endif

namespace {

using namespace attnviz::platform;
using json = nlohmann::json;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

const std::string kDir = ATTNVIZ_FIXTURES_DIR "/share/";

TEST(ShareCodec, ReadsALinkTheBrowserWrote) {
  std::string url = read_text(kDir + "browser-link.txt");
  json want = json::parse(read_text(kDir + "browser-link.json"));
  ASSERT_NE(url.find("#s1."), std::string::npos);
  LinkDecoded d = share_link_decode(url);  // the whole URL, as copied from the address bar
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(json::parse(d.text), want);
  LinkDecoded h = share_link_decode(url.substr(url.find('#')));  // just "#s1.…"
  ASSERT_TRUE(h.ok) << h.error;
  EXPECT_EQ(h.text, d.text);
}

TEST(ShareCodec, RoundTripsItsOwnLinks) {
  std::string text = R"({"v":1,"state":{"tokens":["我","爱","café"]},"view":{"tab":"lines"}})";
  std::string link = share_link_encode(text);
  EXPECT_EQ(link.rfind("s1.", 0), 0u);
  EXPECT_EQ(link.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 3),
            std::string::npos);
  LinkDecoded d = share_link_decode(link);
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.text, text);
}

TEST(ShareCodec, RefusesDamagedAndHostileLinksWithASentence) {
  std::string good = share_link_encode(R"({"v":1,"state":{}})");
  auto refused = [](const std::string& link, const std::string& needle) {
    LinkDecoded d = share_link_decode(link);
    EXPECT_FALSE(d.ok) << link.substr(0, 60);
    EXPECT_TRUE(d.text.empty());
    EXPECT_NE(d.error.find(needle), std::string::npos) << d.error;
  };
  refused("https://example.org/attnviz/", "not an attnviz share link");
  refused("#s2." + good.substr(3), "newer attnviz (link format 2)");
  refused("#s0." + good.substr(3), "link format 0");
  refused("#s1.abc$def", "characters a share link never contains");
  refused("#s1.a", "cut in the middle");
  refused(good.substr(0, good.size() - 8), "incomplete or corrupted");  // cut short, length still possible
  refused("#s1.AAAAAAAAAAAAAAAA", "incomplete or corrupted");
  refused("#s1." + std::string(kLinkMaxChars + 4, 'A'), "longer than 8 MB");
  // A deflate bomb: 64 MB of spaces compress to about 64 KB.
  refused(share_link_encode(std::string(64u << 20, ' ')), "more than 16 MB");
}

TEST(ShareCodec, OpensTheBrowserLinkInTheAppAndKeepsTheStateOnABadOne) {
  ImGui::CreateContext();
  ImGui::GetIO().DisplaySize = ImVec2(1440, 900);
  struct NullTextures final : attnviz::ui::TextureHost {
    ImTextureID create(int, int) override { return (ImTextureID)1; }
    void upload(ImTextureID, int, int, const uint8_t*) override {}
    void destroy(ImTextureID) override {}
  } tex;
  {
    attnviz::ui::App app(&tex);
    json want = json::parse(read_text(kDir + "browser-link.json"));
    // The link predates view.decimals, view.torch, view.split and view.lang: the app keeps its own.
    want["view"]["decimals"] = app.session_json()["view"]["decimals"];
    want["view"]["torch"] = false;
    want["view"]["split"] = "words";
    want["view"]["lang"] = "en";
    EXPECT_EQ(share_open_link(app, read_text(kDir + "browser-link.txt")), "");
    EXPECT_EQ(app.session_json(), want);
    std::string err = share_open_link(app, "#s1.AAAA");
    EXPECT_EQ(err.rfind("This link could not be opened: it is damaged", 0), 0u) << err;
    EXPECT_EQ(app.session_json(), want);
    err = share_open_link(app, "#" + share_link_encode(R"({"v":1,"state":{"num_heads":3}})"));
    EXPECT_NE(err.find("The current state is kept."), std::string::npos) << err;
    EXPECT_EQ(app.session_json(), want);
  }
  ImGui::DestroyContext();
}

}  // namespace
