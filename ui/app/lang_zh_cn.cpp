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
    {"Open weights…", "打开训练好的权重…"},
    {"Trained W_q, W_k, W_v (and W_o, biases) from a .safetensors, .npz or .npy file.\nOr drop the file on the window.",
     "从 .safetensors、.npz 或 .npy 文件读取训练好的 W_q、W_k、W_v（以及 W_o 和偏置）。\n也可以把文件拖放到窗口上。"},
    {"Open weights", "打开训练好的权重"},
    {"Open weights file", "打开权重文件"},
    {"Path of a .safetensors, .npz or .npy file (or drop the file on the window):",
     ".safetensors、.npz 或 .npy 文件的路径（也可以把文件拖放到窗口上）："},
    {"%s: %s, %d tensors", "%s：%s，%d 个张量"},
    {"Layer", "层"},
    {"tensor", "张量"},
    {"shape", "形状"},
    {"used as", "用作"},
    {"%s (not read)", "%s（不读取）"},
    {"No known names: choose the tensors.", "没有认出的名称：请选择张量。"},
    {"Proposed from the names; correct anything:", "根据名称给出的建议；如有不对请更正："},
    {"role", "角色"},
    {"transpose", "转置"},
    {"part", "部分"},
    {"whole", "整个"},
    {"1st third", "第 1 个三分之一"},
    {"2nd third", "第 2 个三分之一"},
    {"3rd third", "第 3 个三分之一"},
    {"(none)", "（无）"},
    {"nn.Linear stores its weight out × in: transpose it to x·W.\nGPT-2's Conv1D and bare nn.Parameter(d_in, d_out) are x·W already.",
     "nn.Linear 按 out × in 存储权重：需转置成 x·W 的形式。\nGPT-2 的 Conv1D 和直接的 nn.Parameter(d_in, d_out) 已经是 x·W。"},
    {"A fused tensor (in_proj_weight, qkv, c_attn) holds Q, K and V in thirds along its output axis.",
     "融合张量（in_proj_weight、qkv、c_attn）沿输出轴把 Q、K、V 各存为三分之一。"},
    {"Q/K/V biases", "有 Q/K/V 偏置"},
    {"no Q/K/V biases", "无 Q/K/V 偏置"},
    {"output projection with bias", "有带偏置的输出投影"},
    {"output projection without bias", "有不带偏置的输出投影"},
    {"no output projection", "无输出投影"},
    {"d_model {0}, d_out {1}, {2}, {3}", "d_model {0}，d_out {1}，{2}，{3}"},
    {"choose", "请选择"},
    {"Number of heads", "头数"},
    {"The current %d heads do not divide d_out %d: choose how many heads.", "当前的 %d 个头不能整除 d_out %d：请选择头数。"},
    {"Apply weights", "应用权重"},
    {"Reading %d of %d tensors…", "正在读取第 %d 个张量，共 %d 个…"},
    {"{0} was not opened: {1} The state is unchanged.", "未打开{0}：{1}状态保持不变。"},
    {"{0} (layer {1})", "{0}（层 {1}）"},
    {"{0} head", "{0} 个头"},
    {"{0} heads", "{0} 个头"},
    {"Weights from {0}: d_model {1}, d_out {2}, {3}. Ctrl+Z goes back.",
     "已载入来自{0}的权重：d_model {1}，d_out {2}，{3}。按 Ctrl+Z 可撤销。"},
    {"{0} could not be read: it is not a file.", "无法读取{0}：它不是文件。"},
    {"The weights could not be read ({0}).", "无法读取权重（{0}）。"},
    {"The file is empty.", "文件是空的。"},
    {"This is not a .safetensors, .npz or .npy file (it starts with the bytes {0}).",
     "这不是 .safetensors、.npz 或 .npy 文件（它以字节 {0} 开头）。"},
    {"The file is cut short: reading {0} needs {1} bytes, but the file has {2}.",
     "文件不完整：读取 {0} 需要 {1} 字节，但文件只有 {2} 字节。"},
    {"The file could not be read ({0}).", "无法读取文件（{0}）。"},
    {"The file's header is {0} bytes; attnviz reads headers of up to {1} bytes (100 MB).",
     "文件头有 {0} 字节；attnviz 最多读取 {1} 字节（100 MB）的文件头。"},
    {"The safetensors header is not valid JSON: {0}.", "safetensors 文件头不是有效的 JSON：{0}。"},
    {"The safetensors header is not a JSON object of tensors.", "safetensors 文件头不是由张量组成的 JSON 对象。"},
    {"The safetensors header's entry for “{0}” is damaged: {1}.", "safetensors 文件头中“{0}”的条目已损坏：{1}。"},
    {"Tensor “{0}” ends at byte {1} of the data, past the end of the file ({2} bytes of data).",
     "张量“{0}”结束于数据的第 {1} 字节，超出了文件末尾（数据共 {2} 字节）。"},
    {"Tensors “{0}” and “{1}” claim the same bytes of the file.", "张量“{0}”和“{1}”占用了文件中相同的字节。"},
    {"Tensor “{0}” has shape {1} and dtype {2}, which takes {3} bytes, but the file gives it {4}.",
     "张量“{0}”的形状为 {1}、dtype 为 {2}，需要 {3} 字节，但文件只给了它 {4} 字节。"},
    {"The file lists {0} tensors; attnviz reads at most {1}.", "文件列出了 {0} 个张量；attnviz 最多读取 {1} 个。"},
    {"The file holds no tensors.", "文件中没有张量。"},
    {"This is not a zip archive (.npz): no zip directory at its end. It may be cut short.",
     "这不是 zip 压缩包（.npz）：末尾没有 zip 目录。文件可能不完整。"},
    {"The zip directory of this .npz is damaged: {0}.", "此 .npz 的 zip 目录已损坏：{0}。"},
    {"“{0}” in this .npz is encrypted.", "此 .npz 中的“{0}”已加密。"},
    {"“{0}” in this .npz is compressed with method {1}" "; attnviz reads stored and deflated members (np.savez, np.savez_compressed).",
     "此 .npz 中的“{0}”使用压缩方法 {1}；attnviz 只读取未压缩和 deflate 压缩的成员（np.savez、np.savez_compressed）。"},
    {"“{0}” in this .npz could not be decompressed: its data is damaged.", "无法解压此 .npz 中的“{0}”：它的数据已损坏。"},
    {"“{0}” is not a NumPy .npy array.", "“{0}”不是 NumPy .npy 数组。"},
    {"The .npy header of “{0}” cannot be read: {1}.", "无法读取“{0}”的 .npy 文件头：{1}。"},
    {"“{0}” is stored in Fortran order; save it with np.ascontiguousarray(...) first.",
     "“{0}”按 Fortran 顺序存储；请先用 np.ascontiguousarray(...) 转换后再保存。"},
    {"“{0}” has the dtype {1}, which attnviz does not know.", "“{0}”的 dtype 为 {1}，attnviz 不认识这种类型。"},
    {"Tensor “{0}” is {1}" "; attnviz reads float32, float16, bfloat16 and float64 weights.",
     "张量“{0}”是 {1}；attnviz 读取 float32、float16、bfloat16 和 float64 权重。"},
    {"Tensor “{0}” holds a value that is not a finite float32 (element {1}: NaN, infinity or beyond float32's range).",
     "张量“{0}”含有不是有限 float32 的值（第 {1} 个元素：NaN、无穷大或超出 float32 的范围）。"},
    {"Choose a tensor for {0}.", "请为 {0} 选择一个张量。"},
    {"{0} must be a matrix, but “{1}” has shape {2}.", "{0} 必须是矩阵，但“{1}”的形状为 {2}。"},
    {"{0} must be a vector, but “{1}” has shape {2}.", "{0} 必须是向量，但“{1}”的形状为 {2}。"},
    {"“{1}” (shape {2}) cannot be cut into three equal parts for {0}.", "“{1}”（形状 {2}）无法为 {0} 等分成三份。"},
    {"{0} from “{1}” is {2}, but it must be {3} to go with W_q.", "来自“{1}”的 {0} 是 {2}，但要与 W_q 配合，它必须是 {3}。"},
    {"The Q, K and V biases go together: {0} chosen, {1} missing.", "Q、K、V 的偏置必须一起提供：已选 {0}，缺少 {1}。"},
    {"{0} would be {1}" "; attnviz handles at most {2}.", "{0} 将是 {1}；attnviz 最多处理 {2}。"},
    {"{0} heads do not divide d_out {1}: choose another number of heads.", "{0} 个头不能整除 d_out {1}：请选择其他头数。"},
    {"These weights do not make a valid state: {0}", "这些权重无法构成有效的状态：{0}"},

    // [SECTION] Engine refusals (attnviz/messages.h: templates with {0} {1} ...)

    // [SECTION] Platform (ui/platform: desktop and browser messages)

};

Catalogue catalogue_zh_cn() { return {kZhCN, static_cast<int>(sizeof kZhCN / sizeof kZhCN[0])}; }

}  // namespace attnviz::ui
