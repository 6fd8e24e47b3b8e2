// lang_zh_cn.cpp: the 简体中文 catalogue — every English key of the interface and its
// translation (i18n.h). tests/i18n/check_catalogue.py fails when a key used in the
// source is missing here, when an entry here is no longer used, or when placeholders
// differ. Terms follow the tutorials (../docs/i18n.md has the glossary): 注意力分数
// (scores), 缩放 (scaled), 掩码 (mask), 注意力权重 (weights), 上下文向量 (context),
// 多头 (multi-head), 词元 (token), with the PyTorch name beside where it helps.
// Sections follow the source files, so each part of the interface is edited in one place.
#include "app/i18n.h"

namespace attnviz::ui {

static const CatalogueEntry kZhCN[] = {
    // [SECTION] Frame, menus and windows (panels.cpp, app.cpp)
    {"Language", "语言"},
    {"attnviz has no interface in \"{0}\": it speaks en (English) and zh-CN (简体中文).",
     "attnviz 没有“{0}”的界面：可选 en（English）或 zh-CN（简体中文）。"},
    {"attnviz: every stage of multi-head attention", "attnviz：多头注意力的每一步"},
    {"masked (\xE2\x88\x92inf)", "已掩码（\xE2\x88\x92inf）"},
    {"masked_fill put \xE2\x88\x92inf here (causal or padding mask); softmax turns it into 0.",
     "masked_fill 在此处填入 \xE2\x88\x92inf（因果掩码或填充掩码）；softmax 后变为 0。"},
    {"dropped (0)", "已丢弃（0）"},
    {"Dropout (training) zeroed this weight; the kept ones are scaled by 1/(1\xE2\x88\x92p).",
     "Dropout（训练模式）把这个权重置为 0；保留的权重乘以 1/(1\xE2\x88\x92p)。"},
    {"computed 0", "计算得 0"},
    {"A weight that is 0 because of the numbers (e.g. a masked score after softmax): no mark.",
     "因数值本身为 0 的权重（例如被掩码的分数经 softmax 后）：不加标记。"},
    {"Not a number, e.g. softmax of a row that is all \xE2\x88\x92inf.", "非数（NaN），例如整行都是 \xE2\x88\x92inf 时的 softmax。"},
    {"Positive infinity.", "正无穷。"},
    {"NaN", "NaN"},
    {"+inf", "+inf"},
    {"Parameters", "参数"},
    {"Inspector", "检查器"},
    {"Views", "视图"},
    {"Stages", "各个阶段"},
    {"Q K V & output", "Q K V 与输出"},
    {"Compare heads", "比较各头"},
    {"Lines", "连线图"},
    {"Edit values", "编辑数值"},
    {"Decimals", "小数位数"},
    {"auto (what fits, up to 4)", "自动（放得下的位数，最多 4 位）"},
    {"4 (as PyTorch prints)", "4（与 PyTorch 打印一致）"},
    {"Presets", "预设"},
    {"View", "视图"},
    {"Weights colormap", "注意力权重配色"},
    {"viridis", "viridis"},
    {"cividis (colour-blind safe)", "cividis（色盲友好）"},
    {"Reset layout", "重置布局"},
    {"put the windows back where they first opened, sized for this window",
     "把各窗口放回初次打开时的位置，并按当前窗口大小调整"},

    // [SECTION] File and Edit menus, export, import, sharing, undo (menu_file.cpp,
    // menu_edit.cpp, export.cpp, share.cpp, history.cpp, links.cpp)

    // [SECTION] Help and keyboard (help.cpp)

    // [SECTION] Parameters and Edit values (panel_params.cpp, panel_values.cpp, presets)

    // [SECTION] Stages, the flow and heatmaps (panel_stages.cpp, stage_flow.cpp, heatmap.cpp)

    // [SECTION] Inspector (panel_inspector.cpp, inspector_text.h)

    // [SECTION] Compare heads and Lines (panel_compare.cpp, panel_lines.cpp)

    // [SECTION] Trained weights (weights_import.cpp, weights_text.cpp)

    // [SECTION] Engine refusals (attnviz/messages.h: templates with {0} {1} ...)
    {"{0} must contain finite numbers only", "{0} 只能包含有限的数值"},
    {"{0} must be {1} × {2} ({3} × {4}), but it is {5} × {6}", "{0} 必须是 {1} × {2}（{3} × {4}），但它是 {5} × {6}"},
    {"version must be 1 (this attnviz reads session states of version 1)",
     "version 必须为 1（这个 attnviz 读取版本 1 的会话状态）"},
    {"tokens must contain at least one token", "tokens 至少要有一个词元"},
    {"tokens has {0} entries; the limit is {1} tokens", "tokens 有 {0} 项；上限是 {1} 个词元"},
    {"{0} is {1} bytes long; a token may be at most {2} bytes", "{0} 长 {1} 字节；一个词元最多 {2} 字节"},
    {"{0} is not valid UTF-8 text", "{0} 不是有效的 UTF-8 文本"},
    {"{0} must be a whole number from {1} to {2}, not {3}", "{0} 必须是 {1} 到 {2} 之间的整数，而不是 {3}"},
    {"d_out ({0}) must be divisible by num_heads ({1})", "d_out（{0}）必须能被 num_heads（{1}）整除"},
    {"this state needs about {0} of memory ({1} tokens, {2} heads, d_model {3}, d_out {4}); the limit is {5}: use "
     "fewer tokens or fewer heads",
     "这个状态大约需要 {0} 内存（{1} 个词元，{2} 个头，d_model {3}，d_out {4}）；上限是 {5}：请减少词元或头的数量"},
    {"temperature must be a number from 1e-06 to 1e+06 (it divides the scores, so it must be greater than 0), not {0}",
     "temperature 必须是 1e-06 到 1e+06 之间的数值（注意力分数要除以它，所以它必须大于 0），而不是 {0}"},
    {"key_padding has {0} entries but there are {1} tokens", "key_padding 有 {0} 项，但词元有 {1} 个"},
    {"{0} must be 1 (a real token) or 0 (padding)", "{0} 必须是 1（真实词元）或 0（填充）"},
    {"mask_fill must be \"-inf\" or a number within float32's range (about ±3.4e38), like -1e9 or -1e20, not {0}",
     "mask_fill 必须是 \"-inf\" 或 float32 范围内（约 ±3.4e38）的数值，例如 -1e9 或 -1e20，而不是 {0}"},
    {"dropout.p must be a number from 0 to 1, not {0}", "dropout.p 必须是 0 到 1 之间的数值，而不是 {0}"},
    {"unknown field {0} in a session state (known fields: {1})", "会话状态中有未知字段 {0}（已知字段：{1}）"},
    {"unknown field {0} in {1} (known fields: {2})", "{1} 中有未知字段 {0}（已知字段：{2}）"},
    {"{0} must be true or false, not {1}", "{0} 必须是 true 或 false，而不是 {1}"},
    {"{0} must be a whole number (a torch.manual_seed value), not {1}",
     "{0} 必须是整数（torch.manual_seed 的参数），而不是 {1}"},
    {"{0} must be a number, not {1}", "{0} 必须是数值，而不是 {1}"},
    {"{0} must be one of {1}, not {2}", "{0} 必须是 {1} 之一，而不是 {2}"},
    {"{0} ({1}) is outside float32's range (about ±3.4e38)", "{0}（{1}）超出了 float32 的范围（约 ±3.4e38）"},
    {"{0} must be a list of rows, not {1}", "{0} 必须是由行组成的列表，而不是 {1}"},
    {"{0} must have {1} rows ({2}), but it has {3}", "{0} 必须有 {1} 行（{2}），但它有 {3} 行"},
    {"{0} must be a list of numbers, not {1}", "{0} 必须是由数值组成的列表，而不是 {1}"},
    {"{0} must have {1} numbers ({2}), but it has {3}", "{0} 必须有 {1} 个数值（{2}），但它有 {3} 个"},
    {"tokens must be a list of strings, not {0}", "tokens 必须是由字符串组成的列表，而不是 {0}"},
    {"{0} must be a string, not {1}", "{0} 必须是字符串，而不是 {1}"},
    {"{0} must be an object, not {1}", "{0} 必须是对象，而不是 {1}"},
    {"embedding has values and also init/seed; give either {\"init\", \"seed\"} or {\"values\"}",
     "embedding 同时有 values 和 init/seed；请只给出 {\"init\", \"seed\"} 或 {\"values\"} 之一"},
    {"weights has {0} and also init/seed; give either {\"init\", \"seed\"} or the matrices",
     "weights 同时有 {0} 和 init/seed；请只给出 {\"init\", \"seed\"} 或各个矩阵之一"},
    {"{0} is missing (explicit weights need it with these settings)", "缺少 {0}（在这些设置下，直接给出的权重需要它）"},
    {"key_padding must be a list with 1 (real token) or 0 (padding) per token, not {0}",
     "key_padding 必须是列表，每个词元一项：1（真实词元）或 0（填充），而不是 {0}"},
    {"{0} must be 1 (a real token) or 0 (padding), not {1}", "{0} 必须是 1（真实词元）或 0（填充），而不是 {1}"},
    {"mask_fill must be \"-inf\" or a number, not {0}", "mask_fill 必须是 \"-inf\" 或数值，而不是 {0}"},
    {"version must be 1 (this attnviz reads session states of version 1); this state is version {0}, written by a "
     "newer attnviz: open it there, or remove the newer settings and set version to 1",
     "version 必须为 1（这个 attnviz 读取版本 1 的会话状态）；这个状态的版本是 {0}，由更新的 attnviz "
     "写出：请在那里打开它，或删除较新的设置并把 version 设为 1"},
    {"version must be 1 (this attnviz reads session states of version 1), not {0}",
     "version 必须为 1（这个 attnviz 读取版本 1 的会话状态），而不是 {0}"},
    {"a session state must be a JSON object, not {0}", "会话状态必须是 JSON 对象，而不是 {0}"},
    {"not enough memory to read this state", "内存不足，无法读取这个状态"},
    {"could not read this state: {0}", "无法读取这个状态：{0}"},
    {"the field {0} appears twice in the session state; give each field once",
     "字段 {0} 在会话状态中出现了两次；每个字段只能给出一次"},
    // Split after "{1}" here and below: check_catalogue.py ends the table at a brace and a semicolon.
    {"the field {0} appears twice in {1}" "; give each field once",
     "字段 {0} 在 {1} 中出现了两次；每个字段只能给出一次"},
    {"{0} ({1}) is too large: numbers must be finite, within about ±1.8e308 (at line {2}, column {3})",
     "{0}（{1}）太大：数值必须是有限的，在约 ±1.8e308 以内（位于第 {2} 行第 {3} 列）"},
    {"a number ({0}) is too large: numbers must be finite, within about ±1.8e308 (at line {1}, column {2})",
     "有一个数（{0}）太大：数值必须是有限的，在约 ±1.8e308 以内（位于第 {1} 行第 {2} 列）"},
    {"{0} is NaN or Infinity, which JSON does not have: every number must be finite (at line {1}, column {2})",
     "{0} 是 NaN 或 Infinity，JSON 中没有这样的值：每个数值都必须是有限的（位于第 {1} 行第 {2} 列）"},
    {"mask_fill is NaN or Infinity, which JSON does not have: every number must be finite (write \"-inf\" in quotes "
     "for mask_fill) (at line {0}, column {1})",
     "mask_fill 是 NaN 或 Infinity，JSON 中没有这样的值：每个数值都必须是有限的（mask_fill 可以写成带引号的 "
     "\"-inf\"）（位于第 {0} 行第 {1} 列）"},
    {"a number is NaN or Infinity, which JSON does not have: every number must be finite (at line {0}, column {1})",
     "有一个数是 NaN 或 Infinity，JSON 中没有这样的值：每个数值都必须是有限的（位于第 {0} 行第 {1} 列）"},
    {"{0} is not valid UTF-8 text (at line {1}, column {2})", "{0} 不是有效的 UTF-8 文本（位于第 {1} 行第 {2} 列）"},
    {"the text is not valid UTF-8 text (at line {0}, column {1})", "文本不是有效的 UTF-8（位于第 {0} 行第 {1} 列）"},
    {"this is not valid JSON (problem at line {0}, column {1})", "这不是有效的 JSON（问题位于第 {0} 行第 {1} 列）"},
    {"the JSON is nested more than {0} levels deep; a session state needs at most 4",
     "JSON 的嵌套超过了 {0} 层；会话状态最多只需要 4 层"},
    {"the JSON is nested more than {0} levels deep inside {1}" "; a session state needs at most 4",
     "JSON 在 {1} 中的嵌套超过了 {0} 层；会话状态最多只需要 4 层"},
    {"this is not valid JSON", "这不是有效的 JSON"},
    {"this is not valid JSON: {0}", "这不是有效的 JSON：{0}"},
    {"there is not enough memory for this state: use fewer tokens, heads or dimensions",
     "内存不足，无法处理这个状态：请减少词元、头的数量或维度"},
    {"the engine could not apply this state: {0}", "引擎无法应用这个状态：{0}"},
    {"the engine could not run this state: {0}", "引擎无法运行这个状态：{0}"},
    {"true/false", "布尔值"},
    {"a string ({0})", "字符串（{0}）"},
    {"a string ({0}… ({1} bytes))", "字符串（{0}…，共 {1} 字节）"},
    {"a list", "列表"},
    {"an object", "对象"},
    {"a number", "数值"},
    {"{0}… ({1} bytes)", "{0}…（共 {1} 字节）"},
    {"binary data", "二进制数据"},
    {"nothing", "无"},
    {"one per token", "每个词元一行"},

    // [SECTION] Platform (ui/platform: desktop and browser messages)

};

Catalogue catalogue_zh_cn() { return {kZhCN, static_cast<int>(sizeof kZhCN / sizeof kZhCN[0])}; }

}  // namespace attnviz::ui
