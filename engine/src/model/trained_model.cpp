// A trained model from its card and checkpoints file (attnviz/model.h), and the
// built-in models by name.
#include "attnviz/model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <new>
#include <string>

#include <nlohmann/json.hpp>

#include "attnviz/json_text.h"
#include "attnviz/torch_rng.h"
#include "attnviz/weights_file.h"
#include "model/model_sources.h"

namespace attnviz {

int TrainedModel::token_id(std::string_view token) const {
  for (size_t i = 0; i < vocabulary.size(); ++i) {
    if (vocabulary[i] == token) return static_cast<int>(i);
  }
  return -1;
}

namespace {

using nlohmann::json;

// A card that does not say what it must: the field and what is wrong (English).
struct CardError {
  Status status;
};

[[noreturn]] void card_fail(const std::string& field, const std::string& what) {
  throw CardError{Status::refusal(Msg::model_card_bad, field, {field, what})};
}

const json& need(const json& j, const char* key, const std::string& where) {
  const std::string field = where.empty() ? key : where + "." + key;
  if (!j.is_object() || !j.contains(key)) card_fail(field, "it is missing");
  return j.at(key);
}

int need_int(const json& j, const char* key, int lo, int hi) {
  const json& v = need(j, key, "");
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi) {
    card_fail(key, "it must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  return v.get<int>();
}

std::vector<std::string> need_strings(const json& v, const std::string& field) {
  if (!v.is_array()) card_fail(field, "it must be a list of strings");
  std::vector<std::string> out;
  for (const json& e : v) {
    if (!e.is_string()) card_fail(field, "it must be a list of strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

LayerScores read_scores(const json& j, const std::string& field) {
  LayerScores out;
  for (const json& layer : need(j, "layers", field)) {
    std::vector<HeadScores> heads;
    for (const json& h : need(layer, "heads", field + ".layers")) {
      HeadScores s;
      s.previous_token = need(h, "previous_token", field).get<double>();
      s.induction = need(h, "induction", field).get<double>();
      s.first_token = need(h, "first_token", field).get<double>();
      s.duplicate_token = need(h, "duplicate_token", field).get<double>();
      heads.push_back(s);
    }
    out.push_back(std::move(heads));
  }
  return out;
}

void read_card(const json& j, TrainedModel* m) {
  m->name = need(j, "name", "").get<std::string>();
  m->summary = j.value("summary", std::string());
  m->vocabulary = need_strings(need(j, "vocabulary", ""), "vocabulary");
  m->start_token = need(j, "start_token", "").get<std::string>();
  m->d_model = need_int(j, "d_model", 1, Limits::kMaxDModel);
  m->num_heads = need_int(j, "num_heads", 1, Limits::kMaxHeads);
  m->num_layers = need_int(j, "num_layers", 1, 64);
  m->context = need_int(j, "context", 1, Limits::kMaxTokens);
  if (m->vocabulary.size() < 2) card_fail("vocabulary", "it needs the start token and at least one symbol");
  if (m->token_id(m->start_token) != 0) card_fail("start_token", "it must be the vocabulary's first word");
  if (m->d_model % m->num_heads != 0) card_fail("num_heads", "it must divide d_model");
  const json& probe = need(j, "probe", "");
  m->probe = need_strings(need(probe, "tokens", "probe"), "probe.tokens");
  m->probe_repeat = need(probe, "repeat_length", "probe").get<int>();
  m->probe_seed = need(probe, "seed", "probe").get<uint64_t>();
  for (const std::string& t : m->probe) {
    if (m->token_id(t) < 0) card_fail("probe.tokens", "\"" + t + "\" is not in the vocabulary");
  }
  if (m->probe.empty() || static_cast<int>(m->probe.size()) > m->context) {
    card_fail("probe.tokens", "it must hold 1 to context tokens");
  }
  for (const json& p : j.value("loss_curve", json::array())) {
    m->loss_curve.push_back({need(p, "step", "loss_curve").get<int>(), need(p, "loss", "loss_curve").get<double>()});
  }
}

// One tensor of the card: its name, and the shape the file must give it.
struct CardTensor {
  std::string name;
  std::vector<uint64_t> shape;
};

std::vector<CardTensor> expected_tensors(const TrainedModel& m) {
  const uint64_t V = m.vocabulary.size(), D = m.d_model, C = m.context;
  std::vector<CardTensor> t = {{"tok_emb.weight", {V, D}}, {"pos_emb.weight", {C, D}}};
  for (int l = 0; l < m.num_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    for (const char* w : {"W_query", "W_key", "W_value", "out_proj"}) t.push_back({p + w + ".weight", {D, D}});
    t.push_back({p + "out_proj.bias", {D}});
  }
  t.push_back({"unembed.weight", {V, D}});
  return t;
}

// The card's tensor list must be the architecture's, name for name and shape for shape.
void check_card_tensors(const json& j, const std::vector<CardTensor>& want) {
  const json& listed = need(j, "tensors", "");
  if (!listed.is_array() || listed.size() != want.size()) {
    card_fail("tensors", "it must list the " + std::to_string(want.size()) + " tensors of the architecture");
  }
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string field = "tensors[" + std::to_string(i) + "]";
    if (need(listed[i], "name", field).get<std::string>() != want[i].name) {
      card_fail(field + ".name", "it must be \"" + want[i].name + "\"");
    }
    if (need(listed[i], "shape", field).get<std::vector<uint64_t>>() != want[i].shape) {
      card_fail(field + ".shape", "it must be " + weights::shape_text(want[i].shape));
    }
  }
}

Tensor transposed(const Tensor& t) {
  Tensor out(t.cols, t.rows);
  for (int i = 0; i < t.rows; ++i) {
    for (int j = 0; j < t.cols; ++j) out.at(j, i) = t.at(i, j);
  }
  return out;
}

class TensorSource {
 public:
  explicit TensorSource(std::string_view bytes) : bytes_(bytes) {
    weights::Scanner scan(bytes.size(), "checkpoints.safetensors");
    weights::ByteRange r;
    while (scan.next(&r)) {
      const uint64_t end = std::min<uint64_t>(bytes.size(), r.offset + r.length);
      scan.feed(r.offset < end ? bytes.substr(r.offset, end - r.offset) : std::string_view());
    }
    if (!scan.error().ok()) {
      throw CardError{Status::refusal(Msg::model_tensors_unreadable, "", {weights::problem_name(scan.error().code)})};
    }
    for (const weights::TensorInfo& t : scan.tensors()) by_name_[t.name] = t;
  }
  // The tensor `name` as float32, (rows × cols) with rows = all but the last dimension.
  // A refusal names the card's field that asked for it: `named_by` (the checkpoint's
  // prefix) when the file has no such tensor, `shaped_by` (the card's tensors[i].shape)
  // when the file's shape is another.
  Tensor get(const std::string& name, const std::vector<uint64_t>& shape, const std::string& named_by,
             const std::string& shaped_by) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) throw CardError{Status::refusal(Msg::model_tensor_missing, named_by, {name})};
    const weights::TensorInfo& t = it->second;
    if (t.shape != shape) {
      throw CardError{Status::refusal(Msg::model_tensor_shape, shaped_by,
                                      {name, weights::shape_text(t.shape), weights::shape_text(shape)})};
    }
    Tensor out(shape.size() == 1 ? 1 : static_cast<int>(shape[0]), static_cast<int>(shape.back()));
    const weights::Error e = weights::to_float32(t, bytes_.substr(t.data.offset, t.data.length), out.data.data());
    if (!e.ok()) throw CardError{Status::refusal(Msg::model_tensors_unreadable, "", {weights::problem_name(e.code)})};
    return out;
  }

 private:
  std::string_view bytes_;
  std::map<std::string, weights::TensorInfo> by_name_;
};

Checkpoint read_checkpoint(const json& c, size_t index, const TrainedModel& m, const TensorSource& src) {
  const std::string field = "checkpoints[" + std::to_string(index) + "]";
  Checkpoint k;
  k.step = need(c, "step", field).get<int>();
  k.loss = need(c, "loss", field).get<double>();
  k.card_scores = read_scores(need(c, "head_scores", field), field + ".head_scores");
  const std::string prefix = need(c, "prefix", field).get<std::string>();
  // Each tensor by its name in the card's list (check_card_tensors made that list the
  // architecture's), so a refusal can name the card's entry for it.
  const std::vector<CardTensor> card = expected_tensors(m);
  auto get = [&](const std::string& name) {
    const auto it = std::find_if(card.begin(), card.end(), [&](const CardTensor& t) { return t.name == name; });
    const size_t i = static_cast<size_t>(it - card.begin());  // found: the names below are the list's
    return src.get(prefix + name, it->shape, field + ".prefix", "tensors[" + std::to_string(i) + "].shape");
  };
  k.tok_emb = get("tok_emb.weight");
  k.pos_emb = get("pos_emb.weight");
  for (int l = 0; l < m.num_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    LayerWeights w;
    w.W_q = transposed(get(p + "W_query.weight"));
    w.W_k = transposed(get(p + "W_key.weight"));
    w.W_v = transposed(get(p + "W_value.weight"));
    w.W_o = transposed(get(p + "out_proj.weight"));
    w.b_o = get(p + "out_proj.bias");
    k.layers.push_back(std::move(w));
  }
  k.unembed = transposed(get("unembed.weight"));
  return k;
}

}  // namespace

Status load_model(std::string_view card_json, std::string_view checkpoints_bytes, SharedModel* out) {
  json j;
  Status st = parse_json_text(card_json, &j);
  if (!st.ok) return st;
  try {
    auto m = std::make_shared<TrainedModel>();
    read_card(j, m.get());
    check_card_tensors(j, expected_tensors(*m));
    const TensorSource src(checkpoints_bytes);
    const json& list = need(j, "checkpoints", "");
    if (!list.is_array() || list.empty()) card_fail("checkpoints", "it must list at least one checkpoint");
    for (size_t i = 0; i < list.size(); ++i) m->checkpoints.push_back(read_checkpoint(list[i], i, *m, src));
    *out = std::move(m);
    return Status::success();
  } catch (const CardError& e) {
    return e.status;
  } catch (const std::bad_alloc&) {
    return Status::refusal(Msg::no_memory_to_read, "");
  } catch (const std::exception& e) {
    return Status::refusal(Msg::model_card_bad, "", {"card", e.what()});
  }
}

SharedModel find_model(std::string_view name) {
  static std::mutex mu;
  static std::map<std::string, SharedModel, std::less<>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded.find(name);
  if (it != loaded.end()) return it->second;
  for (const detail::ModelSource& s : detail::model_sources()) {
    if (name != s.name || s.checkpoints.empty()) continue;  // empty: left out of this build
    SharedModel m;
    if (!load_model(s.card, s.checkpoints, &m).ok) return nullptr;  // a test checks every built-in model loads
    loaded.emplace(std::string(name), m);
    return m;
  }
  return nullptr;
}

std::vector<std::string> model_names() {
  std::vector<std::string> out;
  for (const detail::ModelSource& s : detail::model_sources()) out.emplace_back(s.name);
  return out;
}

bool model_left_out(std::string_view name) {
  for (const detail::ModelSource& s : detail::model_sources())
    if (name == s.name && s.checkpoints.empty()) return true;
  return false;
}

std::vector<std::string> repeated_tokens(const TrainedModel& m, int n, uint64_t seed) {
  const int symbols = m.vocab_size() - 1;
  n = std::max(0, std::min({n, symbols, (m.context - 1) / 2}));
  TorchGenerator g(seed);
  const std::vector<int64_t> perm = g.randperm(symbols);
  std::vector<std::string> r = {m.start_token};
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < n; ++i) r.push_back(m.vocabulary[static_cast<size_t>(perm[static_cast<size_t>(i)] + 1)]);
  }
  return r;
}

State model_probe_state(const SharedModel& model) {
  State s;
  s.model.name = model->name;
  s.model.model = model;
  s.model.checkpoint = static_cast<int>(model->checkpoints.size()) - 1;
  s.tokens = model->probe;
  s.d_model = s.d_out = model->d_model;
  s.num_heads = model->num_heads;
  s.out_proj = true;
  s.out_bias = true;
  s.causal = true;
  return s;
}

}  // namespace attnviz
