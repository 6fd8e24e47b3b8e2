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
    {"Tokens", "词元"},
    {"Split", "切分"},
    {"words & characters", "按词和字"},
    {"whitespace only", "仅按空白"},
    {"words & characters: each Chinese/Japanese/Korean character is a token, words stay whole "
     "(GPT-2, don't), punctuation is a token of its own. whitespace only: what spaces separate, like "
     "text.split().\nA chip edited on its own keeps what you type (自然 stays one token).",
     "按词和字：每个中文、日文、韩文字符是一个词元，单词保持完整（GPT-2、don't），"
     "标点各自成为一个词元。仅按空白：以空格分隔，如同 text.split()。"
     "\n单独编辑的词元块保留你输入的内容（自然 仍是一个词元）。"},
    {"type a sentence, press Enter", "输入一句话，按回车"},
    {"new", "新"},
    {"[pad]", "[填充]"},
    {"\"%s\" (token %d)\nclick: edit · right-click: more · drag: move", "“%s”（词元 %d）\n单击：编辑 · 右键：更多 · 拖动：移动"},
    {"\"%s\" (token %d), a padded key\nclick: edit · right-click: more · drag: move",
     "“%s”（词元 %d），被填充的键\n单击：编辑 · 右键：更多 · 拖动：移动"},
    {"move \"%s\"", "移动“%s”"},
    {"Edit", "编辑"},
    {"Insert before", "在前面插入"},
    {"Insert after", "在后面插入"},
    {"Mark as padding", "标记为填充"},
    {"Unmark padding", "取消填充"},
    {"Delete", "删除"},
    {"add a token at the end", "在末尾添加一个词元"},
    {"Shapes", "形状"},
    {"d_model", "d_model"},
    {"d_out", "d_out"},
    {"Heads", "头数"},
    {"head_dim = d_out / Heads: the columns of Q, K and V each head gets",
     "head_dim（每头维度）= d_out / 头数：每个头分到的 Q、K、V 的列数"},
    {"the next seed", "下一个随机种子"},
    {"Mask & dropout", "掩码与 Dropout"},
    {"Causal mask", "因果掩码 causal"},
    {"each token attends only to itself and the tokens before it", "每个词元只关注它自己和它之前的词元"},
    {"Dropout p", "Dropout 概率 p"},
    {"drag, or type an exact p in the field beside (Ctrl+click also types)", "拖动滑块，或在旁边的输入框里输入精确的 p（Ctrl+单击滑块也可输入）"},
    {"an exact p, from 0 to 1", "精确的 p，0 到 1 之间"},
    {"Training", "训练模式 training"},
    {"nn.Dropout only drops in training mode; in eval it is the identity", "nn.Dropout 只在训练模式下丢弃；在评估模式（eval）下它原样输出"},
    {"Dropout seed", "Dropout 随机种子"},
    {"Scaling and softmax", "缩放与 softmax"},
    {"Scale", "缩放"},
    {"head_dim", "head_dim"},
    {"none", "无"},
    {"divide scores by sqrt(head_dim) (standard), sqrt(d_out) (tutorial 000's MultiHeadAttention) or 1",
     "注意力分数除以 sqrt(head_dim)（标准做法）、sqrt(d_out)（教程 000 "
     "的 MultiHeadAttention）或 1"},
    {"Temperature", "温度 temperature"},
    {"the scores are divided by it as well as by the scale: below 1 sharpens the softmax, above 1 flattens it",
     "注意力分数在缩放之外还要除以它：小于 1 使 softmax 更尖锐，大于 1 使其更平缓"},
    {"Mask fill", "掩码填充"},
    {"-inf", "-inf"},
    {"number", "数值"},
    {"what masked_fill writes into masked scores: -inf (PyTorch's float('-inf')) or a finite number "
     "such as the -1e9 some code uses",
     "masked_fill 写入被掩码分数的值：-inf（PyTorch 的 "
     "float('-inf')），或一个有限的数，例如有些代码用的 -1e9"},
    {"Safe softmax", "安全 softmax"},
    {"A row whose every key is masked with -inf gives NaN in torch.softmax; safe softmax (newer "
     "scaled_dot_product_attention) gives zeros instead.",
     "若一行的所有键都被 -inf 掩码，torch.softmax 会给出 NaN；安全 "
     "softmax（较新的 scaled_dot_product_attention）则给出全 0。"},
    {"Embedding", "嵌入"},
    {"explicit values (edited cell by cell)", "显式数值（逐个单元格编辑）"},
    {"back to seeded", "恢复为随机种子生成"},
    {"Embedding seed", "嵌入随机种子"},
    {"Positional", "位置编码"},
    {"sinusoidal", "正弦 sinusoidal"},
    {"positional encoding added to the embedding: none, or the sinusoidal one of \"Attention Is All You Need\"",
     "加到嵌入上的位置编码：无，或《Attention Is All You "
     "Need》中的正弦位置编码"},
    {"Weights", "投影权重"},
    {"explicit values", "显式数值"},
    {"Init", "初始化"},
    {"torch_linear", "torch_linear"},
    {"torch_rand", "torch_rand"},
    {"torch_linear: nn.Linear(d_model, d_out) for query, key, value (then out_proj)\ntorch_rand: "
     "torch.rand(d_model, d_out) for W_q, W_k, W_v (tutorial 000 / 004 §2)",
     "torch_linear：query、key、value 各用一个 "
     "nn.Linear(d_model, d_out)（之后是 "
     "out_proj）\ntorch_rand：W_q、W_k、W_v 各用 "
     "torch.rand(d_model, d_out)（教程 000 / 004 §2）"},
    {"Weight seed", "权重随机种子"},
    {"Layout", "布局"},
    {"fused", "合并 fused"},
    {"per_head", "每头独立 per_head"},
    {"fused: one nn.Linear per Q, K, V (MultiHeadAttention)\nper_head: each head its own Q, K, V "
     "nn.Linear (MultiHeadAttentionWrapper)",
     "fused：Q、K、V 各一个 "
     "nn.Linear（MultiHeadAttention）\nper_head：每个头有自己的 "
     "Q、K、V nn.Linear（MultiHeadAttentionWrapper）"},
    {"QKV bias", "QKV 偏置"},
    {"nn.Linear(..., bias=True) for query, key and value: adds b_q, b_k, b_v",
     "query、key、value 用 nn.Linear(..., bias=True)：加上 b_q、b_k、b_v"},
    {"Output projection", "输出投影"},
    {"out_proj: an nn.Linear(d_out, d_out) after the heads are concatenated",
     "out_proj：各头拼接之后的一个 nn.Linear(d_out, d_out)"},
    {"bias", "偏置"},
    {"the output projection's bias b_o", "输出投影的偏置 b_o"},
    {"Type a number and press Enter. The first edit switches that input from its seed to explicit "
     "values (exactly the numbers shown), so nothing else changes.",
     "输入数字后按回车。第一次编辑会把该输入从随机种子生成切换为显式数值（正是所显示的数），因此其他数值都不会变。"},
    {"(too wide to edit here: %d columns)", "（太宽，无法在此编辑：%d 列）"},
    {"Embedding (rows of X before positions)", "嵌入（加位置编码之前 X 的各行）"},
    {"{0}[{1}][{2}] must be a finite number: NaN and ∞ can come out of attention, but cannot go in.",
     "{0}[{1}][{2}] 必须是有限的数：NaN 和 ∞ 可以从注意力计算中产生，但不能作为输入。"},

    // [SECTION] Stages, the flow and heatmaps (panel_stages.cpp, stage_flow.cpp, heatmap.cpp)

    // [SECTION] Inspector (panel_inspector.cpp, inspector_text.h)

    // [SECTION] Compare heads and Lines (panel_compare.cpp, panel_lines.cpp)
    {"head %d", "头 %d"},
    {"Stage", "阶段"},
    {"one scale for every head, white = 0", "所有头共用一个色标，白色 = 0"},
    {"one scale for every head", "所有头共用一个色标"},
    {"Click a map to select that head (the Stages tab follows); hover a cell for its value.",
     "单击一张热力图即选中该头（“各个阶段”页随之切换）；悬停在单元格上可看其数值。"},
    {"(not computed)", "（未计算）"},
    {"The head divergence compares every pair of heads over all %d×%d weights (%d pairs): too much "
     "to redo on every edit.",
     "头间散度要在全部 %d×%d 个注意力权重上比较每一对头（共 %d 对）："
     "每次编辑都重算代价太大。"},
    {"Compute head divergence", "计算头间散度"},
    {"JS divergence  (%d×%d)", "JS 散度（%d×%d）"},
    {"heads %d and %d: mean Jensen–Shannon divergence %s\n(0 = attend alike, ln 2 ≈ 0.6931 = disjoint "
     "keys)\nclick: compare them above",
     "头 %d 与头 %d：平均 Jensen–Shannon 散度 %s\n（0 = 关注方式相同，"
     "ln 2 ≈ 0.6931 = 关注的键互不重叠）\n单击：在上方比较这两个头"},
    {"nan (no valid row)", "nan（没有有效的行）"},
    {"How differently two heads attend: for each query, the Jensen–Shannon divergence (natural log) "
     "between the two heads' rows of weights, averaged over the queries.",
     "两个头的关注方式有多不同：对每个查询，计算两个头各自那一行注意力权重之间的 "
     "Jensen–Shannon 散度（自然对数），再对所有查询取平均。"},
    {"0 (dark) = the heads attend identically; ln 2 ≈ 0.693 (bright) = no query of one head attends "
     "to a key the other attends to. The scale is fixed at 0 … ln 2, so colours mean the same in "
     "every session; the value is printed in each cell. The diagonal is 0. Rows that are NaN or all "
     "zero in either head are skipped.",
     "0（暗）= 两个头的关注方式完全相同；ln 2 ≈ 0.693（亮）= "
     "一个头的任何查询所关注的键，另一个头都不关注。色标固定为 0 … ln 2，"
     "因此颜色在每次会话中含义相同；每个单元格里都印有数值。对角线为 0。任一头中为 NaN 或全为 0 的行不计入。"},
    {"Click a cell to compare those two heads above (row = A, column = B).", "单击一个单元格，即在上方比较这两个头（行 = A，列 = B）。"},
    {"Head A", "头 A"},
    {"Head B", "头 B"},
    {"Swap", "交换"},
    {"red: A larger, blue: B larger, white: equal", "红：A 较大，蓝：B 较大，白：相等"},
    {"For every query (row of weights) and head: the entropy of its attention in nats (0 = all "
     "weight on one key, ln n = spread evenly over n keys; ln %d = %.3f here), the largest weight "
     "and the key that receives it.",
     "每个查询（注意力权重的一行）在每个头中的：注意力的熵，单位为奈特（0 = 全部权重落在一个键上，"
     "ln n = 平均分布在 n 个键上；此处 ln %d = %.3f），最大的权重，以及得到它的键。"},
    {"query", "查询"},
    {"h%d entropy", "h%d 熵"},
    {"h%d max", "h%d 最大值"},
    {"h%d argmax", "h%d argmax"},
    {"No result yet.", "尚无结果。"},
    {"One head: set Heads to 2 or more to compare heads.", "只有一个头：把“头数”设为 2 或以上才能比较各头。"},
    {"All heads", "所有头"},
    {"A/B", "A/B"},
    {"Row statistics", "行统计"},
    {"Heads:", "头："},
    {"all", "全部"},
    {"Query i (left) attends to key j (right): opacity and width grow with weights[i][j]. Hover a "
     "token to see only its lines; click to pin it. No line for weights under %g%%.",
     "查询 i（左）关注键 j（右）：线的不透明度和粗细随 weights[i][j] 增大。"
     "悬停在词元上只看它的连线；单击可将其固定。权重低于 %g%% 的不画线。"},
    {"queries", "查询"},
    {"keys", "键"},
    {"opaque line = weight %s", "不透明的线 = 权重 %s"},

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
