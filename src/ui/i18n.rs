//! Every sentence the app shows, in English and Chinese. A struct per language, so a string
//! missing in one language is a compile error.

use crate::api::RequestError;
use crate::core::ConfigError;

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
    pub sentence_label: &'static str,
    pub sentence_placeholder: &'static str,
    pub examples_label: &'static str,
    pub tokens_label: &'static str,
    pub weights_title: &'static str,
    pub weights_caption: &'static str,
    pub rows_are_queries: &'static str,
    pub showing_last_good: &'static str,
    pub computed_in: &'static str,
}

static EN: Text = Text {
    title: "Attention Lab",
    tagline: "Type a sentence and watch self-attention compute, step by step, on your own words.",
    switch_language: "中文",
    sentence_label: "Sentence",
    sentence_placeholder: "Type English, Chinese, or both…",
    examples_label: "Examples",
    tokens_label: "Tokens",
    weights_title: "Attention weights",
    weights_caption: "Each row is a query token; its cells show how much it attends to each key token. Every row sums to 1.",
    rows_are_queries: "rows: queries · columns: keys",
    showing_last_good: "Showing the last valid result.",
    computed_in: "computed on the CPU in",
};

static ZH: Text = Text {
    title: "注意力实验室",
    tagline: "输入一句话，逐步观察自注意力如何在你自己的词语上完成计算。",
    switch_language: "English",
    sentence_label: "句子",
    sentence_placeholder: "输入中文、英文或混合文本……",
    examples_label: "示例",
    tokens_label: "词元",
    weights_title: "注意力权重",
    weights_caption: "每一行对应一个查询词元，格子表示它分给各个键词元的注意力；每行之和为 1。",
    rows_are_queries: "行：查询 · 列：键",
    showing_last_good: "下方仍显示上一次的有效结果。",
    computed_in: "CPU 计算用时",
};

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
}

/// Example sentences offered under the sentence box.
pub const EXAMPLES: [&str; 4] = [
    "The cat sat on the mat because it was tired.",
    "猫坐在垫子上，因为它累了。",
    "注意力机制让每个词都能看到整句话。",
    "I ❤️ attention: 注意力 is all you need!",
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
        return error.to_string();
    }
    match error {
        ConfigError::EmptyInput { .. } => {
            "句子是空的：请至少输入一个词，注意力才有对象可看。".into()
        }
        ConfigError::EmptyToken { field, index } => format!("{field}：第 {index} 个词元是空的。"),
        ConfigError::TooManyTokens { count, max, .. } => {
            format!("词元太多：至少有 {count} 个，本实验室最多处理 {max} 个。")
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
            "要逐步记录的注意力格子太多（{cells} 个，上限 {max} 个）；请改用 trace = false。"
        ),
    }
}
