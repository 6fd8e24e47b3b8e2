// Helpers for the weights-file tests: files built in memory (safetensors, .npy,
// stored zip), and scanning bytes held in memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "attnviz/weights_file.h"

namespace attnviz::testing {

inline std::string le(uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
  return s;
}

inline std::string f32_bytes(const std::vector<float>& v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(&s[0], v.data(), s.size());
  return s;
}

// A safetensors file from a header text and the data bytes.
inline std::string safetensors(const std::string& header, const std::string& data) {
  return le(header.size(), 8) + header + data;
}

// A float32 safetensors file: {name, shape, values} in order.
struct StTensor {
  std::string name;
  std::vector<uint64_t> shape;
  std::vector<float> values;
};
inline std::string safetensors_f32(const std::vector<StTensor>& ts) {
  std::string header = "{", data;
  for (const auto& t : ts) {
    if (header.size() > 1) header += ",";
    std::string shape;
    for (uint64_t d : t.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    const size_t b = data.size();
    data += f32_bytes(t.values);
    header += "\"" + t.name + "\":{\"dtype\":\"F32\",\"shape\":[" + shape + "],\"data_offsets\":[" + std::to_string(b) + "," +
              std::to_string(data.size()) + "]}";
  }
  header += "}";
  return safetensors(header, data);
}

// An .npy (format 1.0) with this header dict and data.
inline std::string npy(const std::string& dict, const std::string& data) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + le(h.size(), 2) + h + data;
}

// A zip of stored members (method 0, or `method` as written in the headers).
inline std::string zip_stored(const std::vector<std::pair<std::string, std::string>>& members, uint16_t method = 0) {
  std::string out, dir;
  for (const auto& [name, data] : members) {
    const size_t local = out.size();
    out += le(0x04034b50, 4) + le(20, 2) + le(0, 2) + le(method, 2) + le(0, 4) + le(0, 4) + le(data.size(), 4) +
           le(data.size(), 4) + le(name.size(), 2) + le(0, 2) + name + data;
    dir += le(0x02014b50, 4) + le(20, 2) + le(20, 2) + le(0, 2) + le(method, 2) + le(0, 4) + le(0, 4) +
           le(data.size(), 4) + le(data.size(), 4) + le(name.size(), 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) +
           le(0, 4) + le(local, 4) + name;
  }
  const size_t dir_at = out.size();
  out += dir;
  out += le(0x06054b50, 4) + le(0, 2) + le(0, 2) + le(members.size(), 2) + le(members.size(), 2) + le(dir.size(), 4) +
         le(dir_at, 4) + le(0, 2);
  return out;
}

inline weights::ReadFn memory_reader(const std::string& file, int* reads = nullptr, uint64_t* bytes = nullptr) {
  return [&file, reads, bytes](uint64_t off, uint64_t len, std::string* out) {
    if (reads) ++*reads;
    if (bytes) *bytes += len;
    if (off > file.size()) return false;
    *out = file.substr(off, len);
    return true;
  };
}

// Scans bytes held in memory (no inflater unless given).
inline weights::Scanner scan_bytes(const std::string& file, const std::string& name = "test.safetensors",
                                   const weights::InflateFn& inflate = {}) {
  weights::Scanner s(file.size(), name);
  weights::scan_all(s, memory_reader(file), inflate);
  return s;
}

}  // namespace attnviz::testing
