// share.cpp: see share.h.
#include "app/model/share.h"

#include "app/lessons/lesson_data.h"

#include "attnviz/model.h"

#include <algorithm>
#include <atomic>

#include "app/app.h"
#include "app/model/app_model.h"
#include "app/text/i18n.h"
#include "attnviz/state_file.h"

namespace attnviz::ui {

using json = nlohmann::json;

namespace {

const char* const kTabNames[] = {"stages", "data", "compare", "lines", "values", "decode", "model"};  // MainTab order

// Nesting depth of JSON text, counted without parsing (strings skipped), so hostile
// text such as 10^6 '[' never reaches a recursive algorithm. Stops past `limit`.
int json_depth(std::string_view t, int limit) {
  int depth = 0, max_depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
      if (max_depth > limit) return max_depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max_depth;
}

// The view part of a payload, read and type-checked before anything is applied:
// the fields it gives (has_*) and their values (in v).
struct ViewPatch {
  bool has_tab = false, has_layer = false, has_head = false, has_head_b = false, has_stage = false, has_cmap = false,
       has_pinned = false, has_decimals = false, has_torch = false, has_split = false,
       has_lang = false, has_decode_t = false, has_lesson = false, has_pool = false;
  View v;
};

// `error` is the sentence in the interface's language (tr / tr_args, i18n.h).
ShareResult fail(std::string error, std::string field) { return {false, std::move(error), std::move(field)}; }

bool small_int(const json& v, int* out) {
  if (!v.is_number_integer()) return false;
  long long x = v.get<long long>();
  if (x < 0 || x > 1000000) return false;
  *out = (int)x;
  return true;
}

// A stage named by a JSON string (stage_name), or false.
bool stage_of(const json& x, Stage* out) { return x.is_string() && stage_from_name(x.get<std::string>(), out); }

ShareResult read_view(const json& v, ViewPatch* out) {
  if (v.is_null()) return {true, "", ""};
  if (!v.is_object()) return fail(tr("The link's view must be an object."), "view");
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& k = it.key();
    const json& x = it.value();
    if (k == "tab") {
      auto f = x.is_string() ? std::find(std::begin(kTabNames), std::end(kTabNames), x.get<std::string>())
                             : std::end(kTabNames);
      if (f == std::end(kTabNames))
        return fail(tr("The link's view.tab must be one of stages, data, compare, lines, values, decode, model."), "view.tab");
      out->v.tab = (MainTab)(f - std::begin(kTabNames));
      out->has_tab = true;
    } else if (k == "layer") {
      if (!small_int(x, &out->v.layer))
        return fail(tr("The link's view.layer must be a layer number (0, 1, …)."), "view.layer");
      out->has_layer = true;
    } else if (k == "head" || k == "head_b") {
      int h = 0;
      if (!small_int(x, &h))
        return fail(tr_args("The link's view.{0} must be a head number (0, 1, …).", {k}), "view." + k);
      (k == "head" ? out->v.head : out->v.head_b) = h;
      (k == "head" ? out->has_head : out->has_head_b) = true;
    } else if (k == "compare_stage") {
      if (!stage_of(x, &out->v.compare_stage) || !stage_is_per_head(out->v.compare_stage))
        return fail(tr("The link's view.compare_stage must be one of q_rot, k_rot, scores, scaled, bias, masked, weights, dropped, context."),
                    "view.compare_stage");
      out->has_stage = true;
    } else if (k == "cmap") {
      if (x == "viridis") out->v.weights_cmap = Colormap::viridis;
      else if (x == "cividis") out->v.weights_cmap = Colormap::cividis;
      else return fail(tr("The link's view.cmap must be viridis or cividis."), "view.cmap");
      out->has_cmap = true;
    } else if (k == "decimals") {
      if (!x.is_number_integer() || !(x == 0 || x == 2 || x == 3 || x == 4))
        return fail(tr("The link's view.decimals must be 0 (auto), 2, 3 or 4."), "view.decimals");
      out->v.decimals = x.get<int>();
      out->has_decimals = true;
    } else if (k == "decode_t") {
      if (!small_int(x, &out->v.decode_t))
        return fail(tr("The link's view.decode_t must be a step number (0, 1, …)."), "view.decode_t");
      out->has_decode_t = true;
    } else if (k == "torch") {
      if (!x.is_boolean()) return fail(tr("The link's view.torch must be true or false."), "view.torch");
      out->v.show_torch = x.get<bool>();
      out->has_torch = true;
    } else if (k == "pool") {
      if (!x.is_string() || (x.get<std::string>() != "max" && x.get<std::string>() != "mean"))
        return fail(tr("The link's view.pool must be \"max\" or \"mean\"."), "view.pool");
      out->v.overview_mean = x.get<std::string>() == "mean";
      out->has_pool = true;
    } else if (k == "split") {
      if (!x.is_string() || !split_mode_from_name(x.get<std::string>(), &out->v.split))
        return fail(tr("The link's view.split must be \"words\" or \"whitespace\"."), "view.split");
      out->has_split = true;
    } else if (k == "lang") {
      if (!x.is_string() || !lang_from_code(x.get<std::string>(), &out->v.lang))
        return fail(tr("The link's view.lang must be \"en\" or \"zh-CN\"."), "view.lang");
      out->has_lang = true;
    } else if (k == "lesson") {
      // {"id", "step"}, or null: no lesson open. A lesson this build lacks opens none.
      out->has_lesson = true;
      out->v.lesson = -1;
      if (x.is_null()) continue;
      if (!x.is_object() || !x.contains("id") || !x["id"].is_string() || !small_int(x.value("step", json()), &out->v.lesson_step))
        return fail(tr("The link's view.lesson must be null or {\"id\", \"step\"}."), "view.lesson");
      out->v.lesson = lesson_index(x["id"].get<std::string>());
    } else if (k == "pinned") {
      out->has_pinned = true;
      if (x.is_null()) continue;
      const char* bad = tr("The link's view.pinned must be null or {\"stage\", \"head\", \"row\", \"col\"}.");
      if (!x.is_object() || !x.contains("stage") || !x["stage"].is_string() || x["stage"].get<std::string>().size() > 16)
        return fail(bad, "view.pinned");
      CellRef c;
      c.valid = stage_of(x["stage"], &c.stage);  // a stage this build does not know: not pinned
      if (!small_int(x.value("head", json()), &c.head) || !small_int(x.value("row", json()), &c.row) ||
          !small_int(x.value("col", json()), &c.col))
        return fail(bad, "view.pinned");
      out->v.pinned = c;
    }
    // Other keys: written by a newer build of the same format; ignored.
  }
  return {true, "", ""};
}

void apply_view(AppModel& m, const ViewPatch& p) {
  const View& v = p.v;
  View& to = m.view;
  const int H = std::max(1, m.engine.num_heads());
  if (p.has_tab) to.tab = v.tab;
  if (p.has_layer) {
    m.engine.set_layer(v.layer);  // clamped to the layers the state has
    to.layer = m.engine.layer();
  }
  if (p.has_head) to.head = std::min(v.head, H - 1);
  if (p.has_head_b) to.head_b = std::min(v.head_b, H - 1);
  if (p.has_stage) to.compare_stage = v.compare_stage;
  if (p.has_cmap) to.weights_cmap = v.weights_cmap;
  if (p.has_decimals) to.decimals = v.decimals;
  if (p.has_decode_t) {  // past the last token: the Decode tab shows the last step
    to.decode_t = v.decode_t;
    m.decode_len = 0;    // the step as the link says, not following from an earlier state
  }
  if (p.has_torch) to.show_torch = v.show_torch;
  if (p.has_pool) to.overview_mean = v.overview_mean;
  if (p.has_split) to.split = v.split;
  if (p.has_lang) change_language(m, v.lang);
  if (p.has_lesson) {  // lesson_watch enters the step without touching the state the link brought
    to.lesson = v.lesson;
    to.lesson_step = v.lesson >= 0 ? v.lesson_step : 0;
  }
  if (p.has_pinned) {
    // A cell outside the matrix (or of a stage this build does not know) is not pinned.
    const CellRef& c = v.pinned;
    int rows = 0, cols = 0;
    to.pinned = c.valid && m.engine.shape(c.stage, c.head, &rows, &cols) && c.row < rows && c.col < cols ? c : CellRef{};
  }
  m.view_restoring = 2;  // tab bars select view.tab / view.head instead of reporting theirs
}

// The layers a payload's state has, read before it is applied: a trained model's
// (attnviz/model.h), its captured layers, else 1. A state the engine will refuse
// counts 1; it says why.
int layers_of(const json& state) {
  if (state.is_object() && state.contains("layers") && state["layers"].is_array() && !state["layers"].empty())
    return static_cast<int>(state["layers"].size());
  if (!state.is_object() || !state.contains("model") || !state["model"].is_object()) return 1;
  const json& name = state["model"].value("name", json());
  const SharedModel model = name.is_string() ? find_model(name.get<std::string>()) : nullptr;
  return model ? model->num_layers : 1;
}

// The state as an undoable replace. On failure the controls keep the reason they
// showed before (the sentence goes to the notice instead).
bool apply_state(AppModel& m, const json& state, ShareResult* r) {
  std::string prev_error = m.error, prev_field = m.error_field;
  if (m.apply(state, Change::replace)) {
    *r = {true, "", ""};
    return true;
  }
  *r = fail(m.error, m.error_field);
  m.error = prev_error;
  m.error_field = prev_field;
  return false;
}

}  // namespace

View view_of(const AppModel& m) {
  View v = m.view;
  v.lang = language();  // i18n.h's, whoever set it
  if (v.tab != MainTab::decode || v.decode_t < 0) v.decode_t = -1;  // written only on the Decode tab
  return v;
}

static std::atomic<uint64_t> g_view_json{0};
uint64_t view_json_conversions() { return g_view_json.load(std::memory_order_relaxed); }

json view_to_json(const View& v) {
  g_view_json.fetch_add(1, std::memory_order_relaxed);
  json j = {{"tab", kTabNames[(int)v.tab]},
            {"head", v.head},
            {"head_b", v.head_b},
            {"compare_stage", stage_name(v.compare_stage)},
            {"cmap", v.weights_cmap == Colormap::cividis ? "cividis" : "viridis"},
            {"decimals", v.decimals},
            {"torch", v.show_torch},
            {"split", split_mode_name(v.split)},
            {"lang", lang_code(v.lang)},
            {"pinned", nullptr}};
  if (v.tab == MainTab::decode && v.decode_t >= 0) j["decode_t"] = v.decode_t;
  if (v.layer != 0) j["layer"] = v.layer;
  if (v.overview_mean) j["pool"] = "mean";  // long maps' blocks by mean (max, the default, is not written)
  if (v.lesson >= 0 && v.lesson < static_cast<int>(lessons().size()))
    j["lesson"] = {{"id", lessons()[v.lesson].id}, {"step", v.lesson_step}};
  if (v.pinned.valid)
    j["pinned"] = {{"stage", stage_name(v.pinned.stage)}, {"head", v.pinned.head}, {"row", v.pinned.row},
                   {"col", v.pinned.col}};
  return j;
}

json session_to_json(const AppModel& m) {
  return {{"v", kShareFormat}, {"state", m.engine.state_json()}, {"view", view_to_json(view_of(m))}};
}

ShareResult session_apply_text(AppModel& m, std::string_view text) {
  if (json_depth(text, kShareMaxDepth) > kShareMaxDepth)
    return fail(tr_args("It is nested more than {0} levels deep; an attnviz state never is.",
                        {std::to_string(kShareMaxDepth)}),
                "");
  json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return fail(tr("It is not valid JSON."), "");
  if (!doc.is_object()) return fail(tr("It is not a JSON object."), "");

  // A bare state (no "v"): replaces the state, keeps the view.
  if (!doc.contains("v")) {
    ShareResult r;
    apply_state(m, doc, &r);
    return r;
  }
  const json& v = doc["v"];
  if (!v.is_number_integer())
    return fail(tr_args("Its format version \"v\" must be a whole number; this attnviz reads format {0}.",
                        {std::to_string(kShareFormat)}),
                "v");
  long long ver = v.get<long long>();
  if (ver > kShareFormat)
    return fail(tr_args("It was made by a newer attnviz (format {0}); this one reads format {1}. Open it with the "
                        "newer version.",
                        {std::to_string(ver), std::to_string(kShareFormat)}),
                "v");
  if (ver < kShareFormat)
    return fail(tr_args("It uses format {0}, which this attnviz does not read (it reads format {1}).",
                        {std::to_string(ver), std::to_string(kShareFormat)}),
                "v");
  if (!doc.contains("state")) return fail(tr("It has no \"state\"."), "state");
  ViewPatch view;
  ShareResult r = read_view(doc.value("view", json()), &view);
  if (!r.ok) return r;
  const int layers = layers_of(doc["state"]);
  if (view.has_layer && view.v.layer >= layers)
    return fail(tr_args("The link's view.layer is {0}, but its state has {1} layer(s) (0 to {2}).",
                        {std::to_string(view.v.layer), std::to_string(layers), std::to_string(layers - 1)}),
                "view.layer");
  if (!apply_state(m, doc["state"], &r)) {
    r.field = "state." + r.field;
    return r;
  }
  apply_view(m, view);
  return {true, "", ""};
}

}  // namespace attnviz::ui

// [SECTION] The App facade's sharing members (declared in app.h) --------------------

namespace attnviz::ui {

json App::session_json() const { return session_to_json(*model_); }

json App::set_session_text(std::string_view text) {
  ShareResult r = session_apply_text(*model_, text);
  return {{"ok", r.ok}, {"error", r.error}, {"field", r.field}};
}

uint64_t App::session_serial() {
  AppModel& m = *model_;
  const View view = view_of(m);  // typed and compared with ==: no JSON each frame
  if (m.state_serial != m.session_seen_state || view != m.session_seen_view) {
    m.session_seen_state = m.state_serial;
    m.session_seen_view = view;
    ++m.session_serial;
  }
  return m.session_serial;
}

// A sentence given now replaces any still queued for the next frame (an import's "Opened
// …"): an embedded view clears the one its opening state file would leave.
void App::notify(std::string text, bool error) {
  model_->exports.notice_shown = model_->exports.notice_seq;
  ui::notify(*model_, std::move(text), error);
}

json App::notice() const {
  if (model_->notice.text.empty()) return nullptr;
  const bool save = model_->notice.action == NoticeAction::save_safetensors;
  return {{"text", model_->notice.text}, {"error", model_->notice.error}, {"action", save ? "save_safetensors" : ""}};
}

double App::session_link_estimate() const { return ui::session_link_estimate(*model_); }
void App::link_too_long(double chars) { notify_link_too_long(*model_, chars); }

void App::history_clear() { model_->history.clear(); }

json App::history_info() const {
  const History& h = model_->history;
  return {{"undo", h.undo_size()}, {"redo", h.redo_size()}, {"bytes", h.bytes()}};
}

ShareHooks& App::share_hooks() { return model_->share; }

double session_link_estimate(const AppModel& m) {
  return kShareLinkCharsPerValue * (double)state_explicit_values(m.engine.state());
}

}  // namespace attnviz::ui
