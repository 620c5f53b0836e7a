//! The words of the score options: the "Positions" and "Score shaping" controls, and the views
//! that show each option on the learner's numbers (RoPE's turns, the offset, ALiBi's biases, the
//! soft-cap's curve, QK-norm's bound, the sink's share).

/// (button, one-line explanation) of each kind of position, in the control's order: absolute,
/// none, RoPE, ALiBi.
pub type KindTexts = [(&'static str, &'static str); 4];

pub struct ShapingTexts {
    pub positions_section: &'static str,
    pub kinds: KindTexts,
    pub base: &'static str,
    pub base_help: &'static str,
    /// (button, explanation) of the half and interleaved pairings.
    pub pairings: [(&'static str, &'static str); 2],
    pub pairing: &'static str,
    pub offset: &'static str,
    pub offset_help: &'static str,
    /// The trained model keeps the positions it learned.
    pub fixed_by_model: &'static str,
    pub section: &'static str,
    pub softcap: &'static str,
    pub softcap_help: &'static str,
    pub qk_norm: &'static str,
    pub qk_norm_help: &'static str,
    pub sink_logits: &'static str,
    pub sink_logits_help: &'static str,
    /// The views' section: its title and what it is for.
    pub view_title: &'static str,
    pub view_help: &'static str,
    /// A long input: (tokens, the most these views take).
    pub waiting: fn(usize, usize) -> String,
    pub rope_title: &'static str,
    pub rope_caption: &'static str,
    /// Titles of Q and K before and after (QK-norm and) RoPE: [q, q turned, k, k turned].
    pub rope_matrices: [&'static str; 4],
    /// The same, when QK-norm also applies.
    pub normed_matrices: [&'static str; 4],
    pub angles_title: &'static str,
    pub angles_caption: &'static str,
    /// Hovering an angle: (position, pair, first dim, second dim, θ_p, angle in radians).
    pub angle_cell: fn(usize, usize, usize, usize, &str, &str) -> String,
    /// The offset moved: (offset, the scores' max |Δ| against offset 0).
    pub offset_delta: fn(usize, &str) -> String,
    /// An offset with absolute positions (the scores do change).
    pub offset_absolute: fn(usize) -> String,
    pub offset_zero: &'static str,
    pub alibi_title: &'static str,
    pub alibi_caption: &'static str,
    /// Hovering a bias: (query, key, slope, bias).
    pub alibi_cell: fn(usize, usize, &str, &str) -> String,
    /// The slope table's columns: head, slope, as a power of two, distance at which the bias
    /// reaches −1.
    pub slope_columns: [&'static str; 4],
    pub softcap_title: &'static str,
    /// (c): what the curve shows.
    pub softcap_caption: fn(&str) -> String,
    /// The chart's axis names: the score before and after the cap.
    pub softcap_axes: [&'static str; 2],
    /// The row on the curve: (query, its token, scores within 5 % of ±c).
    pub softcap_row: fn(usize, &str, usize) -> String,
    pub qk_norm_title: &'static str,
    /// (√d_k, the head's largest |q·k|/√d_k, d_k).
    pub qk_norm_bound: fn(&str, &str, usize) -> String,
    pub sink_title: &'static str,
    pub sink_caption: &'static str,
    /// The extra column's label.
    pub sink_column: &'static str,
    /// Hovering the sink's column: (query, its share); a key's cell: (query, key, weight).
    pub sink_cell: fn(usize, &str) -> String,
    pub key_cell: fn(usize, usize, &str) -> String,
}

pub static EN: ShapingTexts = ShapingTexts {
    positions_section: "Positions",
    kinds: [
        (
            "absolute",
            "X = E + P: a sine and cosine vector for each position is added to each token's vector (2017).",
        ),
        (
            "none",
            "X = E: no position at all. Without a mask, attention cannot tell one order of the words from another.",
        ),
        (
            "RoPE",
            "Rotary positions (Llama, Qwen, Mistral): each head's q and k are turned by an angle that grows with the position; v is left alone.",
        ),
        (
            "ALiBi",
            "Linear biases (BLOOM, MPT): each head subtracts m·|i − j| from its scores, a different slope m per head.",
        ),
    ],
    base: "base",
    base_help: "θ_p = base^(−2p/d_k): a larger base turns the slow pairs more slowly (10000 in most models).",
    pairings: [
        (
            "half",
            "Dimension p turns with p + d_k/2 (GPT-NeoX, Hugging Face's Llama).",
        ),
        (
            "interleaved",
            "Dimension 2p turns with 2p + 1 (GPT-J, Meta's original Llama).",
        ),
    ],
    pairing: "pairing",
    offset: "offset",
    offset_help: "Added to every query's and key's position, as when the text starts later in a long document.",
    fixed_by_model: "A trained model keeps the positions it was trained with: the GPT-2 layout its learned absolute positions (wpe), the Llama layout RoPE on every head, the hybrid RoPE on a quarter of each head in its full-attention layer (a RoPE offset changes no score). Choose random weights to try the others.",
    section: "Score shaping",
    softcap: "soft-cap c",
    softcap_help: "z → c·tanh(z/c) before ÷T: scores stay within ±c (Gemma 2).",
    qk_norm: "QK-norm",
    qk_norm_help: "Each q and k row divided by its root mean square before the dot product (Gemma 3, OLMo 2).",
    sink_logits: "sink logit per head",
    sink_logits_help: "One more column in each row's softmax, dropped afterwards: a head can give its attention to nothing (gpt-oss).",
    view_title: "Score shaping, on your numbers",
    view_help: "What the chosen options do to the selected head before the softmax, in the order the scores are made: QK-norm and RoPE on q and k, ÷√d_k, ALiBi's bias, the soft-cap, ÷T, the mask, then the softmax with the sink.",
    waiting: |n, most| {
        format!("These views draw at most {most} tokens ({n} here): shorten the input to see them.")
    },
    rope_title: "RoPE: q and k turned by their positions",
    rope_caption: "Each pair of dimensions of the head's q and k is turned by position · θ_p (with a partial rotation, as in Qwen3-Next, only the pairs of the first dimensions turn and the rest pass unchanged). Lengths stay the same; only directions change, so q_i·k_j depends on i − j.",
    rope_matrices: [
        "Q of the head",
        "Q turned by RoPE",
        "K of its K/V head",
        "K turned by RoPE",
    ],
    normed_matrices: [
        "Q of the head",
        "Q after QK-norm and RoPE",
        "K of its K/V head",
        "K after QK-norm and RoPE",
    ],
    angles_title: "The angle of every pair at every position",
    angles_caption: "Row: a position; column: a pair of dimensions. Early pairs turn fast, later pairs slowly, like the hands of a clock. Shown between −π and π.",
    angle_cell: |position, pair, a, b, theta, angle| {
        format!(
            "position {position}, pair {pair} (dimensions {a} and {b}): θ = {theta}, angle = {angle} rad"
        )
    },
    offset_delta: |offset, delta| {
        format!(
            "Offset {offset}: every query and key sits {offset} positions later. The scores' largest change against offset 0 is {delta}: rounding only, because they depend on i − j alone."
        )
    },
    offset_absolute: |offset| {
        format!(
            "Offset {offset} with absolute positions: X itself changes (P of positions {offset} onwards), so every score changes too. RoPE and ALiBi would not."
        )
    },
    offset_zero: "Move the offset: with RoPE and ALiBi the scores should not change.",
    alibi_title: "ALiBi: a bias that grows with distance",
    alibi_caption: "−m·|i − j| for the selected head, added to its scaled scores: far keys are pushed down, and a steep slope makes a head look only nearby.",
    alibi_cell: |i, j, slope, bias| format!("query {i}, key {j}: −{slope} · |{i} − {j}| = {bias}"),
    slope_columns: ["head", "slope m", "as 2^k", "bias −1 at distance"],
    softcap_title: "The soft-cap: c·tanh(z/c)",
    softcap_caption: |c| {
        format!(
            "The curve maps a score before the cap to the score after it. Small scores pass almost unchanged; large ones bend towards ±{c} and never reach it. The dots are the selected query's scores."
        )
    },
    softcap_axes: ["before the cap", "after the cap"],
    softcap_row: |i, token, near| {
        format!("Query {i} “{token}”: {near} of its scores are within 5 % of the cap.")
    },
    qk_norm_title: "QK-norm bounds the scores",
    qk_norm_bound: |bound, largest, d_k| {
        format!(
            "After QK-norm each q and k has length √{d_k}, so |q·k|/√d_k ≤ √d_k = {bound}. This head's largest is {largest}."
        )
    },
    sink_title: "Weights with the sink's column",
    sink_caption: "The last column is the share each row gives to the sink logit: it is dropped, so the row's other weights sum to 1 minus it.",
    sink_column: "sink",
    sink_cell: |i, share| format!("query {i}: the sink takes {share} of the row"),
    key_cell: |i, j, weight| format!("query {i}, key {j}: weight {weight}"),
};

pub static ZH: ShapingTexts = ShapingTexts {
    positions_section: "位置",
    kinds: [
        (
            "绝对",
            "X = E + P：每个位置有一个正弦、余弦组成的向量，加到该词元的向量上（2017 年的做法）。",
        ),
        (
            "无",
            "X = E：完全没有位置信息。没有掩码时，注意力分不清词语的先后顺序。",
        ),
        (
            "RoPE",
            "旋转位置编码（Llama、Qwen、Mistral）：每个头的 q 和 k 按位置旋转一个随位置增大的角度；v 不变。",
        ),
        (
            "ALiBi",
            "线性偏置（BLOOM、MPT）：每个头从分数中减去 m·|i − j|，每个头的斜率 m 不同。",
        ),
    ],
    base: "底数",
    base_help: "θ_p = base^(−2p/d_k)：底数越大，慢的那些维度对转得越慢（多数模型取 10000）。",
    pairings: [
        (
            "前后半",
            "第 p 维与第 p + d_k/2 维一起旋转（GPT-NeoX、Hugging Face 的 Llama）。",
        ),
        (
            "相邻",
            "第 2p 维与第 2p + 1 维一起旋转（GPT-J、Meta 最初的 Llama）。",
        ),
    ],
    pairing: "配对方式",
    offset: "偏移",
    offset_help: "加到每个查询和键的位置上，就像这段文字出现在长文档的后面。",
    fixed_by_model: "训练好的模型保留训练时的位置方式：GPT-2 结构用学到的绝对位置（wpe），Llama 结构在每个头上用 RoPE，混合结构只在全注意力层每个头的四分之一维度上用 RoPE（RoPE 的偏移不会改变任何分数）。想试其他方式，请选随机权重。",
    section: "分数整形",
    softcap: "软上限 c",
    softcap_help: "在 ÷T 之前 z → c·tanh(z/c)：分数始终落在 ±c 之内（Gemma 2）。",
    qk_norm: "QK 归一化",
    qk_norm_help: "点积之前，q 和 k 的每一行除以它的均方根（Gemma 3、OLMo 2）。",
    sink_logits: "每个头的汇聚 logit",
    sink_logits_help: "每行 softmax 多出一列，算完后丢掉：一个头可以把注意力“交给”空无（gpt-oss）。",
    view_title: "分数整形：用你的数字看",
    view_help: "所选选项在 softmax 之前对当前头做了什么，按分数生成的顺序：先对 q、k 做 QK 归一化和 RoPE，再 ÷√d_k，加 ALiBi 偏置，软上限，÷T，掩码，最后是带汇聚列的 softmax。",
    waiting: |n, most| format!("这些视图最多画 {most} 个词元（这里有 {n} 个）：缩短输入即可看到。"),
    rope_title: "RoPE：q 和 k 按位置旋转",
    rope_caption: "头的 q 和 k 中每一对维度都旋转 位置 · θ_p（部分旋转时，如 Qwen3-Next，只有前面若干维组成的对旋转，其余维度不变）。长度不变，只改方向，所以 q_i·k_j 只取决于 i − j。",
    rope_matrices: [
        "该头的 Q",
        "经 RoPE 旋转后的 Q",
        "其 K/V 头的 K",
        "经 RoPE 旋转后的 K",
    ],
    normed_matrices: [
        "该头的 Q",
        "经 QK 归一化和 RoPE 后的 Q",
        "其 K/V 头的 K",
        "经 QK 归一化和 RoPE 后的 K",
    ],
    angles_title: "每个位置上每一对维度的角度",
    angles_caption: "行是位置，列是一对维度。前面的维度对转得快，后面的转得慢，像钟表的指针。角度显示在 −π 到 π 之间。",
    angle_cell: |position, pair, a, b, theta, angle| {
        format!(
            "位置 {position}，第 {pair} 对（第 {a} 维与第 {b} 维）：θ = {theta}，角度 = {angle} 弧度"
        )
    },
    offset_delta: |offset, delta| {
        format!(
            "偏移 {offset}：每个查询和键都往后挪了 {offset} 个位置。分数与偏移 0 相比最大变化为 {delta}：只是舍入误差，因为分数只取决于 i − j。"
        )
    },
    offset_absolute: |offset| {
        format!(
            "绝对位置下偏移 {offset}：X 本身变了（用的是从 {offset} 开始的位置向量 P），所以每个分数都会变。RoPE 和 ALiBi 不会这样。"
        )
    },
    offset_zero: "拖动偏移：在 RoPE 和 ALiBi 下，分数应当不变。",
    alibi_title: "ALiBi：随距离增大的偏置",
    alibi_caption: "当前头的 −m·|i − j|，加到缩放后的分数上：远处的键被压低，斜率越陡，这个头越只看近处。",
    alibi_cell: |i, j, slope, bias| format!("查询 {i}，键 {j}：−{slope} · |{i} − {j}| = {bias}"),
    slope_columns: ["头", "斜率 m", "写成 2^k", "偏置达到 −1 的距离"],
    softcap_title: "软上限：c·tanh(z/c)",
    softcap_caption: |c| {
        format!(
            "曲线把上限之前的分数映射为上限之后的分数。小分数几乎原样通过；大分数弯向 ±{c}，但永远到不了。圆点是所选查询的分数。"
        )
    },
    softcap_axes: ["上限之前", "上限之后"],
    softcap_row: |i, token, near| format!("查询 {i}“{token}”：有 {near} 个分数离上限不到 5%。"),
    qk_norm_title: "QK 归一化给分数设了界",
    qk_norm_bound: |bound, largest, d_k| {
        format!(
            "QK 归一化后每个 q 和 k 的长度都是 √{d_k}，所以 |q·k|/√d_k ≤ √d_k = {bound}。这个头的最大值是 {largest}。"
        )
    },
    sink_title: "带汇聚列的权重",
    sink_caption: "最后一列是每一行分给汇聚 logit 的份额：它会被丢掉，所以这一行其余权重之和等于 1 减去它。",
    sink_column: "汇聚",
    sink_cell: |i, share| format!("查询 {i}：汇聚列拿走了这一行的 {share}"),
    key_cell: |i, j, weight| format!("查询 {i}，键 {j}：权重 {weight}"),
};
