// attnviz/weights_map.h: which tensors of a checkpoint are W_q, W_k, W_v, W_o
// and the biases, and turning them into a state's explicit weights.
//
// propose_mapping() is a pure function of the tensor list (names and shapes):
// it knows the names PyTorch modules give their parameters (q_proj/k_proj/
// v_proj/o_proj, query/key/value, W_query/W_key/W_value, nn.MultiheadAttention's
// in_proj_weight, a fused qkv nn.Linear(d, 3d), GPT-2's Conv1D c_attn/c_proj),
// behind any layer prefix ("transformer.h.0.attn.", "model.layers.3.self_attn.").
// The learner may then correct every role (docs/engine.md, "Trained weights in").
#pragma once

#include <string>
#include <vector>

#include "attnviz/state.h"
#include "attnviz/weights_file.h"

namespace attnviz::weights {

enum class Role { W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o };
constexpr int kRoleCount = 8;
const char* role_name(Role r);  // "W_q", ..., "b_o"
inline bool role_is_bias(Role r) { return static_cast<int>(r) >= 4; }

struct RoleChoice {
  int tensor = -1;         // index into the tensor list; -1: none
  int part = -1;           // -1: the whole tensor; 0, 1, 2: that third of a fused tensor, cut along its output axis
  bool transpose = false;  // a weight stored out × in (nn.Linear): transposed to x·W. Conv1D and bare parameters: no
  bool operator==(const RoleChoice& o) const { return tensor == o.tensor && part == o.part && transpose == o.transpose; }
};

struct Mapping {
  std::string family;  // "q_proj", "query", "W_query", "in_proj", "qkv", "c_attn", "W_q"; "" when nothing matched
  std::string prefix;  // the layer's prefix, e.g. "transformer.h.0.attn."
  RoleChoice roles[kRoleCount];
  RoleChoice& operator[](Role r) { return roles[static_cast<int>(r)]; }
  const RoleChoice& operator[](Role r) const { return roles[static_cast<int>(r)]; }
};

// Tensor names in natural order: "a.h.2.x" < "a.h.10.x" (digit runs compare as numbers).
bool natural_less(const std::string& a, const std::string& b);

// The layers found: prefixes before a known Q (or fused QKV) name, in natural
// order ("h.2." before "h.10.").
std::vector<std::string> layer_prefixes(const std::vector<TensorInfo>& tensors);

// The proposal for one layer (empty prefix: the first of layer_prefixes).
Mapping propose_mapping(const std::vector<TensorInfo>& tensors, const std::string& prefix = {});

// What a mapping gives, from the shapes alone (before any data is read).
struct MappedShapes {
  int d_model = 0, d_out = 0;
  // The width of K and V (W_k's and W_v's x·W columns): d_out, or fewer with grouped-
  // query K/V heads (Llama's k_proj / v_proj of num_key_value_heads · head_dim rows):
  // then num_kv_heads = kv_dim / head_dim, once the heads are chosen.
  int kv_dim = 0;
  bool out_proj = false, qkv_bias = false, out_bias = false;
};
// W_q gives d_model and d_out; W_k must have d_model rows and a width that divides
// d_out; W_v, b_k and b_v follow W_k; W_o, b_q and b_o follow W_q.
Error check_mapping(const Mapping& m, const std::vector<TensorInfo>& tensors, MappedShapes* out);

// The tensors a mapping reads, each once, in increasing index.
std::vector<int> mapping_tensors(const Mapping& m);

// The K/V heads that `heads` query heads give with K and V kv_dim wide: kv_dim / head_dim
// (head_dim = d_out / heads), when head_dim divides kv_dim and the result divides the
// heads; 0 when the heads do not fit. kv_dim 0 means d_out (plain multi-head attention).
int kv_heads_for(int heads, int d_out, int kv_dim = 0);

// Heads to propose: the current ones when they fit (kv_heads_for is not 0), else 0
// (the learner picks from head_choices).
int default_heads(int current_heads, int d_out, int kv_dim = 0);
// The head counts that fit, at most Limits::kMaxHeads: divisors of d_out, and with
// K and V narrower than d_out, multiples of d_out / kv_dim.
std::vector<int> head_choices(int d_out, int kv_dim = 0);

// Applies a checked mapping: data[i] holds tensor i's float32 values (to_float32)
// for every i in mapping_tensors(m). The result is `base` with d_model, d_out,
// num_heads, num_kv_heads (kv_heads_for; 0 when it is num_heads), qkv_bias /
// out_proj / out_bias and explicit weights; tokens, mask, dropout and the rest
// stay; explicit embedding values that no longer fit d_model go back to seeded
// (torch_randn, the same seed). A state of captured layers becomes one layer on
// layer 0's input (captured_layer_state). Validated.
Error apply_mapping(const Mapping& m, const std::vector<TensorInfo>& tensors,
                    const std::vector<std::vector<float>>& data, const State& base, int num_heads, State* out);

}  // namespace attnviz::weights
