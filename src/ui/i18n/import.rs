//! The words of "Open your own attention": the opener, the views of a user's file, and every
//! reason a file is refused, in both languages.

use attention_core::io::import::{ImportError, ImportNotice};

use super::Lang;

pub struct ImportTexts {
    pub open_title: &'static str,
    pub open_help: &'static str,
    pub choose_file: &'static str,
    pub drop_hint: &'static str,
    pub drop_overlay: &'static str,
    pub tokens_label: &'static str,
    pub tokens_help: &'static str,
    pub paste_label: &'static str,
    pub paste_button: &'static str,
    /// The name a file gets when it has none: pasted, or from `attentionLab.load`.
    pub pasted_name: &'static str,
    pub api_name: &'static str,
    /// (file name): reading it.
    pub reading: fn(&str) -> String,
    /// (file name, why): it was refused, and nothing changed.
    pub refused: fn(&str, &str) -> String,
    /// (file name, layers, heads, queries, keys, what it holds).
    pub summary: fn(&str, usize, usize, usize, usize, &str) -> String,
    /// What a file holds: weights, or Q and K (with V) of width d.
    pub holds_weights: &'static str,
    pub holds_vectors: fn(usize, bool) -> String,
    pub back: &'static str,
    pub weights_note: &'static str,
    pub vectors_note: &'static str,
    /// Q and K turned by RoPE here: (base, pairing in words).
    pub rope_note: fn(&str, &str) -> String,
    /// The two pairings in words: half, interleaved.
    pub pairings: [&'static str; 2],
    pub link_note: &'static str,
    /// The link note when the file was fetched from an address, which links carry.
    pub link_note_src: &'static str,
    pub section: &'static str,
    pub glance_title: &'static str,
    pub glance_help: &'static str,
    pub head_title: fn(usize, usize) -> String,
    /// Titles of Q, K, V, the scores, the weights and the outputs.
    pub parts: [&'static str; 6],
    pub scores_caption: &'static str,
    /// (query, key, weight): the cell under the pointer.
    pub cell: fn(&str, &str, &str) -> String,
    pub cell_hint: &'static str,
    pub layer: &'static str,
    pub head: &'static str,
    pub roles_title: &'static str,
    pub entropy: &'static str,
    /// (largest difference): FlashAttention's outputs equal the standard ones.
    pub flash_equal: fn(&str) -> String,
    pub head_view_title: &'static str,
    pub not_shown: &'static str,
    /// A file whose format neither its name nor its first bytes tell.
    pub unknown_format: &'static str,
    /// (the browser's words): it could not read the file.
    pub unreadable: fn(&str) -> String,
}

impl Lang {
    pub fn import(self) -> &'static ImportTexts {
        match self {
            Lang::En => &EN,
            Lang::Zh => &ZH,
        }
    }

    /// Why a file was refused, in this language (the file's own names and numbers kept).
    pub fn import_error(self, error: &ImportError) -> String {
        match self {
            Lang::En => error.to_string(),
            Lang::Zh => zh_error(error),
        }
    }

    pub fn import_notice(self, notice: &ImportNotice) -> String {
        match (self, notice) {
            (Lang::En, _) => notice.to_string(),
            (
                Lang::Zh,
                ImportNotice::RowsDoNotSumToOne {
                    rows,
                    layer,
                    head,
                    row,
                    sum,
                },
            ) => format!(
                "有 {rows} 行注意力权重之和不是 1（第 {layer} 层、第 {head} 个头的第 {row} 行之和为 {sum:.4}）。按原样显示：带 sink logit 的头就会给出这样的行。"
            ),
            (Lang::Zh, ImportNotice::NumberedTokens { count }) => {
                format!("文件没有附带词元：它的 {count} 个位置按 0、1、2……编号。")
            }
            (Lang::Zh, ImportNotice::Example { examples, shown }) => format!(
                "张量带有一批 {examples} 个样本：这里显示第 {shown} 个（用 batch= 选别的，从 0 到 {}）。",
                examples - 1
            ),
            (Lang::Zh, ImportNotice::ReadAsLayers { layers }) => format!(
                "四维张量按 [layers, heads, queries, keys] 读取：共 {layers} 层。如果它的第一维其实是一批样本（[batch, heads, queries, keys]，例如 outputs.attentions 的某一层），请给出 batch=（0 到 {}）来读取其中一个样本的这一层。",
                layers - 1
            ),
            (
                Lang::Zh,
                ImportNotice::SpecialHidden {
                    queries,
                    keys,
                    tokens,
                },
            ) => format!(
                "已隐藏特殊词元（{}）：去掉了 {queries} 个查询和 {keys} 个键，每行权重再除以剩下部分的和，使它重新等于 1。",
                tokens.join(" ")
            ),
            (Lang::Zh, ImportNotice::GroupedHeads { q_heads, kv_heads }) => format!(
                "k 有 {kv_heads} 个头，q 有 {q_heads} 个：每个键/值头依次供 {} 个查询头使用（分组查询注意力，和 transformers 的 repeat_kv 一样）。",
                q_heads / kv_heads
            ),
        }
    }
}

fn zh_error(error: &ImportError) -> String {
    match error {
        ImportError::Format { format, detail } => format!("这不是 {format} 文件：{detail}"),
        ImportError::Truncated { detail } => format!("文件提前结束（可能被截断）：{detail}"),
        ImportError::Header { tensor, detail } => format!("{tensor}：文件头有误：{detail}"),
        ImportError::Dtype {
            tensor,
            dtype,
            supported,
        } => format!("{tensor}：不支持 {dtype} 类型（请用 {supported}）"),
        ImportError::Nothing { found } => {
            format!("文件里既没有 \"attention\"，也没有 \"q\" 和 \"k\"（找到的是：{found}）")
        }
        ImportError::Both => {
            "文件里同时有 \"attention\" 和 \"q\"/\"k\"：请只给其中一种".to_string()
        }
        ImportError::Missing { tensor, missing } => format!("给了 {tensor}，却没有 {missing}"),
        ImportError::Rank {
            tensor,
            rank,
            shape,
            rows,
            columns,
        } => format!(
            "{tensor} 有 {rank} 个维度 {shape:?}；应为 2 到 5 维：[layers, batch, heads, {rows}, {columns}]（outputs.attentions 用 np.stack 叠起来）、[layers, heads, {rows}, {columns}]、[heads, {rows}, {columns}] 或 [{rows}, {columns}]"
        ),
        ImportError::Disagree {
            tensor,
            shape,
            other,
            other_shape,
            what,
        } => format!("{tensor} {shape:?} 与 {other} {other_shape:?} 对不上：{what}"),
        ImportError::Tokens {
            tensor,
            count,
            what,
        } => format!("{tensor} 有 {count} 项，而 {what}"),
        ImportError::Empty { tensor, shape } => format!("{tensor} 有一个长度为 0 的维度 {shape:?}"),
        ImportError::NotFinite {
            tensor,
            index,
            value,
        } => format!("{tensor}[{index}] 是 {value}：每个数都必须是有限值"),
        ImportError::TooManyTokens { tensor, count, max } => {
            format!("{tensor}：{count} 个词元；实验室最多处理 {max} 个")
        }
        ImportError::Batch {
            tensor,
            shape,
            batch,
            examples,
        } => format!(
            "{tensor} {shape:?}：要第 {batch} 个样本，但它只有 {examples} 个（0 到 {}）",
            examples - 1
        ),
        ImportError::NoBatch {
            tensor,
            shape,
            batch,
        } => format!(
            "{tensor} {shape:?} 没有 batch 维（批量的形状是 [batch, heads, rows, columns] 或 [layers, batch, heads, rows, columns]）：无法读取第 {batch} 个样本"
        ),
        ImportError::OverBudget { numbers, budget } => format!(
            "共 {numbers} 个数（层 × 头 × 单元格），超过本页的上限 {budget}；请减少层数或头数，或换一段更短的文本"
        ),
    }
}

pub static EN: ImportTexts = ImportTexts {
    open_title: "Open your own attention",
    open_help: "Bring a model's attention weights with their tokens, or each head's Q and K (and V), and the lab shows them here: from JSON, NumPy's .npz or .npy, or safetensors. Shapes [layers, heads, queries, keys], [heads, …] or [queries, keys]. Nothing leaves this page.",
    choose_file: "Choose a file…",
    drop_hint: "…or drop one anywhere on the page.",
    drop_overlay: "Drop the file to open your attention",
    tokens_label: "Tokens (for a .npy, or to replace the file's)",
    tokens_help: "Separated by spaces, or a JSON list.",
    paste_label: "Or paste JSON",
    paste_button: "Open pasted JSON",
    pasted_name: "pasted JSON",
    api_name: "attentionLab.load",
    reading: |name| format!("Reading {name}…"),
    refused: |name, why| {
        format!("{name} could not be opened: {why}. The page still shows what it showed before.")
    },
    summary: |name, layers, heads, queries, keys, holds| {
        let keys = if keys == queries {
            String::new()
        } else {
            format!(" × {keys} keys")
        };
        let plural = |n: usize, one: &str, many: &str| {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        };
        format!(
            "{name}: {} × {}, {}{keys}; {holds}.",
            plural(layers, "layer", "layers"),
            plural(heads, "head", "heads"),
            plural(queries, "token", "tokens")
        )
    },
    holds_weights: "attention weights, shown as the file has them",
    holds_vectors: |d, with_v| {
        if with_v {
            format!("Q, K and V of width {d}, from which the lab computes the rest")
        } else {
            format!("Q and K of width {d}, from which the lab computes the weights")
        }
    },
    back: "Back to the lab's own numbers",
    weights_note: "These weights were computed by your model: the mask, the temperature and the other controls do not change them.",
    vectors_note: "The lab computes these weights from your Q and K: the mask, the temperature and FlashAttention's tiles in the controls apply to them. The other controls change only the lab's own numbers.",
    rope_note: |base, pairing| {
        format!(
            "Positions are set to RoPE, so your Q and K are read as before RoPE and turned here (base {base}, {pairing}): query i and key j by their positions. If they were saved after RoPE, choose absolute or no positions."
        )
    },
    pairings: [
        "dimension p with p + d/2, as Hugging Face's Llama",
        "dimension 2p with 2p + 1, as GPT-J",
    ],
    link_note: "A link carries settings, never a file: a shared link opens the lab's own numbers. To share these, download the trace.",
    link_note_src: "This file came from an address, and links carry the address (src=), not the numbers: a shared link opens the file again wherever that address can be fetched.",
    section: "Your attention",
    glance_title: "Every layer and head at a glance",
    glance_help: "Each small map is one head's weights. Choose one to see it below.",
    head_title: |layer, head| format!("Layer {layer} · head {head}"),
    parts: [
        "Q",
        "K",
        "V",
        "Scores q·k / (√d · T)",
        "Weights",
        "Output (weights · V)",
    ],
    scores_caption: "Before the mask. Masked cells get −∞ in the softmax and weight 0.",
    cell: |query, key, weight| format!("“{query}” → “{key}”: {weight}"),
    cell_hint: "Point at a cell to read it.",
    layer: "Layer",
    head: "Head",
    roles_title: "What each head does on these tokens",
    entropy: "entropy (bits)",
    flash_equal: |diff| {
        format!(
            "FlashAttention, tile by tile with the online softmax, gives the same outputs: the largest difference is {diff}."
        )
    },
    head_view_title: "Head view",
    not_shown: "Your file could not be shown under these settings:",
    unknown_format: "neither its name nor its first bytes say whether it is JSON, .npz, .npy or safetensors",
    unreadable: |why| format!("the browser could not read it ({why})"),
};

pub static ZH: ImportTexts = ImportTexts {
    open_title: "打开你自己的注意力",
    open_help: "带来一个模型的注意力权重及其词元，或每个头的 Q 和 K（以及 V），实验室就在这里显示：支持 JSON、NumPy 的 .npz 或 .npy，以及 safetensors。形状可以是 [层, 头, 查询, 键]、[头, …] 或 [查询, 键]。数据不会离开本页。",
    choose_file: "选择文件…",
    drop_hint: "……或把文件拖到页面上任意位置。",
    drop_overlay: "松开即可打开你的注意力文件",
    tokens_label: "词元（用于 .npy，或替换文件自带的词元）",
    tokens_help: "用空格分隔，或写成 JSON 列表。",
    paste_label: "或粘贴 JSON",
    paste_button: "打开粘贴的 JSON",
    pasted_name: "粘贴的 JSON",
    api_name: "attentionLab.load",
    reading: |name| format!("正在读取 {name}……"),
    refused: |name, why| format!("无法打开 {name}：{why}。页面仍显示原来的内容。"),
    summary: |name, layers, heads, queries, keys, holds| {
        let keys = if keys == queries {
            String::new()
        } else {
            format!(" × {keys} 个键")
        };
        format!("{name}：{layers} 层 × {heads} 个头，{queries} 个词元{keys}；{holds}。")
    },
    holds_weights: "注意力权重，按文件原样显示",
    holds_vectors: |d, with_v| {
        if with_v {
            format!("宽度为 {d} 的 Q、K 和 V，其余由实验室计算")
        } else {
            format!("宽度为 {d} 的 Q 和 K，权重由实验室计算")
        }
    },
    back: "回到实验室自己的数值",
    weights_note: "这些权重是你的模型算出来的：掩码、温度和其他控件都不会改变它们。",
    vectors_note: "这些权重由实验室根据你的 Q 和 K 计算：控件里的掩码、温度和 FlashAttention 分块都作用于它们。其他控件只改变实验室自己的数值。",
    rope_note: |base, pairing| {
        format!(
            "位置设为 RoPE，所以你的 Q 和 K 被当作 RoPE 之前的向量，在这里旋转（底数 {base}，{pairing}）：查询 i 和键 j 各按自己的位置转。如果它们是 RoPE 之后保存的，请选绝对位置或不加位置。"
        )
    },
    pairings: [
        "第 p 维与第 p + d/2 维配对，如 Hugging Face 的 Llama",
        "第 2p 维与第 2p + 1 维配对，如 GPT-J",
    ],
    link_note: "链接只携带设置，从不携带文件：别人打开分享的链接，看到的是实验室自己的数值。要分享这些数值，请下载 trace。",
    link_note_src: "这个文件来自一个网址。链接携带的是这个网址（src=），而不是数值本身：只要那个网址能被访问，分享的链接就会再次打开这个文件。",
    section: "你的注意力",
    glance_title: "一眼看遍每一层、每个头",
    glance_help: "每张小图是一个头的权重。点一个，在下面查看。",
    head_title: |layer, head| format!("第 {layer} 层 · 第 {head} 个头"),
    parts: [
        "Q",
        "K",
        "V",
        "分数 q·k / (√d · T)",
        "权重",
        "输出（权重 · V）",
    ],
    scores_caption: "这是掩码之前的分数。被掩码的格子在 softmax 中取 −∞，权重为 0。",
    cell: |query, key, weight| format!("“{query}” → “{key}”：{weight}"),
    cell_hint: "把指针移到格子上即可读数。",
    layer: "层",
    head: "头",
    roles_title: "每个头在这些词元上做什么",
    entropy: "熵（比特）",
    flash_equal: |diff| {
        format!("FlashAttention 逐块计算并使用在线 softmax，得到相同的输出：最大差值为 {diff}。")
    },
    head_view_title: "头视图",
    not_shown: "在当前设置下无法显示你的文件：",
    unknown_format: "从文件名和开头的字节都看不出它是 JSON、.npz、.npy 还是 safetensors",
    unreadable: |why| format!("浏览器无法读取它（{why}）"),
};
