//! The words of "why a head attends": the "Why here?" panel (a score taken apart into what wrote
//! it), the heads knocked out, and "Who wrote this prediction?".

/// The texts of the circuit views, in one language.
pub struct CircuitsTexts {
    pub why_title: &'static str,
    /// What the panel does, in one paragraph.
    pub why_help: &'static str,
    /// How to open it, shown under the weights while none is open.
    pub why_hint: &'static str,
    pub close: &'static str,
    /// (query, its token, key, its token)
    pub cell: fn(usize, &str, usize, &str) -> String,
    /// (score, the terms' sum, the weight)
    pub total: fn(&str, &str, &str) -> String,
    pub masked: &'static str,
    /// ALiBi's term, the soft-cap's effect.
    pub alibi: fn(&str) -> String,
    /// (its effect, the terms' sum before the cap, the score after it)
    pub softcap: fn(&str, &str, &str) -> String,
    /// One of the largest terms: (query-side writer, query position, key-side writer, key
    /// position, its value, the score).
    pub term: fn(&str, usize, &str, usize, &str, &str) -> String,
    pub top_title: &'static str,
    /// The terms heatmap's name: rows are what the query read, columns what the key read.
    pub matrix_label: &'static str,
    pub row_title: &'static str,
    /// Over the whole row, weighted by attention: (the writers with their shares).
    pub row_summary: fn(&str) -> String,
    pub row_columns: [&'static str; 5],
    /// A component's name as the page says it.
    pub token: &'static str,
    pub position: &'static str,
    pub x: &'static str,
    pub bias: &'static str,
    pub mlp: fn(usize) -> String,
    pub attn_bias: fn(usize) -> String,
    pub head: fn(usize, usize) -> String,
    /// Short names for the terms heatmap's labels: token, position, constants, an MLP, an
    /// output bias.
    pub short: [&'static str; 3],
    pub short_mlp: fn(usize) -> String,
    pub short_attn_bias: fn(usize) -> String,
    /// The knock-out switch on each head (a toggle: `aria-pressed` says whether it is on).
    pub knock_out: &'static str,
    /// (layer, head): the switch's accessible name, its visible text first.
    pub knock_label: fn(usize, usize) -> String,
    pub mean_ablation: &'static str,
    pub mean_help: &'static str,
    pub restore_all: &'static str,
    /// (heads off, next characters before → after, mean loss before, after)
    pub changed: fn(&str, &str, &str, &str) -> String,
    pub no_change: &'static str,
    /// Random weights with (heads) knocked out.
    pub random_knocked: fn(&str) -> String,
    pub who_title: &'static str,
    /// (the character, its logit)
    pub who_help: fn(&str, &str) -> String,
    /// (writer, its part)
    pub who_bar: fn(&str, &str) -> String,
    /// The circuit view: its heading and what it draws.
    pub graph_title: &'static str,
    pub graph_help: &'static str,
    /// The three kinds of composition, as the legend's switches name them.
    pub kinds: [&'static str; 3],
    pub only_chosen: &'static str,
    /// (kind's letter, earlier head, later head, score, times the baseline)
    pub strongest: fn(&str, &str, &str, &str, &str) -> String,
    /// (the random baseline)
    pub baseline_line: fn(&str) -> String,
    /// Said when the switches leave no arrow to draw.
    pub no_arrows: &'static str,
    /// Said instead of the drawing for a model whose heads are too many to compare at once:
    /// (heads, pairs of heads with digits grouped, multiply-adds).
    pub too_costly: fn(usize, &str, u64) -> String,
    /// The same for a folder's model, which its worker computes (the page keeps responding).
    pub too_costly_worker: fn(usize, &str, u64) -> String,
    /// While the worker computes it: (steps done, all; a step is a head's factors or a pair).
    pub composing: fn(usize, usize) -> String,
    /// The button that computes it all the same.
    pub compute_anyway: &'static str,
    /// A node's accessible name, its visible text first: (layer, head, its role's short name
    /// or "", its role in a sentence with its share).
    pub node_label: fn(usize, usize, &str, &str) -> String,
    pub graph_label: &'static str,
    pub table_title: &'static str,
    pub table_columns: [&'static str; 5],
    /// (the random baseline)
    pub table_caption: fn(&str) -> String,
    /// The chosen head's composition on the sentence: (head)
    pub chosen_title: fn(&str) -> String,
    pub chosen_help: &'static str,
    pub query_side: &'static str,
    pub key_side: &'static str,
    /// (head) for a first-layer head: nothing but the embeddings wrote what it reads.
    pub first_layer: fn(&str) -> String,
    pub chosen_summary: fn(&Chosen) -> String,
}

/// What the chosen head's summary says.
pub struct Chosen<'a> {
    pub head: &'a str,
    /// The writer of any kind that wrote most of what its keys read, and its share.
    pub key_top: &'a str,
    pub key_top_share: &'a str,
    /// The earlier head that wrote most of what its keys read, and its share.
    pub key_head: &'a str,
    pub key_share: &'a str,
    pub query_head: &'a str,
    pub query_share: &'a str,
    /// `key_head` → `head` K-composition from the weights, and the random baseline.
    pub k: &'a str,
    pub baseline: &'a str,
}

pub const EN: CircuitsTexts = CircuitsTexts {
    why_title: "Why here?",
    why_help: "A score is q·k/(√d_k·T), and q and k are both read from the residual stream, which is a sum: the token embedding, the positions, and whatever each earlier head and MLP wrote into it. With the norm's scale frozen at its actual value, every part is linear, so the score splits exactly into one term per pair: what the query read from one writer, times what the key read from another.",
    why_hint: "Click a weight (or move to it with the arrow keys) to see why the head attends there.",
    close: "Close",
    cell: |i, q, j, k| format!("Query {i} “{q}” → key {j} “{k}”"),
    total: |score, sum, weight| {
        format!("Score {score}, the sum of the terms below ({sum}); weight {weight}.")
    },
    masked: "The mask hides this key, so its weight is 0; the score is still taken apart.",
    alibi: |v| format!("ALiBi's distance penalty adds {v}."),
    softcap: |v, before, after| {
        format!(
            "The soft-cap changes the sum by {v}: the terms add up to {before}, the cap makes it {after}."
        )
    },
    term: |q, i, k, j, v, total| {
        format!(
            "The query reads what {q} wrote at position {i}, the key what {k} wrote at position {j}: {v} of {total}."
        )
    },
    top_title: "The largest terms",
    matrix_label: "Terms of the score: rows are what the query read, columns what the key read",
    row_title: "The whole row",
    row_summary: |shares| {
        format!(
            "Over this query's row, weighted by attention, the keys' side of the scores came from: {shares}."
        )
    },
    row_columns: ["Key", "Token", "Score", "Weight", "Largest term"],
    token: "the token embedding",
    position: "the position embedding",
    x: "X",
    bias: "the constants (β and biases)",
    mlp: |l| format!("L{l}'s MLP"),
    attn_bias: |l| format!("L{l}'s output bias"),
    head: |l, h| format!("L{l}·H{h}"),
    short: ["token", "position", "const."],
    short_mlp: |l| format!("L{l} MLP"),
    short_attn_bias: |l| format!("L{l} bias"),
    knock_out: "Knock out",
    knock_label: |l, h| format!("Knock out layer {l} head {h}"),
    mean_ablation: "Replace by its mean instead of zero",
    mean_help: "Zero removes everything the head writes. Its mean over this sentence (later tokens included) keeps what it adds on average, and removes what changes from one position to the next.",
    restore_all: "Switch all heads back on",
    changed: |heads, next, before, after| {
        format!(
            "With {heads} off: the next token {next}; mean loss on the sentence {before} → {after} nats."
        )
    },
    no_change: "All heads are on.",
    random_knocked: |heads| {
        format!(
            "{heads} knocked out: the concatenation, W_O and the output below are computed without them."
        )
    },
    who_title: "Who wrote this prediction?",
    who_help: |c, logit| {
        format!(
            "The logit of “{c}” ({logit}), taken apart: what each writer of the residual stream adds to it directly, through the final norm (its scale frozen) and the unembedding."
        )
    },
    who_bar: |writer, v| format!("{writer}: {v}"),
    graph_title: "How the heads compose",
    graph_help: "Each column is a layer and each circle a head. An arrow runs from an earlier head to a later one when the later head reads what the earlier one writes into the residual stream more strongly than random weights would: with its queries (Q), its keys (K) or its values (V). The thicker the arrow, the stronger the composition, measured from the weights alone (Elhage et al., 2021). Choose a head to see where its scores on this sentence came from.",
    kinds: [
        "Q: its queries read it",
        "K: its keys read it",
        "V: its values read it",
    ],
    only_chosen: "Only the chosen head's arrows",
    strongest: |kind, from, to, score, times| {
        format!("Strongest {kind}-composition: {from} → {to}, {score} ({times}× random).")
    },
    baseline_line: |b| {
        format!(
            "Random matrices of these shapes score {b} on average; only pairs above that are drawn."
        )
    },
    no_arrows: "No arrow to draw: switch a kind of composition back on.",
    too_costly: |heads, pairs, madds| {
        let billions = (madds as f64 / 1e9).round();
        format!(
            "This model has {heads} heads: comparing every earlier head with every later one is {pairs} pairs, about {billions} billion multiply-adds. The page would stop responding while it works, so it waits for you to ask."
        )
    },
    too_costly_worker: |heads, pairs, madds| {
        let billions = (madds as f64 / 1e9).round();
        format!(
            "This model has {heads} heads: comparing every earlier head with every later one is {pairs} pairs, about {billions} billion multiply-adds. The model's worker computes them while the page keeps responding; it waits for you to ask, since it takes a while."
        )
    },
    composing: |done, all| {
        format!(
            "The model's worker is working out how the heads compose: {done} of {all} steps (each head's matrices, then each pair of heads)…"
        )
    },
    compute_anyway: "Compute how the heads compose",
    node_label: |l, h, role, label| {
        if role.is_empty() {
            format!("L{l}·H{h}: layer {l}, head {h}; {label}")
        } else {
            format!("L{l}·H{h} {role}: layer {l}, head {h}; {label}")
        }
    },
    graph_label: "The heads as a circuit",
    table_title: "The composition scores as a table",
    table_columns: ["Earlier head", "Later head", "Q", "K", "V"],
    table_caption: |b| {
        format!(
            "Q-, K- and V-composition of every earlier head into every later head, strongest first; in bold, the scores above random ({b})."
        )
    },
    chosen_title: |head| format!("{head} on this sentence"),
    chosen_help: "Each writer's share of this head's scores on the sentence, on the query's side and on the key's, each score weighted by the attention it got: the terms of “Why here?”, summed over every query and key.",
    query_side: "What its queries read",
    key_side: "What its keys read",
    first_layer: |head| {
        format!(
            "{head} is in the first layer: only the embeddings and the constants wrote what it reads, so no head composes into it."
        )
    },
    chosen_summary: |c| {
        format!(
            "On this sentence, what {}'s keys read came most from {} ({}); of the earlier heads, from {} ({}). Of the heads, {} wrote the most of what its queries read ({}). From the weights alone, {} → {} K-composition is {} (random: {}).",
            c.head,
            c.key_top,
            c.key_top_share,
            c.key_head,
            c.key_share,
            c.query_head,
            c.query_share,
            c.key_head,
            c.head,
            c.k,
            c.baseline
        )
    },
};

pub const ZH: CircuitsTexts = CircuitsTexts {
    why_title: "为什么看这里？",
    why_help: "分数是 q·k/(√d_k·T)，而 q 和 k 都读自残差流；残差流是一个和：词嵌入、位置，以及前面每个头、每个 MLP 写进去的东西。把归一化的缩放固定在它实际的值上，每一部分都是线性的，于是分数可以精确地拆成许多项，每一项对应一对写入者：查询从其中一个读到的，乘以键从另一个读到的。",
    why_hint: "点一个权重（或用方向键移到它上面），看这个头为什么看那里。",
    close: "关闭",
    cell: |i, q, j, k| format!("查询 {i}「{q}」→ 键 {j}「{k}」"),
    total: |score, sum, weight| format!("分数 {score}，等于下面各项之和（{sum}）；权重 {weight}。"),
    masked: "掩码挡住了这个键，所以它的权重是 0；分数照样拆开。",
    alibi: |v| format!("ALiBi 的距离惩罚加上 {v}。"),
    softcap: |v, before, after| {
        format!("软上限让总和变化了 {v}：各项加起来是 {before}，上限把它变成 {after}。")
    },
    term: |q, i, k, j, v, total| {
        format!("查询读到 {q} 在位置 {i} 写下的，键读到 {k} 在位置 {j} 写下的：{total} 里的 {v}。")
    },
    top_title: "最大的几项",
    matrix_label: "分数的各项：行是查询读到的写入者，列是键读到的写入者",
    row_title: "整行",
    row_summary: |shares| format!("按注意力加权，这个查询整行分数在键一侧的来源：{shares}。"),
    row_columns: ["键", "词元", "分数", "权重", "最大的一项"],
    token: "词嵌入",
    position: "位置嵌入",
    x: "X",
    bias: "常数项（β 与偏置）",
    mlp: |l| format!("第 {l} 层的 MLP"),
    attn_bias: |l| format!("第 {l} 层的输出偏置"),
    head: |l, h| format!("L{l}·H{h}"),
    short: ["词嵌入", "位置", "常数"],
    short_mlp: |l| format!("L{l} MLP"),
    short_attn_bias: |l| format!("L{l} 偏置"),
    knock_out: "关掉",
    knock_label: |l, h| format!("关掉第 {l} 层第 {h} 个头"),
    mean_ablation: "用它的平均输出代替，而不是 0",
    mean_help: "置零会去掉这个头写下的一切。换成它在这句话上的平均输出（后面的词元也算在内），则保留它平均加上的东西，去掉随位置变化的部分。",
    restore_all: "把所有头重新打开",
    changed: |heads, next, before, after| {
        format!("关掉 {heads} 之后：下一个词元 {next}；整句的平均损失 {before} → {after} nats。")
    },
    no_change: "所有头都开着。",
    random_knocked: |heads| {
        format!("已关掉 {heads}：下面的拼接、W_O 和输出都是没有它们时算出来的。")
    },
    who_title: "这个预测是谁写的？",
    who_help: |c, logit| {
        format!(
            "「{c}」的 logit（{logit}）拆开来看：残差流的每个写入者经过最终归一化（缩放固定）和反嵌入，直接给它加了多少。"
        )
    },
    who_bar: |writer, v| format!("{writer}：{v}"),
    graph_title: "头与头怎样组合",
    graph_help: "每一列是一层，每个圆是一个头。如果后面的头读取前面某个头写进残差流的东西，比随机权重读得更强，就画一支从前者指向后者的箭头：用它的查询读（Q）、用键读（K）或用值读（V）。箭头越粗，组合越强；这是只从权重算出来的（Elhage 等，2021）。选一个头，看它在这句话上的分数来自哪里。",
    kinds: ["Q：查询读它", "K：键读它", "V：值读它"],
    only_chosen: "只看选中的头的箭头",
    strongest: |kind, from, to, score, times| {
        format!("最强的 {kind} 组合：{from} → {to}，{score}（随机的 {times} 倍）。")
    },
    baseline_line: |b| format!("同样形状的随机矩阵平均得 {b}；只画高于它的头对。"),
    no_arrows: "没有箭头可画：请重新打开一种组合。",
    too_costly: |heads, pairs, madds| {
        let yi = (madds as f64 / 1e8).round();
        format!(
            "这个模型有 {heads} 个头：把每个较早的头和每个较晚的头两两比较，共 {pairs} 对，约 {yi} 亿次乘加。计算期间页面会停止响应，所以等你要求时才算。"
        )
    },
    too_costly_worker: |heads, pairs, madds| {
        let yi = (madds as f64 / 1e8).round();
        format!(
            "这个模型有 {heads} 个头：把每个较早的头和每个较晚的头两两比较，共 {pairs} 对，约 {yi} 亿次乘加。模型的后台线程会去算，页面照常响应；因为要算一阵子，所以等你要求时才算。"
        )
    },
    composing: |done, all| {
        format!(
            "模型的后台线程正在计算各个头如何组合：已完成 {done} / {all} 步（先是每个头的矩阵，再把每个头和后面的头逐一比较）……"
        )
    },
    compute_anyway: "计算各个头如何组合",
    node_label: |l, h, role, label| {
        if role.is_empty() {
            format!("L{l}·H{h}：第 {l} 层第 {h} 个头；{label}")
        } else {
            format!("L{l}·H{h} {role}：第 {l} 层第 {h} 个头；{label}")
        }
    },
    graph_label: "把头画成回路",
    table_title: "组合分数表",
    table_columns: ["前面的头", "后面的头", "Q", "K", "V"],
    table_caption: |b| {
        format!(
            "每个前面的头组合进每个后面的头的 Q、K、V 分数，最强的在前；粗体是高于随机（{b}）的分数。"
        )
    },
    chosen_title: |head| format!("{head} 在这句话上"),
    chosen_help: "这个头在这句话上的分数里，每个写入者在查询一侧和键一侧各占多少；每个分数按它得到的注意力加权。也就是“为什么看这里？”里的各项，对所有查询和键求和。",
    query_side: "它的查询读到的",
    key_side: "它的键读到的",
    first_layer: |head| {
        format!("{head} 在第一层：它读到的只由嵌入和常数写成，没有别的头组合进来。")
    },
    chosen_summary: |c| {
        format!(
            "在这句话上，{} 的键读到的东西大多来自 {}（{}）；前面的头里，来自 {}（{}）。它的查询读到的，头里面 {} 写得最多（{}）。只看权重，{} → {} 的 K 组合是 {}（随机：{}）。",
            c.head,
            c.key_top,
            c.key_top_share,
            c.key_head,
            c.key_share,
            c.query_head,
            c.query_share,
            c.key_head,
            c.head,
            c.k,
            c.baseline
        )
    },
};
