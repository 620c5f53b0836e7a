//! The words of the "Linear attention" section: the selected head replayed with a state instead
//! of a softmax.

pub struct LinearTexts {
    pub title: &'static str,
    /// (button, one-line explanation) of elu + 1, the delta rule, the gated delta rule.
    pub kinds: [(&'static str, &'static str); 3],
    pub kind_label: &'static str,
    pub chunk: &'static str,
    pub chunk_help: &'static str,
    pub softmax_title: &'static str,
    pub matrix_title: &'static str,
    pub matrix_caption: &'static str,
    /// The readout of a cell of A or of the softmax: (query, key, value).
    pub cell: fn(&str, &str, &str) -> String,
    pub strips_title: &'static str,
    /// Row labels of the strips: β, α (the caption says what each is).
    pub strip_rows: [&'static str; 2],
    pub strips_caption: &'static str,
    pub state_title: &'static str,
    /// The scrubber's label and what it shows: (token index, token).
    pub state_after: fn(usize, &str) -> String,
    pub state_caption: &'static str,
    /// (chunk, max |chunked − token by token|, max |A·V − token by token|).
    pub check: fn(usize, &str, &str) -> String,
    /// (lowest row sum, highest row sum).
    pub row_sums: fn(&str, &str) -> String,
    /// Why nothing is drawn: a long or cross-attention input.
    pub unavailable: &'static str,
    /// The states are kept for at most this many tokens.
    pub states_limit: fn(usize) -> String,
    /// The section's title and help when the layer's heads are linear attention themselves
    /// (a hybrid's Gated DeltaNet layer): (layer from 1, or 0 for the lab's own layer).
    pub own_title: fn(usize) -> String,
    pub own_help: &'static str,
    /// In place of the score and softmax sections for such a layer: (layer from 1).
    pub layer_note: fn(usize) -> String,
    /// The FlashAttention line's twin for such a layer.
    pub chunked_equal: &'static str,
    /// The tag on a linear head at a glance (it shows A), and a layer tab's kind: (linear, full).
    /// A's caption for such a layer (no softmax beside it).
    pub own_caption: &'static str,
    pub grid_tag: &'static str,
    pub layer_kinds: [&'static str; 2],
    /// The memory chart: title, x axis, y axis, the hybrid's line, the all-softmax line.
    pub memory_labels: [&'static str; 5],
    /// Its text: (linear layers, state bytes, full layers, bytes per token, crossover tokens,
    /// context, hybrid bytes at the context, all-softmax bytes at the context).
    pub memory_text: fn(usize, &str, usize, &str, usize, usize, &str, &str) -> String,
    /// The control panel's choice of attention: its heading, the softmax's button, its help.
    pub section: &'static str,
    pub softmax_kind: &'static str,
    pub control_help: &'static str,
    /// The output gate's checkbox and its help.
    pub gate: &'static str,
    pub gate_help: &'static str,
    /// What a trained model fixes: (a hybrid's full layer every n-th, whether its heads are gated).
    pub fixed: fn(Option<usize>, bool) -> String,
    /// The section's help when the page computes linear attention itself (random weights).
    pub page_help: &'static str,
    /// In place of the score and softmax sections then: (the kind's button).
    pub page_note: fn(&str) -> String,
    /// The section on a hybrid's full-attention layer: its title, and its note (that layer,
    /// from 1).
    pub hybrid_title: &'static str,
    /// The section on softmax heads of random weights: what choosing a kind does.
    pub invite: &'static str,
    pub full_layer: fn(usize) -> String,
    /// The weights' card when its head is linear (A, not a softmax): its title, formula and
    /// caption.
    pub weights_stage: [&'static str; 3],
    /// The head output's caption when its head is linear.
    pub output_caption: &'static str,
    /// A cell of A explained (query, key, value).
    pub weight_cell: fn(usize, usize, &str) -> String,
    /// In place of a view that replays a softmax over q and k (the head view, the tile
    /// player, the score cards) when the heads are linear.
    pub softmax_only: &'static str,
    /// A linear head's row in a model's roles table.
    pub no_roles: &'static str,
    /// The caption over every head at a glance when the heads are linear.
    pub all_heads_help: &'static str,
    /// After a model's "every head at a glance" caption when some of its layers are linear.
    pub grid_help: &'static str,
    /// After the colour scales' help when the heads are linear.
    pub scale_note: &'static str,
}

pub const EN: LinearTexts = LinearTexts {
    title: "Linear attention: the same head with a state instead of a softmax",
    kinds: [
        (
            "elu + 1",
            "S adds φ(k) vᵀ at every token, and a query divides by φ(q)·Σφ(k): a weighted mean, so every row of A sums to 1 (Katharopoulos et al., 2020).",
        ),
        (
            "delta rule",
            "Before writing v at k, S first takes away what it already says for k, by β: old values are overwritten, not piled up, so A has negative entries.",
        ),
        (
            "gated delta",
            "The delta rule after S is multiplied by α < 1 at each token: old tokens fade (Gated DeltaNet, as in Qwen3-Next and Qwen3.5).",
        ),
    ],
    kind_label: "kind",
    chunk: "chunk",
    chunk_help: "Tokens per chunk of the chunked form (1 to 256): within a chunk by matrix products, between chunks through S. The numbers must not change.",
    softmax_title: "A causal softmax of the same q and k",
    matrix_title: "Hidden matrix A of linear attention",
    matrix_caption: "o = A·V exactly. A is lower-triangular (causal by construction); unlike a softmax, its rows need not sum to 1 and its entries can be negative. Both matrices share one scale: red above 0, blue below. With the delta rule q and k have length 1 and q is then divided by √d_k, so A's entries are small beside the softmax's.",
    cell: |query, key, value| format!("query {query} → key {key}: {value}"),
    strips_title: "β and α, per token",
    strip_rows: ["β", "α"],
    strips_caption: "β_t = σ(x_t·w_β): how far S's reading at k_t moves toward v_t. α_t = exp(−exp(A)·softplus(x_t·w_α + dt_bias)): the share of S kept when token t arrives (1 without the gate).",
    state_title: "The state S after a token",
    state_after: |t, token| format!("after token {t} “{token}”"),
    state_caption: "Rows are the d_k key directions, columns the d_v value dimensions. Move the slider (or use the arrow keys) to watch S fill, fade with α and be overwritten by the delta rule.",
    check: |chunk, chunked, matrix| {
        format!(
            "Chunks of {chunk} tokens against token by token: largest difference {chunked}. A·V against token by token: {matrix}."
        )
    },
    row_sums: |lo, hi| format!("Row sums of A run from {lo} to {hi}."),
    unavailable: "This view needs the head's whole weights, of one sentence attending to itself: shorten the input to 512 tokens or fewer and leave cross-attention off.",
    states_limit: |most| format!("The states are kept for the first {most} tokens."),
    own_title: |layer| {
        if layer == 0 {
            "Linear attention: this layer's own state".to_string()
        } else {
            format!("Linear attention: layer {layer}'s own state (Gated DeltaNet)")
        }
    },
    own_help: "This layer is linear attention: each head's q, k and v (after the model's short convolution and SiLU) feed a d_k × d_v state S, with the model's own β and α, and each query reads S. Nothing is replayed: A, β, α and S are the numbers this layer computed. Its output is A·V, then the model's gate (for Gated DeltaNet, the output over its root mean square times γ and SiLU(x·W_z)).",
    layer_note: |layer| {
        format!(
            "Layer {layer} is linear attention (Gated DeltaNet): it has no scores q·k, no scale, no mask and no softmax, so those steps are left out here. Its heads' hidden matrices A, its β and α, and its state are in the Linear attention section below; the heads at a glance show A."
        )
    },
    chunked_equal: "The chunked form, computed chunk by chunk, gives the same output as token by token: max |Δ| =",
    own_caption: "o = A·V exactly, before the model's gate. A is lower-triangular (causal by construction); its rows need not sum to 1 and its entries can be negative: red above 0, blue below, on A's own range. q and k have length 1 and q is divided by √d_k, so the entries are small.",
    grid_tag: "linear · A",
    layer_kinds: ["linear", "full"],
    memory_labels: [
        "Memory while reading: this hybrid against every layer softmax",
        "tokens read",
        "KiB held",
        "this hybrid (states + the full layers' K/V)",
        "every layer softmax attention (K/V)",
    ],
    memory_text: |linear, state, full, per_token, crossover, context, hybrid, softmax| {
        let layers = |n: usize| if n == 1 { "layer" } else { "layers" };
        format!(
            "{linear} linear {}: states of {state} bytes in all, whatever the length. {full} full {}: {per_token} bytes more per token each (as a softmax layer in a linear one's place would add). From {crossover} tokens on the states are the smaller. At its context of {context} tokens: {hybrid} bytes, against {softmax} bytes with every layer softmax.",
            layers(linear),
            layers(full)
        )
    },
    section: "Attention",
    softmax_kind: "softmax",
    control_help: "Softmax attention, or linear attention: a state S in place of the scores, for the whole page. Linear attention is causal by construction, so the mask must be none or causal, the temperature 1 and the score options off; the page says which setting is in the way.",
    gate: "output gate σ(x·W_g)",
    gate_help: "Each head's output times σ(x·W_g), element by element, before the heads are joined and W_O applied (W_g drawn from the seed). Qwen3-Next gates its full attention this way; its authors report that it removes attention sinks.",
    fixed: |every, gated| {
        match every {
        Some(n) => format!(
            "The trained hybrid fixes its attention: gated delta rule layers (Gated DeltaNet), and one layer in every {n} softmax attention with an output gate."
        ),
        None if gated => {
            "The trained model fixes its attention: softmax heads, each with an output gate σ(x·W_g).".to_string()
        }
        None => "The trained model fixes its attention: softmax heads, no output gate.".to_string(),
    }
    },
    page_help: "The page computes linear attention: each head's q, k and v (from the seed's weights) feed a d_k × d_v state S, with β and α from the seed, and each query reads S. Every number below is the page's own. Beside A is what a causal softmax makes of the same q and k, on one signed scale.",
    page_note: |kind| {
        format!(
            "The heads compute linear attention ({kind}): there are no scores q·k to scale, mask or pass through a softmax, so those steps are left out. The heads at a glance show each head's hidden matrix A (o = A·V); A, its state S, β and α are in the Linear attention section below."
        )
    },
    hybrid_title: "Linear attention in this hybrid",
    invite: "These heads are softmax heads: every token keeps its key and value, and each query weighs all of them. Choose a kind of linear attention to compute the whole page with a fixed-size state instead, and watch that state here (the same as the Attention control).",
    full_layer: |layer| {
        format!(
            "Layer {layer} is this model's full attention (softmax, with an output gate): it keeps a key and a value per token. Choose one of its linear layers to watch a state."
        )
    },
    weights_stage: [
        "Hidden matrix A",
        "o = A·V, A lower-triangular",
        "Linear attention has no softmax: row t of A holds what each earlier value weighs in o_t, read from the state. Its entries can be negative and a row need not sum to 1 (elu + 1's rows do).",
    ],
    output_caption: "Each query's output: the values summed with its row of A as coefficients. They are signed and need not sum to 1, so this is not an average of the values.",
    weight_cell: |row, col, value| {
        format!(
            "A[{row}, {col}] = {value}: what value {col} weighs in query {row}'s output, read from the state S (linear attention, not a softmax)."
        )
    },
    softmax_only: "This view replays a softmax over the head's q and k. These heads compute linear attention, which has none: their hidden matrix A, state, β and α are in the full lab's Linear attention section.",
    no_roles: "linear layer: A is not a share of attention, so it has no roles",
    all_heads_help: "The hidden matrix A of every head (o = A·V), on a signed scale. Click one to inspect it.",
    grid_help: "Its linear layers show each head's hidden matrix A (o = A·V) on a signed scale of its own, not softmax weights.",
    scale_note: "Linear heads have no weights in 0 … 1: their A is always drawn over its own signed range.",
};

pub const ZH: LinearTexts = LinearTexts {
    title: "线性注意力：同一个头，用状态代替 softmax",
    kinds: [
        (
            "elu + 1",
            "每个词元都往 S 里加上 φ(k) vᵀ，查询再除以 φ(q)·Σφ(k)：这是加权平均，所以 A 的每一行之和都是 1（Katharopoulos 等，2020）。",
        ),
        (
            "delta 规则",
            "在 k 处写入 v 之前，S 先按 β 减去它对 k 已有的读数：旧值被覆盖而不是堆积，所以 A 里会出现负数。",
        ),
        (
            "带门控的 delta",
            "每个词元到来时，先把 S 乘以小于 1 的 α，再用 delta 规则写入：旧词元逐渐淡出（Gated DeltaNet，Qwen3-Next 和 Qwen3.5 采用）。",
        ),
    ],
    kind_label: "类型",
    chunk: "分块",
    chunk_help: "分块形式每块的词元数（1 到 256）：块内用矩阵乘法，块与块之间经由 S 传递。数值不应改变。",
    softmax_title: "同样的 q 和 k 做因果 softmax",
    matrix_title: "线性注意力的隐含矩阵 A",
    matrix_caption: "o = A·V 严格成立。A 是下三角的（天生因果）；和 softmax 不同，它的行之和不必为 1，元素也可以是负数。两幅图共用一个色标：大于 0 为红，小于 0 为蓝。用 delta 规则时，q 和 k 都被归一化为长度 1，q 还要再除以 √d_k，所以 A 的元素比 softmax 权重小得多。",
    cell: |query, key, value| format!("查询 {query} → 键 {key}：{value}"),
    strips_title: "每个词元的 β 和 α",
    strip_rows: ["β", "α"],
    strips_caption: "β_t = σ(x_t·w_β)：S 在 k_t 处的读数向 v_t 移动多远。α_t = exp(−exp(A)·softplus(x_t·w_α + dt_bias))：词元 t 到来时 S 保留的比例（没有门控时为 1）。",
    state_title: "某个词元之后的状态 S",
    state_after: |t, token| format!("第 {t} 个词元“{token}”之后"),
    state_caption: "行是 d_k 个键方向，列是 d_v 个值维度。拖动滑块（或用方向键），看 S 如何被填满、随 α 衰减、被 delta 规则改写。",
    check: |chunk, chunked, matrix| {
        format!(
            "每块 {chunk} 个词元与逐词元计算相比：最大差 {chunked}。A·V 与逐词元计算相比：{matrix}。"
        )
    },
    row_sums: |lo, hi| format!("A 的行之和从 {lo} 到 {hi}。"),
    unavailable: "这个视图需要该头完整的权重矩阵，而且是一句话对自己做注意力：请把输入缩短到 512 个词元以内，并关闭交叉注意力。",
    states_limit: |most| format!("只保留前 {most} 个词元之后的状态。"),
    own_title: |layer| {
        if layer == 0 {
            "线性注意力：这一层自己的状态".to_string()
        } else {
            format!("线性注意力：第 {layer} 层自己的状态（Gated DeltaNet）")
        }
    },
    own_help: "这一层本身就是线性注意力：每个头的 q、k、v（经过模型的短卷积和 SiLU）送入一个 d_k × d_v 的状态 S，β 和 α 都来自模型自己的权重，每个查询从 S 里读。这里没有任何重演：A、β、α 和 S 都是这一层实际算出的数。它的输出是 A·V，再乘以模型的门（Gated DeltaNet 的门：输出除以其均方根，再乘以 γ 和 SiLU(x·W_z)）。",
    layer_note: |layer| {
        format!(
            "第 {layer} 层是线性注意力（Gated DeltaNet）：它没有 q·k 分数，没有缩放、掩码和 softmax，所以这里略去这些步骤。各个头的隐含矩阵 A、β 和 α 以及状态，见下面的“线性注意力”一节；“所有头一览”里画的是 A。"
        )
    },
    chunked_equal: "分块形式逐块计算，得到与逐词元计算相同的输出：最大 |Δ| =",
    own_caption: "o = A·V 严格成立（在模型的门之前）。A 是下三角的（天生因果）；它的行之和不必为 1，元素也可以是负数：大于 0 为红，小于 0 为蓝，色标按 A 自身的范围。q 和 k 的长度为 1，q 还要除以 √d_k，所以元素都很小。",
    grid_tag: "线性 · A",
    layer_kinds: ["线性", "全注意力"],
    memory_labels: [
        "读文本时占用的内存：这个混合模型与全部用 softmax 的对比",
        "已读词元数",
        "占用 KiB",
        "这个混合模型（状态 + 全注意力层的 K/V）",
        "每层都用 softmax 注意力（K/V）",
    ],
    memory_text: |linear, state, full, per_token, crossover, context, hybrid, softmax| {
        format!(
            "它的 {linear} 个线性层保存一个 {state} 字节的状态，与长度无关；它的 {full} 个全注意力层每层每个词元缓存 {per_token} 字节，把一个线性层换成 softmax 层也会这样增长。从 {crossover} 个词元起，状态更小。在它的上下文长度 {context} 个词元处：{hybrid} 字节，而每层都用 softmax 时是 {softmax} 字节。"
        )
    },
    section: "注意力类型",
    softmax_kind: "softmax",
    control_help: "整页使用 softmax 注意力，或线性注意力：用一个状态 S 代替分数。线性注意力天生因果，所以掩码只能是无或因果，温度为 1，分数选项都要关掉；若有设置冲突，页面会指出是哪一项。",
    gate: "输出门 σ(x·W_g)",
    gate_help: "在拼接各头、乘 W_O 之前，把每个头的输出逐元素乘以 σ(x·W_g)（W_g 由随机种子生成）。Qwen3-Next 的全注意力层就这样加门；提出者报告说，它能消除注意力汇点。",
    fixed: |every, gated| match every {
        Some(n) => format!(
            "训练好的混合模型固定了注意力类型：带门控的 delta 规则层（Gated DeltaNet），每 {n} 层中有一层是带输出门的 softmax 注意力。"
        ),
        None if gated => {
            "训练好的模型固定了注意力类型：softmax 头，每个头都有输出门 σ(x·W_g)。".to_string()
        }
        None => "训练好的模型固定了注意力类型：softmax 头，没有输出门。".to_string(),
    },
    page_help: "页面在计算线性注意力：每个头的 q、k、v（来自随机种子的权重）写入一个 d_k × d_v 的状态 S，β 和 α 也由种子生成，每个查询从 S 里读。下面的数都是页面自己算出的。A 旁边是同样的 q 和 k 经过因果 softmax 得到的权重，两者共用一个有正负的色标。",
    page_note: |kind| {
        format!(
            "这些头在计算线性注意力（{kind}）：没有 q·k 分数可缩放、加掩码或送进 softmax，所以略去这些步骤。“所有头一览”画的是每个头的隐含矩阵 A（o = A·V）；A、状态 S、β 和 α 见下面的“线性注意力”一节。"
        )
    },
    hybrid_title: "这个混合模型中的线性注意力",
    invite: "这些头是 softmax 头：每个词元都保留自己的键和值，每个查询对它们全部加权。选一种线性注意力，整页就改用一个固定大小的状态来计算，并可以在这里观察这个状态（与“注意力类型”控件相同）。",
    full_layer: |layer| {
        format!(
            "第 {layer} 层是这个模型的全注意力层（softmax，带输出门）：每个词元都要保存一个键和一个值。选它的某个线性层，可以看状态。"
        )
    },
    weights_stage: [
        "隐含矩阵 A",
        "o = A·V，A 为下三角",
        "线性注意力没有 softmax：A 的第 t 行是每个更早的值在 o_t 中所占的系数，由状态读出。它的元素可以为负，一行之和也不必为 1（elu + 1 的行除外）。",
    ],
    output_caption: "每个查询的输出：以 A 的这一行为系数把值加起来。系数有正有负、和不必为 1，所以这不是值的平均。",
    weight_cell: |row, col, value| {
        format!(
            "A[{row}, {col}] = {value}：值 {col} 在查询 {row} 的输出中的系数，由状态 S 读出（线性注意力，不是 softmax）。"
        )
    },
    softmax_only: "这个视图是在头的 q 和 k 上重放 softmax。这些头计算的是线性注意力，没有 softmax：它们的隐含矩阵 A、状态、β 和 α 见完整实验室中的“线性注意力”一节。",
    no_roles: "线性层：A 不是注意力的份额，没有角色",
    all_heads_help: "每个头的隐含矩阵 A（o = A·V），用有正负的色标。点一个头查看详情。",
    grid_help: "其中的线性层画的是每个头的隐含矩阵 A（o = A·V），用它自己的有正负的色标，不是 softmax 权重。",
    scale_note: "线性头没有落在 0 … 1 之间的权重：它们的 A 总是按自身有正负的范围着色。",
};
