//! The words of the Llama twins' comparison in the Streaming section: the Llama model and the
//! same layout with an output gate on every head, read through the same rolling cache.

use attention_core::models::sinks::TwinVerdict;

pub struct TwinTexts {
    pub title: &'static str,
    pub help: &'static str,
    /// The help in the hybrids chapter, where no text is shown: what the twins read there.
    pub lesson_help: &'static str,
    pub run: &'static str,
    /// While the other twin's files come.
    pub loading: &'static str,
    /// The other twin could not be fetched: (the reason).
    pub failed: fn(&str) -> String,
    /// The table's caption: (the characters the shares and activations are read over), and its
    /// column heads: the measure, each twin.
    pub caption: fn(usize) -> String,
    pub columns: [&'static str; 3],
    /// Row heads: the strongest head's share, the largest activation, the mean loss with the
    /// sink tokens (sink tokens), without them, what dropping them costs.
    pub share_row: &'static str,
    pub activation_row: &'static str,
    pub with_row: fn(usize) -> String,
    pub without_row: &'static str,
    pub cost_row: &'static str,
    /// A share cell: (share, layer from 1, head from 1).
    pub share_cell: fn(f32, usize, usize) -> String,
    /// An activation cell: (|value|, times the mean |value|, layer from 1).
    pub activation_cell: fn(f32, f32, usize) -> String,
    /// What the twins show: (verdict, ungated strongest share, gated strongest share, ungated
    /// cost of dropping the sinks, gated cost, the threshold).
    pub verdict: fn(TwinVerdict, f32, f32, f32, f32, f32) -> String,
    /// What was tried (said under the verdict, whatever it is): (the ungated twin's context,
    /// the gated twin's).
    pub tried: fn(usize, usize) -> String,
    pub stale: &'static str,
}

pub const EN: TwinTexts = TwinTexts {
    title: "The twins: does the output gate remove the sink?",
    help: "The Llama model and its twin, which multiplies each head's output by a sigmoid gate, trained here on the same text and characters. Both read the text of this section with the same window and sink tokens; compare the three signs of a sink, and read below the table how alike their training was.",
    lesson_help: "The Llama model and its twin, which multiplies each head's output by a sigmoid gate, trained here on the same text and characters. Both read the Streaming section's sample passage (956 characters) through a rolling cache of the last 64 characters, with and without the first 4 kept; compare the three signs of a sink, and read below the table how alike their training was.",
    run: "Compare the twins",
    loading: "Fetching the twins' files (4 MB each, from this site) and reading the text through both…",
    failed: |why| format!("A twin could not be loaded: {why}"),
    caption: |span| {
        format!(
            "The same text, window and sink tokens, read by both twins (shares and activations over the first {span} characters)"
        )
    },
    columns: ["Measure", "Llama", "Llama + gate"],
    share_row: "Strongest head's share on the first character",
    activation_row: "Largest |value| in the residual stream",
    with_row: |sinks| format!("Mean loss, keeping {sinks} sink tokens (nats)"),
    without_row: "Mean loss, without sink tokens (nats)",
    cost_row: "What dropping the sink tokens costs (nats)",
    share_cell: |share, layer, head| format!("{:.1}% (layer {layer}, head {head})", share * 100.0),
    activation_cell: |value, times, layer| {
        format!("{value:.1} ({times:.0}× the mean, layer {layer})")
    },
    verdict: |verdict, share, gated_share, cost, gated_cost, threshold| {
        let (share, gated_share, threshold) =
            (share * 100.0, gated_share * 100.0, threshold * 100.0);
        match verdict {
            TwinVerdict::GateRemovesSink => format!(
                "The ungated twin formed a sink: one head puts {share:.1}% of its attention on the first character, and dropping the sink tokens costs it {cost:+.3} nats. With the gate, no head puts more than {gated_share:.1}% there, and dropping them costs {gated_cost:+.3} nats: the gate let the heads say nothing without parking their weight."
            ),
            TwinVerdict::BothSink => format!(
                "Both twins formed a sink ({share:.1}% and {gated_share:.1}% on the first character; dropping the sink tokens costs {cost:+.3} and {gated_cost:+.3} nats): at this size the gate did not remove it."
            ),
            TwinVerdict::OnlyGatedSinks => format!(
                "Only the gated twin leans on the first character ({gated_share:.1}% against {share:.1}%; dropping the sink tokens costs {gated_cost:+.3} and {cost:+.3} nats): the opposite of what the gate is for, at this size."
            ),
            TwinVerdict::NeitherSinks => format!(
                "Neither twin formed a sink: the strongest head puts {share:.1}% of its attention on the first character without the gate and {gated_share:.1}% with it (a sink would take {threshold:.0}% or more), and dropping the sink tokens costs {cost:+.3} and {gated_cost:+.3} nats. So these small models cannot show what the gate removes; in large models trained on long texts, the sink and its cost are what the gate's authors measured away."
            ),
        }
    },
    tried: |context, gated| {
        if context == gated {
            format!(
                "What was tried: both twins have 3 layers of 4 heads, 128 wide, trained on windows of {context} characters, longer than the GPT-2 model's, to give a sink room to form (their model cards give the steps and the curves)."
            )
        } else {
            format!(
                "Not exact twins: the Llama model was trained on windows of {context} characters, the gated one on {gated}, to give a sink more room. The same model without the gate, trained exactly as the gated one, formed no sink either; it is not shipped, since it would have replaced the Llama model and copies repeated text far worse. The gated model's card gives its numbers."
            )
        }
    },
    stale: "The text, window or sink tokens have changed since this comparison: press “Compare the twins” again.",
};

pub const ZH: TwinTexts = TwinTexts {
    title: "孪生模型：输出门能去掉汇聚点吗？",
    help: "Llama 模型和它的孪生模型都在这里用同一份文本和字符表训练，孪生模型把每个头的输出乘上一个 sigmoid 门。两者用同样的窗口和汇聚词元读这一节的文本；比较汇聚点的三个迹象，并看表格下方说明两者的训练有多相同。",
    lesson_help: "Llama 模型和它的孪生模型都在这里用同一份文本和字符表训练，孪生模型把每个头的输出乘上一个 sigmoid 门。两者都读“流式”一节的示例段落（956 个字符），滚动缓存保留最近 64 个字符，并分别保留或不保留开头 4 个字符；比较汇聚点的三个迹象，并看表格下方说明两者的训练有多相同。",
    run: "比较孪生模型",
    loading: "正在获取孪生模型的文件（每个 4 MB，来自本站），并让两者各读一遍文本……",
    failed: |why| format!("有一个孪生模型无法加载：{why}"),
    caption: |span| {
        format!(
            "同一段文本、同样的窗口和汇聚词元，两个孪生模型各读一遍（份额和激活值取前 {span} 个字符）"
        )
    },
    columns: ["度量", "Llama", "Llama＋门控"],
    share_row: "最偏向第一个字符的头给它的份额",
    activation_row: "残差流中最大的 |数值|",
    with_row: |sinks| format!("平均损失，保留 {sinks} 个汇聚词元（nats）"),
    without_row: "平均损失，不保留汇聚词元（nats）",
    cost_row: "丢掉汇聚词元的代价（nats）",
    share_cell: |share, layer, head| {
        format!("{:.1}%（第 {layer} 层第 {head} 个头）", share * 100.0)
    },
    activation_cell: |value, times, layer| {
        format!("{value:.1}（平均值的 {times:.0} 倍，第 {layer} 层）")
    },
    verdict: |verdict, share, gated_share, cost, gated_cost, threshold| {
        let (share, gated_share, threshold) =
            (share * 100.0, gated_share * 100.0, threshold * 100.0);
        match verdict {
            TwinVerdict::GateRemovesSink => format!(
                "没有门的孪生模型形成了汇聚点：有一个头把 {share:.1}% 的注意力放在第一个字符上，丢掉汇聚词元让它的损失变化 {cost:+.3} nats。加了门以后，没有哪个头在那里放超过 {gated_share:.1}%，丢掉它们的代价是 {gated_cost:+.3} nats：门让头可以什么都不输出，而不必把权重停在某处。"
            ),
            TwinVerdict::BothSink => format!(
                "两个孪生模型都形成了汇聚点（第一个字符上分别是 {share:.1}% 和 {gated_share:.1}%；丢掉汇聚词元的代价分别是 {cost:+.3} 和 {gated_cost:+.3} nats）：在这个规模下，门没有去掉它。"
            ),
            TwinVerdict::OnlyGatedSinks => format!(
                "只有加了门的孪生模型偏向第一个字符（{gated_share:.1}% 对 {share:.1}%；丢掉汇聚词元的代价分别是 {gated_cost:+.3} 和 {cost:+.3} nats）：在这个规模下，与门的用意正相反。"
            ),
            TwinVerdict::NeitherSinks => format!(
                "两个孪生模型都没有形成汇聚点：没有门时，最偏向第一个字符的头给它 {share:.1}% 的注意力，有门时是 {gated_share:.1}%（汇聚点要占 {threshold:.0}% 或更多）；丢掉汇聚词元的代价分别是 {cost:+.3} 和 {gated_cost:+.3} nats。所以这两个小模型展示不了门去掉的是什么；在用长文本训练的大模型里，汇聚点和它的代价正是门的作者所测量并消除的。"
            ),
        }
    },
    tried: |context, gated| {
        if context == gated {
            format!(
                "试过的做法：两个孪生模型都是 3 层、每层 4 个头、宽度 128，在长 {context} 个字符的窗口上训练，比 GPT-2 模型的窗口更长，好给汇聚点留出形成的空间（训练步数和曲线见各自的模型卡）。"
            )
        } else {
            format!(
                "这两个并非严格的孪生：Llama 模型是在长 {context} 个字符的窗口上训练的，加门的模型用的是 {gated} 个，好给汇聚点更多空间。把门去掉、其余完全照加门模型训练的同一模型，也没有形成汇聚点；发布它就得替换 Llama 模型，而它复制重复文本的能力远不如后者，所以没有发布。它的数字见加门模型的模型卡。"
            )
        }
    },
    stale: "这次比较之后，文本、窗口或汇聚词元已经改了：请再按一次“比较孪生模型”。",
};
