// The report: every stage of the current result as one JSON object.
#include "attnviz/report.h"
#include "attnviz/state_json.h"

#include <functional>
#include <new>

#include "attnviz/model.h"
#include "attnviz/pipeline.h"
#include "state/json_numbers.h"

namespace attnviz {

namespace {

using nlohmann::json;

// Calls emit(key, value) for the report's top-level entries in the stage
// table's order (attnviz/stages.h): the stages the pipeline has (a bias, one
// row, as a vector), and at the first per-head stage "heads", one array of
// per-head objects built by head_object.
void visit_report(const Pipeline& p, const std::function<void(const char*, json)>& emit,
                  const std::function<json(int)>& head_object) {
  emit("tokens", p.state().tokens);
  bool heads_done = false;
  for (int i = 0; i < kStageCount; ++i) {
    const StageInfo& info = stage_table()[i];
    if (info.per_head) {
      if (heads_done) continue;
      heads_done = true;
      json heads = json::array();
      for (int h = 0; h < p.num_heads(); ++h) heads.push_back(head_object(h));
      emit("heads", std::move(heads));
      continue;
    }
    const Tensor* t = p.matrix(info.stage);
    if (t == nullptr) continue;  // an absent parameter (W_o, b_*)
    emit(info.name, info.rows == StageDim::one ? detail::tensor_to_json_vector(t->view())
                                               : detail::tensor_to_json_rows(t->view()));
  }
}

// The per-head stages, in table order: each head's object has them as keys.
struct HeadStages {
  Stage s[kStageCount];
  int n = 0;
  HeadStages() {
    for (int i = 0; i < kStageCount; ++i) {
      if (stage_table()[i].per_head) s[n++] = stage_table()[i].stage;
    }
  }
  const Stage* begin() const { return s; }
  const Stage* end() const { return s + n; }
};
const HeadStages kHeadStages;

}  // namespace

json report_json(const Pipeline& p) {
  json r = json::object();
  if (!p.has_result()) return r;
  visit_report(
      p, [&](const char* key, json value) { r[key] = std::move(value); },
      [&](int h) {
        json hj = json::object();
        for (Stage s : kHeadStages) {
          const Tensor* t = p.matrix(s, h);  // q_rot, k_rot, bias: only with their option
          if (t != nullptr) hj[stage_name(s)] = detail::tensor_to_json_rows(t->view());
        }
        return hj;
      });
  return r;
}

std::string report_text(const Pipeline& p) {
  if (!p.has_result()) return "{}";
  std::string out = "{";
  bool first = true;
  // Per-head objects are written as text too, to keep their key order; the
  // "heads" value passed to emit is then an array of pre-rendered strings.
  std::vector<std::string> head_texts;
  visit_report(
      p,
      [&](const char* key, json value) {
        if (!first) out += ',';
        first = false;
        out += json(key).dump();
        out += ':';
        if (std::string(key) == "heads") {
          out += '[';
          for (size_t h = 0; h < head_texts.size(); ++h) {
            if (h > 0) out += ',';
            out += head_texts[h];
          }
          out += ']';
        } else {
          out += value.dump();
        }
      },
      [&](int h) {
        std::string t = "{";
        for (Stage s : kHeadStages) {
          const Tensor* m = p.matrix(s, h);  // q_rot, k_rot, bias: only with their option
          if (m == nullptr) continue;
          if (t.size() > 1) t += ',';
          t += json(stage_name(s)).dump();
          t += ':';
          t += detail::tensor_to_json_rows(m->view()).dump();
        }
        t += '}';
        head_texts.push_back(std::move(t));
        return json();  // placeholder; the text above is what is written
      });
  out += '}';
  return out;
}

// Captured layers: {"tokens", "layers": [{"name", then layer l's own report}]}.
static std::string captured_report_text(const LayerStack& stack) {
  std::string out = "{\"tokens\":" + json(stack.state().tokens).dump() + ",\"layers\":[";
  for (int l = 0; l < stack.num_layers(); ++l) {
    const std::string layer = report_text(stack.layer(l));  // "{...}"
    out += (l ? ",{\"name\":" : "{\"name\":") + json(stack.layer_name(l)).dump(-1, ' ', false, json::error_handler_t::replace);
    out += layer.size() > 2 ? "," + layer.substr(1) : "}";
  }
  return out + "]}";
}

std::string report_text(const LayerStack& stack) {
  if (stack.is_captured()) return captured_report_text(stack);
  if (!stack.is_model()) return report_text(stack.layer(0));
  const State& s = stack.state();
  const TrainedModel& m = *stack.model();
  auto rows = [](const Tensor* t) { return detail::tensor_to_json_rows(t->view()).dump(); };
  std::string out = "{\"tokens\":" + json(s.tokens).dump();
  out += ",\"model\":" + json({{"name", m.name}, {"step", stack.checkpoint()->step}}).dump();
  out += ",\"token_ids\":" + json(stack.token_ids()).dump();
  out += ",\"token_embedding\":" + rows(stack.token_embedding());
  out += ",\"position_embedding\":" + rows(stack.position_embedding());
  out += ",\"residual\":[";
  for (int l = 0; l <= stack.num_layers(); ++l) out += (l ? "," : "") + rows(stack.residual(l));
  out += "],\"layers\":[";
  for (int l = 0; l < stack.num_layers(); ++l) out += (l ? "," : "") + report_text(stack.layer(l));
  out += "],\"logits\":" + rows(stack.logits());
  return out + "}";
}

Status run_state_json(const nlohmann::json& state, nlohmann::json* report_out) {
  try {
    State s;
    Status st = parse_state(state, &s);
    if (!st.ok) return st;
    LayerStack stack;  // one layer, a trained model's every layer, or captured layers
    st = stack.set_state(std::move(s));
    if (!st.ok) return st;
    nlohmann::json report = stack.is_model() || stack.is_captured() ? nlohmann::json::parse(report_text(stack))
                                                                     : report_json(stack.layer(0));
    if (report_out != nullptr) *report_out = std::move(report);
    return Status::success();
  } catch (const std::bad_alloc&) {
    return Status::refusal(Msg::no_memory_for_state, "tokens");
  } catch (const std::exception& e) {
    return Status::refusal(Msg::could_not_run, "", {e.what()});
  }
}

}  // namespace attnviz
