//! The shape of the app's text: one field per sentence, each language's file filling every one
//! (a sentence missing in either language is a compile error).

use attention_core::ConfigError;
use attention_core::pipeline::overview::Reduction;

use super::{circuits, learn, linear, own_model, shaping, twins};

/// The title, formula and explanation of one matrix of the pipeline.
pub struct StageText {
    pub title: &'static str,
    pub formula: &'static str,
    pub caption: &'static str,
}

/// One [`StageText`] per matrix of the pipeline (the UI's `Stage` picks its field).
pub struct StageTexts {
    pub embeddings: StageText,
    pub positions: StageText,
    pub x: StageText,
    pub normed_x: StageText,
    pub q: StageText,
    pub k: StageText,
    pub v: StageText,
    pub dot: StageText,
    pub scaled: StageText,
    pub masked: StageText,
    pub weights: StageText,
    pub head_output: StageText,
    pub concat: StageText,
    pub projected: StageText,
    pub output: StageText,
}

/// The steps of the pipeline, as headings.
pub struct StepTexts {
    pub tokens: &'static str,
    pub qkv: &'static str,
    pub scores: &'static str,
    pub softmax: &'static str,
    pub values: &'static str,
    pub combine: &'static str,
}

/// Names and one-line explanations of the mask kinds.
pub struct MaskTexts {
    pub none: (&'static str, &'static str),
    pub causal: (&'static str, &'static str),
    pub padding: (&'static str, &'static str),
    pub window: (&'static str, &'static str),
    pub sliding: (&'static str, &'static str),
    pub custom: (&'static str, &'static str),
    /// Why key j is hidden from query i, per kind.
    pub why_causal: fn(usize, usize) -> String,
    pub why_padding: fn(usize, usize) -> String,
    pub why_window: fn(usize, usize, usize) -> String,
    /// (query, key, radius, sink tokens)
    pub why_sliding: fn(usize, usize, usize, usize) -> String,
    /// The sliding mask's number of sink tokens, and what they are.
    pub sink_tokens: &'static str,
    pub sink_tokens_help: &'static str,
    pub why_custom: &'static str,
}

/// Why the CPU computes although a GPU was asked for (or "auto" chose the CPU).
pub struct FallbackTexts {
    pub probing: &'static str,
    pub no_webgpu: &'static str,
    pub no_adapter: &'static str,
    pub device_request_failed: &'static str,
    pub device_lost: &'static str,
    pub shader_error: &'static str,
    pub too_large: &'static str,
    pub readback_failed: &'static str,
    pub not_ready: &'static str,
    pub unsupported: &'static str,
    pub model_on_page: &'static str,
    /// The GPU backend does not compute these (their technical names).
    pub unsupported_what: fn(&str) -> String,
    /// The adapter's name.
    pub software_adapter: fn(&str) -> String,
    /// The number of tokens from which "auto" uses a hardware GPU.
    pub small_input: fn(usize) -> String,
}

/// What the colour bar says about the scale in use, and the control that picks it.
pub struct ScaleTexts {
    pub fixed: &'static str,
    pub shared_scores: &'static str,
    pub own_range: &'static str,
    pub whole_head: &'static str,
    pub shared_turns: &'static str,
    pub shared_pair: &'static str,
    pub shared_states: &'static str,
    pub radians: &'static str,
    pub contrast: &'static str,
    /// The control: its title, its two choices (honest, contrast) and what they do.
    pub title: &'static str,
    pub names: [&'static str; 2],
    pub help: &'static str,
    /// The colour bar in words: (lowest, highest, how the scale is chosen).
    pub colour_bar: fn(&str, &str, &str) -> String,
    /// The same without a word on how the scale is chosen.
    pub colour_bar_plain: fn(&str, &str) -> String,
    /// The colour bar of a matrix whose values are all one number.
    pub constant: fn(&str) -> String,
}

/// The head view in words (`ui::logic::head_lines`).
pub struct HeadLinesTexts {
    /// (queries, keys, how many are listed, each listed query → its strongest key)
    pub summary: fn(usize, usize, usize, &str) -> String,
    /// (the query, its strongest keys with their weights)
    pub query: fn(&str, &str) -> String,
    /// (the key, the queries that look at it most)
    pub key: fn(&str, &str) -> String,
    pub separator: &'static str,
    pub keys_help: &'static str,
}

/// A long input's overview (blocks of cells) and its zoomed region.
pub struct OverviewTexts {
    /// What each block of the overview shows: its largest value or its mean, of rows × cols
    /// cells.
    pub block_note: fn(Reduction, usize, usize) -> String,
    /// Above the overview: all n × m cells, as blocks of r × c.
    pub caption: fn(usize, usize, usize, usize) -> String,
    /// The control that picks the reduction, and its two choices (largest, mean).
    pub reduction: &'static str,
    pub reductions: [&'static str; 2],
    /// Above the zoom: queries a–b × keys c–d, every cell.
    pub zoom_title: fn(usize, usize, usize, usize) -> String,
    pub zoom_hint: &'static str,
    /// The four moves of the zoom: up, down, left, right.
    pub moves: [&'static str; 4],
    /// A block in the tooltip: queries a–b × keys c–d.
    pub block_position: fn(usize, usize, usize, usize) -> String,
    /// The block's largest value and mean (already formatted), and how many cells it holds.
    pub block_values: fn(&str, &str, usize) -> String,
    pub block_zoom: &'static str,
    /// Where a view cannot show a summarised trace: the head view, a lesson's experiment (with
    /// the number of tokens, and the most it takes).
    pub head_view: fn(usize, usize) -> String,
    pub lesson: fn(usize, usize) -> String,
}

/// Sharing keys and values among query heads (GQA, MQA), where it is chosen.
pub struct KvTexts {
    pub share: &'static str,
    pub help: &'static str,
    pub needs_two_heads: &'static str,
    /// "n query heads share each K/V head": heads per group.
    pub groups: fn(usize, usize) -> String,
    /// Beside the head buttons when heads share K/V: (the K/V head read, from 1; K/V heads).
    pub reads: fn(usize, usize) -> String,
    pub reads_help: &'static str,
}

/// The trained model: choosing it, what it is, and its views.
/// The generator under "What comes next": many characters at once, with the KV cache or without.
pub struct GenerateTexts {
    pub title: &'static str,
    pub help: &'static str,
    /// Without a trained model: what to choose.
    pub need_model: &'static str,
    pub steps: &'static str,
    pub cache: &'static str,
    pub play: &'static str,
    pub pause: &'static str,
    /// One more character.
    pub step: &'static str,
    /// The rest at once.
    pub all: &'static str,
    pub restart: &'static str,
    /// Puts the generated characters into the sentence.
    pub keep: &'static str,
    /// The scrubber's label.
    pub shown_step: &'static str,
    /// (step, its character, positions cached, the context)
    pub step_line: fn(usize, &str, usize, usize) -> String,
    /// The five likeliest, before the choice.
    pub chosen_among: &'static str,
    /// What the strips show.
    pub rows_help: &'static str,
    /// The strips in words: (the step, the character it added, each query head's strongest
    /// cached position). And how the keyboard moves through them.
    pub strips_summary: fn(usize, &str, &str) -> String,
    pub strips_keys: &'static str,
    /// The colour legend's label.
    pub weight: &'static str,
    /// The strips' legend under contrast scales: each strip stretched to its own largest weight.
    pub stretched: &'static str,
    pub layer: fn(usize) -> String,
    /// (K/V head, the query heads that read it)
    pub kv_group: fn(usize, &str) -> String,
    /// (query head, the K/V head it reads)
    pub query_head: fn(usize, usize) -> String,
    /// (layer, query head, K/V head, the key's character, its position, the weight)
    pub hover: fn(usize, usize, usize, &str, usize, f32) -> String,
    /// (positions cached, context, layers, K/V heads, d_head, bytes)
    pub cache_line: fn(usize, usize, usize, usize, usize, &str) -> String,
    /// (positions)
    pub bytes_title: fn(usize) -> String,
    /// This model's row (its K/V heads, its query heads).
    pub this_model: fn(usize, usize) -> String,
    /// MHA, GQA (its K/V heads), MQA, MLA by its formula.
    pub mha: &'static str,
    pub gqa: fn(usize) -> String,
    pub mqa: &'static str,
    pub mla: &'static str,
    pub speed_title: &'static str,
    /// (with the cache, measured: (characters, milliseconds))
    pub speed_row: fn(bool, Option<(usize, f64)>) -> String,
    pub speed_help: &'static str,
    /// The largest difference of any checked step's logits from a recompute of the whole text,
    /// the steps checked and the steps taken (a user's model in its worker checks the last
    /// step of each run asked for, not each).
    pub checked: fn(f32, usize, usize) -> String,
}

/// The streaming view.
pub struct StreamTexts {
    pub title: &'static str,
    pub help: &'static str,
    /// With the GPT-2 model (learned positions): why it cannot run.
    pub learned_positions: &'static str,
    pub need_model: &'static str,
    /// A model folder of one's own with rotary positions, without its worker (which streams
    /// it): not streamed in the page.
    pub own_model: &'static str,
    /// (phase: 0 the rolling cache with sinks, 1 without, 2 the share on the first token;
    /// tokens done, all) while a folder's model reads in its worker.
    pub reading: fn(usize, usize, usize) -> String,
    /// The worker stopped, or was given another model, before the reading was done.
    pub worker_ended: &'static str,
    /// A folder's model still being read (in the page, or by its worker).
    pub own_loading: &'static str,
    /// A folder's model: the chart's title, the share table's title, and the finding (mean loss
    /// with sinks − without, the largest share, the tokens the share read, the sink tokens).
    pub own_chart_title: &'static str,
    pub own_share_title: &'static str,
    /// The view's last sentence and the share table's help, for a folder's model.
    pub own_help: &'static str,
    pub own_share_help: &'static str,
    pub own_finding: fn(f32, f32, usize, usize) -> String,
    pub text: &'static str,
    pub window: &'static str,
    pub sinks: &'static str,
    pub run: &'static str,
    /// Under results whose text, window or sinks have since been changed.
    pub stale: &'static str,
    /// (positions done of the recompute, all)
    pub progress: fn(usize, usize) -> String,
    pub chart_title: &'static str,
    pub x_label: &'static str,
    pub y_label: &'static str,
    /// (sink tokens) the three runs' names.
    pub with_sinks: fn(usize) -> String,
    pub without_sinks: &'static str,
    pub recompute: &'static str,
    /// (mean with sinks, mean without, mean of the recompute, positions)
    pub means: fn(f32, f32, Option<f32>, usize) -> String,
    /// (mean loss with sinks − without, the largest first-character share of any head, the
    /// characters read, the context)
    pub finding: fn(f32, f32, usize, usize) -> String,
    pub share_title: &'static str,
    pub share_help: &'static str,
    pub layer: fn(usize) -> String,
    pub head: fn(usize) -> String,
}

pub struct ModelTexts {
    pub section: &'static str,
    /// Random weights, the GPT-2-layout model, the Llama-layout model, the hybrid, a folder the
    /// user opens.
    pub names: [&'static str; 6],
    pub loading: &'static str,
    /// Why it could not be loaded.
    /// The model did not load (the technical reason is shown beside it, as code).
    pub failed: &'static str,
    /// Layers, heads, width, parameters.
    pub ready: fn(usize, usize, usize, &str) -> String,
    /// The Llama model: layers, query heads, K/V heads, width, parameters.
    pub llama_ready: fn(usize, usize, usize, usize, &str) -> String,
    /// What the model is, what it was trained on, why its heads look as they do, and what the
    /// temperature and masks do to them.
    pub about: [&'static str; 4],
    /// What the Llama model is and how its layout differs.
    pub llama_about: [&'static str; 5],
    /// Said after `llama_ready` of the gated twin.
    pub gated_ready: &'static str,
    /// Llama's gated twin: what the gate is, and what it did to the sink.
    pub gated_about: [&'static str; 3],
    /// The hybrid: layers, of them linear, query heads, K/V heads, width, parameters.
    pub hybrid_ready: fn(usize, usize, usize, usize, usize, &str) -> String,
    /// What the hybrid is: its two kinds of layer, its memory, what the controls act on.
    pub hybrid_about: [&'static str; 4],
    /// The shape it fixes: d_model, heads, d_k.
    pub fixed_shape: fn(usize, usize, usize) -> String,
    /// (the norms' ε, as the page writes it)
    pub fixed_norm: fn(&str) -> String,
    /// The Llama model's RMSNorm before attention and MLP.
    pub llama_fixed_norm: fn(&str) -> String,
    pub no_cross: &'static str,
    pub layer_label: &'static str,
    pub overview_title: &'static str,
    pub overview_help: &'static str,
    pub next_title: &'static str,
    pub next_help: &'static str,
    /// A text longer than the model's context: (characters read, characters in all, first
    /// character read, counted from 0).
    pub window: fn(usize, usize, usize) -> String,
    /// The same for a folder's model, in its tokens: (tokens read, tokens in all, first token
    /// read, whether the page's memory rather than the model's context set the limit).
    pub folder_window: fn(usize, usize, usize, bool) -> String,
    /// "after “c”": the position the predictions follow.
    pub after: fn(usize, &str) -> String,
    pub continue_button: &'static str,
    pub greedy: &'static str,
    pub sampling: &'static str,
    pub sampling_help: &'static str,
    /// Generation with the KV cache, under "What comes next".
    pub generate: GenerateTexts,
    pub stream: StreamTexts,
    pub roles_title: &'static str,
    /// (queries the shares are averaged over, whether those are the queries whose character
    /// came before)
    pub roles_help: fn(usize, bool) -> String,
    /// The column of the weight no role names.
    pub role_other: &'static str,
    /// Previous-token, induction, first-token, same-token.
    pub role_names: [&'static str; 4],
    /// A head's dominant role in words: the share of its weight, per role.
    pub role_previous: fn(f32) -> String,
    pub role_induction: fn(f32) -> String,
    pub role_first: fn(f32) -> String,
    pub role_same: fn(f32) -> String,
    pub role_mixed: &'static str,
    /// The stage captions a trained layer gives: E, P, X of the first layer, X of a later one
    /// (its number), LN₁(X), the block's output.
    pub embeddings: &'static str,
    pub positions: &'static str,
    pub x_first: &'static str,
    pub x_later: fn(usize) -> String,
    /// The formula of a later layer's input: "X = the residual stream".
    pub residual_formula: &'static str,
    pub normed_x: &'static str,
    pub output: &'static str,
    /// The Llama model's: no position vector (RoPE), the first residual stream, RMSNorm.
    pub llama_positions: &'static str,
    pub llama_x_first: &'static str,
    pub llama_normed_x: &'static str,
    /// Tooltip lines.
    pub learned_embedding: &'static str,
    pub learned_position: &'static str,
    pub residual_stream: &'static str,
    /// Under the weights of a trained head: (layer, head, what it does on this sentence).
    pub learned_note: fn(usize, usize, &str) -> String,
}

/// Sharing one section: a link or an embed that keeps it.
pub struct ShareTexts {
    pub link_here: &'static str,
    pub embed_here: &'static str,
    /// The link or embed code of section `name`.
    pub copied_of: fn(&str) -> String,
    pub titles_on_images: &'static str,
    pub skip_to_controls: &'static str,
    pub skip_to_weights: &'static str,
    pub skip_to_flash: &'static str,
    pub show_controls: &'static str,
    pub hide_controls: &'static str,
    /// Presenting a section of the lab full screen: the button, "Section 3 of 10", the keys.
    pub present_here: &'static str,
    pub section_of: fn(usize, usize) -> String,
    pub present_help: &'static str,
    pub previous_section: &'static str,
    pub next_section: &'static str,
    pub end_present: &'static str,
    /// An embedded chapter without its controls: what the reader can and cannot do here.
    pub embedded_without_controls: &'static str,
}

/// What a link could not use.
pub struct LinkTexts {
    /// The unknown name.
    pub unknown: fn(&str) -> String,
    /// The name and its value.
    pub malformed: fn(&str, &str) -> String,
    /// A custom mask without its cells.
    /// The parameter, the field and its kind: `mask` of kind `custom` needs `cells`.
    pub missing: fn(&str, &str, &str) -> String,
    /// The name and its length in characters.
    pub too_long: fn(&str, usize) -> String,
    /// An embed panel the lab does not have.
    pub unknown_panel: fn(&str) -> String,
    /// A value left out: its name, its value, why.
    pub dropped: fn(&str, &str, &str) -> String,
    /// Why the values cannot work together.
    pub impossible: fn(&str) -> String,
    /// (the head asked for, from 1; the heads there are)
    pub no_such_head: fn(usize, usize) -> String,
    /// (the layer asked for, from 1; the layers there are)
    pub no_such_layer: fn(usize, usize) -> String,
    pub unknown_view: fn(&str) -> String,
    /// What a link cannot carry (the request's field names).
    pub tensors: fn(&str) -> String,
    /// The link's length in KB.
    pub long_link: fn(usize) -> String,
}

/// How one cell of a matrix was computed (the tooltip).
pub struct ExplainTexts {
    /// "query 3 “cat” → key 1 “the”": row, its token, column, its token.
    pub query_key: fn(usize, &str, usize, &str) -> String,
    /// "token 3 “cat” · dimension 5".
    pub token_dimension: fn(usize, &str, &str) -> String,
    /// " + … (12 terms)" after the first terms of a long sum.
    pub more_terms: fn(usize) -> String,
    pub embedding: &'static str,
    pub given_x: &'static str,
    /// "allowed: s + 0 = s" with the score written out.
    pub allowed: fn(&str, &str) -> String,
    /// "s + (−∞) = −∞, so its weight will be exactly 0" with the score written out.
    pub masked_score: fn(&str) -> String,
    pub row_fully_masked: &'static str,
    pub masked_weight: &'static str,
    /// "column c of head h's output: value".
    pub concat_column: fn(usize, usize, &str) -> String,
    /// A gated head's output: (the gate's factor, the output).
    pub output_gate: fn(&str, &str) -> String,
    /// A hybrid's linear layer's q, k or v after its short convolution: (the tokens before this
    /// one it reads, the value).
    pub convolved: fn(usize, &str) -> String,
}

/// The FlashAttention player.
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
    /// "step i of n".
    pub frame: fn(usize, usize) -> String,
    pub grid_title: &'static str,
    pub grid_summary: &'static str,
    /// Clicking or the arrow keys on the tile grid.
    pub grid_choose: &'static str,
    /// A long input replays one query block: (the block, from 0 as tiles are; blocks; its first
    /// and last query).
    pub replayed_block: fn(usize, usize, usize, usize) -> String,
    pub previous_block: &'static str,
    pub next_block: &'static str,
    pub legend: [&'static str; 4],
    pub pseudocode_title: &'static str,
    pub pseudocode: [&'static str; 11],
    /// The query block starts: block, its rows.
    pub phase_start: fn(usize, &str) -> String,
    /// A tile skipped: block i, block j.
    pub phase_skip: fn(usize, usize) -> String,
    /// A tile's scores: i, j, its rows, its columns.
    pub phase_scores: fn(usize, usize, &str, &str) -> String,
    pub phase_max: &'static str,
    pub phase_exp: &'static str,
    pub phase_sum: &'static str,
    pub phase_accumulate: &'static str,
    /// The block's rows are final.
    pub phase_normalize: fn(&str) -> String,
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

/// Messages for what cannot be computed or applied.
pub struct ErrorTexts {
    pub config: fn(&ConfigError) -> String,
    /// A JSON parameter that does not parse: its path, serde's (English) explanation.
    pub json: fn(&str, &str) -> String,
    /// A sequence given in more than one form: the field.
    pub input_twice: fn(&str) -> String,
    /// A setting the trained model fixes: the field.
    pub fixed_by_model: fn(&str) -> String,
    /// A view setting (`head`, `lang`, …) with a value it cannot take.
    pub bad_view_value: fn(&str) -> String,
    /// `lesson` naming no chapter: every chapter's id.
    pub bad_lesson: fn(&str) -> String,
    pub not_an_object: &'static str,
    pub showing_last_good: &'static str,
}

/// The UI text of one language.
pub struct Text {
    pub title: &'static str,
    pub tagline: &'static str,
    pub switch_language: &'static str,
    pub theme: &'static str,
    /// Auto, light, dark.
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
    pub model_section: &'static str,
    pub d_model_help: &'static str,
    pub heads: &'static str,
    pub kv_heads: &'static str,
    /// Multi-head, grouped-query, multi-query.
    pub kv_kind: [&'static str; 3],
    pub auto: &'static str,
    pub d_k_help: &'static str,
    pub d_v_help: &'static str,
    pub softmax_section: &'static str,
    pub temperature: &'static str,
    pub temperature_help: &'static str,
    pub mask_section: &'static str,
    pub masks: MaskTexts,
    pub valid_len: &'static str,
    pub radius: &'static str,
    pub mask_editor_help: &'static str,
    /// Said when a cell of the custom mask is switched: (query, key, now allowed).
    pub mask_toggled: fn(usize, usize, bool) -> String,
    pub mask_all: &'static str,
    pub mask_causal_preset: &'static str,
    pub weights_section: &'static str,
    /// What random weights mean for what the student sees.
    pub random_weights_note: &'static str,
    /// W_Q, W_K, W_V and W_O given through `set()`: what the weights card and the softmax
    /// section say instead, and the button that goes back to seeded draws.
    pub own_weights_note: &'static str,
    pub own_weights_reset: &'static str,
    /// No position vector added (positions none, RoPE or ALiBi): where positions enter instead,
    /// per kind; and the weights' caption when a sink logit takes a share of each row.
    pub no_positions: [&'static str; 3],
    pub weights_with_sink: &'static str,
    pub x_without_positions: &'static str,
    /// X given through `set()`: the X stage's formula and caption.
    pub own_x_formula: &'static str,
    pub own_x_caption: &'static str,
    /// The heads side by side are `width` numbers, not d_model (`uneven`: d_model ÷ heads
    /// rounded down, when d_model is not a multiple of the heads): (width, d_model, heads, uneven).
    pub uneven_heads: fn(usize, usize, usize, Option<usize>) -> String,
    pub seed: &'static str,
    pub reroll: &'static str,
    pub layer_section: &'static str,
    /// Off, Pre-LN, Post-LN.
    pub layer_norm_names: [&'static str; 3],
    pub layer_norm_help: &'static str,
    pub flash_section: &'static str,
    pub block_rows: &'static str,
    pub block_cols: &'static str,
    pub block_help: &'static str,
    /// K/V heads were changed to n to divide the heads.
    pub kv_adjusted: fn(usize) -> String,
    pub kv: KvTexts,
    pub scales: ScaleTexts,
    pub overview: OverviewTexts,
    pub model: ModelTexts,
    pub share: ShareTexts,
    /// "√d_k · T = √8 · 1 = 2.83": what the scores are divided by now.
    pub divided_by: &'static str,
    /// Keys and values come from the source sentence S in cross-attention.
    pub from_source: &'static str,
    pub head_label: &'static str,
    pub all_heads: &'static str,
    pub all_heads_help: &'static str,
    pub head_view_title: &'static str,
    /// The head view in words, and how to move through it by keyboard.
    pub head_lines: HeadLinesTexts,
    pub head_view_help: &'static str,
    pub queries: &'static str,
    pub keys: &'static str,
    pub pipeline_title: &'static str,
    pub steps: StepTexts,
    pub stages: StageTexts,
    pub computed_on_cpu: &'static str,
    pub computed_on_gpu: &'static str,
    pub computing: &'static str,
    /// A large trace is being computed: (tokens, heads). The views show the last result until then.
    pub computing_trace: fn(usize, usize) -> String,
    /// After a long input's first chips: how many more, and how many in all.
    pub more_tokens: fn(usize, usize) -> String,
    /// The token list's name (it scrolls, so it takes the keyboard's focus): its token count.
    pub token_list: fn(usize) -> String,
    /// Heads done, heads in all (the worker's progress).
    pub computing_progress: fn(usize, usize) -> String,
    /// A long input's result is shown: (tokens, heads, how long it took, formatted).
    pub computed_trace: fn(usize, usize, &str) -> String,
    pub last_update: &'static str,
    pub backend_section: &'static str,
    /// Auto, GPU, CPU.
    pub backend_names: [&'static str; 3],
    pub backend_help: &'static str,
    pub gpu_probing: &'static str,
    pub gpu_ready: &'static str,
    pub gpu_software: &'static str,
    pub gpu_none: &'static str,
    pub gpu_lost: &'static str,
    pub gpu_retry: &'static str,
    pub fallback: FallbackTexts,
    pub flash_equal: &'static str,
    /// Every key is masked for these queries (listed).
    pub fully_masked_note: fn(&str) -> String,
    pub cell_hint: &'static str,
    pub show_table: &'static str,
    /// A chart's table: the column naming each row's series.
    pub chart_series: &'static str,
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
    pub link: LinkTexts,
    pub explain: ExplainTexts,
    pub flash: FlashText,
    pub errors: ErrorTexts,
    pub learn: &'static learn::LearnTexts,
    pub shaping: &'static shaping::ShapingTexts,
    pub linear: &'static linear::LinearTexts,
    pub circuits: &'static circuits::CircuitsTexts,
    pub own_model: &'static own_model::OwnModelTexts,
    pub twins: &'static twins::TwinTexts,
}
