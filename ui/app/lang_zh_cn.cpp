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
    {"There is no file picker here: use File > Open state… and type a path, or drop the file on the window.",
     "这里没有文件选择器：请用“文件 > 打开状态…”输入路径，或把文件拖到窗口上。"},
    {"Could not write {0}.", "无法写入 {0}。"},
    {"as {0}", "保存为 {0}"},
    {"The picture could not be rendered (the graphics driver refused the offscreen buffer).",
     "无法渲染图片（显卡驱动拒绝了离屏缓冲区）。"},
    {"The window has no size, so there is nothing to capture.", "窗口大小为零，没有可截取的内容。"},
    {"it is not an attnviz share link (those end in #s{0}. followed by letters and digits).",
     "这不是 attnviz 的分享链接（分享链接以 #s{0}. 加字母和数字结尾）。"},
    {"it was made by a newer attnviz (link format {0}); this page reads format {1}. Open it with the newer version.",
     "它由更新版本的 attnviz 生成（链接格式 {0}）；这里读取格式 {1}。请用新版本打开。"},
    {"it uses link format {0}, which this attnviz does not read (it reads format {1}).",
     "它使用链接格式 {0}，这个 attnviz 不再读取（它读取格式 {1}）。"},
    {"it is longer than 8 MB, more than any attnviz state needs.", "它超过 8 MB，比任何 attnviz 状态需要的都长。"},
    {"it is damaged: it holds characters a share link never contains, or was cut in the middle.",
     "链接已损坏：含有分享链接中不会出现的字符，或在中间被截断。"},
    {"it would expand to more than 16 MB, more than any attnviz state needs.",
     "它展开后会超过 16 MB，比任何 attnviz 状态需要的都大。"},
    {"it is damaged: its compressed data is incomplete or corrupted (it may have been cut short when copied).",
     "链接已损坏：压缩数据不完整或已损坏（复制时可能被截短了）。"},
    {"This link could not be opened: {0} The current state is kept.", "无法打开这个链接：{0}当前状态保持不变。"},
    {"Share link copied: add it to the attnviz page's address, or open it with attnviz --link.",
     "已复制分享链接：把它加到 attnviz 页面的地址后面，或用 attnviz --link 打开。"},
    {"The clipboard could not be written: {0}", "无法写入剪贴板：{0}"},
    {"The clipboard holds no text to paste as a state.", "剪贴板里没有可以作为状态粘贴的文本。"},
    {"The clipboard does not hold a usable attnviz state: {0} The current state is kept.",
     "剪贴板里没有可用的 attnviz 状态：{0}当前状态保持不变。"},
    {"State pasted (Ctrl+Z undoes it).", "已粘贴状态（Ctrl+Z 可撤销）。"},
    {"State pasted from a share link (Ctrl+Z undoes it).", "已从分享链接粘贴状态（Ctrl+Z 可撤销）。"},
    {"The file picker could not open; drop a .json state file on the page instead.",
     "文件选择器无法打开；请改为把 .json 状态文件拖到页面上。"},
    {"The browser did not start the download of {0}.", "浏览器没有开始下载 {0}。"},
    {"to the browser's downloads", "到浏览器的下载目录"},

};

Catalogue catalogue_zh_cn() { return {kZhCN, static_cast<int>(sizeof kZhCN / sizeof kZhCN[0])}; }

}  // namespace attnviz::ui
