// lang_zh_cn_lessons.cpp: the 简体中文 of the lessons (assets/lessons/*.json, docs/lessons.md)
// and of the Lesson window. Keys are the lesson files' English: each lesson's title and
// next, each step's title, text and task text, each code line's note
// (tests/i18n/check_catalogue.py reads them from the files). Terms follow the glossary in
// docs/i18n.md; code, numbers and PyTorch names stay as they are.
#include "app/text/i18n.h"

namespace attnviz::ui {

static const CatalogueEntry kZhCNLessons[] = {
    // [SECTION] The Learn menu and the Lesson window (ui/app/lessons/panel_lesson.cpp)
    {"Learn", "学习"},

    // [SECTION] Lesson attention (assets/lessons/*-attention.json)
    {"the five tokens of tutorial 000", "教程 000 的五个词元"},
    {"width of each token's embedding", "每个词元嵌入的宽度"},
    {"width of the queries, keys, values and the output", "查询、键、值和输出的宽度"},
    {"each head's share of d_out", "每个头分到的 d_out 宽度"},
    {"the distinct tokens, in order of first appearance", "不重复的词元，按首次出现的顺序"},
    {"seeded right before nn.Embedding, as in the tutorial", "紧挨着 nn.Embedding 之前设种子，与教程相同"},
    {"one row per token: (5, 4)", "每个词元一行：(5, 4)"},
    {"Hover a cell of X and read its value in the Inspector.", "把鼠标移到 X 的一个单元格上，在检查器中读出它的值。"},
    {"Embeddings: one row per token", "嵌入：每个词元一行"},
    {"Each of the five words becomes a row of four numbers, drawn by nn.Embedding right after torch.manual_seed(123). Nothing has been learned yet, so the numbers are random, but they are exactly the ones in the tutorial's first table. The map X shows them with row \"Once\" at the top.", "五个词各变成一行四个数，由 torch.manual_seed(123) 之后的 nn.Embedding 抽取。这时还没有学到任何东西，所以这些数是随机的，但它们和教程第一张表里的数完全一样。X 热力图把它们画出来，最上面一行是 \"Once\"。"},
    {"a fresh seed before the three weight matrices", "三个权重矩阵之前重新设种子"},
    {"uniform numbers in [0, 1), drawn first", "[0, 1) 上的均匀随机数，最先抽取"},
    {"drawn second", "第二个抽取"},
    {"drawn third", "第三个抽取"},
    {"Hover W_q and find the 0.2961 in its top-left corner.", "把鼠标移到 W_q 上，找到左上角的 0.2961。"},
    {"Three weight matrices", "三个权重矩阵"},
    {"Queries, keys and values each come from their own 4 × 4 matrix. The tutorial seeds again with 123 and draws W_query, W_key and W_value with torch.rand in that order, so W_query starts with 0.2961. In a real model these matrices are trained; here they only need to be fixed numbers.", "查询、键和值各来自自己的 4 × 4 矩阵。教程再次用 123 设种子，按顺序用 torch.rand 抽取 W_query、W_key 和 W_value，所以 W_query 以 0.2961 开头。在真正的模型里这些矩阵是训练出来的；这里它们只需是固定的数。"},
    {"each row of X times W_query", "X 的每一行乘以 W_query"},
    {"Click the map Q to select it.", "点击 Q 热力图选中它。"},
    {"Queries, keys and values", "查询、键和值"},
    {"Multiplying X by each matrix projects every token three ways: a query (what it looks for), a key (how it can be found) and a value (what it hands over). Each result is again 5 × 4, one row per token. Row \"upon\" has the largest numbers because its embedding is large.", "X 分别乘以三个矩阵，把每个词元投影成三种向量：查询（它要找什么）、键（别人怎样找到它）和值（它交出什么）。每个结果仍是 5 × 4，每个词元一行。\"upon\" 这一行的数最大，因为它的嵌入本来就大。"},
    {"every query against every key: (5, 5)", "每个查询与每个键相乘：(5, 5)"},
    {"Hover the cell of row \"upon\", column \"upon\" in scores h0.", "把鼠标移到 scores h0 中 \"upon\" 行、\"upon\" 列的单元格上。"},
    {"Scores: every query against every key", "注意力分数：每个查询对每个键"},
    {"The dot product of query i with key j says how well token i matches token j. queries @ keys.T computes all 25 of them at once, a 5 × 5 matrix whose row i belongs to query i. The bright cell in row \"upon\", column \"upon\" (17.4476) stands out.", "查询 i 与键 j 的点积表示词元 i 与词元 j 有多匹配。queries @ keys.T 一次算出全部 25 个，得到一个 5 × 5 矩阵，第 i 行属于查询 i。\"upon\" 行、\"upon\" 列那个明亮的单元格（17.4476）格外显眼。"},
    {"one head, so head_dim = 4 and the divisor is 2", "只有一个头，head_dim = 4，除数是 2"},
    {"Pin a cell of scaled h0 by clicking it, then compare it with the same cell of scores h0.", "点击 scaled h0 的一个单元格把它钉住，再与 scores h0 的同一单元格比较。"},
    {"Scaling by √d_k", "除以 √d_k 缩放"},
    {"Dot products grow with the width of the vectors, and large scores push softmax towards all-or-nothing. Dividing by the square root of the key width keeps them in a gentler range: here √4 = 2, so every score is simply halved (17.4476 becomes 8.7238).", "点积会随向量宽度增大，过大的分数会让 softmax 变得非此即彼。除以键宽度的平方根能让分数保持在更温和的范围：这里 √4 = 2，所以每个分数正好减半（17.4476 变成 8.7238）。"},
    {"over the keys: each row adds up to 1", "沿键的方向：每行之和为 1"},
    {"Hover the bright cell of row \"upon\" in weights h0.", "把鼠标移到 weights h0 中 \"upon\" 行那个明亮的单元格上。"},
    {"Softmax: scores become weights", "softmax：分数变成注意力权重"},
    {"Softmax over each row turns the scaled scores into positive weights that add up to 1. Row \"upon\" gives 0.99994 to itself and almost nothing to the others, which is why the map shows one bright diagonal cell there. The other rows spread their weight more, mostly towards \"time\".", "对每一行做 softmax，把缩放后的分数变成加起来为 1 的正数权重。\"upon\" 行把 0.99994 给了自己，几乎没有留给别的词元，所以热力图上那里只有一个明亮的对角单元格。其他行的权重分得更开，大多偏向 \"time\"。"},
    {"(5, 5) @ (5, 4) gives (5, 4)", "(5, 5) @ (5, 4) 得到 (5, 4)"},
    {"Hover row \"upon\" of context h0 and compare it with row \"upon\" of V.", "把鼠标移到 context h0 的 \"upon\" 行，与 V 的 \"upon\" 行比较。"},
    {"Context vectors: a weighted sum of values", "上下文向量：值的加权和"},
    {"Each token's output is the mix of all value rows, weighted by its row of attention weights. The result has the same shape as X, 5 × 4, and row \"upon\" is almost exactly its own value row. This is the whole of scaled dot-product attention.", "每个词元的输出是所有值向量的混合，按它那一行注意力权重加权。结果的形状与 X 相同，是 5 × 4，\"upon\" 这一行几乎就是它自己的值向量。这就是缩放点积注意力的全部。"},
    {"Scaled dot-product attention", "缩放点积注意力"},
    {"Change a token in the Tokens box and watch which rows of the scores and weights move, or set Temperature to 2 and see the weights flatten.", "在“词元”框里改一个词元，看注意力分数和注意力权重的哪些行会变；或把温度设为 2，看注意力权重变得更平。"},

};

Catalogue catalogue_zh_cn_lessons() {
  return {kZhCNLessons, static_cast<int>(sizeof kZhCNLessons / sizeof kZhCNLessons[0])};
}

}  // namespace attnviz::ui
