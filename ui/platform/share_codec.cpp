// share_codec.cpp: see share_codec.h.
#include "platform/share_codec.h"

#include <nlohmann/json.hpp>

#include <SDL.h>
#include <zlib.h>

#include <cctype>
#include <cstdint>
#include <vector>

#include "app/app.h"
#include "app/text/i18n.h"

namespace attnviz::platform {

namespace {

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

std::string base64url(const std::vector<uint8_t>& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t v = (uint32_t)in[i] << 16;
    if (i + 1 < in.size()) v |= (uint32_t)in[i + 1] << 8;
    if (i + 2 < in.size()) v |= in[i + 2];
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    if (i + 1 < in.size()) out += kB64[(v >> 6) & 63];
    if (i + 2 < in.size()) out += kB64[v & 63];
  }
  return out;
}

// False on a character outside the alphabet or an impossible length (4k + 1).
bool unbase64url(std::string_view s, std::vector<uint8_t>* out) {
  if (s.size() % 4 == 1) return false;
  out->clear();
  out->reserve(s.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int v = b64_value(c);
    if (v < 0) return false;
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back((uint8_t)((acc >> bits) & 0xFF));
    }
  }
  return true;
}

enum class Inflate { ok, corrupt, too_big };

Inflate inflate_raw(const std::vector<uint8_t>& in, std::string* out) {
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) return Inflate::corrupt;
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = (uInt)in.size();
  std::vector<char> buf(1 << 16);  // (64 KiB) output window, appended to *out
  out->clear();
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());
    zs.avail_out = (uInt)buf.size();
    rc = inflate(&zs, Z_NO_FLUSH);
    size_t got = buf.size() - zs.avail_out;
    if (out->size() + got > kLinkMaxInflated) {
      inflateEnd(&zs);
      return Inflate::too_big;
    }
    out->append(buf.data(), got);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // input ended before the stream did
  }
  inflateEnd(&zs);
  return rc == Z_STREAM_END ? Inflate::ok : Inflate::corrupt;
}

}  // namespace

LinkDecoded share_link_decode(std::string_view link) {
  LinkDecoded r;
  while (!link.empty() && std::isspace((unsigned char)link.front())) link.remove_prefix(1);
  while (!link.empty() && std::isspace((unsigned char)link.back())) link.remove_suffix(1);
  size_t hash = link.find('#');
  if (hash != std::string_view::npos) link.remove_prefix(hash + 1);
  const std::string fmt = std::to_string(kLinkFormat);
  size_t digits = 0;
  while (1 + digits < link.size() && std::isdigit((unsigned char)link[1 + digits])) ++digits;
  if (link.empty() || link[0] != 's' || digits == 0 || digits > 6 || link.size() < 2 + digits || link[1 + digits] != '.') {
    r.error = ui::tr_args("it is not an attnviz share link (those end in #s{0}. followed by letters and digits).", {fmt});
    return r;
  }
  long ver = std::stol(std::string(link.substr(1, digits)));
  std::string_view data = link.substr(2 + digits);
  if (ver > kLinkFormat) {
    r.error = ui::tr_args("it was made by a newer attnviz (link format {0}); this page reads format {1}. Open it with the newer version.",
                          {std::to_string(ver), fmt});
    return r;
  }
  if (ver < kLinkFormat) {
    r.error = ui::tr_args("it uses link format {0}, which this attnviz does not read (it reads format {1}).",
                          {std::to_string(ver), fmt});
    return r;
  }
  if (data.size() > kLinkMaxChars) {
    r.error = ui::tr("it is longer than 8 MB, more than any attnviz state needs.");
    return r;
  }
  std::vector<uint8_t> bytes;
  if (!unbase64url(data, &bytes)) {
    r.error = ui::tr("it is damaged: it holds characters a share link never contains, or was cut in the middle.");
    return r;
  }
  switch (inflate_raw(bytes, &r.text)) {
    case Inflate::too_big:
      r.error = ui::tr("it would expand to more than 16 MB, more than any attnviz state needs.");
      r.text.clear();
      return r;
    case Inflate::corrupt:
      r.error = ui::tr("it is damaged: its compressed data is incomplete or corrupted (it may have been cut short when copied).");
      r.text.clear();
      return r;
    case Inflate::ok:
      break;
  }
  r.ok = true;
  return r;
}

std::string share_link_encode(std::string_view json_text) {
  z_stream zs{};
  deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&zs, (uLong)json_text.size()));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(json_text.data()));
  zs.avail_in = (uInt)json_text.size();
  zs.next_out = out.data();
  zs.avail_out = (uInt)out.size();
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return "s" + std::to_string(kLinkFormat) + "." + base64url(out);
}

// A sentence continued after "…: " (English only: Chinese has no capitals).
static std::string lower_first(std::string s) {
  if (!s.empty() && ui::language() == ui::Lang::en) s[0] = (char)std::tolower((unsigned char)s[0]);
  return s;
}

// Opens a link: "" when applied, else why not (a sentence continued after "…: ").
static std::string open_link_reason(ui::App& app, std::string_view link) {
  LinkDecoded d = share_link_decode(link);
  if (!d.ok) return d.error;
  nlohmann::json r = app.set_session_text(d.text);
  if (r.value("ok", false)) return "";
  return lower_first(r.value("error", std::string()));
}

std::string share_open_link(ui::App& app, std::string_view link) {
  std::string why = open_link_reason(app, link);
  if (why.empty()) return "";
  return ui::tr_args("This link could not be opened: {0} The current state is kept.", {why});
}

void desktop_share_hooks(ui::App& app) {
  ui::ShareHooks& h = app.share_hooks();
  h.copy_link = [&app] {
    // Too long for an address (the page's limit): said, and the file offered, before any
    // text is built (GPT-2-sized weights would take seconds to turn into a link).
    if (app.session_link_estimate() > ui::kShareMaxAddressChars) return app.link_too_long(app.session_link_estimate());
    std::string link = "#" + share_link_encode(app.session_json().dump());
    if ((double)link.size() > ui::kShareMaxAddressChars) return app.link_too_long((double)link.size());
    if (SDL_SetClipboardText(link.c_str()) == 0)
      app.notify(ui::tr("Share link copied: add it to the attnviz page's address, or open it with attnviz --link."), false);
    else
      app.notify(ui::tr_args("The clipboard could not be written: {0}", {SDL_GetError()}), true);
  };
  h.paste_state = [&app] {
    char* raw = SDL_GetClipboardText();
    std::string text = raw ? raw : "";
    SDL_free(raw);
    size_t start = text.find_first_not_of(" \t\r\n");
    if (start == std::string::npos) {
      app.notify(ui::tr("The clipboard holds no text to paste as a state."), true);
      return;
    }
    const char* why = N_("The clipboard does not hold a usable attnviz state: {0} The current state is kept.");
    if (text[start] == '{') {
      nlohmann::json r = app.set_session_text(text);
      bool ok = r.value("ok", false);
      app.notify(ok ? std::string(ui::tr("State pasted (Ctrl+Z undoes it)."))
                    : ui::tr_args(why, {lower_first(r.value("error", std::string()))}), !ok);
      return;
    }
    std::string reason = open_link_reason(app, text);
    if (reason.empty()) app.notify(ui::tr("State pasted from a share link (Ctrl+Z undoes it)."), false);
    else app.notify(ui::tr_args(why, {reason}), true);
  };
  h.ctrl_v_reads_clipboard = true;
}

}  // namespace attnviz::platform
