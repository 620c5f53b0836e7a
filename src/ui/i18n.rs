//! Every sentence the app shows, in English and Chinese. A struct per language, so a string
//! missing in one language is a compile error. The wording is our own; the facts and formulas
//! follow the course's source articles.

use attention_core::ConfigError;
use attention_core::api::RequestError;

use super::stages::Stage;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

/// The UI text of one language.
pub struct Text {
    pub title: &'static str,
    pub tagline: &'static str,
    pub switch_language: &'static str,
    pub theme: &'static str,
    pub theme_names: [&'static str; 3],
    pub sentence_label: &'static str,
    pub sentence_placeholder: &'static str,
    pub examples_label: &'static str,
    pub tokens_label: &'static str,
    pub cross_attention: &'static str,
    pub cross_attention_help: &'static str,
    pub source_label: &'static str,
    pub source_placeholder: &'static str,
    pub source_tokens_label: &'static str,
    pub showing_last_good: &'static str,
    pub model_section: &'static str,
    pub d_model_help: &'static str,
    pub heads: &'static str,
    pub kv_heads: &'static str,
    pub kv_kind: [&'static str; 3],
    pub auto: &'static str,
    pub d_k_help: &'static str,
    pub d_v_help: &'static str,
    pub softmax_section: &'static str,
    pub temperature: &'static str,
    pub temperature_help: &'static str,
    pub mask_section: &'static str,
    pub mask_names: [&'static str; 5],
    pub mask_help: [&'static str; 5],
    pub valid_len: &'static str,
    pub radius: &'static str,
    pub mask_editor_help: &'static str,
    pub mask_all: &'static str,
    pub mask_causal_preset: &'static str,
    pub weights_section: &'static str,
    pub seed: &'static str,
    pub reroll: &'static str,
    pub layer_section: &'static str,
    pub layer_norm_names: [&'static str; 3],
    pub layer_norm_help: &'static str,
    pub flash_section: &'static str,
    pub block_rows: &'static str,
    pub block_cols: &'static str,
    pub block_help: &'static str,
    pub kv_adjusted: &'static str,
    pub head_label: &'static str,
    pub all_heads: &'static str,
    pub all_heads_help: &'static str,
    pub head_view_title: &'static str,
    pub head_view_help: &'static str,
    pub queries: &'static str,
    pub keys: &'static str,
    pub pipeline_title: &'static str,
    pub step: &'static str,
    pub masked_legend: &'static str,
    pub computed_on_cpu: &'static str,
    pub computed_on_gpu: &'static str,
    pub computing: &'static str,
    pub last_update: &'static str,
    pub backend_section: &'static str,
    pub backend_names: [&'static str; 3],
    pub backend_help: &'static str,
    pub gpu_probing: &'static str,
    pub gpu_ready: &'static str,
    pub gpu_software: &'static str,
    pub gpu_none: &'static str,
    pub gpu_lost: &'static str,
    pub gpu_retry: &'static str,
    pub flash_equal: &'static str,
    pub fully_masked_note: &'static str,
    pub cell_hint: &'static str,
    pub show_table: &'static str,
    pub hide_table: &'static str,
    pub rows_and_columns: &'static str,
    pub copy_link: &'static str,
    pub copy_embed: &'static str,
    pub download_trace: &'static str,
    pub copied: &'static str,
    pub copy_by_hand: &'static str,
    pub open_full: &'static str,
    pub export_png: &'static str,
    pub export_csv: &'static str,
    pub export_svg: &'static str,
    pub dismiss: &'static str,
}

static EN: Text = Text {
    title: "Attention Lab",
    tagline: "Type a sentence and watch attention compute, step by step, on your own words.",
    switch_language: "中文",
    theme: "Theme",
    theme_names: ["auto", "light", "dark"],
    sentence_label: "Sentence",
    sentence_placeholder: "Type English, Chinese, or both…",
    examples_label: "Examples",
    tokens_label: "Tokens",
    cross_attention: "Cross-attention",
    cross_attention_help: "Take keys and values from a second sentence, as a decoder reads its encoder.",
    source_label: "Source sentence (keys and values)",
    source_placeholder: "The sentence the queries look at…",
    source_tokens_label: "Source tokens",
    showing_last_good: "The views still show the last valid result.",
    model_section: "Model shape",
    d_model_help: "width of each token's vector",
    heads: "heads",
    kv_heads: "K/V heads",
    kv_kind: [
        "multi-head (MHA)",
        "grouped-query (GQA)",
        "multi-query (MQA)",
    ],
    auto: "auto",
    d_k_help: "width of a query/key per head (auto: d_model / heads)",
    d_v_help: "width of a value per head (auto: d_k)",
    softmax_section: "Softmax",
    temperature: "temperature T",
    temperature_help: "Scores are divided by √d_k · T: a small T sharpens attention onto one key, a large T spreads it evenly.",
    mask_section: "Mask",
    mask_names: ["none", "causal", "padding", "window", "custom"],
    mask_help: [
        "Every query may look at every key.",
        "A query may look only at itself and earlier keys, as when generating text left to right.",
        "Keys past the valid length are padding: no query may look at them.",
        "A query looks only at keys within the radius around its own position.",
        "Choose each allowed cell yourself.",
    ],
    valid_len: "valid length",
    radius: "radius",
    mask_editor_help: "Click or drag across cells to switch them on or off. Rows are queries, columns keys.",
    mask_all: "allow all",
    mask_causal_preset: "start from causal",
    weights_section: "Weights",
    seed: "seed",
    reroll: "Re-roll",
    layer_section: "Residual + LayerNorm",
    layer_norm_names: ["off", "Pre-LN", "Post-LN"],
    layer_norm_help: "Pre-LN: x + MHA(LN(x)). Post-LN: LN(x + MHA(x)). ε = 10⁻⁶.",
    flash_section: "FlashAttention tiles",
    block_rows: "rows (queries)",
    block_cols: "columns (keys)",
    block_help: "Tile size of the tiled computation; the result does not depend on it.",
    kv_adjusted: "K/V heads were set to {n}: the number of heads must be a multiple of it.",
    head_label: "Head",
    all_heads: "All heads",
    all_heads_help: "The attention weights of every head. Click one to inspect it.",
    head_view_title: "Who looks at whom",
    head_view_help: "Each line joins a query (left) to a key (right); the thicker and darker, the larger the weight. For long sentences only each query's strongest links are drawn. Hover a token to see all of its lines.",
    queries: "queries",
    keys: "keys",
    pipeline_title: "The computation, step by step",
    step: "Step",
    masked_legend: "grey checks: masked (−∞)",
    computed_on_cpu: "CPU",
    computed_on_gpu: "GPU",
    computing: "computing…",
    last_update: "last update",
    backend_section: "Compute on",
    backend_names: ["auto", "GPU", "CPU"],
    backend_help: "Auto uses a hardware GPU from 512 tokens up; below that, the CPU is faster than a round trip to the GPU.",
    gpu_probing: "Looking for a GPU…",
    gpu_ready: "WebGPU:",
    gpu_software: "(software, slower than the CPU)",
    gpu_none: "No GPU:",
    gpu_lost: "The GPU device was lost. The CPU took over and your settings are kept.",
    gpu_retry: "Retry the GPU",
    flash_equal: "FlashAttention, computed tile by tile, gives the same output: max |Δ| =",
    fully_masked_note: "Every key is masked for queries {rows}: their weights and outputs are all zero.",
    cell_hint: "Hover a cell, or focus a heatmap and use the arrow keys, to see how its value was computed.",
    show_table: "Show as table",
    hide_table: "Hide the table",
    rows_and_columns: "rows and columns",
    copy_link: "Copy link",
    copy_embed: "Copy embed code",
    download_trace: "Download the trace (JSON)",
    copied: "Copied.",
    copy_by_hand: "The clipboard is not available here: select the text and copy it.",
    open_full: "Open the full lab ↗",
    export_png: "PNG",
    export_csv: "CSV",
    export_svg: "SVG",
    dismiss: "Dismiss",
};

static ZH: Text = Text {
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
    showing_last_good: "下方仍显示上一次的有效结果。",
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
    mask_names: ["无", "因果", "填充", "滑动窗口", "自定义"],
    mask_help: [
        "每个查询都可以看所有的键。",
        "查询只能看自己和它之前的键，就像从左到右逐字生成文本。",
        "有效长度之后的键是填充，任何查询都不能看。",
        "查询只看自己位置附近、半径以内的键。",
        "由你逐格决定哪些位置可以看。",
    ],
    valid_len: "有效长度",
    radius: "半径",
    mask_editor_help: "点击或拖过格子来打开或关闭它们。行是查询，列是键。",
    mask_all: "全部允许",
    mask_causal_preset: "从因果掩码开始",
    weights_section: "权重",
    seed: "随机种子",
    reroll: "重新生成",
    layer_section: "残差 + 层归一化",
    layer_norm_names: ["关闭", "Pre-LN", "Post-LN"],
    layer_norm_help: "Pre-LN：x + MHA(LN(x))。Post-LN：LN(x + MHA(x))。ε = 10⁻⁶。",
    flash_section: "FlashAttention 分块",
    block_rows: "行（查询）",
    block_cols: "列（键）",
    block_help: "分块计算的块大小；计算结果与它无关。",
    kv_adjusted: "K/V 头数已改为 {n}：头数必须是它的整数倍。",
    head_label: "头",
    all_heads: "所有头",
    all_heads_help: "每个头的注意力权重。点击其中一个查看细节。",
    head_view_title: "谁在看谁",
    head_view_help: "每条线把一个查询（左）连到一个键（右）；线越粗越深，权重越大。句子较长时，每个查询只画出最强的几条连线。把指针停在某个词元上，可以看到它的全部连线。",
    queries: "查询",
    keys: "键",
    pipeline_title: "逐步计算",
    step: "第",
    masked_legend: "灰色方格：被遮挡（−∞）",
    computed_on_cpu: "CPU",
    computed_on_gpu: "GPU",
    computing: "计算中……",
    last_update: "最近一次更新",
    backend_section: "计算设备",
    backend_names: ["自动", "GPU", "CPU"],
    backend_help: "自动模式在 512 个词元及以上、且有硬件 GPU 时使用 GPU；更短的输入用 CPU 更快，省去与 GPU 往返的开销。",
    gpu_probing: "正在寻找 GPU……",
    gpu_ready: "WebGPU：",
    gpu_software: "（软件实现，比 CPU 慢）",
    gpu_none: "没有可用的 GPU：",
    gpu_lost: "GPU 设备已丢失，已改由 CPU 计算，你的设置都保留着。",
    gpu_retry: "重试 GPU",
    flash_equal: "FlashAttention 逐块计算，得到相同的输出：最大 |Δ| =",
    fully_masked_note: "查询 {rows} 的所有键都被遮挡：它们的权重和输出全为 0。",
    cell_hint: "把指针停在格子上，或选中热图后用方向键移动，即可看到该数值是怎样算出来的。",
    show_table: "以表格显示",
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
};

/// A stage's title, formula and explanation.
pub struct StageText {
    pub title: &'static str,
    pub formula: &'static str,
    pub caption: &'static str,
}

impl Lang {
    pub fn text(self) -> &'static Text {
        match self {
            Self::En => &EN,
            Self::Zh => &ZH,
        }
    }

    pub fn other(self) -> Self {
        match self {
            Self::En => Self::Zh,
            Self::Zh => Self::En,
        }
    }

    /// The `lang` attribute value.
    pub fn code(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::Zh => "zh-CN",
        }
    }

    /// Chinese when the browser prefers it, else English.
    pub fn from_browser() -> Self {
        #[cfg(target_arch = "wasm32")]
        if let Some(language) = web_sys::window().and_then(|w| w.navigator().language())
            && language.to_ascii_lowercase().starts_with("zh")
        {
            return Self::Zh;
        }
        Self::En
    }

    /// The title, formula and caption of a stage of the pipeline.
    pub fn stage(self, stage: Stage) -> StageText {
        let (title, formula, caption) = match (stage, self) {
            (Stage::Embeddings, Lang::En) => (
                "Token embeddings E",
                "E = embed(token)",
                "Each token becomes a vector of d_model numbers. Here the vectors are fixed random draws keyed by the token's text, standing in for a trained table.",
            ),
            (Stage::Embeddings, Lang::Zh) => (
                "词向量 E",
                "E = embed(token)",
                "每个词元变成 d_model 个数组成的向量。这里的向量由词元文本决定的随机数生成，代替训练好的词表。",
            ),
            (Stage::Positions, Lang::En) => (
                "Positions P",
                "P[pos, 2i] = sin(pos / 10000^(2i/d)), P[pos, 2i+1] = cos(…)",
                "Attention itself ignores order, so each position adds its own pattern of sines and cosines at different frequencies.",
            ),
            (Stage::Positions, Lang::Zh) => (
                "位置编码 P",
                "P[pos, 2i] = sin(pos / 10000^(2i/d)), P[pos, 2i+1] = cos(…)",
                "注意力本身不区分顺序，所以每个位置加上一组频率不同的正弦和余弦。",
            ),
            (Stage::X, Lang::En) => (
                "Input X",
                "X = E + P",
                "What attention reads: one row per token, meaning plus position.",
            ),
            (Stage::X, Lang::Zh) => (
                "输入 X",
                "X = E + P",
                "注意力读取的内容：每个词元一行，含义加位置。",
            ),
            (Stage::NormedX, Lang::En) => (
                "LayerNorm(X)",
                "(x − μ) / √(σ² + ε)",
                "Pre-LN normalises each row before attention: mean 0, variance 1.",
            ),
            (Stage::NormedX, Lang::Zh) => (
                "层归一化 LN(X)",
                "(x − μ) / √(σ² + ε)",
                "Pre-LN 在注意力之前把每一行归一化：均值为 0，方差为 1。",
            ),
            (Stage::Q, Lang::En) => ("Queries Q", "Q = X W_Q", "What each token is looking for."),
            (Stage::Q, Lang::Zh) => ("查询 Q", "Q = X W_Q", "每个词元想要寻找的信息。"),
            (Stage::K, Lang::En) => (
                "Keys K",
                "K = X W_K",
                "What each token offers to be found by.",
            ),
            (Stage::K, Lang::Zh) => ("键 K", "K = X W_K", "每个词元用来被匹配的特征。"),
            (Stage::V, Lang::En) => (
                "Values V",
                "V = X W_V",
                "What each token passes on once it is attended to.",
            ),
            (Stage::V, Lang::Zh) => ("值 V", "V = X W_V", "词元被关注时传递出去的内容。"),
            (Stage::Dot, Lang::En) => (
                "Dot products",
                "QKᵀ",
                "How well query i matches key j: the dot product of their vectors.",
            ),
            (Stage::Dot, Lang::Zh) => ("点积", "QKᵀ", "查询 i 与键 j 的匹配程度：两个向量的点积。"),
            (Stage::Scaled, Lang::En) => (
                "Scaled scores",
                "QKᵀ / (√d_k · T)",
                "A dot product of d_k terms has variance about d_k; dividing by √d_k brings it back to about 1, so softmax does not saturate. T then sharpens or flattens.",
            ),
            (Stage::Scaled, Lang::Zh) => (
                "缩放后的分数",
                "QKᵀ / (√d_k · T)",
                "d_k 项之和的点积方差约为 d_k；除以 √d_k 让方差回到 1 左右，softmax 就不会饱和。温度 T 再让分布变尖或变平。",
            ),
            (Stage::Masked, Lang::En) => (
                "Mask",
                "S + M, M = 0 or −∞",
                "Hidden pairs get −∞, so after softmax their weight is exactly 0.",
            ),
            (Stage::Masked, Lang::Zh) => (
                "加上掩码",
                "S + M，M 为 0 或 −∞",
                "被遮挡的位置加上 −∞，softmax 之后权重恰好为 0。",
            ),
            (Stage::Weights, Lang::En) => (
                "Attention weights",
                "softmax(S + M), row by row",
                "Each row becomes a probability distribution over the keys. The row maximum is subtracted before exp for numerical stability.",
            ),
            (Stage::Weights, Lang::Zh) => (
                "注意力权重",
                "对每一行做 softmax(S + M)",
                "每一行变成键上的概率分布。取指数前先减去该行最大值，保证数值稳定。",
            ),
            (Stage::HeadOutput, Lang::En) => (
                "Head output",
                "weights · V",
                "Each query's new vector: the values, mixed in proportion to the weights.",
            ),
            (Stage::HeadOutput, Lang::Zh) => (
                "单头输出",
                "weights · V",
                "每个查询的新向量：按权重比例混合各个值向量。",
            ),
            (Stage::Concat, Lang::En) => (
                "Concatenated heads",
                "[head₁ | head₂ | … ]",
                "The outputs of all heads side by side.",
            ),
            (Stage::Concat, Lang::Zh) => (
                "拼接各头",
                "[head₁ | head₂ | … ]",
                "所有头的输出并排拼在一起。",
            ),
            (Stage::Projected, Lang::En) => (
                "Output projection",
                "concat · W_O",
                "W_O mixes the heads back into d_model numbers per token.",
            ),
            (Stage::Projected, Lang::Zh) => (
                "输出投影",
                "concat · W_O",
                "W_O 把各头的结果重新混合成每个词元 d_model 个数。",
            ),
            (Stage::Output, Lang::En) => (
                "Block output",
                "x + MHA(LN(x))  or  LN(x + MHA(x))",
                "The residual connection adds the input back; LayerNorm keeps the scale steady.",
            ),
            (Stage::Output, Lang::Zh) => (
                "模块输出",
                "x + MHA(LN(x)) 或 LN(x + MHA(x))",
                "残差连接把输入加回来；层归一化让数值尺度保持稳定。",
            ),
        };
        StageText {
            title,
            formula,
            caption,
        }
    }
}

/// Why the CPU computed, in words, from a fallback's code and detail.
pub fn fallback_message(code: &str, detail: &str, lang: Lang) -> String {
    let with = |text: &str| {
        if detail.is_empty() {
            text.to_string()
        } else {
            format!("{text} ({detail})")
        }
    };
    match (code, lang) {
        ("no-webgpu", Lang::En) => "This browser offers no WebGPU, so the CPU computes.".into(),
        ("no-webgpu", Lang::Zh) => "这个浏览器不支持 WebGPU，因此由 CPU 计算。".into(),
        ("no-adapter", Lang::En) => with("No GPU adapter was found, so the CPU computes"),
        ("no-adapter", Lang::Zh) => with("找不到 GPU 适配器，因此由 CPU 计算"),
        ("device-request-failed", Lang::En) => {
            with("The GPU would not open a device, so the CPU computes")
        }
        ("device-request-failed", Lang::Zh) => with("GPU 无法打开设备，因此由 CPU 计算"),
        ("device-lost", Lang::En) => with("The GPU device was lost; the CPU took over"),
        ("device-lost", Lang::Zh) => with("GPU 设备已丢失，已改由 CPU 计算"),
        ("shader-error", Lang::En) => with("A GPU shader failed, so the CPU computes"),
        ("shader-error", Lang::Zh) => with("GPU 着色器出错，因此由 CPU 计算"),
        ("too-large", Lang::En) => with("Too large for this GPU's buffers, so the CPU computes"),
        ("too-large", Lang::Zh) => with("超出了这块 GPU 的缓冲区上限，因此由 CPU 计算"),
        ("readback-failed", Lang::En) => {
            with("Reading results back from the GPU failed, so the CPU computes")
        }
        ("readback-failed", Lang::Zh) => with("从 GPU 读回结果失败，因此由 CPU 计算"),
        ("software-adapter", Lang::En) => {
            format!("The only GPU here is a software one ({detail}); the CPU is faster.")
        }
        ("software-adapter", Lang::Zh) => {
            format!("这里唯一的 GPU 是软件实现（{detail}），CPU 更快。")
        }
        ("small-input", Lang::En) => {
            format!("Below {detail} tokens the CPU is faster than a round trip to the GPU.")
        }
        ("small-input", Lang::Zh) => format!("少于 {detail} 个词元时，CPU 比与 GPU 往返更快。"),
        ("probing", Lang::En) => "Still looking for a GPU; the CPU computes meanwhile.".into(),
        ("probing", Lang::Zh) => "仍在寻找 GPU，期间由 CPU 计算。".into(),
        (_, Lang::En) => with("The GPU is not ready, so the CPU computes"),
        (_, Lang::Zh) => with("GPU 尚未就绪，因此由 CPU 计算"),
    }
}

/// Example sentences offered under the sentence box.
pub const EXAMPLES: [&str; 5] = [
    "The cat sat on the mat because it was tired.",
    "猫坐在垫子上，因为它累了。",
    "注意力机制让每个词都能看到整句话。",
    "I ❤️ attention: 注意力 is all you need!",
    "The animal didn't cross the street because it was too wide.",
];

/// A message for the user, in their language, naming what to fix.
pub fn request_error_message(error: &RequestError, lang: Lang) -> String {
    match (error, lang) {
        (RequestError::Config(config), _) => config_error_message(config, lang),
        (_, Lang::En) => error.to_string(),
        (RequestError::Json { path, message }, Lang::Zh) => format!("参数 {path} 无效：{message}"),
        (RequestError::Input { field, .. }, Lang::Zh) => {
            format!("{field}：请只用 sentence、tokens、x 中的一种方式给出输入")
        }
    }
}

/// The Chinese (or English) wording of a core error.
pub fn config_error_message(error: &ConfigError, lang: Lang) -> String {
    if lang == Lang::En {
        return match error {
            // The core's wording advises the CLI's `trace = false`; the page has its own advice.
            ConfigError::TraceTooLarge { cells, max } => format!(
                "Too much to show step by step: heads × tokens × keys = {cells} attention cells, at most {max}. Shorten the sentence or use fewer heads."
            ),
            _ => error.to_string(),
        };
    }
    match error {
        ConfigError::EmptyInput { .. } => {
            "句子是空的：请至少输入一个词，注意力才有对象可看。".into()
        }
        ConfigError::EmptyToken { field, index } => format!("{field}：第 {index} 个词元是空的。"),
        ConfigError::TooManyTokens { max, .. } => {
            format!("词元太多：超过了 {max} 个，本实验室最多处理 {max} 个。")
        }
        ConfigError::TooSmall { field, value, min } => {
            format!("{field} 至少为 {min}（当前为 {value}）。")
        }
        ConfigError::TooLarge { field, value, max } => {
            format!("{field} 最多为 {max}（当前为 {value}）。")
        }
        ConfigError::KvHeadsDoNotDivide {
            n_heads,
            n_kv_heads,
        } => format!(
            "K/V 头数必须整除查询头数：{n_heads} 个查询头无法平均分给 {n_kv_heads} 个 K/V 头。"
        ),
        ConfigError::BadTemperature { value } => {
            format!("温度须在 0.0001 到 10000 之间（当前为 {value}）；T = 0 会导致除以零。")
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
    }
}

/// The FlashAttention view's text in one language.
pub struct FlashText {
    pub title: &'static str,
    pub caption: &'static str,
    pub keys_hint: &'static str,
    pub play: &'static str,
    pub pause: &'static str,
    pub back: &'static str,
    pub forward: &'static str,
    pub to_start: &'static str,
    pub to_end: &'static str,
    pub speed: &'static str,
    pub frame: &'static str,
    pub grid_title: &'static str,
    pub grid_summary: &'static str,
    pub legend: [&'static str; 4],
    pub pseudocode_title: &'static str,
    pub pseudocode: [&'static str; 11],
    pub phases: [&'static str; 8],
    pub block_title: &'static str,
    pub columns: [&'static str; 4],
    pub tile_scores: &'static str,
    pub tile_probs: &'static str,
    pub accumulator: &'static str,
    pub output_rows: &'static str,
    pub no_tile: &'static str,
    pub tiles: &'static str,
    pub skipped: &'static str,
    pub held: &'static str,
    pub one_tile: &'static str,
    pub all_scores: &'static str,
    pub traffic: &'static str,
    pub traffic_flash: &'static str,
    pub traffic_standard: &'static str,
    pub reads: &'static str,
    pub writes: &'static str,
    pub equal: &'static str,
    pub chart_title: &'static str,
    pub chart_x: &'static str,
    pub chart_y: &'static str,
    pub chart_standard: &'static str,
    pub chart_flash: &'static str,
}

static FLASH_EN: FlashText = FlashText {
    title: "FlashAttention, tile by tile",
    caption: "The same result without ever holding the whole score matrix: queries and keys are cut into tiles, and a running maximum m and sum l per row let each tile be folded into the output as it comes (the online softmax).",
    keys_hint: "Keys: Space plays or pauses, ← → step, Home and End jump.",
    play: "Play",
    pause: "Pause",
    back: "Step back",
    forward: "Step forward",
    to_start: "To the start",
    to_end: "To the end",
    speed: "steps per second",
    frame: "step {i} of {n}",
    grid_title: "Score matrix, in tiles",
    grid_summary: "Long input: each cell below is a whole tile.",
    legend: [
        "not yet",
        "done",
        "current tile",
        "masked (skipped if the whole tile is)",
    ],
    pseudocode_title: "The algorithm",
    pseudocode: [
        "Split Q into blocks of B_r rows, K and V into blocks of B_c rows.",
        "for each query block i:",
        "    load Q_i into fast memory; m ← −∞, l ← 0, O_i ← 0",
        "    for each key/value block j:",
        "        if the mask hides the whole tile (i, j): skip it",
        "        load K_j, V_j; S ← Q_i K_jᵀ / (√d_k · T), −∞ where masked",
        "        m_new ← max(m, rowmax(S))",
        "        P ← exp(S − m_new)",
        "        l ← exp(m − m_new) · l + rowsum(P)",
        "        O_i ← exp(m − m_new) · O_i + P V_j;  m ← m_new",
        "    O_i ← O_i / l; write O_i to slow memory",
    ],
    phases: [
        "Query block {i} starts: rows {rows} with m = −∞, l = 0 and an empty output.",
        "Tile ({i}, {j}) is entirely masked: it is skipped, and K_j, V_j are not even loaded.",
        "Tile ({i}, {j}): the scores of queries {rows} against keys {cols}.",
        "Each row's running maximum grows to include this tile.",
        "exp(S − m_new): no value exceeds 1, so nothing can overflow.",
        "The old sum shrinks by exp(m − m_new), then this tile's row sums are added.",
        "The output rows shrink by the same factor, then this tile's P·V is added.",
        "Dividing by l turns the sums into softmax weights: rows {rows} are final.",
    ],
    block_title: "The current query block",
    columns: [
        "query",
        "running max m",
        "rescale exp(m − m_new)",
        "running sum l",
    ],
    tile_scores: "This tile's scores S",
    tile_probs: "This tile's exp(S − m_new)",
    accumulator: "Output accumulator O_i (not yet divided by l)",
    output_rows: "Output rows O_i / l",
    no_tile: "No tile at this step.",
    tiles: "tiles",
    skipped: "skipped",
    held: "Score elements held at once",
    one_tile: "flash: one tile",
    all_scores: "standard: all",
    traffic: "Floats moved to and from slow memory (the paper's model)",
    traffic_flash: "flash, so far",
    traffic_standard: "standard, whole run",
    reads: "read",
    writes: "written",
    equal: "Flash output = standard output: the largest difference is",
    chart_title: "Score elements held at once",
    chart_x: "sequence length",
    chart_y: "elements",
    chart_standard: "standard (n²)",
    chart_flash: "flash (one tile)",
};

static FLASH_ZH: FlashText = FlashText {
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
    frame: "第 {i} 步，共 {n} 步",
    grid_title: "分块的分数矩阵",
    grid_summary: "输入较长：下图每个格子代表一整块。",
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
    phases: [
        "查询块 {i} 开始：第 {rows} 行，m = −∞，l = 0，输出为空。",
        "块 ({i}, {j}) 被完全遮挡：直接跳过，连 K_j、V_j 都不读入。",
        "块 ({i}, {j})：查询 {rows} 与键 {cols} 的分数。",
        "每一行的运行最大值把这一块也考虑进来。",
        "exp(S − m_new)：所有值都不超过 1，不会溢出。",
        "旧的和先乘以 exp(m − m_new) 缩小，再加上这一块的行和。",
        "输出行也乘以同一个因子，再加上这一块的 P·V。",
        "除以 l 后，累加值变成 softmax 权重的加权和：第 {rows} 行计算完成。",
    ],
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
};

impl Lang {
    pub fn flash(self) -> &'static FlashText {
        match self {
            Self::En => &FLASH_EN,
            Self::Zh => &FLASH_ZH,
        }
    }
}
