// libFuzzer target for the weight-file readers (weights_file.h): the
// safetensors header parser, the zip central directory and .npy header
// parsers, to_float32, and the mapping on whatever they list; and the state-file
// reader built on them (state_file.h, a state in a .safetensors file). scripts/fuzz.sh
// builds and runs it with ASan + UBSan, seeded by tests/fuzz/corpus-weights/.
//
// Each input is a whole file, read through the Scanner by byte ranges, with
// zlib's raw inflate for deflated .npz members (as the desktop app reads).
// Invariants (a broken one aborts, which libFuzzer records as a crash):
//   * a refusal has a code and lists no tensors; a success lists at least one;
//   * every listed tensor's bytes lie inside the file (plain ranges), and
//     to_float32 on them either converts exactly count() values or refuses;
//   * check_mapping / apply_mapping on the proposal never crash, and an
//     applied state passes validate_state;
//   * state_from_safetensors gives a state that passes validate_state, or a
//     refusal with a code and a sentence.
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attnviz/state.h"
#include "attnviz/state_file.h"
#include "attnviz/weights_file.h"
#include "attnviz/weights_map.h"

namespace {

using namespace attnviz::weights;

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_weights: invariant broken: %s\n", what);
  std::abort();
}

bool inflate_raw(std::string_view in, uint64_t limit, std::string* out) {
  if (limit > (uint64_t{64} << 20)) return false;
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return false;
  out->assign(limit, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out->data());
  z.avail_out = static_cast<uInt>(limit);
  const int rc = inflate(&z, Z_SYNC_FLUSH);
  out->resize(limit - z.avail_out);
  inflateEnd(&z);
  return rc == Z_OK || rc == Z_STREAM_END || (rc == Z_BUF_ERROR && out->size() == limit);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file(reinterpret_cast<const char*>(data), size);
  const ReadFn read = [&](uint64_t off, uint64_t len, std::string* out) {
    if (off > file.size()) return false;
    *out = file.substr(off, len);
    return true;
  };
  for (const char* name : {"fuzz.safetensors", "fuzz.npy"}) {
    Scanner s(size, name);
    scan_all(s, read, inflate_raw);
    check(s.finished(), "the scan did not finish");
    if (!s.error().ok()) {
      check(s.tensors().empty(), "a refusal listed tensors");
      check(problem_name(s.error().code) != std::string("unknown"), "an unnamed problem");
      continue;
    }
    check(!s.tensors().empty(), "a success listed nothing");
    std::vector<std::vector<float>> values(s.tensors().size());
    size_t converted = 0;
    for (size_t i = 0; i < s.tensors().size(); ++i) {
      const TensorInfo& t = s.tensors()[i];
      if (!t.data.inflate) check(t.data.offset <= size && t.data.length <= size - t.data.offset, "a range outside the file");
      if (t.count() > (1u << 20) || converted > 64) continue;  // keep each input fast
      std::string bytes;
      if (!read_range(t.data, read, inflate_raw, &bytes)) continue;
      ++converted;
      const Error e = to_float32(t, bytes, &values[i]);
      if (e.ok()) check(values[i].size() == t.count(), "a conversion of the wrong length");
    }
    for (const std::string& prefix : layer_prefixes(s.tensors())) {
      const Mapping m = propose_mapping(s.tensors(), prefix);
      MappedShapes shapes;
      if (!check_mapping(m, s.tensors(), &shapes).ok()) continue;
      attnviz::State st;
      // The first head count that fits (K and V may be narrower than Q: GQA's K/V heads).
      const std::vector<int> choices = head_choices(shapes.d_out, shapes.kv_dim);
      check(!choices.empty(), "a mapping that fits with no head count");
      if (apply_mapping(m, s.tensors(), values, attnviz::State(), choices.front(), &st).ok()) {
        check(attnviz::validate_state(st).ok, "an applied state that does not validate");
      }
      break;
    }
  }
  attnviz::State state;
  const attnviz::Status st = attnviz::state_from_safetensors(file, &state);
  if (st.ok) check(attnviz::validate_state(state).ok, "a state file's state that does not validate");
  else check(!st.code.empty() && !st.error.empty(), "a state file refused without a code or a sentence");
  return 0;
}
