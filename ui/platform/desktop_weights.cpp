// desktop_weights.cpp: the desktop's side of File → Open weights… (weights_import.h):
// zlib's raw inflate for deflated .npz members (np.savez_compressed). The file
// itself is read with seeks by the app; the browser inflates with
// DecompressionStream (web/site/attnviz-weights.js).
#include <zlib.h>

#include <algorithm>

#include <string>
#include <string_view>

#include "app/panels/weights_import.h"
#include "platform/share_codec.h"

namespace attnviz::platform {

// At most `limit` bytes of output: a member's header or its data, never more
// than the member says it holds.
static bool inflate_prefix(std::string_view in, uint64_t limit, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return false;
  out->clear();
  std::string chunk(1 << 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  int rc = Z_OK;
  uint64_t fed = 0;
  while (out->size() < limit) {
    if (z.avail_in == 0 && fed < in.size()) {  // zlib's counters are 32-bit: feed at most 1 GiB at a time
      const uint64_t n = std::min<uint64_t>(in.size() - fed, uint64_t{1} << 30);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + fed));
      z.avail_in = static_cast<uInt>(n);
      fed += n;
    }
    const uint64_t room = std::min<uint64_t>(chunk.size(), limit - out->size());
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(room);
    rc = inflate(&z, Z_NO_FLUSH);
    out->append(chunk.data(), room - z.avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK) break;
  }
  inflateEnd(&z);
  return out->size() >= limit || rc == Z_STREAM_END;
}

void desktop_weights_hooks() { ui::weights_hooks().inflate = inflate_prefix; }

}  // namespace attnviz::platform
