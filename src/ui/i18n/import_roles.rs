//! The words of what each head of a user's own attention does (and of a long head's zoom) (its roles, measured over every
//! query that can show each) and of the ways to look at a file (special tokens hidden, the mean
//! over heads or layers), in both languages.

use attention_core::io::head_roles::{HeadRole, RowsAre};
use attention_core::io::imported_views::CannotHide;

use super::Lang;

pub struct RolesTexts {
    /// In [`HeadRole::ALL`]'s order.
    pub names: [&'static str; 8],
    /// (what the rows are): how the table is measured.
    pub help: fn(&RowsAre) -> String,
    /// Cross-attention: which roles mean anything.
    pub cross: &'static str,
    /// (queries): under a role's name, how many queries its mean is over.
    pub over: fn(usize) -> String,
    /// A cell where no query can show the role.
    pub none: &'static str,
    /// (special tokens found): the control that hides them.
    pub hide_label: fn(&str) -> String,
    pub hide_help: &'static str,
    pub view_label: &'static str,
    /// Each head, the mean of each layer's heads, the mean of each head over the layers.
    pub views: [&'static str; 3],
    /// A mean's title: (layer or head number, how many it averages).
    pub mean_heads_title: fn(usize, usize) -> String,
    pub mean_layers_title: fn(usize, usize) -> String,
    pub mean_note: &'static str,
    /// Under a long head's zoomed region: its cells are the file's own.
    pub zoom_hint: &'static str,
}

impl Lang {
    pub fn import_roles(self) -> &'static RolesTexts {
        match self {
            Lang::En => &EN,
            Lang::Zh => &ZH,
        }
    }

    pub fn role_name(self, role: HeadRole) -> &'static str {
        let at = HeadRole::ALL.iter().position(|r| *r == role).unwrap_or(0);
        self.import_roles().names[at]
    }

    /// Why special tokens cannot be hidden.
    pub fn cannot_hide(self, why: CannotHide) -> &'static str {
        match (self, why) {
            (Lang::En, CannotHide::NoSpecialTokens) => {
                "No token here is a special token ([CLS], [SEP], <s>, </s>, <|endoftext|>, …)."
            }
            (Lang::En, CannotHide::AllSpecial) => {
                "Every query or every key is a special token: nothing would be left to show."
            }
            (Lang::En, CannotHide::NotWeights) => {
                "These numbers are not weights (some are negative): they cannot be renormalised."
            }
            (Lang::Zh, CannotHide::NoSpecialTokens) => {
                "这里没有特殊词元（[CLS]、[SEP]、<s>、</s>、<|endoftext|> 等）。"
            }
            (Lang::Zh, CannotHide::AllSpecial) => {
                "所有查询或所有键都是特殊词元：隐藏之后什么也不剩。"
            }
            (Lang::Zh, CannotHide::NotWeights) => "这些数不是权重（有负数）：无法重新归一化。",
        }
    }
}

fn not_weights_en(layer: usize, head: usize, row: usize, value: Option<f32>, sum: f32) -> String {
    let what = match value {
        Some(v) => format!("holds {v}"),
        None => format!("sums to {sum:.4}"),
    };
    format!(
        "These numbers are not attention weights: layer {}, head {}, row {} {what}. Scores or logits? Roles and entropy need weights (numbers ≥ 0 whose rows sum to 1), so none is measured; the maps show the numbers as they are.",
        layer + 1,
        head + 1,
        row + 1
    )
}

fn not_weights_zh(layer: usize, head: usize, row: usize, value: Option<f32>, sum: f32) -> String {
    let what = match value {
        Some(v) => format!("含有 {v}"),
        None => format!("之和为 {sum:.4}"),
    };
    format!(
        "这些数不是注意力权重：第 {} 层第 {} 个头的第 {} 行{what}。也许是分数或 logits？角色和熵只能在权重（非负、每行之和为 1）上计算，所以这里都不给出；各图按原样显示这些数。",
        layer + 1,
        head + 1,
        row + 1
    )
}

pub static EN: RolesTexts = RolesTexts {
    names: [
        "previous",
        "induction",
        "same token",
        "first",
        "itself",
        "next",
        "special",
        "punctuation",
    ],
    help: |rows| {
        let measured = "Each column is the mean weight a head puts on one role's keys, over every query that can show that role (the count under its name); a key can count in two roles, so a row need not add up to 1. Tokens with the same text count as the same token; the next token shows only where a head sees later keys (an encoder). Entropy: the mean over the rows that are distributions, in bits.";
        match *rows {
            RowsAre::Weights => measured.to_string(),
            RowsAre::PartWeights { rows } => format!(
                "{measured} {rows} rows sum to less than 1 (a sink logit, or keys left out of the file): their numbers are weights, not shares of a whole, and their entropy is not counted."
            ),
            RowsAre::NotWeights {
                layer,
                head,
                row,
                value,
                sum,
            } => not_weights_en(layer, head, row, value, sum),
        }
    },
    cross: "The keys are not the queries (cross-attention): only the first key, special tokens and punctuation are roles here.",
    over: |queries| {
        if queries == 1 {
            "1 query".to_string()
        } else {
            format!("{queries} queries")
        }
    },
    none: "—",
    hide_label: |found| format!("Hide special tokens ({found})"),
    hide_help: "Their rows and columns are taken out, and each row is divided by what is left of it so that it sums to 1 again: where the rest of the weight goes.",
    view_label: "Show",
    views: [
        "each head",
        "the mean of each layer's heads",
        "the mean of each head over the layers",
    ],
    mean_heads_title: |layer, heads| format!("Layer {layer} · mean of {heads} heads"),
    mean_layers_title: |head, layers| format!("Head {head} · mean over {layers} layers"),
    mean_note: "A mean view: each map is the mean of the weights it names. Q, K and the outputs belong to single heads, so only weights are shown.",
    zoom_hint: "Every cell of the region as the head has it, with its tokens. Point at one to read it.",
};

pub static ZH: RolesTexts = RolesTexts {
    names: [
        "前一个",
        "归纳",
        "相同词元",
        "第一个",
        "自身",
        "下一个",
        "特殊词元",
        "标点",
    ],
    help: |rows| {
        let measured = "每一列是某个头放在一种角色的键上的平均权重，平均范围是所有能显现这种角色的查询（数目写在角色名下面）；同一个键可以同时属于两种角色，所以一行加起来不一定是 1。文本相同的词元视为同一个词元；只有能看到后面的键的头（编码器）才会显现“下一个”。熵：在那些构成概率分布的行上取平均，单位为比特。";
        match *rows {
            RowsAre::Weights => measured.to_string(),
            RowsAre::PartWeights { rows } => format!(
                "{measured}有 {rows} 行之和小于 1（有 sink logit，或文件里少了一些键）：这些数是权重，而不是整体中的份额；这些行不计入熵。"
            ),
            RowsAre::NotWeights {
                layer,
                head,
                row,
                value,
                sum,
            } => not_weights_zh(layer, head, row, value, sum),
        }
    },
    cross: "键不是查询本身（交叉注意力）：这里只有第一个键、特殊词元和标点算作角色。",
    over: |queries| format!("{queries} 个查询"),
    none: "—",
    hide_label: |found| format!("隐藏特殊词元（{found}）"),
    hide_help: "去掉它们所在的行和列，再把每行除以剩下部分的和，使它重新等于 1：看看其余的权重落在哪里。",
    view_label: "显示",
    views: ["每个头", "每层各头的平均", "每个头在各层上的平均"],
    mean_heads_title: |layer, heads| format!("第 {layer} 层 · {heads} 个头的平均"),
    mean_layers_title: |head, layers| format!("第 {head} 个头 · {layers} 层的平均"),
    mean_note: "这是平均视图：每张图是它所标明的那些权重的平均。Q、K 和输出属于单个头，所以这里只显示权重。",
    zoom_hint: "这个区域的每个格子都是该头的原始数值，并标出词元。把指针移到格子上即可读数。",
};
