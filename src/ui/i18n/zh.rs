//! 中文文本。

use attention_core::ConfigError;
use attention_core::pipeline::overview::Reduction;

use super::texts::{
    ErrorTexts, ExplainTexts, FallbackTexts, FlashText, GenerateTexts, HeadLinesTexts, KvTexts,
    LinkTexts, MaskTexts, ModelTexts, OverviewTexts, ScaleTexts, ShareTexts, StageText, StageTexts,
    StepTexts, StreamTexts, Text,
};

fn config_error(error: &ConfigError) -> String {
    match error {
        ConfigError::EmptyInput { field } => {
            format!("{field} 是空的：请至少输入一个词，注意力才有对象可看。")
        }
        ConfigError::EmptyToken { field, index } => format!("{field}：第 {index} 个词元是空的。"),
        ConfigError::TooManyTokens { field, count, max } => {
            format!("{field} 的词元太多（至少 {count} 个），本实验室最多处理 {max} 个。")
        }
        ConfigError::TooSmall { field, value, min } => {
            format!("{field} 至少为 {min}（当前为 {value}）。")
        }
        ConfigError::PassTooLarge {
            tokens,
            max,
            needed_mb,
            room_mb,
        } => format!(
            "这个模型对 {tokens} 个词元做一次前向计算、并记下每个头的权重，除了模型本身还需要约 {needed_mb} MB，而页面内存只剩 {room_mb} MB：页面里最多读 {max} 个词元（命令行可以读满模型的整个上下文）。"
        ),
        ConfigError::TooLarge { field, value, max } => {
            format!("{field} 最多为 {max}（当前为 {value}）。")
        }
        ConfigError::KvHeadsDoNotDivide {
            n_heads,
            n_kv_heads,
        } => format!(
            "K/V 头数必须整除查询头数：{n_heads} 个查询头无法平均分给 {n_kv_heads} 个 K/V 头。"
        ),
        ConfigError::BadTemperature { value } if value.is_nan() || *value <= 0.0 => {
            format!("温度必须大于 0（当前为 {value}）：分数要除以 T，T = 0 会导致除以零。")
        }
        ConfigError::BadTemperature { value } if *value < 1.0 => {
            format!("温度 {value} 太小：至少为 0.0001（到那里所有权重已经集中在最大的分数上）。")
        }
        ConfigError::BadTemperature { value } => {
            format!("温度 {value} 太大：最多为 10000（到那里所有权重已经相等）。")
        }
        ConfigError::ShapeMismatch {
            field,
            expected_rows,
            expected_cols,
            rows,
            cols,
        } => format!(
            "{field}：应为 {expected_rows} × {expected_cols} 的矩阵，实际为 {rows} × {cols}。"
        ),
        ConfigError::RaggedMatrix {
            field,
            first,
            row,
            len,
        } => format!("{field}：各行长度不一致（第 0 行 {first} 个，第 {row} 行 {len} 个）。"),
        ConfigError::ValueOutOfRange {
            field,
            row,
            col,
            value,
            limit,
        } => format!(
            "{field}：每个数都必须是有限值且绝对值不超过 {limit}（第 {row} 行第 {col} 列为 {value}）。"
        ),
        ConfigError::CausalNeedsSquare { queries, keys } => {
            format!("因果掩码要求查询与键一样多，但现在有 {queries} 个查询词元、{keys} 个键词元。")
        }
        ConfigError::ValidLenTooLong { valid_len, keys } => {
            format!("有效长度 {valid_len} 超过了键词元的个数 {keys}。")
        }
        ConfigError::TraceTooLarge { cells, max } => format!(
            "要逐步展示的注意力格子太多（头数 × 词元数 × 键数 = {cells}，上限 {max}）：请缩短句子或减少头数。"
        ),
        ConfigError::RopeNeedsEvenDk { d_k } => {
            format!("RoPE 把 q 和 k 的维度两两成对旋转，所以 d_k 必须是偶数；现在是 {d_k}。")
        }
        ConfigError::BadRopeBase { base } => format!("RoPE 的底数必须大于 1（现在是 {base}）。"),
        ConfigError::BadSoftcap { value } => format!("软上限必须大于 0（现在是 {value}）。"),
        ConfigError::NotWithLinear { field, .. } => {
            format!("{field}：这个设置不能和线性注意力一起使用。")
        }
        ConfigError::SinkLogitsLength { given, heads } => {
            format!("每个头一个汇聚 logit：共有 {heads} 个头，却给了 {given} 个。")
        }
        ConfigError::AblateLayer { value, max } => {
            format!("模型没有第 {value} 层：只有第 1 到 {max} 层。")
        }
        ConfigError::AblateHead { value, max } => {
            format!("这一层没有第 {value} 个头：只有第 1 到 {max} 个。")
        }
        ConfigError::AblateAll { count } => {
            format!("全部 {count} 个头都被关掉了，就没有注意力可看了。请至少留一个。")
        }
    }
}

pub static TEXT: Text = Text {
    title: "注意力实验室",
    tagline: "输入一句话，逐步观察注意力如何在你自己的词语上完成计算。",
    switch_language: "English",
    theme: "主题",
    theme_names: ["跟随系统", "浅色", "深色"],
    sentence_label: "句子",
    sentence_placeholder: "输入中文、英文或混合文本……",
    examples_label: "示例",
    tokens_label: "词元",
    cross_attention: "交叉注意力",
    cross_attention_help: "键和值来自第二个句子，就像解码器读取编码器的输出。",
    source_label: "源句子（提供键和值）",
    source_placeholder: "查询要去看的那个句子……",
    source_tokens_label: "源词元",
    model_section: "模型形状",
    d_model_help: "每个词元向量的宽度",
    heads: "头数",
    kv_heads: "K/V 头数",
    kv_kind: [
        "多头注意力（MHA）",
        "分组查询注意力（GQA）",
        "多查询注意力（MQA）",
    ],
    auto: "自动",
    d_k_help: "每个头的查询/键宽度（自动：d_model / 头数）",
    d_v_help: "每个头的值宽度（自动：等于 d_k）",
    softmax_section: "Softmax",
    temperature: "温度 T",
    temperature_help: "分数除以 √d_k · T：T 越小，注意力越集中到一个键上；T 越大，分布越平均。",
    mask_section: "掩码",
    masks: MaskTexts {
        sliding: (
            "滑动",
            "因果，且只看回溯半径以内的最近若干个键（Mistral、gpt-oss），再加上作为注意力汇聚点保留的最前面几个键（StreamingLLM）。",
        ),
        why_sliding: |i, j, radius, sinks| {
            if j > i {
                format!("滑动掩码：键 {j} 在查询 {i} 之后")
            } else {
                format!(
                    "滑动掩码：键 {j} 离查询 {i} 超过 {radius} 步，且不在最前面的 {sinks} 个汇聚词元之中"
                )
            }
        },
        sink_tokens: "汇聚词元",
        sink_tokens_help: "每个查询始终能看到的最前面几个键，无论多远",
        none: ("无", "每个查询都可以看所有的键。"),
        causal: (
            "因果",
            "查询只能看自己和它之前的键，就像从左到右逐字生成文本。",
        ),
        padding: ("填充", "有效长度之后的键是填充，任何查询都不能看。"),
        window: ("窗口", "查询只看自己位置前后、半径以内的键（两侧都看）。"),
        custom: ("自定义", "由你逐格决定哪些位置可以看。"),
        why_causal: |i, j| format!("因果掩码：键 {j} 位于查询 {i} 之后"),
        why_padding: |j, valid_len| format!("填充掩码：键 {j} 不在有效长度 {valid_len} 之内"),
        why_window: |i, j, radius| format!("窗口掩码：|{i} − {j}| 超过半径 {radius}"),
        why_custom: "自定义掩码：这个格子被关闭了",
    },
    valid_len: "有效长度",
    radius: "半径",
    mask_editor_help: "点击或拖过格子来打开或关闭它们，也可以用方向键移动，再按空格或回车。行是查询，列是键。",
    mask_toggled: |query, key, allowed| {
        if allowed {
            format!("查询 {query} 现在可以看键 {key}。")
        } else {
            format!("查询 {query} 不能再看键 {key}。")
        }
    },
    mask_all: "全部允许",
    mask_causal_preset: "从因果掩码开始",
    weights_section: "权重",
    random_weights_note: "这些权重是随机抽取的（Xavier 初始化，由随机种子决定），并非学习所得：这里权重中的任何模式都来自这次随机抽取，换一个种子就会变。训练过的模型，其注意力头会学到模式，例如关注前一个词元。",
    own_weights_note: "这些是你自己的权重，通过 attentionLab.set() 给出（W_Q、W_K、W_V 和 W_O）：这里随机种子不抽取任何东西，图中的任何模式都来自这些权重。",
    own_weights_reset: "改用随机抽取的权重",
    own_x_formula: "X，按给定的值",
    no_positions: [
        "不加位置向量：位置设为“无”时，注意力完全看不到顺序。",
        "不加位置向量：RoPE 改为按位置旋转每个头的 q 和 k，于是它们的点积只取决于 i − j。",
        "不加位置向量：ALiBi 改为在每个头的分数上加 −m·|i − j|。",
    ],
    x_without_positions: "注意力读取的内容：每个词元一行，只有含义；位置稍后在分数里才进入，或者根本不进入。",
    weights_with_sink: "每一行是对可见键和该头汇聚 logit 一起做的 softmax；汇聚项的份额被丢弃，所以每行之和小于 1，一个头可以几乎什么都不关注。",
    uneven_heads: |width, d_model, heads, uneven| {
        let why = match uneven {
            Some(each) => format!(
                "d_model = {d_model} 不能被 {heads} 个头整除，所以每个头宽 ⌊{d_model} / {heads}⌋ = {each}："
            ),
            None => String::new(),
        };
        format!(
            "{why}各头并排后每个词元有 {width} 个数，而不是 {d_model}；W_O（{width} × {d_model}）把它们映射回 d_model。"
        )
    },
    own_x_caption: "你自己的向量，通过 attentionLab.set() 给出，原样使用：不加词向量，也不加位置。每个词元一行。",
    seed: "随机种子",
    reroll: "重新生成",
    layer_section: "残差 + 层归一化",
    layer_norm_names: ["关闭", "Pre-LN", "Post-LN"],
    layer_norm_help: "Pre-LN：x + MHA(LN(x))。Post-LN：LN(x + MHA(x))。ε = 10⁻⁶。",
    flash_section: "FlashAttention 分块",
    block_rows: "行（查询）",
    block_cols: "列（键）",
    block_help: "分块计算的块大小（自动：每边大约四块）；计算结果与它无关。",
    kv_adjusted: |n| format!("K/V 头数已改为 {n}：头数必须是它的整数倍。"),
    kv: KvTexts {
        share: "让多组头共享 K/V",
        help: "分组查询注意力（GQA）与多查询注意力（MQA）让多个查询头读取同一组键和值：参数更少，生成时的 KV 缓存更小，代价是略微降低质量。",
        needs_two_heads: "至少需要两个头",
        groups: |per_group, kv_heads| {
            format!("每 {per_group} 个查询头共享一个 K/V 头，共 {kv_heads} 个 K/V 头。")
        },
        reads: |group, groups| format!("读取第 {group} 个 K/V 头（共 {groups} 个）"),
        reads_help: "共享 K/V（分组查询或多查询注意力）时，多个查询头读取同一组键和值：这是所选的头读取的 K/V 头，K 和 V 两个阶段显示的就是它。",
    },
    overview: OverviewTexts {
        block_note: |reduction, rows, cols| match reduction {
            Reduction::Max => format!("每个像素：{rows} × {cols} 个格子中的最大值"),
            Reduction::Mean => format!("每个像素：{rows} × {cols} 个格子的平均值"),
        },
        caption: |n, m, rows, cols| {
            format!(
                "一次看全部 {n} × {m} 个格子，按 {rows} × {cols} 分块。点击某一块（或用方向键移动），下方显示其中每个格子。"
            )
        },
        reduction: "分块显示",
        reductions: ["最大值", "平均值"],
        zoom_title: |a, b, c, d| format!("放大：查询 {a}–{b} × 键 {c}–{d}，逐格显示"),
        zoom_hint: "与完整计算的数值相同：每个权重都由它的查询、键以及该行 softmax 的最大值和总和重新算出。",
        moves: [
            "放大区域上移",
            "放大区域下移",
            "放大区域左移",
            "放大区域右移",
        ],
        block_position: |a, b, c, d| format!("查询 {a}–{b} × 键 {c}–{d}"),
        block_values: |max, mean, cells| format!("{cells} 个格子中最大 {max} · 平均 {mean}"),
        block_zoom: "点击或按 Enter 放大这一块。",
        head_view: |n, most| {
            format!("连线视图最多画 {most} 个词元（此处 {n} 个）：请在上方的权重中放大查看。")
        },
        lesson: |n, most| {
            format!(
                "本章实验要读取每个权重：最多 {most} 个词元（此处 {n} 个）。请缩短句子后再运行。"
            )
        },
    },
    scales: ScaleTexts {
        fixed: "固定刻度 0 … 1，所有权重图相同",
        shared_scores: "QKᵀ、缩放后与加掩码后的分数共用一个刻度",
        own_range: "按本矩阵自身的范围",
        whole_head: "按整个头的范围：这个分块是其中的一部分",
        shared_turns: "旋转前后的 q、k 共用一个刻度：长度可以比较",
        shared_pair: "softmax 权重和 A 共用一个有正负的刻度：可以直接比较",
        shared_states: "每个词元之后的状态共用一个刻度：看得出它的增长和衰减",
        radians: "弧度，从 −π 到 π",
        contrast: "对比度：按本矩阵拉伸",
        title: "颜色刻度",
        names: ["如实", "对比度"],
        help: "如实：权重使用固定的 0 … 1 刻度，三个分数阶段共用一个刻度，因此缩放和温度会改变画面。对比度：每个矩阵按自身范围拉伸。",
        colour_bar: |low, high, note| format!("颜色刻度从 {low} 到 {high}（{note}）"),
        colour_bar_plain: |low, high| format!("颜色刻度从 {low} 到 {high}"),
        constant: |value| format!("颜色刻度：所有值都是 {value}，所以每个格子颜色相同"),
    },
    model: ModelTexts {
        section: "权重",
        names: [
            "随机",
            "GPT-2 结构",
            "Llama 结构",
            "Llama＋门控",
            "混合结构",
            "你的模型",
        ],
        loading: "正在加载训练好的模型（4 到 5 MB，来自本站）……",
        failed: "训练好的模型无法加载；随机权重仍然可用。原因：",
        ready: |layers, heads, width, parameters| {
            format!(
                "一个 GPT-2：{layers} 层 × {heads} 个头，宽度 {width}，共 {parameters} 个参数，每个字符一个词元。"
            )
        },
        llama_ready: |layers, heads, kv_heads, width, parameters| {
            format!(
                "一个 Llama 结构的模型：{layers} 层 × {heads} 个查询头，共用 {kv_heads} 个 K/V 头，宽度 {width}，共 {parameters} 个参数，每个字符一个词元。"
            )
        },
        llama_about: [
            "任务、训练文本和字符表都与 GPT-2 模型相同，只是换成了如今大家下载的模型（Llama、Qwen、Mistral）所用的结构：它同样是在这里训练出来猜下一个字符的。",
            "它的输入不加位置向量，而是由每个头用 RoPE 旋转自己的 q 和 k，所以一个分数只取决于两个字符相距多远。RMSNorm 取代了 LayerNorm，带门控的 SwiGLU MLP 取代了 GELU，所有投影都没有偏置。",
            "分组查询注意力：查询头分成几组，每组读同一份共享的 K 和 V，所以生成时每个字符要保存的数更少。",
            "它训练时用的是因果掩码，只往前看；温度和其他掩码对每一层的作用与 GPT-2 模型相同。",
            "它第 2 层的头会复制打了两遍的随机汉字串（最好的头把 0.89 的权重放在上次出现之后的字符上），却不会复制由拉丁字母和数字组成的随机串（0.17）：各打一串两遍，比较一下。GPT-2 模型两种都会复制。",
        ],
        gated_ready: "每个头的输出在交给 W_O 之前先经过一个 sigmoid 门 σ(x·W_g)。",
        gated_about: [
            "这是在 Llama 结构上加了一样东西的模型，和 Llama 模型一样在这里用同一份文本和字符表训练：每个头的输出在拼接、再由 W_O 混合之前，要逐个数乘上一个门 σ(x·W_g)：它介于 0 和 1 之间，由该字符自己的输入决定（Qiu 等，2025；Qwen3-Next 的全注意力层也这样做）。",
            "为什么要加门：softmax 的一行必须加起来等于 1，所以一个头即使没有值得读的内容，也得把权重放到某处。大模型学会把它停在第一个词元上，形成注意力汇聚点（attention sink），残差流里往往还伴随着极大的激活值。有了门，头可以干脆关上门、什么都不输出；论文作者报告说汇聚点因此消失了。",
            "在“流式”一节比较这对孪生模型：每个头放在第一个字符上的注意力份额、残差流里最大的数，以及从滚动缓存中丢掉开头几个字符各自要付出的代价。",
        ],
        hybrid_ready: |layers, linear, heads, kv_heads, width, parameters| {
            format!(
                "一个 Qwen3-Next 结构的混合模型：{layers} 层，其中 {linear} 层是线性注意力，{full} 层是全注意力；{heads} 个头（全注意力层共用 {kv_heads} 个 K/V 头），宽度 {width}，共 {parameters} 个参数，每个字符一个词元。",
                full = layers - linear
            )
        },
        hybrid_about: [
            "任务、训练文本和字符表都与另外两个模型相同，结构则换成了 2025 年的混合模型（Qwen3-Next、Qwen3.5、Kimi Linear）：它同样是在这里训练出来猜下一个字符的。",
            "每四层中有三层是带门控 delta 规则的线性注意力（Gated DeltaNet）：每个头只保存一个 d_k × d_v 的状态，先按 α 衰减，再按 β 把新键的值写进去，同时修正状态对这个键原本会给出的结果。各个头显示的是它隐含的矩阵 A（o = A·V）：每行之和不必为 1，也可以有负数。",
            "每第四层是完整的 softmax 注意力：带 QK-norm，只在每个头的四分之一维度上做 RoPE，K/V 头分组共用，并且每个头的输出都乘上一个 sigmoid 门。生成时只有这些层要保存键和值；线性层保存的状态大小始终不变。",
            "温度、掩码和分数选项只作用于全注意力层；线性层天生就是因果的。",
        ],
        about: [
            "这是为本实验室训练的小型 GPT-2，训练文本是 Debian 与 PyPI 软件包中的中英文（名言、技术手册、商品评论）：它学会了猜下一个字符。",
            "所以它的注意力头各有分工：预测下一个字符时，看紧挨着的前一个字符很有用（前一词元头）；在后面的层里，把当前字符上次出现之后的内容复制过来也很有用（归纳头：试着把一串随机字符输入两遍）。",
            "它训练时用的是因果掩码，只能往前看。换一种掩码，它就会看到训练中从未见过的东西：看看它的预测怎样出错。",
            "温度作用于每一层：调高温度，每个头的注意力就变得平均，学到的模式被抹平；调低温度，每个头只挑一个键。",
        ],
        fixed_shape: |d_model, heads, d_k| {
            format!("由训练好的模型固定：d_model {d_model}，{heads} 个头，d_k {d_k}。")
        },
        fixed_norm: |epsilon| {
            format!(
                "与 GPT-2 一样采用 Pre-LN：x + Attn(LN₁(x))，再 x + MLP(LN₂(x))，每个层归一化都有学到的 γ 和 β（ε = {epsilon}）。"
            )
        },
        llama_fixed_norm: |epsilon| {
            format!(
                "与 Llama 一样采用前置归一化：x + Attn(RMSNorm(x))，再 x + MLP(RMSNorm(x))。每个 RMSNorm 把一行除以它的均方根，再乘以学到的 γ（ε = {epsilon}）：不减均值，也没有 β。"
            )
        },
        no_cross: "训练好的模型只读一个句子：交叉注意力需要随机权重。",
        layer_label: "层",
        overview_title: "所有头一览",
        overview_help: "每一层、每个头在你的句子上的注意力权重，实时计算。点击其中一个，下方即展开它。",
        next_title: "接下来是什么",
        window: |read, whole, first| {
            format!(
                "模型最多读 {read} 个字符（它的上下文窗口）：你的 {whole} 个字符中，它读最后 {read} 个，即从第 {first} 个字符起；模型的各个视图显示的都是这些字符，从 0 开始编号。“继续”会让窗口随之向后滑动。"
            )
        },
        folder_window: |read, whole, first, by_memory| {
            let why = if by_memory {
                "再多的话，一次记下每个头权重的前向计算加上模型本身，就放不进页面的内存；命令行可以读满模型的整个上下文"
            } else {
                "它的上下文窗口"
            };
            format!(
                "模型在这里最多读 {read} 个词元（{why}）：你的 {whole} 个词元中，它读最后 {read} 个，即从第 {first} 个词元起；模型的各个视图显示的都是这些词元，从 0 开始编号。"
            )
        },
        next_help: "模型认为最后一个字符（或指针下的字符）之后最可能出现的五个字符。",
        after: |position, token| format!("第 {position} 个字符「{token}」之后"),
        continue_button: "续写",
        greedy: "最可能的",
        sampling: "采样温度",
        sampling_help: "0：总是选最可能的；越高越多变。它与注意力的温度无关。",
        generate: GenerateTexts {
            title: "用 KV 缓存生成",
            help: "模型一次写一个字符。一个字符的键和值只取决于它之前（含它自己）的文字，而这些文字不会再变，所以每一层把它们存下来，这就是缓存。于是新字符只需算它自己那一行，用它的查询去读所有缓存的键。没有缓存时，每生成一个字符都要把整段文字重新算一遍。",
            need_model: "请先在上方选择一个训练好的模型（GPT-2 结构、Llama 结构（带门或不带门）、混合结构或你自己的模型）再生成。",
            steps: "个字符",
            cache: "KV 缓存",
            play: "播放",
            pause: "暂停",
            step: "走一步",
            all: "一次生成完",
            restart: "重新开始",
            keep: "放进句子",
            shown_step: "步",
            step_line: |step, token, cached, context| {
                format!(
                    "第 {step} 步：追加了“{token}”。它的查询行在每一层读取目前缓存的 {cached} 个位置（上下文共 {context} 个），包括它自己。"
                )
            },
            chosen_among: "它是从这几个候选中选出的：",
            rows_help: "每一条是一个查询头对缓存的权重：每个缓存位置一格，权重越大越亮，已填部分的最右边是最新的字符；空白部分是还没用到的上下文。共用同一个 K/V 头的查询头读的是同样的键和值，但分配的权重不同。",
            strips_summary: |step, character, each| {
                format!("第 {step} 步，加入了“{character}”。每个查询头最看重的缓存字符：{each}。")
            },
            strips_keys: "方向键：↑ ↓ 在各个头之间移动，← → 在缓存的字符之间移动，Esc 取消选择。",
            weight: "权重",
            stretched: "对比刻度：每一条从 0 拉伸到它自己的最大权重（便于投影；如实刻度对所有条都是 0 … 1）。",
            layer: |l| format!("第 {l} 层"),
            kv_group: |g, heads| format!("共用 K/V 头 {g}（q{heads}）"),
            query_head: |h, g| format!("q{h} → kv{g}"),
            hover: |layer, head, kv, token, position, weight| {
                format!(
                    "第 {layer} 层，查询头 {head}（K/V 头 {kv}）→ 位置 {position} 的“{token}”：权重 {weight:.3}"
                )
            },
            cache_line: |cached, context, layers, kv_heads, d_head, bytes| {
                format!(
                    "当前缓存：{cached} 个位置（上下文共 {context} 个）× {layers} 层 × {kv_heads} 个 K/V 头 ×（K 和 V）× {d_head} 个数 × 4 字节 = {bytes} 字节。"
                )
            },
            bytes_title: |n| format!("这 {n} 个字符之后，缓存要存多少"),
            this_model: |kv, heads| format!("这个模型：{heads} 个查询头共用 {kv} 个 K/V 头"),
            mha: "MHA：每个查询头一个 K/V 头",
            gqa: |kv| format!("GQA，{kv} 个 K/V 头"),
            mqa: "MQA：所有查询头共用一个 K/V 头",
            mla: "MLA（DeepSeek-V2），按公式计算，这里没有运行",
            speed_title: "每秒生成的字符数，在本页中实测",
            speed_row: |cache, measured| {
                let mode = if cache { "有缓存" } else { "无缓存" };
                match measured {
                    Some((n, ms)) if ms > 0.0 => format!(
                        "{mode}：每秒 {:.0} 个字符（{n} 步，每步 {:.2} 毫秒）",
                        n as f64 * 1000.0 / ms,
                        ms / n as f64
                    ),
                    _ => format!("{mode}：还没有测"),
                }
            },
            speed_help: "每一步的时间只算模型为这个字符做的计算，不算校验和绘图。把 KV 缓存关掉或打开再生成一次，就能测另一种；文字越长，差距越大。",
            checked: |delta, checked, taken| {
                if checked == taken {
                    format!(
                        "已校验：每一步的分数都与实验室逐步追踪的前向计算对整段文字的重算结果一致，目前最大差值为 {delta:.1e}。"
                    )
                } else {
                    format!(
                        "只在每次要求的生成结束时校验（{taken} 步中校验了 {checked} 步）：对整段文字重算一次就是这个模型完整的一次前向计算，每一步都重算太慢。被校验的这些步，分数与实验室逐步追踪的前向计算的重算结果一致，最大差值为 {delta:.1e}。"
                    )
                }
            },
        },
        stream: StreamTexts {
            title: "读过上下文之后：流式推理与注意力汇聚点",
            help: "模型一次最多读它的上下文长度。流式服务用滚动缓存继续读下去：保留最近的若干字符（窗口），并按 StreamingLLM 的做法保留最开头的几个（汇聚点，sink tokens），因为许多大模型会把多余的注意力倒在第一个词元上，一旦把它移出缓存，输出就会崩。位置按缓存内的顺序重新编号，所以 RoPE 永远不会遇到训练时没见过的位置。这里 Llama 模型用三种方式读一段比上下文更长的文字。",
            learned_positions: "GPT-2 的位置向量是在计算 K 和 V 之前加到输入上的，所以缓存里的条目无法挪到新的位置。请选择 Llama 结构来做流式推理。",
            need_model: "请先在上方选择 Llama 结构的模型（或加了门的孪生模型）。",
            own_model: "你自己的模型文件夹要在它专用的后台线程（Web Worker）里做流式推理，而这个文件夹现在没有（这个浏览器没能启动后台线程，或者它正被另一个文件夹占用：重新打开这个文件夹就能把它要回来）；放在页面主线程上，每种读法（文本的每个词元都要让模型走一步，重算还要为每个位置做一次前向计算）都会让页面卡住同样久。命令行可以这样读你的文件夹：{\"model\": {\"path\": …}, \"stream_eval\": {\"text\": …, \"window\": 64, \"sink_tokens\": 4}}。",
            own_loading: "你的模型还在读取中，准备好后才能做流式推理；到时请再按一次“开始读”。",
            reading: |phase, done, all| match phase {
                0 => format!("你的模型正用保留汇聚点的滚动缓存读这段文字：{done} / {all} 个词元……"),
                1 => format!("……再不保留汇聚点读一遍：{done} / {all} 个词元……"),
                _ => format!("正在统计每个头放在第一个词元上的注意力：{done} / {all} 个词元……"),
            },
            worker_ended: "读取没有完成就停了：模型的后台线程停止了，或者换了另一个模型。按“开始读”重新读取。",
            own_chart_title: "每个下一个词元的损失（nats，越低越好），按 32 个位置平滑；灰线标出上下文长度",
            own_share_title: "放在第一个词元上的注意力比例",
            own_help: "模型一次最多读它的上下文长度。流式服务用滚动缓存继续读下去：保留最近的若干词元（窗口），并按 StreamingLLM 的做法保留最开头的几个（汇聚点，sink tokens），因为许多大模型会把多余的注意力倒在第一个词元上，一旦把它移出缓存，输出就会崩。位置按缓存内的顺序重新编号，所以 RoPE 永远不会遇到训练时没见过的位置。这里你的模型在它的后台线程里逐个词元地用三种方式读一段文字。",
            own_share_help: "每个头在第一个上下文窗口（最多 512 个词元）里、除第一个之外的每个查询上，放在文字第一个词元上的平均权重。汇聚头不管查询是什么都会给它很大的比例。",
            own_finding: |gain, share, read, sinks| {
                format!(
                    "保留开头 {sinks} 个词元让你的模型平均损失变化 {gain:+.3} nats；最依赖第一个词元的头给了它 {:.1}% 的注意力（在文字的前 {read} 个词元上统计）。比例大、损失差得也明显，才是汇聚点；小模型或随机初始化的模型可能两样都没有。",
                    share * 100.0
                )
            },
            text: "文字",
            window: "窗口",
            sinks: "汇聚点个数",
            run: "开始读",
            stale: "这次读取之后，文字或缓存设置已经改了：下面的结果属于之前的设置。按“开始读”重新读取。",
            progress: |done, all| format!("滑动窗口重算：{done} / {all} 个位置……"),
            chart_title: "每个下一个字符的损失（nats，越低越好），按 32 个位置平滑；灰线标出上下文长度",
            x_label: "在文字中的位置",
            y_label: "损失（nats）",
            with_sinks: |k| format!("滚动缓存，{k} 个汇聚点"),
            without_sinks: "滚动缓存，无汇聚点",
            recompute: "滑动窗口重算",
            means: |with, without, recompute, n| match recompute {
                Some(r) => format!(
                    "{n} 个位置的平均损失：有汇聚点 {with:.3}，无汇聚点 {without:.3}，重算 {r:.3}。"
                ),
                None => format!(
                    "{n} 个位置的平均损失：有汇聚点 {with:.3}，无汇聚点 {without:.3}（重算仍在进行）。"
                ),
            },
            finding: |gain, share, read, context| {
                if gain.abs() < 0.02 && share < 0.1 {
                    let mut said = format!(
                        "这个小模型的实际表现：没有注意力汇聚点。保留开头的字符让平均损失变化 {gain:+.3} nats，而且没有哪个头把超过 {:.1}% 的注意力放在第一个字符上（在文字的前 {read} 个字符上统计）。在长文本上训练的大模型确实会形成汇聚点；这里这个 3 层、用 {context} 个字符的窗口训练的模型没有，所以把开头移出缓存对它毫无损失。",
                        share * 100.0
                    );
                    if read >= context {
                        said.push_str("这是长文本上的比例：在短句上，同样的头可能出于很平常的原因把一半权重给第一个字符（前几个查询只看得到几个键），那不是汇聚点，文字一长它就消失了。");
                    }
                    said
                } else {
                    format!(
                        "保留开头的字符让平均损失变化 {gain:+.3} nats；最依赖第一个字符的头给了它 {:.1}% 的注意力（在文字的前 {read} 个字符上统计）。",
                        share * 100.0
                    )
                }
            },
            share_title: "落在第一个字符上的注意力比例",
            share_help: "每个头在第一个上下文窗口里、除第一个之外的每个查询上，放在文字第一个字符上的平均权重。汇聚头不管查询是什么都会给它很大的比例。",
            layer: |l| format!("第 {l} 层"),
            head: |h| format!("头 {h}"),
        },
        roles_title: "每个头在这里做什么",
        roles_help: |queries, repeated| {
            let over = if repeated {
                format!(
                    "你的句子中字符在前面出现过的 {queries} 个查询（每种角色都能在这些查询上体现）"
                )
            } else {
                format!("第一个之后的 {queries} 个查询（你的句子中没有重复的字符）")
            };
            format!(
                "每个头的注意力份额，在{over}上取平均：落在前一个字符上、落在查询字符早先副本之后的那个字符上（归纳）、落在早先副本本身上（相同）、落在第一个字符上，以及其他地方。每个键按这个顺序只计一次，所以每行之和为 1。"
            )
        },
        role_other: "其他",
        role_names: ["前一个", "归纳", "第一个", "相同"],
        role_previous: |share| format!("前一词元头：{share:.2} 的权重落在前一个字符上"),
        role_induction: |share| {
            format!("归纳头：{share:.2} 的权重落在同一字符上次出现之后的字符上")
        },
        role_first: |share| format!("首词元头：{share:.2} 的权重落在第一个字符上"),
        role_same: |share| format!("相同词元头：{share:.2} 的权重落在该字符的早先副本上"),
        role_mixed: "在这个句子上没有单一的分工",
        embeddings: "每个字符学到的词向量：训练好的表 wte 中的一行，与输出层共享。",
        positions: "GPT-2 为每个位置学习一个向量（wpe 中的一行），而不是用正弦和余弦。",
        x_first: "进入第一层的残差流：词向量加位置向量。",
        residual_formula: "X = 残差流",
        x_later: |layer| format!("进入第 {layer} 层的残差流：前面各层累加的结果。"),
        normed_x: "LN₁ 先把每一行归一化，再用学到的 γ 和 β 缩放和平移。",
        output: "注意力的输出加回残差流；随后是这个模块的 MLP。",
        llama_positions: "没有位置向量：这个模型在注意力内部用 RoPE 旋转每个头的 q 和 k，所以 P 为零。",
        llama_x_first: "进入第一层的残差流：只有各字符的词向量。这种结构不加位置向量，而是在注意力内部用 RoPE 旋转每个头的 q 和 k。",
        llama_normed_x: "RMSNorm 把每一行除以它的均方根（不减均值），再乘以学到的 γ。",
        learned_embedding: "学到的词向量：这个词元在 wte 中的那一行。",
        learned_position: "学到的位置向量：这个位置在 wpe 中的那一行。",
        residual_stream: "残差流，即前面各层留下的结果。",
        learned_note: |layer, head, role| {
            format!(
                "这些权重是训练学到的：训练模型第 {layer} 层的第 {head} 个头。在这句话上：{role}。"
            )
        },
    },
    share: ShareTexts {
        link_here: "链接",
        embed_here: "嵌入",
        copied_of: |name| format!("“{name}”的链接"),
        titles_on_images: "图片带标题",
        skip_to_controls: "跳到控制面板",
        skip_to_weights: "跳到注意力权重",
        skip_to_flash: "跳到 FlashAttention",
        show_controls: "控制面板",
        hide_controls: "关闭控制面板",
        present_here: "演示",
        section_of: |i, n| format!("第 {i} 部分，共 {n} 部分"),
        present_help: "← 和 → 在各部分之间切换；Esc 结束演示。",
        previous_section: "← 上一部分",
        next_section: "下一部分 →",
        end_present: "结束演示",
        embedded_without_controls: "这一章嵌入时没有带控制面板，所以这里的设置是固定的：点上方的“打开完整的实验室”即可修改，或者连同控制面板一起嵌入（panels=sentence,controls，即本章“嵌入”按钮给出的代码）。",
    },
    divided_by: "除以",
    from_source: "键和值来自源句子 S",
    head_label: "头",
    all_heads: "所有头",
    all_heads_help: "每个头的注意力权重。点击其中一个查看细节。",
    head_view_title: "谁在看谁",
    head_lines: HeadLinesTexts {
        summary: |queries, keys, listed, each| {
            if listed < queries {
                format!(
                    "头视图，{queries} 个查询、{keys} 个键。前 {listed} 个查询最看重的键：{each}。"
                )
            } else {
                format!("头视图，{queries} 个查询、{keys} 个键。每个查询最看重的键：{each}。")
            }
        },
        query: |query, keys| format!("查询 {query} 最看重的键：{keys}。"),
        key: |key, queries| format!("最看重键 {key} 的查询：{queries}。"),
        separator: "；",
        keys_help: "方向键：↑ ↓ 在词元间移动，← → 在查询和键之间切换，Esc 取消选择。",
    },
    head_view_help: "每条线把一个查询（左）连到一个键（右）；线越粗越深，权重越大。句子较长时，每个查询只画出最强的几条连线。把指针停在某个词元上，可以看到它的全部连线。",
    queries: "查询",
    keys: "键",
    pipeline_title: "逐步计算",
    steps: StepTexts {
        tokens: "词元变成向量",
        qkv: "投影成查询、键和值",
        scores: "给每个查询与每个键打分",
        softmax: "softmax 把分数变成权重",
        values: "按权重混合值向量",
        combine: "合并各个头",
    },
    stages: StageTexts {
        embeddings: StageText {
            title: "词向量 E",
            formula: "E = embed(token)",
            caption: "每个词元变成 d_model 个数组成的向量。这里的向量由词元文本决定的随机数生成，代替训练好的词表。",
        },
        positions: StageText {
            title: "位置编码 P",
            formula: "P[pos, 2i] = sin(pos / 10000^(2i/d)), P[pos, 2i+1] = cos(…)",
            caption: "注意力本身不区分顺序，所以每个位置加上一组频率不同的正弦和余弦。",
        },
        x: StageText {
            title: "输入 X",
            formula: "X = E + P",
            caption: "注意力读取的内容：每个词元一行，含义加位置。",
        },
        normed_x: StageText {
            title: "层归一化 LN(X)",
            formula: "(x − μ) / √(σ² + ε)",
            caption: "Pre-LN 在注意力之前把每一行归一化：均值为 0，方差为 1。",
        },
        q: StageText {
            title: "查询 Q",
            formula: "Q = X W_Q",
            caption: "每个词元想要寻找的信息。",
        },
        k: StageText {
            title: "键 K",
            formula: "K = X W_K",
            caption: "每个词元用来被匹配的特征。",
        },
        v: StageText {
            title: "值 V",
            formula: "V = X W_V",
            caption: "词元被关注时传递出去的内容。",
        },
        dot: StageText {
            title: "点积",
            formula: "QKᵀ",
            caption: "查询 i 与键 j 的匹配程度：两个向量的点积。",
        },
        scaled: StageText {
            title: "缩放后的分数",
            formula: "QKᵀ / (√d_k · T)",
            caption: "d_k 项之和的点积方差约为 d_k；除以 √d_k 让方差回到 1 左右，softmax 就不会饱和。温度 T 再让分布变尖或变平。",
        },
        masked: StageText {
            title: "加上掩码",
            formula: "S + M，M 为 0 或 −∞",
            caption: "被遮挡的位置加上 −∞，softmax 之后权重恰好为 0。",
        },
        weights: StageText {
            title: "注意力权重",
            formula: "对每一行做 softmax(S + M)",
            caption: "每一行变成键上的概率分布。取指数前先减去该行最大值，保证数值稳定。",
        },
        head_output: StageText {
            title: "单头输出",
            formula: "weights · V",
            caption: "每个查询的新向量：按权重比例混合各个值向量。",
        },
        concat: StageText {
            title: "拼接各头",
            formula: "[head₁ | head₂ | … ]",
            caption: "所有头的输出并排拼在一起。",
        },
        projected: StageText {
            title: "输出投影",
            formula: "concat · W_O",
            caption: "W_O 把各头的结果重新混合成每个词元 d_model 个数。",
        },
        output: StageText {
            title: "模块输出",
            formula: "x + MHA(LN(x)) 或 LN(x + MHA(x))",
            caption: "残差连接把输入加回来；层归一化让数值尺度保持稳定。",
        },
    },
    computed_on_cpu: "CPU",
    computed_on_gpu: "GPU",
    computing: "计算中……",
    token_list: |n| format!("句子的 {n} 个词元"),
    more_tokens: |rest, n| format!("……还有 {rest} 个（共 {n} 个词元）"),
    computing_trace: |n, h| format!("正在计算 {n} 个词元 × {h} 个头……完成前视图显示上一次的结果。"),
    computing_progress: |done, heads| {
        format!("已在后台算完 {done}/{heads} 个头：可以继续输入，以最新的修改为准。")
    },
    computed_trace: |n, h, took| {
        format!("已在后台算完 {n} 个词元 × {h} 个头（用时 {took}），视图显示的就是这次的结果。")
    },
    last_update: "最近一次更新",
    backend_section: "计算设备",
    backend_names: ["自动", "GPU", "CPU"],
    backend_help: "自动模式在 512 个词元及以上、且有硬件 GPU 时使用 GPU。64 个词元时 CPU 比与 GPU 往返更快（在一块数据中心 GPU 上原生测得：CPU 0.43 ms，GPU 0.96 ms）；到 128 和 512 个词元，完整追踪在那块 GPU 上和在它的 CPU（每个头一个线程）上一样久（512 个词元：113 对 110 ms），只有长输入只取输出时 GPU 才更快。还没有在带硬件 GPU 的浏览器里测量过。",
    gpu_probing: "正在寻找 GPU……",
    gpu_ready: "WebGPU：",
    gpu_software: "（软件实现，比 CPU 慢）",
    gpu_none: "没有可用的 GPU：",
    gpu_lost: "GPU 设备已丢失，已改由 CPU 计算，你的设置都保留着。",
    gpu_retry: "重试 GPU",
    fallback: FallbackTexts {
        probing: "仍在寻找 GPU，期间由 CPU 计算。",
        no_webgpu: "这个浏览器不支持 WebGPU，因此由 CPU 计算。",
        no_adapter: "找不到 GPU 适配器，因此由 CPU 计算",
        device_request_failed: "GPU 无法打开设备，因此由 CPU 计算",
        device_lost: "GPU 设备已丢失，已改由 CPU 计算",
        shader_error: "GPU 着色器出错，因此由 CPU 计算",
        too_large: "超出了这块 GPU 的缓冲区上限，因此由 CPU 计算",
        readback_failed: "从 GPU 读回结果失败，因此由 CPU 计算",
        not_ready: "GPU 尚未就绪，因此由 CPU 计算",
        unsupported: "实验室自带的模型很小，在页面里由 CPU 计算。从文件夹打开的模型会在它自己的 worker 里用 GPU 计算注意力。",
        model_on_page: "这个模型由页面的 CPU 计算：它的 worker 没有在运行（或没有保留它的文件），而只有 worker 会在 GPU 上计算模型的注意力。",
        unsupported_what: |what| {
            use attention_gpu::unsupported::*;
            let named = match what {
                LINEAR_BIASES => "线性注意力之前的投影偏置",
                LINEAR_CONV => "线性注意力之前的短卷积",
                NORMED_GATE => "带归一化的 SiLU 输出门",
                GATE_WITHOUT_LINEAR => "不配线性注意力的输出门",
                // A name not translated yet, set apart by spaces.
                other => return format!("GPU 后端暂时还不支持 {other}，所以由 CPU 计算。"),
            };
            format!("GPU 后端暂时还不支持{named}，所以由 CPU 计算。")
        },
        software_adapter: |name| format!("这里唯一的 GPU 是软件实现（{name}），CPU 更快。"),
        small_input: |tokens| format!("少于 {tokens} 个词元时，CPU 比与 GPU 往返更快。"),
    },
    flash_equal: "FlashAttention 逐块计算，得到相同的输出：最大 |Δ| =",
    fully_masked_note: |rows| format!("查询 {rows} 的所有键都被遮挡：它们的权重和输出全为 0。"),
    cell_hint: "把指针停在格子上，或选中热图后用方向键移动，即可看到该数值是怎样算出来的。",
    show_table: "以表格显示",
    chart_series: "曲线",
    hide_table: "收起表格",
    rows_and_columns: "行与列",
    copy_link: "复制链接",
    copy_embed: "复制嵌入代码",
    download_trace: "下载计算轨迹（JSON）",
    copied: "已复制。",
    copy_by_hand: "这里无法使用剪贴板：请选中文字后手动复制。",
    open_full: "打开完整的实验室 ↗",
    export_png: "PNG",
    export_csv: "CSV",
    export_svg: "SVG",
    dismiss: "关闭",
    link: LinkTexts {
        unknown: |name| format!("链接里的“{name}”不是本实验室认识的参数，已忽略。"),
        malformed: |name, value| format!("链接里的 {name} = “{value}” 不是有效的值，已忽略。"),
        missing: |name, field, kind| {
            format!("链接要求 {kind} 类型的 {field}，却没有给出 {name}，已忽略。")
        },
        too_long: |name, length| format!("链接里的 {name} 有 {length} 个字符，太长了，已忽略。"),
        unknown_panel: |name| format!("链接要求的面板“{name}”不存在，已略去。"),
        dropped: |name, value, reason| {
            format!("链接里的 {name} = “{value}” 无法使用（{reason}），链接中的其余设置都已保留。")
        },
        impossible: |reason| format!("链接里的设置无法同时成立（{reason}），因此显示默认设置。"),
        no_such_head: |value, heads| {
            format!("链接要第 {value} 个头，但这里只有 {heads} 个；显示第 1 个头。")
        },
        no_such_layer: |value, layers| {
            if layers <= 1 {
                format!(
                    "链接要第 {value} 层，但随机权重只有一层；多层属于训练过的模型。显示第 1 层。"
                )
            } else {
                format!("链接要第 {value} 层，但训练过的模型只有 {layers} 层；显示第 1 层。")
            }
        },
        unknown_view: |name| format!("链接里的 view =“{name}”不是页面的任何部分，已忽略。"),
        tensors: |names| {
            format!(
                "链接只能携带设置和句子，不能携带数字：你通过 attentionLab.set() 给出的 {names} 不在链接里，打开链接时不会有它们。要保留它们，请下载计算轨迹（JSON）。"
            )
        },
        long_link: |kb| {
            format!(
                "这个链接长 {kb} KB。浏览器能打开它，但有些服务器、代理和聊天软件会拒绝超过约 8 KB 的链接：要稳妥地分享，请缩短句子，或改为发送计算轨迹（JSON）。"
            )
        },
    },
    explain: ExplainTexts {
        query_key: |row, row_token, col, col_token| {
            format!("查询 {row}「{row_token}」→ 键 {col}「{col_token}」")
        },
        token_dimension: |row, token, dimension| {
            format!("词元 {row}「{token}」· 第 {dimension} 维")
        },
        more_terms: |n| format!(" + …（共 {n} 项）"),
        embedding: "词向量：由词元文本决定的固定随机向量，同一个词处处相同。",
        given_x: "由调用者直接给出的输入。",
        allowed: |score, value| format!("未被遮挡：{score} + 0 = {value}"),
        masked_score: |score| format!("{score} + (−∞) = −∞，它的权重将恰好为 0"),
        row_fully_masked: "这一行的所有键都被遮挡：整行权重为 0（不会出现 NaN）。",
        masked_weight: "被遮挡的键权重恰好为 0。",
        output_gate: |gate, value| format!("× 输出门 {gate} = {value}"),
        convolved: |before, value| {
            format!("再对本词元及其前 {before} 个词元做短卷积并取 SiLU = {value}")
        },
        concat_column: |column, head, value| format!("第 {head} 个头输出的第 {column} 列：{value}"),
    },
    flash: FlashText {
        title: "FlashAttention，逐块计算",
        caption: "不保存整个分数矩阵也能得到同样的结果：查询和键被切成小块，每一行维护一个运行最大值 m 和运行和 l，每算完一块就立即并入输出（在线 softmax）。",
        keys_hint: "快捷键：空格播放或暂停，← → 单步，Home 与 End 跳到首尾。",
        play: "播放",
        pause: "暂停",
        back: "后退一步",
        forward: "前进一步",
        to_start: "回到开头",
        to_end: "跳到结尾",
        speed: "每秒步数",
        frame: |i, n| format!("第 {i} 步，共 {n} 步"),
        grid_title: "分块的分数矩阵",
        grid_summary: "输入较长：下图每个格子代表一整块。",
        grid_choose: "点击某一块，或用方向键移到它，即可跳到这一块的步骤。",
        replayed_block: |k, n, a, b| {
            let last = n.saturating_sub(1);
            format!(
                "播放器回放 {k} 号查询块（块与网格中的块一样从 0 编号，共 0–{last}；查询 {a}–{b}）与所有键块的计算。每个查询块的计算不依赖其他查询块，所以这些步骤与完整运行中的完全相同；计数器把它之前的块算作已完成。它跟随上方的放大区域，也可以在这里或网格上另选一块。"
            )
        },
        previous_block: "上一个查询块",
        next_block: "下一个查询块",
        legend: ["尚未计算", "已完成", "当前块", "被遮挡（整块被遮挡时跳过）"],
        pseudocode_title: "算法",
        pseudocode: [
            "把 Q 切成每块 B_r 行，把 K、V 切成每块 B_c 行。",
            "对每个查询块 i：",
            "    把 Q_i 读入快速内存；m ← −∞，l ← 0，O_i ← 0",
            "    对每个键/值块 j：",
            "        若掩码遮住了整个块 (i, j)：跳过",
            "        读入 K_j、V_j；S ← Q_i K_jᵀ / (√d_k · T)，被遮挡处为 −∞",
            "        m_new ← max(m, S 的行最大值)",
            "        P ← exp(S − m_new)",
            "        l ← exp(m − m_new) · l + P 的行和",
            "        O_i ← exp(m − m_new) · O_i + P V_j；m ← m_new",
            "    O_i ← O_i / l；把 O_i 写回慢速内存",
        ],
        phase_start: |i, rows| format!("查询块 {i} 开始：第 {rows} 行，m = −∞，l = 0，输出为空。"),
        phase_skip: |i, j| format!("块 ({i}, {j}) 被完全遮挡：直接跳过，连 K_j、V_j 都不读入。"),
        phase_scores: |i, j, rows, cols| format!("块 ({i}, {j})：查询 {rows} 与键 {cols} 的分数。"),
        phase_max: "每一行的运行最大值把这一块也考虑进来。",
        phase_exp: "exp(S − m_new)：所有值都不超过 1，不会溢出。",
        phase_sum: "旧的和先乘以 exp(m − m_new) 缩小，再加上这一块的行和。",
        phase_accumulate: "输出行也乘以同一个因子，再加上这一块的 P·V。",
        phase_normalize: |rows| {
            format!("除以 l 后，累加值变成 softmax 权重的加权和：第 {rows} 行计算完成。")
        },
        block_title: "当前查询块",
        columns: [
            "查询",
            "运行最大值 m",
            "缩放因子 exp(m − m_new)",
            "运行和 l",
        ],
        tile_scores: "这一块的分数 S",
        tile_probs: "这一块的 exp(S − m_new)",
        accumulator: "输出累加器 O_i（尚未除以 l）",
        output_rows: "输出行 O_i / l",
        no_tile: "这一步没有分块。",
        tiles: "块",
        skipped: "跳过",
        held: "同时保存的分数元素",
        one_tile: "flash：一块",
        all_scores: "标准：全部",
        traffic: "与慢速内存之间搬运的浮点数（按论文的模型）",
        traffic_flash: "flash，到目前为止",
        traffic_standard: "标准，整个计算",
        reads: "读",
        writes: "写",
        equal: "Flash 输出 = 标准输出：最大差值为",
        chart_title: "同时保存的分数元素",
        chart_x: "序列长度",
        chart_y: "元素个数",
        chart_standard: "标准（n²）",
        chart_flash: "flash（一块）",
    },
    errors: ErrorTexts {
        config: config_error,
        json: |path, message| format!("参数 {path} 无效：{message}"),
        input_twice: |field| format!("{field}：请只用 sentence、tokens、x 中的一种方式给出输入。"),
        fixed_by_model: |field| format!("{field} 由训练好的模型固定：切换到随机权重才能自己选择。"),
        bad_view_value: |name| format!("{name}：不是有效的值"),
        bad_lesson: |ids| format!("lesson：没有这一章；可选 {ids}（或 null 回到实验室）"),
        not_an_object: "params：应为一个由参数组成的对象",
        showing_last_good: "下方仍显示上一次的有效结果。",
    },
    learn: &super::learn_zh::LEARN,
    shaping: &super::shaping::ZH,
    linear: &super::linear::ZH,
    circuits: &super::circuits::ZH,
    own_model: &super::own_model::ZH,
    twins: &super::twins::ZH,
};
