// weights_map.cpp: naming families, layer prefixes, shape checks and applying
// a mapping (weights_map.h).
#include "attnviz/weights_map.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace attnviz::weights {

namespace {

// How a name stores its matrix.
enum class Kind {
  linear,  // nn.Linear's weight: out × in, transposed to x·W
  xw,      // already x·W (GPT-2's Conv1D, a bare nn.Parameter(d_in, d_out))
  bias,
};

struct Name {
  const char* suffix;  // after the prefix
  Kind kind;
  int part;  // -1 whole; 0..2 third of a fused tensor
};

struct Family {
  const char* id;
  // Per role, the names to try in order (an empty suffix ends the list).
  std::vector<Name> roles[kRoleCount];
};

// The families, tried in this order; the one that finds most roles wins.
const std::vector<Family>& families() {
  static const std::vector<Family> f = [] {
    std::vector<Family> v;
    auto lin = [](const char* s, int part = -1) { return Name{s, Kind::linear, part}; };
    auto xw = [](const char* s, int part = -1) { return Name{s, Kind::xw, part}; };
    auto bias = [](const char* s, int part = -1) { return Name{s, Kind::bias, part}; };
    const char* outs_w[] = {"o_proj.weight", "out_proj.weight", "dense.weight", "out.weight", "output.dense.weight", "proj.weight", "W_o.weight", "W_O.weight"};
    const char* outs_b[] = {"o_proj.bias", "out_proj.bias", "dense.bias", "out.bias", "output.dense.bias", "proj.bias", "W_o.bias", "W_O.bias"};
    auto add_outs = [&](Family& fam) {
      for (const char* s : outs_w) fam.roles[3].push_back(lin(s));
      for (const char* s : outs_b) fam.roles[7].push_back(bias(s));
    };
    {
      Family q{"q_proj", {}};
      q.roles[0] = {lin("q_proj.weight")};
      q.roles[1] = {lin("k_proj.weight")};
      q.roles[2] = {lin("v_proj.weight")};
      q.roles[4] = {bias("q_proj.bias")};
      q.roles[5] = {bias("k_proj.bias")};
      q.roles[6] = {bias("v_proj.bias")};
      add_outs(q);
      v.push_back(q);
    }
    {
      Family q{"query", {}};
      q.roles[0] = {lin("query.weight")};
      q.roles[1] = {lin("key.weight")};
      q.roles[2] = {lin("value.weight")};
      q.roles[4] = {bias("query.bias")};
      q.roles[5] = {bias("key.bias")};
      q.roles[6] = {bias("value.bias")};
      add_outs(q);
      v.push_back(q);
    }
    {
      Family q{"W_query", {}};
      q.roles[0] = {lin("W_query.weight"), xw("W_query")};
      q.roles[1] = {lin("W_key.weight"), xw("W_key")};
      q.roles[2] = {lin("W_value.weight"), xw("W_value")};
      q.roles[4] = {bias("W_query.bias")};
      q.roles[5] = {bias("W_key.bias")};
      q.roles[6] = {bias("W_value.bias")};
      add_outs(q);
      q.roles[3].push_back(xw("W_out"));
      v.push_back(q);
    }
    {
      Family q{"in_proj", {}};
      q.roles[0] = {lin("in_proj_weight", 0), lin("q_proj_weight")};
      q.roles[1] = {lin("in_proj_weight", 1), lin("k_proj_weight")};
      q.roles[2] = {lin("in_proj_weight", 2), lin("v_proj_weight")};
      q.roles[4] = {bias("in_proj_bias", 0)};
      q.roles[5] = {bias("in_proj_bias", 1)};
      q.roles[6] = {bias("in_proj_bias", 2)};
      q.roles[3] = {lin("out_proj.weight")};
      q.roles[7] = {bias("out_proj.bias")};
      v.push_back(q);
    }
    {
      Family q{"qkv", {}};
      for (int r = 0; r < 3; ++r) {
        for (const char* s : {"qkv.weight", "qkv_proj.weight", "Wqkv.weight", "to_qkv.weight", "in_proj.weight"}) q.roles[r].push_back(lin(s, r));
        for (const char* s : {"qkv.bias", "qkv_proj.bias", "Wqkv.bias", "to_qkv.bias", "in_proj.bias"}) q.roles[4 + r].push_back(bias(s, r));
      }
      add_outs(q);
      v.push_back(q);
    }
    {
      Family q{"c_attn", {}};
      for (int r = 0; r < 3; ++r) {
        q.roles[r] = {xw("c_attn.weight", r)};
        q.roles[4 + r] = {bias("c_attn.bias", r)};
      }
      q.roles[3] = {xw("c_proj.weight")};
      q.roles[7] = {bias("c_proj.bias")};
      v.push_back(q);
    }
    {
      Family q{"W_q", {}};
      q.roles[0] = {xw("W_q"), xw("W_Q")};
      q.roles[1] = {xw("W_k"), xw("W_K")};
      q.roles[2] = {xw("W_v"), xw("W_V")};
      q.roles[3] = {xw("W_o"), xw("W_O")};
      q.roles[4] = {bias("b_q")};
      q.roles[5] = {bias("b_k")};
      q.roles[6] = {bias("b_v")};
      q.roles[7] = {bias("b_o")};
      v.push_back(q);
    }
    return v;
  }();
  return f;
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}


// The prefix of `name` before `suffix`, when it ends a path component.
bool prefix_of(const std::string& name, const char* suffix, std::string* prefix) {
  if (!ends_with(name, suffix)) return false;
  *prefix = name.substr(0, name.size() - std::char_traits<char>::length(suffix));
  return prefix->empty() || prefix->back() == '.' || prefix->back() == '/';
}

std::map<std::string, int> index_of(const std::vector<TensorInfo>& t) {
  std::map<std::string, int> m;
  for (size_t i = 0; i < t.size(); ++i) m.emplace(t[i].name, static_cast<int>(i));
  return m;
}

// BERT keeps its output projection beside the attention: "….attention.self.query"
// and "….attention.output.dense".
std::string parent_prefix(const std::string& prefix) {
  if (prefix.size() < 5 || prefix.compare(prefix.size() - 5, 5, "self.") != 0) return {};
  return prefix.substr(0, prefix.size() - 5);
}

Mapping fill(const Family& fam, const std::string& prefix, const std::map<std::string, int>& idx, int* found) {
  Mapping m;
  m.family = fam.id;
  m.prefix = prefix;
  *found = 0;
  for (int r = 0; r < kRoleCount; ++r) {
    for (const Name& n : fam.roles[r]) {
      auto it = idx.find(prefix + n.suffix);
      if (it == idx.end() && (r == 3 || r == 7) && !parent_prefix(prefix).empty()) it = idx.find(parent_prefix(prefix) + n.suffix);
      if (it == idx.end()) continue;
      m.roles[r] = RoleChoice{it->second, n.part, n.kind == Kind::linear};
      ++*found;
      break;
    }
  }
  return m;
}

std::string dims(uint64_t a, uint64_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

// The shape a role's choice gives: rows × cols in x·W orientation (weights),
// or 1 × n (biases). Error when it cannot be cut or is not the right rank.
Error role_shape(Role role, const RoleChoice& c, const TensorInfo& t, uint64_t* rows, uint64_t* cols) {
  const char* rn = role_name(role);
  if (t.type == DType::unsupported) return Error::make(Problem::dtype_unsupported, {t.name, t.dtype});
  if (role_is_bias(role)) {
    if (t.shape.size() != 1) return Error::make(Problem::role_not_vector, {rn, t.name, shape_text(t.shape)});
    uint64_t n = t.shape[0];
    if (c.part >= 0) {
      if (n % 3 != 0) return Error::make(Problem::role_split_uneven, {rn, t.name, shape_text(t.shape)});
      n /= 3;
    }
    *rows = 1;
    *cols = n;
    return {};
  }
  if (t.shape.size() != 2) return Error::make(Problem::role_not_matrix, {rn, t.name, shape_text(t.shape)});
  uint64_t in = c.transpose ? t.shape[1] : t.shape[0];
  uint64_t out = c.transpose ? t.shape[0] : t.shape[1];
  if (c.part >= 0) {
    if (out % 3 != 0) return Error::make(Problem::role_split_uneven, {rn, t.name, shape_text(t.shape)});
    out /= 3;
  }
  *rows = in;
  *cols = out;
  return {};
}

}  // namespace

// "a.h.2.x" < "a.h.10.x": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && a[i2] == '0') ++i2;
      while (j2 < b.size() && b[j2] == '0') ++j2;
      size_t ie = i2, je = j2;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      if (ie - i2 != je - j2) return ie - i2 < je - j2;
      const int c = a.compare(i2, ie - i2, b, j2, je - j2);
      if (c != 0) return c < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

const char* role_name(Role r) {
  static const char* n[kRoleCount] = {"W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o"};
  return n[static_cast<int>(r)];
}

std::vector<std::string> layer_prefixes(const std::vector<TensorInfo>& tensors) {
  std::vector<std::string> out;
  for (const TensorInfo& t : tensors) {
    for (const Family& fam : families()) {
      for (const Name& n : fam.roles[0]) {
        std::string p;
        if (prefix_of(t.name, n.suffix, &p) && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      }
    }
  }
  std::sort(out.begin(), out.end(), natural_less);
  return out;
}

Mapping propose_mapping(const std::vector<TensorInfo>& tensors, const std::string& prefix_in) {
  std::string prefix = prefix_in;
  if (prefix.empty()) {
    const auto all = layer_prefixes(tensors);
    if (!all.empty()) prefix = all.front();
  }
  const auto idx = index_of(tensors);
  Mapping best;
  best.prefix = prefix;
  int best_found = 0;
  for (const Family& fam : families()) {
    int found = 0;
    Mapping m = fill(fam, prefix, idx, &found);
    if (m.roles[0].tensor < 0) continue;  // a family counts only with its Q
    if (found > best_found) {
      best = m;
      best_found = found;
    }
  }
  return best;
}

namespace {

// When role r's shape (x·W, or 1 × n for a bias) is not rows × cols: the sentence's
// code and values, saying the file's shape and what it gives as x·W.
Error shape_error(const Mapping& m, const std::vector<TensorInfo>& tensors, const uint64_t got[2], int r,
                  uint64_t rows, uint64_t cols, Role with) {
  const RoleChoice& c = m.roles[r];
  if (c.tensor < 0 || (got[0] == rows && got[1] == cols)) return {};
  const Role role = static_cast<Role>(r);
  const TensorInfo& t = tensors[c.tensor];
  if (role_is_bias(role)) {
    return Error::make(Problem::role_shape_bias,
                       {role_name(role), t.name, std::to_string(got[1]), std::to_string(cols), role_name(with)});
  }
  return Error::make(c.transpose ? Problem::role_shape : Problem::role_shape_xw,
                     {role_name(role), t.name, shape_text(t.shape), dims(got[0], got[1]), dims(rows, cols), role_name(with)});
}

}  // namespace

Error check_mapping(const Mapping& m, const std::vector<TensorInfo>& tensors, MappedShapes* out) {
  MappedShapes s;
  uint64_t shape[kRoleCount][2] = {};
  for (int r = 0; r < kRoleCount; ++r) {
    const RoleChoice& c = m.roles[r];
    if (c.tensor < 0) continue;
    if (static_cast<size_t>(c.tensor) >= tensors.size()) return Error::make(Problem::role_missing, {role_name(static_cast<Role>(r))});
    Error e = role_shape(static_cast<Role>(r), c, tensors[c.tensor], &shape[r][0], &shape[r][1]);
    if (!e.ok()) return e;
  }
  for (int r = 0; r < 3; ++r) {
    if (m.roles[r].tensor < 0) return Error::make(Problem::role_missing, {role_name(static_cast<Role>(r))});
  }
  const uint64_t dm = shape[0][0], dout = shape[0][1];
  // K and V are W_k's width: d_out, or a divisor of it (GQA / MQA: num_kv_heads · head_dim).
  const uint64_t kv = shape[1][1];
  const bool kv_fits = kv >= 1 && kv <= dout && dout % kv == 0;
  auto check = [&](int r, uint64_t rows, uint64_t cols, Role with) {
    return shape_error(m, tensors, shape[r], r, rows, cols, with);
  };
  if (shape[1][0] != dm) return check(1, dm, kv_fits ? kv : dout, Role::W_q);
  if (!kv_fits) {
    return Error::make(Problem::kv_width, {"W_k", tensors[m.roles[1].tensor].name, std::to_string(kv), std::to_string(dout)});
  }
  if (Error e = check(2, dm, kv, Role::W_k); !e.ok()) return e;
  if (Error e = check(3, dout, dout, Role::W_q); !e.ok()) return e;
  if (Error e = check(4, 1, dout, Role::W_q); !e.ok()) return e;
  if (Error e = check(5, 1, kv, Role::W_k); !e.ok()) return e;
  if (Error e = check(6, 1, kv, Role::W_v); !e.ok()) return e;
  if (Error e = check(7, 1, dout, Role::W_o); !e.ok()) return e;
  const int nb = (m.roles[4].tensor >= 0) + (m.roles[5].tensor >= 0) + (m.roles[6].tensor >= 0);
  if (nb != 0 && nb != 3) {
    std::string given, missing;
    for (int r = 4; r < 7; ++r) {
      std::string& to = m.roles[r].tensor >= 0 ? given : missing;
      to += (to.empty() ? "" : ", ") + std::string(role_name(static_cast<Role>(r)));
    }
    return Error::make(Problem::bias_partial, {given, missing});
  }
  if (m.roles[7].tensor >= 0 && m.roles[3].tensor < 0) return Error::make(Problem::role_missing, {"W_o"});
  if (dm < 1 || dm > static_cast<uint64_t>(Limits::kMaxDModel)) {
    return Error::make(Problem::size_limit, {"d_model", std::to_string(dm), std::to_string(Limits::kMaxDModel)});
  }
  if (dout < 1 || dout > static_cast<uint64_t>(Limits::kMaxDOut)) {
    return Error::make(Problem::size_limit, {"d_out", std::to_string(dout), std::to_string(Limits::kMaxDOut)});
  }
  if (dout / kv > static_cast<uint64_t>(Limits::kMaxHeads)) {  // each K/V head serves d_out / kv_dim query heads at least
    return Error::make(Problem::size_limit, {"num_heads", std::to_string(dout / kv), std::to_string(Limits::kMaxHeads)});
  }
  s.d_model = static_cast<int>(dm);
  s.d_out = static_cast<int>(dout);
  s.kv_dim = static_cast<int>(kv);
  s.qkv_bias = nb == 3;
  s.out_proj = m.roles[3].tensor >= 0;
  s.out_bias = m.roles[7].tensor >= 0;
  if (out) *out = s;
  return {};
}

std::vector<int> mapping_tensors(const Mapping& m) {
  std::vector<int> v;
  for (const RoleChoice& c : m.roles) {
    if (c.tensor >= 0 && std::find(v.begin(), v.end(), c.tensor) == v.end()) v.push_back(c.tensor);
  }
  std::sort(v.begin(), v.end());
  return v;
}

int kv_heads_for(int heads, int d_out, int kv_dim) {
  if (kv_dim == 0) kv_dim = d_out;
  if (heads < 1 || heads > Limits::kMaxHeads || d_out < 1 || d_out % heads != 0) return 0;
  const int head_dim = d_out / heads;
  if (kv_dim < 1 || kv_dim % head_dim != 0) return 0;
  const int g = kv_dim / head_dim;
  return heads % g == 0 ? g : 0;
}

int default_heads(int current_heads, int d_out, int kv_dim) {
  return kv_heads_for(current_heads, d_out, kv_dim) > 0 ? current_heads : 0;
}

std::vector<int> head_choices(int d_out, int kv_dim) {
  std::vector<int> v;
  for (int h = 1; h <= Limits::kMaxHeads && h <= d_out; ++h) {
    if (kv_heads_for(h, d_out, kv_dim) > 0) v.push_back(h);
  }
  return v;
}

Error apply_mapping(const Mapping& m, const std::vector<TensorInfo>& tensors,
                    const std::vector<std::vector<float>>& data, const State& base, int num_heads, State* out) {
  MappedShapes s;
  if (Error e = check_mapping(m, tensors, &s); !e.ok()) return e;
  const int kv_heads = kv_heads_for(num_heads, s.d_out, s.kv_dim);
  if (kv_heads == 0 && s.kv_dim == s.d_out) {
    return Error::make(Problem::heads_invalid, {std::to_string(num_heads), std::to_string(s.d_out)});
  }
  if (kv_heads == 0) {
    return Error::make(Problem::heads_kv_invalid, {std::to_string(num_heads), std::to_string(s.d_out), std::to_string(s.kv_dim)});
  }
  // Captured layers: the imported weights make one layer, on layer 0's input.
  State st = captured_layer_state(base, 0);
  auto take = [&](Role role, SharedTensor* shared) -> Error {
    const RoleChoice& c = m[role];
    if (c.tensor < 0) {
      *shared = Tensor();
      return {};
    }
    *shared = Tensor();            // not the base state's (mut() would copy it first)
    Tensor* dst = &shared->mut();  // a Tensor of this state's own, written below
    const TensorInfo& t = tensors[c.tensor];
    const std::vector<float>& v = static_cast<size_t>(c.tensor) < data.size() ? data[c.tensor] : std::vector<float>();
    if (v.size() != t.count()) return Error::make(Problem::read_failed, {t.name});
    uint64_t rows = 0, cols = 0;
    if (Error e = role_shape(role, c, t, &rows, &cols); !e.ok()) return e;
    dst->reset_for_overwrite(static_cast<int>(rows), static_cast<int>(cols));
    if (role_is_bias(role)) {
      const size_t off = c.part >= 0 ? static_cast<size_t>(c.part) * cols : 0;
      std::copy(v.begin() + off, v.begin() + off + cols, dst->data.begin());
      return {};
    }
    const size_t src_cols = t.shape[1];
    const size_t off = c.part >= 0 ? static_cast<size_t>(c.part) * cols : 0;
    for (size_t i = 0; i < rows; ++i) {
      float* d = dst->row(static_cast<int>(i));
      for (size_t j = 0; j < cols; ++j) d[j] = c.transpose ? v[(off + j) * src_cols + i] : v[i * src_cols + off + j];
    }
    return {};
  };
  WeightSpec w = st.weights;
  w.init = WeightInit::values;
  const std::pair<Role, SharedTensor*> dsts[] = {{Role::W_q, &w.W_q}, {Role::W_k, &w.W_k}, {Role::W_v, &w.W_v}, {Role::W_o, &w.W_o},
                                           {Role::b_q, &w.b_q}, {Role::b_k, &w.b_k}, {Role::b_v, &w.b_v}, {Role::b_o, &w.b_o}};
  for (const auto& [role, dst] : dsts) {
    if (Error e = take(role, dst); !e.ok()) return e;
  }
  st.weights = std::move(w);
  if (st.embedding.init == EmbeddingInit::values && st.d_model != s.d_model) {
    st.embedding.init = EmbeddingInit::torch_randn;
    st.embedding.values = Tensor();
  }
  st.d_model = s.d_model;
  st.d_out = s.d_out;
  st.num_heads = num_heads;
  st.num_kv_heads = kv_heads == num_heads ? 0 : kv_heads;  // a K/V head per head: plain MHA, written as 0
  fit_to_heads(&st);  // the sink logits follow the heads (kept, cut, or 0 for a new head)
  st.qkv_bias = s.qkv_bias;
  st.out_proj = s.out_proj;
  st.out_bias = s.out_proj ? s.out_bias : st.out_bias;
  const Status v = validate_state(st);
  if (!v.ok) {
    Error e = Error::make(Problem::state_refused, {v.error});
    e.refusal = v;
    return e;
  }
  *out = std::move(st);
  return {};
}

}  // namespace attnviz::weights
