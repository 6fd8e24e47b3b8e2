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

    // [SECTION] Platform (ui/platform: desktop and browser messages)

};

Catalogue catalogue_zh_cn() { return {kZhCN, static_cast<int>(sizeof kZhCN / sizeof kZhCN[0])}; }

}  // namespace attnviz::ui
