//! The Learn mode's text: the chapters (what each teaches, a "try this", a question to answer
//! before the experiment shows what happens) and the experiments' labels. One struct, filled in
//! `learn_en.rs` and `learn_zh.rs`.

/// One chapter.
pub struct ChapterText {
    pub title: &'static str,
    /// The lesson, a few short paragraphs.
    pub body: &'static [&'static str],
    pub try_this: &'static str,
    /// Predict, then reveal (the right choice is in `ui::logic::lesson::answer`).
    pub question: &'static str,
    pub choices: [&'static str; 3],
    /// Why the right answer is right, shown after answering.
    pub explain: &'static str,
}

/// One of the articles' exercises: what it asks, then its answer step by step (shown once the
/// learner has answered or asked to see it).
pub struct ExerciseText {
    pub title: &'static str,
    pub asks: &'static [&'static str],
    pub steps: &'static [&'static str],
}

pub struct LearnTexts {
    pub learn: &'static str,
    pub lab: &'static str,
    pub contents: &'static str,
    /// "Chapter 3 of 14"
    pub chapter_of: fn(usize, usize) -> String,
    pub previous: &'static str,
    pub next: &'static str,
    pub present: &'static str,
    pub end_present: &'static str,
    pub present_help: &'static str,
    pub try_this: &'static str,
    pub predict: &'static str,
    pub reveal: &'static str,
    pub right: &'static str,
    pub not_quite: &'static str,
    pub answer_first: &'static str,
    pub experiment: &'static str,
    pub views: &'static str,
    /// Right answers of questions.
    pub score: fn(usize, usize) -> String,
    /// The exercises: where the learner writes an answer, and the buttons that show the worked
    /// one.
    pub your_answer: &'static str,
    pub compare: &'static str,
    pub worked: &'static str,
    pub reset: &'static str,
    pub stored_here: &'static str,
    pub query: &'static str,
    pub open_in_lab: &'static str,
    pub chapters: [ChapterText; 22],
    pub exercises: [ExerciseText; 3],
    pub x: ExperimentTexts,
    pub modern: ModernTexts,
    pub cache: CacheLessonTexts,
    pub circuits: CircuitsLessonTexts,
    pub delta: DeltaLessonTexts,
    pub hybrids: HybridsLessonTexts,
}

/// The hybrids chapter's experiment: memory against length for four mixes of layers.
pub struct HybridsLessonTexts {
    /// The chart: title, x axis, y axis, then the lines: all softmax, half and half, three to
    /// one, all linear.
    pub chart: [&'static str; 7],
    /// (the 3 : 1 stack's crossover in tokens, its bytes at the longest length, the all-softmax
    /// stack's, the longest length, query heads, K/V heads, d_k, d_v)
    pub crossover: fn(&str, &str, &str, &str, usize, usize, usize, usize) -> String,
}

/// What knocking the previous-token head out did, as the circuits chapter says it.
#[derive(Clone, Copy)]
pub struct Knocked<'a> {
    pub previous: &'a str,
    pub induction: &'a str,
    /// The induction head's weight on the target, before and after.
    pub before: &'a str,
    pub after: &'a str,
    /// The likeliest next character with its probability, before and after.
    pub top: &'a str,
    pub top_after: &'a str,
    /// The target's character, and its probability before and after.
    pub copied: &'a str,
    pub p: &'a str,
    pub p_after: &'a str,
}

/// The sentences of the circuits chapter's experiment, each with its measured numbers.
pub struct CircuitsLessonTexts {
    /// (query, its character, the earlier occurrence, the target, its character)
    pub found: fn(usize, &str, usize, usize, &str) -> String,
    /// (previous-token head, its mean weight on the character before, induction head, its
    /// weight on the target)
    pub heads: fn(&str, &str, &str, &str) -> String,
    /// (the score, the key side's largest writers with their parts)
    pub writers: fn(&str, &str) -> String,
    /// The previous-token head is the key's largest writer: (its part).
    pub textbook: fn(&str) -> String,
    /// It is not: (the largest writer, its part, the previous-token head, its part).
    pub not_textbook: fn(&str, &str, &str, &str) -> String,
    /// (previous, induction, their K-composition, the baseline, the strongest earlier head, its
    /// composition)
    pub composition: fn(&str, &str, &str, &str, &str, &str) -> String,
    pub knocked: fn(&Knocked) -> String,
    /// Knocking it out changed little: (the weight before, after).
    pub knocked_little: fn(&str, &str) -> String,
    pub needs_model: &'static str,
    pub use_gpt2: &'static str,
    /// The button that opens the induction head's score in "Why here?".
    pub take_apart: &'static str,
    pub no_repeat: &'static str,
    /// The model cannot run on the text as it is (empty, or a setting it refuses).
    pub cannot_run: &'static str,
}

/// The delta-rule chapter's experiment: the recall chart and what it measured.
pub struct DeltaLessonTexts {
    /// The chart: title, x axis, y axis, and the lines of plain linear attention, the delta
    /// rule and the gated delta rule.
    pub chart: [&'static str; 6],
    /// (d_k, plain error at d_k pairs, delta's, gated's, the newest pair's error under the
    /// delta rule)
    pub at_capacity: fn(usize, &str, &str, &str, &str) -> String,
    /// (pairs written, recent pairs counted, delta's error on them, the gated rule's, α)
    pub past_capacity: fn(usize, usize, &str, &str, &str) -> String,
    /// (head from 1, "chunk: difference" items)
    pub chunks: fn(usize, &str) -> String,
    /// A chapter whose experiment reads softmax weights, on linear heads: (the hybrid's layer,
    /// from 1; `None` for a seeded request whose Attention control chose a linear kind).
    pub linear_layer: fn(Option<usize>) -> String,
}

/// The labels of the KV cache and streaming chapters' experiments.
pub struct CacheLessonTexts {
    /// (the largest weight on a later key, whether the mask is causal)
    pub future: fn(f32, bool) -> String,
    /// (the last query, head, the largest difference)
    pub last_row: fn(usize, usize, f32) -> String,
    pub last_row_shaped: &'static str,
    /// (bytes per token and layer, K/V heads, d_k, d_v)
    pub bytes: fn(&str, usize, usize, usize) -> String,
    pub cost_title: &'static str,
    /// Columns: text length, with the cache, without, how many times more.
    pub cost_columns: [&'static str; 4],
    /// Without a trained model: the button that loads one, and what it does.
    pub try_model: &'static str,
    pub try_llama: &'static str,
    /// (the even share; the largest head's share, that head counted from 1, and the sentence's
    /// tokens: each head's share is in the table)
    pub share: fn(f32, f32, usize, usize) -> String,
    pub share_columns: [&'static str; 2],
    pub kept_title: fn(usize, usize) -> String,
    pub kept_columns: [&'static str; 3],
}

/// What the scaling chapter says about the selected head.
#[derive(Debug, Clone, Copy)]
pub struct HeadVariances {
    /// From 1.
    pub head: usize,
    pub d_model: usize,
    pub d_k: usize,
    /// Xavier's variance of W: 2 / (d_model + d_k).
    pub xavier: f64,
    /// The typical variance of one component of q, of k.
    pub q: f64,
    pub k: f64,
    /// var(q·k), var(q̃·k̃), var(q̃·k̃ / √d_k).
    pub raw: f64,
    pub standard: f64,
    pub scaled: f64,
    /// Query–key pairs measured.
    pub pairs: usize,
}

/// The labels of the experiments' tables, charts and results.
pub struct ExperimentTexts {
    /// The second sentence the cross chapter offers as keys and values.
    pub cross_source: &'static str,
    pub token: &'static str,
    pub key: &'static str,
    pub head: &'static str,
    pub weight: &'static str,
    /// The same token at two places: (token, first, second, |ΔE|, |ΔX|), positions numbered as the
    /// token chips number them (from 0).
    pub repeated: fn(&str, usize, usize, f64, f64) -> String,
    pub no_repeat: &'static str,
    /// (query token, head from 1, d_k)
    pub qkv_intro: fn(&str, usize, usize) -> String,
    pub dot: &'static str,
    pub masked: &'static str,
    pub variance_title: &'static str,
    pub variance_y: &'static str,
    pub raw: &'static str,
    pub scaled: &'static str,
    pub theory: &'static str,
    pub saturation_title: &'static str,
    pub saturation_y: &'static str,
    pub largest_raw: &'static str,
    pub largest_scaled: &'static str,
    pub gradient_raw: &'static str,
    pub gradient_scaled: &'static str,
    pub heads_caption: &'static str,
    /// The typical variance of one component of q, of k.
    pub var_q: &'static str,
    pub var_k: &'static str,
    pub var_raw: &'static str,
    pub var_scaled: &'static str,
    /// On q and k standardised (q̃, k̃).
    pub var_standard: &'static str,
    pub var_standard_scaled: &'static str,
    /// The selected head's variances, in words.
    pub heads_result: fn(&HeadVariances) -> String,
    /// With one token nothing varies: standardising needs two.
    pub one_token: &'static str,
    /// Histogram titles: q·k, q·k / √d_k of the selected head.
    pub hist_raw: &'static str,
    pub hist_scaled: &'static str,
    /// The selected row without and with the scale: largest, entropy, p(1 − p) each.
    pub row_result: fn([f64; 6]) -> String,
    pub sweep_title: &'static str,
    pub temperature: &'static str,
    pub sweep_y: &'static str,
    pub largest: &'static str,
    pub entropy_share: &'static str,
    /// (T, largest, entropy, ln n, arg-max token)
    pub sweep_result: fn(f64, f64, f64, f64, &str) -> String,
    pub with_infinity: &'static str,
    pub with_large_negative: &'static str,
    /// A fully masked row: (weights with −∞, weights with −10⁹)
    pub all_masked: fn(&str, &str) -> String,
    pub fully_masked: fn(&str) -> String,
    pub no_fully_masked: &'static str,
    pub distance_caption: &'static str,
    pub mean_distance: fn(f64) -> String,
    /// (h, d_model, h heads of d_model / h, one head of d_model, current shape)
    pub head_parameters: fn(usize, usize, usize, usize, usize) -> String,
    pub kv_heads: &'static str,
    pub kind: &'static str,
    /// Multi-head, grouped-query, multi-query.
    pub kinds: [&'static str; 3],
    pub kv_parameters: &'static str,
    pub parameters: &'static str,
    pub cache_per_token: &'static str,
    pub cache_4096: &'static str,
    pub current: &'static str,
    pub not_cross: &'static str,
    pub add_source: &'static str,
    /// (queries, keys)
    pub cross_result: fn(usize, usize) -> String,
    pub source_token: &'static str,
    pub mean: &'static str,
    pub std: &'static str,
    pub after_mean: &'static str,
    pub after_std: &'static str,
    pub stream_title: &'static str,
    pub blocks: &'static str,
    pub stream_y: &'static str,
    pub pre_ln: &'static str,
    pub post_ln: &'static str,
    /// (Pre-LN's size after the stack, Post-LN's, blocks)
    pub stream_result: fn(f64, f64, usize) -> String,
    pub gradient_title: &'static str,
    pub gradient_y: &'static str,
    /// (blocks, Pre-LN's gradient at the input ÷ the output's, its smallest over the blocks,
    /// Post-LN's at the input, its smallest, its largest)
    pub gradient_result: fn(usize, f64, f64, f64, f64, f64) -> String,
    pub factor: &'static str,
    pub shift: &'static str,
    pub naive_f32: &'static str,
    pub naive_f16: &'static str,
    pub stable_f16: &'static str,
    /// The largest exponent k · s + c of the row.
    pub largest_exponent: fn(f32) -> String,
    /// Where the naive softmax breaks: (precision "f16" / "f32", k as shown, the largest
    /// exponent there) by overflow, by underflow; and that it does not below 10 000.
    pub breaks_overflow: fn(&str, &str, f32) -> String,
    /// The sum overflowed while every exp still fit: (precision, k, the largest exponent).
    pub breaks_sum: fn(&str, &str, f32) -> String,
    pub breaks_underflow: fn(&str, &str, f32) -> String,
    pub never_breaks: fn(&str) -> String,
    /// Every score of the row is negative: (the query with the head's largest score, its token,
    /// that score).
    pub only_underflow: fn(usize, &str, f32) -> String,
    pub choose_query: fn(usize) -> String,
    /// How each softmax fares at the current k and c: fine, overflow, underflow.
    pub states: [&'static str; 3],
    /// (k and c as shown, f32's state, f16's state, the stable one's)
    pub now: fn(&str, &str, &str, &str, &str) -> String,
    /// (largest absolute error, largest relative error) of QKᵀ in f16
    pub f16_error: fn(f32, f32) -> String,
    /// (n, cells of every head, score bytes standard, one tile, path through an RNN)
    pub counts: fn(usize, usize, usize, usize, usize) -> String,
    pub measure: &'static str,
    /// Measuring at n …
    pub measuring: fn(usize) -> String,
    pub time_title: &'static str,
    pub time_y: &'static str,
    pub standard: &'static str,
    pub flash: &'static str,
    /// Fitted slopes: (standard, flash)
    pub slope: fn(f64, f64) -> String,
    pub measure_help: &'static str,
    /// FlashAttention's time against the standard pass's at the largest n measured: (n, ratio).
    pub flash_on_cpu: fn(usize, f64) -> String,
    /// (tiles, skipped, standard cells, tile cells, max |Δ|)
    pub flash_counts: fn(usize, usize, usize, usize, f32) -> String,
    /// Strided, fixed.
    pub patterns: [&'static str; 2],
    /// (pattern, stride, cells, n√n, causal cells)
    pub sparse_counts: fn(&str, usize, usize, f64, usize) -> String,
    /// (max |Δ|, mean |Δ|, linear cost, softmax cost)
    pub linear: fn(f64, f64, usize, usize) -> String,
    pub go_to: &'static str,
}

/// The labels of the positions, windows and taming chapters' experiments.
pub struct ModernTexts {
    /// Why the positions could not be compared: the trained model, one's own X, a long input.
    pub why_not: [&'static str; 3],
    /// The kinds' names: absolute, none, RoPE, ALiBi.
    pub kinds: [&'static str; 4],
    pub kind: &'static str,
    /// (shift): the column of the scores' largest change.
    pub shift_change: fn(usize) -> String,
    /// (query): the column of its most attended key.
    pub top_key: fn(usize) -> String,
    /// RoPE could not run: d_k is odd.
    pub odd_d_k: fn(usize) -> String,
    /// (half against interleaved, after permuting, the permutation).
    pub pairings: fn(&str, &str, &str) -> String,
    /// (radius, sinks, causal cells, window cells, with sinks).
    pub window_cells: fn(usize, usize, usize, usize, usize) -> String,
    /// (query, the causal weight the window hides, the causal weight on the sinks).
    pub window_mass: fn(usize, &str, &str, &str) -> String,
    pub hidden_per_query: fn(&str) -> String,
    pub causal: &'static str,
    pub window: &'static str,
    pub with_sinks: &'static str,
    /// A key's place: hidden by the window, a sink token.
    pub hidden: &'static str,
    pub sink: &'static str,
    pub not_cross: &'static str,
    pub cap: &'static str,
    pub no_cap: &'static str,
    pub largest_score: &'static str,
    pub top_weight: &'static str,
    pub entropy: &'static str,
    /// (query, head from 1)
    pub caps_intro: fn(usize, usize) -> String,
    /// (d_k, √d_k, growth)
    pub qk_norm_intro: fn(usize, &str, &str) -> String,
    pub raw: &'static str,
    pub normed: &'static str,
    /// (growth): the columns with q and k grown.
    pub raw_grown: fn(&str) -> String,
    pub normed_grown: fn(&str) -> String,
    /// (the row's largest score as the sink logit's scale)
    pub sinks_intro: fn(&str) -> String,
    pub sink_logit: &'static str,
    pub no_sink: &'static str,
    pub kept: &'static str,
}
