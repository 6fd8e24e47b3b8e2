// panel_params.cpp: the Parameters panel: tokens (text box and chips), shapes, mask
// and dropout, then scaling, embedding and weight initialisation in collapsing
// headers. Controls edit the typed draft state (AppModel::draft, an attnviz::State);
// a valid draft is applied at once, an invalid one shows its reason beside the control.
// Every label is an English key shown through i18n.h (L for controls, so their IDs and
// item names stay English in every language); widths come from the translated text.
#include <algorithm>
#include <cfloat>
#include <initializer_list>
#include <cmath>
#include <cstdio>
#include <limits>

#include "app/model/app_model.h"
#include "app/widgets/fonts.h"
#include "app/text/i18n.h"
#include "app/widgets/item_registry.h"
#include "app/panels/model_controls.h"
#include "app/panels/panels.h"
#include "app/panels/panel_tokens.h"
#include "app/model/tokenize.h"
#include "attnviz/materialize.h"
#include "imgui.h"
#include "imgui_stdlib.h"

namespace attnviz::ui {

namespace {

// --- [SECTION] controls bound to fields of the typed draft (AppModel::draft). Each
// applies the draft when the learner changes it; a refused draft stays, with its reason.

// One of an enum's values. The state keeps the value (state.h's JSON names); the
// combo shows `shown(value)`, an English key (N_) translated here. Each option is
// registered as "<label>: <JSON name>" ("Scale: d_out") while the combo is open.
template <class E>
bool enum_field(AppModel& m, const char* label, E* value, std::initializer_list<E> options, const char* (*name)(E),
                const char* (*shown)(E), const char* tooltip_key = nullptr) {
  bool changed = false;
  float text_w = 0;  // the widest option as shown in this language
  for (E o : options) text_w = std::max(text_w, ImGui::CalcTextSize(tr(shown(o))).x);
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 9, text_w + combo_room()));
  if (ImGui::BeginCombo(L(label), tr(shown(*value)))) {
    char reg[64];
    for (E o : options) {
      if (ImGui::Selectable(tr(shown(o)), o == *value) && o != *value) {
        *value = o;
        changed = true;
      }
      std::snprintf(reg, sizeof reg, "%s: %s", label, name(o));
      item_register(reg);
    }
    ImGui::EndCombo();
  }
  item_register(label);
  if (tooltip_key) tooltip(tooltip_key);
  if (changed) apply_edit(m);
  return changed;
}

// What the combos show for the state's enum values (English keys, translated where shown).
const char* scale_shown(ScaleMode s) {
  switch (s) {
    case ScaleMode::head_dim: return N_("head_dim");
    case ScaleMode::d_out: return N_("d_out");
    default: return N_("none");
  }
}
const char* positional_shown(Positional p) {
  switch (p) {
    case Positional::sinusoidal: return N_("sinusoidal");
    case Positional::rope: return N_("rope (RoPE)");
    default: return N_("none");
  }
}
const char* rope_style_shown(RopeStyle r) { return r == RopeStyle::interleaved ? N_("interleaved") : N_("half"); }
const char* weight_init_shown(WeightInit w) { return w == WeightInit::torch_rand ? N_("torch_rand") : N_("torch_linear"); }
const char* weight_layout_shown(WeightLayout l) { return l == WeightLayout::per_head ? N_("per_head") : N_("fused"); }

// `label` is an English key (N_ at the call site when it is not a literal here).
void int_field(AppModel& m, const char* label, int* value, int step = 1) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::InputInt(L(label), value, step, step * 4)) apply_edit(m);
  item_register(label);
}

// A seed, shown signed (as torch.manual_seed takes it; state.h keeps a negative
// seed s as 2^64 + s), with a "+1" button for the next one.
void seed_field(AppModel& m, const char* label, uint64_t* seed) {
  long long v = static_cast<long long>(*seed);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::InputScalar(L(label), ImGuiDataType_S64, &v, nullptr, nullptr, "%lld")) {
    *seed = static_cast<uint64_t>(v);
    apply_edit(m);
  }
  item_register(label);
  ImGui::SameLine();
  ImGui::PushID(label);
  if (ImGui::SmallButton("+1")) {
    *seed = static_cast<uint64_t>(v + 1);
    apply_edit(m);
  }
  tooltip(N_("the next seed"));
  ImGui::PopID();
}

bool checkbox(AppModel& m, const char* label, bool* value) {
  bool changed = ImGui::Checkbox(L(label), value);
  item_register(label);
  if (changed) apply_edit(m);
  return changed;
}

void section(const char* title) {
  ImGui::Spacing();
  ImGui::SeparatorText(tr(title));
}

// --- [SECTION] the groups of the panel, top to bottom. What a learner toggles most
// (the tokens, heads, mask and dropout) comes first and is always open; the rarer
// set-up (scaling, the variants, embedding, weight initialisation) sits in collapsing
// headers below. The tokens (box, chips, Go to) are panel_tokens.cpp's.

void shapes_group(AppModel& m) {
  State& d = m.draft;
  section(N_("Shapes"));
  int_field(m, N_("d_model"), &d.d_model);
  error_line(m, "d_model");
  int_field(m, N_("d_out"), &d.d_out);
  error_line(m, "d_out");
  // Heads: the fields sized by the heads follow (fit_to_heads: K/V heads that no longer
  // divide go back to one per head, the sink logits are cut or padded with 0), so a head
  // change is never refused for their sake.
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::InputInt(L("Heads"), &d.num_heads, 1, 4)) {
    fit_to_heads(&d);
    apply_edit(m);
  }
  item_register("Heads");
  ImGui::SameLine();
  // head_dim is PyTorch's name in every language; the tooltip says what it is.
  if (d.num_heads > 0 && d.d_out % d.num_heads == 0) ImGui::TextDisabled(NO_TR("head_dim %d"), d.d_out / d.num_heads);
  else ImGui::TextDisabled(NO_TR("head_dim ?"));
  tooltip(N_("head_dim = d_out / Heads: the columns of Q, K and V each head gets"));
  error_line(m, "num_heads");
}

// Dropout p: a slider for dragging and, beside it, a field for an exact value
// (typed; the slider itself also turns into a field with Ctrl+click).
void dropout_p_control(AppModel& m) {
  double& p = m.draft.dropout.p;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float field_w = ImGui::GetFontSize() * 3.6f;
  const float label_w = ImGui::CalcTextSize(tr("Dropout p")).x;
  const float slider_w = ImGui::GetContentRegionAvail().x - field_w - label_w - 2 * st.ItemInnerSpacing.x;
  ImGui::SetNextItemWidth(std::max(slider_w, ImGui::GetFontSize() * 5));
  float pf = (float)p;
  if (ImGui::SliderFloat("##Dropout p", &pf, 0.0f, 1.0f, "%.3g")) {
    p = std::round((double)pf * 100.0) / 100.0;
    apply_edit(m);
  }
  item_register("Dropout p");
  tooltip(N_("drag, or type an exact p in the field beside (Ctrl+click also types)"));
  ImGui::SameLine(0, st.ItemInnerSpacing.x);
  // Applied when the field is left (Enter, Tab, a click elsewhere), not per
  // keystroke: on the way to typing 1.5, p = 1 would otherwise be applied.
  DropoutFieldState& f = m.widgets.params.dropout;
  if (!f.typing) f.typed = m.draft.dropout.p;
  ImGui::SetNextItemWidth(field_w);
  ImGui::InputDouble("##Dropout p value", &f.typed, 0, 0, "%.4g");
  f.typing = ImGui::IsItemActive();
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    m.draft.dropout.p = f.typed;  // the slider may have replaced the draft: not `p`
    apply_edit(m);
  }
  item_register("Dropout p value");
  tooltip(N_("an exact p, from 0 to 1"));
  ImGui::SameLine(0, st.ItemInnerSpacing.x);
  ImGui::TextUnformatted(tr("Dropout p"));
}

void mask_dropout_group(AppModel& m) {
  section(N_("Mask & dropout"));
  checkbox(m, N_("Causal mask"), &m.draft.causal);
  tooltip(N_("each token attends only to itself and the tokens before it"));
  dropout_p_control(m);
  checkbox(m, N_("Training"), &m.draft.dropout.training);
  tooltip(N_("nn.Dropout only drops in training mode; in eval it is the identity"));
  seed_field(m, N_("Dropout seed"), &m.draft.dropout.seed);
  error_line(m, "dropout");
}

// A collapsing header for a rarer group; it opens by itself when the reason a
// draft was refused concerns one of its fields, so the sentence is never hidden,
// and when a lesson's step is about a control in it (lesson_run.h).
bool group_header(const AppModel& m, const char* title, bool open_by_default,
                  std::initializer_list<const char*> fields) {
  for (const char* f : fields)
    if (!m.error.empty() && m.error_field.rfind(f, 0) == 0) ImGui::SetNextItemOpen(true);
  if (lesson_opens(m.lesson, title)) ImGui::SetNextItemOpen(true);  // a lesson's step shows a control in it
  bool open = ImGui::CollapsingHeader(L(title), open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
  item_register(title);
  return open;
}

// Scaling and softmax starts open when the screen has room for it beside a
// readable Inspector (1440×900 and up); on a 1280×720 one it starts closed.
bool scaling_open_by_default() { return ImGui::GetMainViewport()->Size.y >= 820.0f; }

const char* fill_mode_name(bool number) { return number ? N_("number") : N_("-inf"); }

// Mask fill: −inf (PyTorch's masked_fill(mask, float('-inf'))) or a finite number
// such as the −1e9 some code uses.
void mask_fill_control(AppModel& m) {
  double& fill = m.draft.mask_fill;
  bool number = std::isfinite(fill);
  const float text_w = std::max(ImGui::CalcTextSize(tr(fill_mode_name(false))).x,
                                ImGui::CalcTextSize(tr(fill_mode_name(true))).x);
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 6, text_w + combo_room()));
  if (ImGui::BeginCombo(L("Mask fill"), tr(fill_mode_name(number)))) {
    for (bool o : {false, true}) {
      if (ImGui::Selectable(tr(fill_mode_name(o)), o == number) && o != number) {
        fill = o ? -1e9 : -std::numeric_limits<double>::infinity();
        apply_edit(m);
      }
      item_register(o ? "Mask fill: number" : "Mask fill: -inf");  // whatever the language shows
    }
    ImGui::EndCombo();
  }
  item_register("Mask fill");
  tooltip(N_("what masked_fill writes into masked scores: -inf (PyTorch's float('-inf')) or a finite number "
             "such as the -1e9 some code uses"));
  if (std::isfinite(m.draft.mask_fill)) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::InputDouble("##fill", &m.draft.mask_fill, 0, 0, "%.3g")) apply_edit(m);
    item_register("Mask fill value");
  }
  error_line(m, "mask_fill");
}

void scaling_group(AppModel& m) {
  if (!group_header(m, N_("Scaling and softmax"), scaling_open_by_default(), {"scale", "temperature", "mask_fill"}))
    return;
  enum_field(m, N_("Scale"), &m.draft.scale, {ScaleMode::head_dim, ScaleMode::d_out, ScaleMode::none}, scale_mode_name,
             scale_shown,
             N_("divide scores by sqrt(head_dim) (standard), sqrt(d_out) (tutorial 000's MultiHeadAttention) or 1"));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  if (ImGui::InputDouble(L("Temperature"), &m.draft.temperature, 0.1, 0.5, "%.3g")) apply_edit(m);
  tooltip(N_("the scores are divided by it as well as by the scale: below 1 sharpens the softmax, above 1 "
             "flattens it"));
  error_line(m, "temperature");
  error_line(m, "scale");
  mask_fill_control(m);
  checkbox(m, N_("Safe softmax"), &m.draft.safe_softmax);
  tooltip(N_("A row whose every key is masked with -inf gives NaN in torch.softmax; "
             "safe softmax (newer scaled_dot_product_attention) gives zeros instead."));
}

// --- [SECTION] issue 23's variants: RoPE, GQA / MQA, ALiBi, the sliding window

// What the K/V heads combo shows for G of H: "4 (MHA)", "2 (GQA)", "1 (MQA)".
void kv_heads_shown(int G, int H, char* buf, size_t n) {
  std::snprintf(buf, n, G >= H ? tr("%d (MHA)") : G == 1 ? tr("%d (MQA)") : tr("%d (GQA)"), G);
}

// K/V heads: a combo of the divisors of num_heads, largest first (MHA ... MQA).
void kv_heads_control(AppModel& m) {
  State& d = m.draft;
  const int H = d.num_heads;
  if (H <= 0) return;
  char shown[48], reg[48];
  float text_w = 0;
  for (int g = H; g >= 1; --g) {
    if (H % g) continue;
    kv_heads_shown(g, H, shown, sizeof shown);
    text_w = std::max(text_w, ImGui::CalcTextSize(shown).x);
  }
  const int cur = d.kv_heads();
  kv_heads_shown(cur, H, shown, sizeof shown);
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 7, text_w + combo_room()));
  if (ImGui::BeginCombo(L("K/V heads"), shown)) {
    for (int g = H; g >= 1; --g) {
      if (H % g) continue;
      kv_heads_shown(g, H, shown, sizeof shown);
      if (ImGui::Selectable(shown, g == cur) && g != cur) {
        d.num_kv_heads = g == H ? 0 : g;  // num_heads K/V heads: plain MHA, written as 0 (the default)
        apply_edit(m);
      }
      std::snprintf(reg, sizeof reg, "K/V heads: %d", g);
      item_register(reg);
    }
    ImGui::EndCombo();
  }
  item_register("K/V heads");
  tooltip(N_("num_key_value_heads: fewer K and V heads than query heads, each shared by num_heads / num_kv_heads "
             "query heads, as Llama's repeat_kv: keys.repeat_interleave(num_heads // num_kv_heads, dim=1), likewise "
             "values. num_heads of them is ordinary multi-head attention (MHA), 1 is multi-query attention (MQA), "
             "in between grouped-query attention (GQA)."));
  error_line(m, "num_kv_heads");
}

void rope_controls(AppModel& m) {
  State& d = m.draft;
  bool rope = d.positional == Positional::rope;
  if (ImGui::Checkbox(L("RoPE"), &rope)) {
    d.positional = rope ? Positional::rope : Positional::none;
    apply_edit(m);
  }
  item_register("RoPE");
  tooltip(N_("Rotary position embedding: each head's Q and K are rotated by position before the scores, as Llama's "
             "apply_rotary_pos_emb: q * cos + rotate_half(q) * sin, the angle θ = position · base^(-2k/head_dim) for "
             "the pair k. It takes the place of a positional encoding added to X (Embedding → Positional)."));
  if (m.draft.positional == Positional::rope) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::InputDouble(L("RoPE base"), &m.draft.rope.base, 0, 0, "%.6g")) apply_edit(m);
    tooltip(N_("base (rope_theta in Llama's config, 10000 in most models): inv_freq = 1.0 / (base ** "
               "(torch.arange(0, head_dim, 2).float() / head_dim))"));
    error_line(m, "rope");
    enum_field(m, N_("RoPE style"), &m.draft.rope.style, {RopeStyle::half, RopeStyle::interleaved}, rope_style_name,
               rope_style_shown,
               N_("half: rotate_half pairs column k with k + head_dim/2 (GPT-NeoX, Llama)\n"
                  "interleaved: pairs columns 2k and 2k + 1 (GPT-J, RoFormer: rotate_every_two)"));
  }
  error_line(m, "positional");
}

// Sliding window: a checkbox and, while it is on, the number of keys a query sees.
void window_control(AppModel& m) {
  State& d = m.draft;
  bool on = d.window > 0;
  if (ImGui::Checkbox(L("Sliding window"), &on)) {
    d.window = on ? std::max(1, std::min(3, d.seq_len() - 1)) : 0;
    apply_edit(m);
  }
  item_register("Sliding window");
  tooltip(N_("Sliding-window attention, as Mistral's sliding_window: query i sees only the keys j with i - j < window "
             "(and j - i < window without the causal mask); the others are masked with masked_fill like the causal "
             "mask's."));
  if (m.draft.window > 0) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt(L("keys##window"), &m.draft.window, 1, 4)) {
      if (m.draft.window < 0) m.draft.window = 0;  // 0 turns the window off
      apply_edit(m);
    }
    item_register("Window");
    tooltip(N_("sliding_window: how many keys, counting the query's own, each query sees"));
  }
  error_line(m, "window");
}

// gpt-oss's sinks (issue 36): a checkbox and, while it is on, one logit per head,
// as many to a line as fit. An edit of one gives the state explicit values for
// every head (0 for the others), as the checkbox keeps them while off.
void sinks_control(AppModel& m) {
  State& d = m.draft;
  if (ImGui::Checkbox(L("Sink logits (gpt-oss)"), &d.sinks.enabled)) apply_edit(m);
  item_register("Sink logits");
  tooltip(N_("gpt-oss's attention sinks: each head has a learned logit s_h that joins every row of its scores as "
             "one more column before the softmax, torch.cat([scores, sinks[h].expand(S, 1)], dim=-1), and is dropped "
             "after it, so each row of weights sums to 1 minus the sink's share. A head with a large s_h can attend "
             "to nothing; a row whose keys are all masked gives zeros, not NaN."));
  const int H = d.num_heads;
  if (d.sinks.enabled && H >= 1 && H <= Limits::kMaxHeads &&
      (d.sinks.values.empty() || d.sinks.values.size() == static_cast<size_t>(H))) {
    char label[32], id[32];
    const float field_w = ImGui::GetFontSize() * 4.0f;
    const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
    for (int h = 0; h < H; ++h) {
      std::snprintf(label, sizeof label, "s_%d", h);
      const float w = field_w + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
      if (h > 0) {
        ImGui::SameLine(0, 14);
        if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
      }
      float v = d.sinks.logit(h);
      ImGui::SetNextItemWidth(field_w);
      ImGui::PushID(h);
      if (ImGui::InputFloat(label, &v, 0.0f, 0.0f, "%.4g")) {
        if (d.sinks.values.empty()) d.sinks.values.assign(static_cast<size_t>(H), 0.0f);
        d.sinks.values[static_cast<size_t>(h)] = v;
        apply_edit(m);
      }
      ImGui::PopID();
      std::snprintf(id, sizeof id, "Sink h%d", h);
      item_register(id);
      if (h == 0) tooltip(N_("s_h: head h's sink logit (gpt-oss's self.sinks[h]); 0 for every head until one is set"));
    }
  }
  error_line(m, "sinks");
}

void variants_group(AppModel& m) {
  if (!group_header(m, N_("Variants (RoPE, GQA, ALiBi, window)"), false,
                    {"rope", "positional", "num_kv_heads", "alibi", "window", "sinks"}))
    return;
  rope_controls(m);
  kv_heads_control(m);
  checkbox(m, N_("ALiBi"), &m.draft.alibi);
  tooltip(N_("Attention with Linear Biases (BLOOM, MPT): each head adds -m_h·|i - j| to its scaled scores before the "
             "mask, attn_scores + slopes[h] * -(i - j).abs(), the slopes from get_slopes(num_heads). Such models use "
             "no positional encoding."));
  error_line(m, "alibi");
  window_control(m);
  sinks_control(m);
}

// Puts the next small button beside the last item when it fits whole, else under it
// (at 1280×720 "back to seeded" beside its sentence was cut to "back to").
void same_line_if_fits(const char* button) {
  const float x1 = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
  const float w = ImGui::CalcTextSize(button, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2.0f;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (x1 + w <= right) ImGui::SameLine();
}

void embedding_group(AppModel& m) {
  if (!group_header(m, N_("Embedding"), false, {"embedding", "positional", "layers"})) return;
  EmbeddingSpec& emb = m.draft.embedding;
  if (m.draft.captured()) {  // each layer's input is what the learner's model gave it: nothing to seed
    ImGui::TextDisabled(tr("each of the %d layers: its captured input (edit its cells in Edit values)"),
                        (int)m.draft.layers.size());
    item_register("captured inputs");
  } else if (emb.init == EmbeddingInit::values) {
    ImGui::TextDisabled("%s", tr("explicit values (edited cell by cell)"));
    same_line_if_fits(L("back to seeded"));
    if (ImGui::SmallButton(L("back to seeded"))) {
      emb = EmbeddingSpec{};  // nn.Embedding, seed 123
      apply_edit(m);
    }
    item_register("back to seeded");
  } else {
    seed_field(m, N_("Embedding seed"), &emb.seed);
  }
  error_line(m, "embedding");
  error_line(m, "layers");
  enum_field(m, N_("Positional"), &m.draft.positional, {Positional::none, Positional::sinusoidal, Positional::rope},
             positional_name, positional_shown,
             N_("positional encoding: none; the sinusoidal one of \"Attention Is All You Need\", added to the "
                "embedding; or RoPE, which rotates Q and K instead (its base and style: Variants)"));
  if (m.draft.positional != Positional::rope) error_line(m, "positional");  // RoPE's refusals: under Variants
}

void weights_group(AppModel& m) {
  if (!group_header(m, N_("Weights"), false, {"weights", "qkv_bias", "out_proj", "out_bias"})) return;
  if (m.draft.captured()) {  // the module's own weights, layer by layer: no seed, init or layout applies
    ImGui::TextDisabled("%s", tr("each layer's own, captured from your model"));
    item_register("captured weights");
  } else if (m.draft.weights.init == WeightInit::values) {
    ImGui::TextDisabled("%s", tr("explicit values"));
    same_line_if_fits(L("back to seeded##w"));
    if (ImGui::SmallButton(L("back to seeded##w"))) {
      m.draft.weights = WeightSpec{};
      m.draft.weights.init = WeightInit::torch_linear;
      apply_edit(m);
    }
  } else {
    enum_field(m, N_("Init"), &m.draft.weights.init, {WeightInit::torch_linear, WeightInit::torch_rand},
               weight_init_name, weight_init_shown,
               N_("torch_linear: nn.Linear(d_model, d_out) for query, key, value (then out_proj)\n"
                  "torch_rand: torch.rand(d_model, d_out) for W_q, W_k, W_v (tutorial 000 / 004 §2)"));
    seed_field(m, N_("Weight seed"), &m.draft.weights.seed);
    if (m.draft.weights.init == WeightInit::torch_linear)
      enum_field(m, N_("Layout"), &m.draft.weights.layout, {WeightLayout::fused, WeightLayout::per_head},
                 weight_layout_name, weight_layout_shown,
                 N_("fused: one nn.Linear per Q, K, V (MultiHeadAttention)\n"
                    "per_head: each head its own Q, K, V nn.Linear (MultiHeadAttentionWrapper)"));
  }
  error_line(m, "weights");
  checkbox(m, N_("QKV bias"), &m.draft.qkv_bias);
  tooltip(N_("nn.Linear(..., bias=True) for query, key and value: adds b_q, b_k, b_v"));
  checkbox(m, N_("Output projection"), &m.draft.out_proj);
  tooltip(N_("out_proj: an nn.Linear(d_out, d_out) after the heads are concatenated"));
  if (m.draft.out_proj) {
    ImGui::SameLine();
    checkbox(m, N_("bias##out"), &m.draft.out_bias);
    tooltip(N_("the output projection's bias b_o"));
  }
}

}  // namespace

void parameters_panel(AppModel& m) {
  if (!m.engine.has_result()) return;
  // The groups edit m.draft in place; applying it replaces it with the engine's
  // canonical state, so each reads its fields afresh rather than keeping references.
  tokens_group(m);
  const bool model = m.engine.is_model();  // a trained model fixes its shapes, embedding and weights
  if (!model) shapes_group(m);
  mask_dropout_group(m);
  ImGui::Spacing();
  scaling_group(m);
  variants_group(m);
  if (!model) embedding_group(m);
  if (!model) weights_group(m);
  error_line(m, "");
}

float parameters_height_wanted() {
  // Rows of the panel as it opens (one row of chips; the scaling group open on a
  // tall screen, the others closed), in the style's metrics at the app's font
  // size; the fonts may not be loaded yet when the first layout is made.
  const ImGuiStyle& st = ImGui::GetStyle();
  const float frame = kFontSize + 2 * st.FramePadding.y, row = frame + st.ItemSpacing.y;
  const float title = frame, text = kFontSize + st.ItemSpacing.y;
  const float chips = frame + 2 * st.FramePadding.y + st.ItemSpacing.y;
  const float section = text + 2 * st.ItemSpacing.y + st.SeparatorTextPadding.y * 2;
  const float scaling = row + (scaling_open_by_default() ? 4 * row : 0.0f);
  const float controls = row /* Tokens and Split */ + row + chips + 2 * section + 3 * row + 4 * row + st.ItemSpacing.y +
                         scaling + 3 * row /* Variants, Embedding, Weights */;
  return title + 2 * st.WindowPadding.y + controls;
}

}  // namespace attnviz::ui
