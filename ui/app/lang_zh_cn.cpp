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
    {"÷ temperature %s (no √ scaling)", "÷ 温度 %s（不做 √ 缩放）"},
    {"÷ 1: no scaling (same as scores)", "÷ 1：不缩放（与注意力分数 scores 相同）"},
    {"÷ (√%s × temperature) = √%d × %s = %s", "÷ (√%s × 温度) = √%d × %s = %s"},
    {"no mask", "无掩码"},
    {"j > i or key j padded", "j > i 或键 j 为填充"},
    {"key j padded", "键 j 为填充"},
    {"dropout p = %s, eval mode", "Dropout p = %s，评估模式"},
    {"dropout p = 0 (train)", "Dropout p = 0（训练模式）"},
    {"dropout p = 1 (train): every weight dropped", "Dropout p = 1（训练模式）：所有权重都被丢弃"},
    {"dropout p = %s (train): kept × 1/(1−p) = %s", "Dropout p = %s（训练模式）：保留的权重 × 1/(1−p) = %s"},
    {"X · W_q, W_k, W_v%s: this head's columns", "X · W_q, W_k, W_v%s：取本头的列"},
    {"softmax(dim=-1), all-masked rows → 0", "softmax(dim=-1)，整行被掩码的行 → 0"},
    {"no scaling: same as scores", "不缩放：与注意力分数 scores 相同"},
    {"no mask: same as scaled", "无掩码：与缩放后的分数 scaled 相同"},
    {"eval mode: identity, same as weights", "评估模式：恒等变换，与注意力权重 weights 相同"},
    {"p = 0: identity, same as weights", "p = 0：恒等变换，与注意力权重 weights 相同"},
    {"queries = x @ W_query%s   # likewise keys, values", "queries = x @ W_query%s   # keys、values 同理"},
    {"queries = queries.view(S, num_heads, head_dim).transpose(0, 1)  # head h: queries[h]",
     "queries = queries.view(S, num_heads, head_dim).transpose(0, 1)  # 第 h 个头：queries[h]"},
    {"Q h%d", "Q，头 %d"},
    {"K h%d", "K，头 %d"},
    {"V h%d", "V，头 %d"},
    {"scores h%d", "注意力分数 scores，头 %d"},
    {"scaled h%d", "缩放后 scaled，头 %d"},
    {"masked h%d", "掩码后 masked，头 %d"},
    {"weights h%d", "注意力权重 weights，头 %d"},
    {"dropped h%d", "丢弃后 dropped，头 %d"},
    {"context h%d", "上下文向量 context，头 %d"},
    {"X", "嵌入 X"},
    {"Q", "查询 Q"},
    {"K", "键 K"},
    {"V", "值 V"},
    {"concat", "拼接 concat"},
    {"output", "输出 output"},
    {"(%s)", "（%s）"},
    {"PyTorch, as the tutorials write it:", "PyTorch 代码（教程中的写法）："},
    {"head %d", "头 %d"},
    {"concat(all heads) → output projection", "concat（拼接所有头）→ 输出投影"},
    {"Every head's context, side by side, is concat (S × d_out); output = concat · W_o (+ b_o) with an output projection, else concat itself.",
     "各头的上下文向量 context 并排拼接为 concat (S × d_out)；有输出投影时 output = concat · W_o (+ b_o)，否则 output 就是 concat 本身。"},
    {"Q K V & output tab", "“Q K V 与输出”标签页"},
    {"PyTorch code", "PyTorch 代码"},
    {"hover an operation for its PyTorch line · maps: (Ctrl+)wheel zooms, double-click fits",
     "悬停在运算上可看它的 PyTorch 代码 · 热力图：(Ctrl+)滚轮缩放，双击复原"},
    {"Inputs, projections and outputs (shared by all heads; head h owns columns h·head_dim …)",
     "输入、投影与输出（所有头共享；第 h 个头占用第 h·head_dim … 列）"},
    {"×%.1f (double-click: fit)", "×%.1f（双击：复原）"},
    {"(not computed)", "（未计算）"},

    // [SECTION] Inspector (panel_inspector.cpp, inspector_text.h)
    {"product", "乘积"},
    {"(the first 64 terms)", "（前 64 项）"},
    {"sum = %s, + bias %s = %s", "求和 = %s，+ 偏置 %s = %s"},
    {"sum = %s", "求和 = %s"},
    {"scaled[%d][%d] = scores[%d][%d] / temperature", "scaled[%d][%d] = scores[%d][%d] / 温度"},
    {"scaled[%d][%d] = scores[%d][%d] (no scaling)", "scaled[%d][%d] = scores[%d][%d]（不缩放）"},
    {"scaled[%d][%d] = scores[%d][%d] / (√d_out × temperature)", "scaled[%d][%d] = scores[%d][%d] / (√d_out × 温度)"},
    {"scaled[%d][%d] = scores[%d][%d] / (√head_dim × temperature)",
     "scaled[%d][%d] = scores[%d][%d] / (√head_dim × 温度)"},
    {"masked[%d][%d] = scaled[%d][%d] (not masked)", "masked[%d][%d] = scaled[%d][%d]（未被掩码）"},
    {"masked[%d][%d] = mask_fill %s (causal)", "masked[%d][%d] = mask_fill %s（因果掩码）"},
    {"masked[%d][%d] = mask_fill %s (padding)", "masked[%d][%d] = mask_fill %s（键填充）"},
    {"masked[%d][%d] = mask_fill %s (causal and padding)", "masked[%d][%d] = mask_fill %s（因果掩码与键填充）"},
    {"output[%d][%d] = concat (no output projection)", "output[%d][%d] = concat（无输出投影）"},
    {"X[%d][%d] = embedding of \"%s\", column %d%s", "X[%d][%d] = 词元“%s”的嵌入，第 %d 列%s"},
    {" + sinusoidal position", " + 正弦位置编码"},
    {"scores[%d][%d] = q_%d · k_%d = Σ_d q_%d[d] · k_%d[d] (head %d)",
     "scores[%d][%d] = q_%d · k_%d = Σ_d q_%d[d] · k_%d[d]（头 %d）"},
    {"weights[%d][%d] = 0 (the whole row is −inf and safe_softmax is on)",
     "weights[%d][%d] = 0（整行都是 −inf，且开启了 safe_softmax）"},
    {"weights[%d][%d] = exp(masked[%d][%d] − row max) / Σ_s exp(masked[%d][s] − row max)",
     "weights[%d][%d] = exp(masked[%d][%d] − 行最大值) / Σ_s exp(masked[%d][s] − 行最大值)"},
    {"dropped[%d][%d] = weights (dropout is off)", "dropped[%d][%d] = weights（Dropout 未启用）"},
    {"dropped[%d][%d] = weights[%d][%d] × 1/(1 − p) (kept)", "dropped[%d][%d] = weights[%d][%d] × 1/(1 − p)（保留）"},
    {"dropped[%d][%d] = weights[%d][%d] × 0 (dropped)", "dropped[%d][%d] = weights[%d][%d] × 0（丢弃）"},
    {"context[%d][%d] = Σ_s dropped[%d][s] · v_s[%d] (head %d)",
     "context[%d][%d] = Σ_s dropped[%d][s] · v_s[%d]（头 %d）"},
    {"concat[%d][%d] = context of head %d, context[%d][%d]", "concat[%d][%d] = 头 %d 的上下文向量 context[%d][%d]"},
    {"%s[%d][%d] is a parameter (x·W orientation)", "%s[%d][%d] 是参数（按 x·W 的方向存放）"},
    {"Scale is none: no √ divisor.", "缩放方式为 none：没有 √ 除数。"},
    {"divisor = √%s × temperature = %s × %s = %s", "除数 = √%s × 温度 = %s × %s = %s"},
    {"divisor = temperature = %s", "除数 = 温度 = %s"},
    {"Every key of this row is masked and safe softmax is on: the row is zeros.",
     "这一行的每个键都被掩码，且开启了安全 softmax（safe_softmax）：整行为 0。"},
    {"exp(%s − row max %s) = %s", "exp(%s − 行最大值 %s) = %s"},
    {"normaliser Σ_s exp(masked[s] − row max) = %s", "归一化因子 Σ_s exp(masked[s] − 行最大值) = %s"},
    {"weight = %s / %s = %s", "权重 = %s / %s = %s"},
    {"NaN: every key of this row is masked with −inf, so softmax divides 0 by 0 (torch.softmax does the same). Safe softmax gives zeros instead.",
     "NaN：这一行的每个键都被 −inf 掩码，softmax 于是计算 0 除以 0（torch.softmax 也是如此）。安全 softmax 则给出全 0。"},
    {"Not masked: the scaled value %s passes through.", "未被掩码：缩放后的值 %s 原样保留。"},
    {"Masked (padding): key %d is padding, so the value %s is replaced by the fill %s.",
     "已掩码（键填充）：键 %d 是填充，因此值 %s 被替换为填充值 mask_fill %s。"},
    {"Masked (causal): key %d comes after the query, so the value %s is replaced by the fill %s.",
     "已掩码（因果掩码）：键 %d 位于查询之后，因此值 %s 被替换为填充值 mask_fill %s。"},
    {"Masked (causal and padding): key %d comes after the query, so the value %s is replaced by the fill %s.",
     "已掩码（因果掩码与键填充）：键 %d 位于查询之后，因此值 %s 被替换为填充值 mask_fill %s。"},
    {"query \"%s\" (row %d) · key \"%s\" (row %d), head %d, over d = 0 … %d",
     "查询“%s”（第 %d 行）· 键“%s”（第 %d 行），头 %d，对 d = 0 … %d 求和"},
    {"Dropout is off (not training, or p = 0): the weight %s passes through.",
     "Dropout 未启用（不在训练模式，或 p = 0）：权重 %s 原样保留。"},
    {"kept: %s × 1/(1 − p) = %s × %s = %s", "保留：%s × 1/(1 − p) = %s × %s = %s"},
    {"dropped: %s × 0 = 0", "丢弃：%s × 0 = 0"},
    {"weight × value over the keys s = 0 … %d (head %d, value column %d)", "对键 s = 0 … %d 求和：权重 × 值（头 %d，值的第 %d 列）"},
    {"value = %s", "该单元格的值 = %s"},
    {"%s [%d][%d]: query \"%s\" → key \"%s\"", "%s [%d][%d]：查询“%s”→ 键“%s”"},
    {"%s [%d][%d] (token \"%s\")", "%s [%d][%d]（词元“%s”）"},
    {"Hover over any cell of any heatmap to see how its number was computed. Click to pin it; click the pinned cell again (or Unpin) to release.",
     "把鼠标悬停在任意热力图的任意单元格上，即可查看它的数值是怎样算出来的。单击可固定该单元格；再次单击已固定的单元格（或点“取消固定”）即可释放。"},
    {"(that cell no longer exists)", "（该单元格已不存在）"},
    {"Unpin", "取消固定"},
    {"pinned", "已固定"},

    // [SECTION] Compare heads and Lines (panel_compare.cpp, panel_lines.cpp)

    // [SECTION] Trained weights (weights_import.cpp, weights_text.cpp)

    // [SECTION] Engine refusals (attnviz/messages.h: templates with {0} {1} ...)

    // [SECTION] Platform (ui/platform: desktop and browser messages)

};

Catalogue catalogue_zh_cn() { return {kZhCN, static_cast<int>(sizeof kZhCN / sizeof kZhCN[0])}; }

}  // namespace attnviz::ui
