//! The control panel: every parameter of the computation, each taking effect as it changes.
//! Impossible combinations are prevented where a control can (K/V heads are offered only as
//! divisors of the number of heads) and otherwise explained inline by the core's message.

use leptos::prelude::*;

use super::engine::{GpuStatus, probe};
use super::i18n::Text;
use super::i18n::fallback_message;
use super::mask_editor::MaskEditor;
use super::state::Lab;
use attention_core::api::{BackendChoice, BlockRequest, LayerNormRequest, MaskRequest, Request};
use attention_core::weights::Dims;

/// Log-scale temperature slider: position 0…1000 maps to T = 0.05 … 10.
const T_MIN: f64 = 0.05;
const T_MAX: f64 = 10.0;

pub fn temperature_to_slider(t: f64) -> f64 {
    ((t.clamp(T_MIN, T_MAX) / T_MIN).ln() / (T_MAX / T_MIN).ln() * 1000.0).round()
}

pub fn slider_to_temperature(position: f64) -> f64 {
    let t = T_MIN * (T_MAX / T_MIN).powf(position / 1000.0);
    // Two significant digits are as exact as a slider can be.
    let magnitude = 10f64.powf(t.log10().floor() - 1.0);
    (t / magnitude).round() * magnitude
}

/// The divisors of `n`: the K/V head counts that share `n` query heads evenly.
pub fn divisors(n: usize) -> Vec<usize> {
    (1..=n).filter(|&d| n.is_multiple_of(d)).collect()
}

/// The number of K/V heads to keep when the heads become `n_heads`: the old count if it still
/// divides, else the largest divisor below it.
pub fn kv_heads_for(n_heads: usize, n_kv_heads: usize) -> usize {
    divisors(n_heads)
        .into_iter()
        .filter(|&d| d <= n_kv_heads)
        .max()
        .unwrap_or(1)
}

fn parse<T: std::str::FromStr>(text: &str) -> Option<T> {
    text.trim().parse().ok()
}

/// A whole number with a slider and an exact field.
#[component]
fn IntControl(
    #[prop(into)] label: Signal<String>,
    #[prop(into)] help: Signal<String>,
    test_id: &'static str,
    #[prop(into)] min: Signal<usize>,
    #[prop(into)] max: Signal<usize>,
    #[prop(into)] value: Signal<usize>,
    on_change: Callback<usize>,
) -> impl IntoView {
    let input = move |text: String| {
        if let Some(v) = parse::<usize>(&text) {
            on_change.run(v);
        }
    };
    view! {
        <div class="control">
            <label class="control-label" for=test_id>
                {label}
                <span class="help">{help}</span>
            </label>
            <div class="control-row">
                <input
                    type="range"
                    aria-label=label
                    min=move || min.get().to_string()
                    max=move || max.get().max(min.get()).to_string()
                    step="1"
                    prop:value=move || value.get().to_string()
                    on:input=move |ev| input(event_target_value(&ev))
                />
                <input
                    type="number"
                    id=test_id
                    data-testid=test_id
                    min=move || min.get().to_string()
                    prop:value=move || value.get().to_string()
                    on:change=move |ev| input(event_target_value(&ev))
                />
            </div>
        </div>
    }
}

/// One choice among a few, as a row of toggle buttons.
#[component]
fn Segmented(
    #[prop(into)] names: Signal<Vec<&'static str>>,
    #[prop(into)] selected: Signal<usize>,
    test_id: &'static str,
    on_select: Callback<usize>,
) -> impl IntoView {
    view! {
        <div class="segmented" role="group" data-testid=test_id>
            {move || {
                names
                    .get()
                    .into_iter()
                    .enumerate()
                    .map(|(index, name)| {
                        view! {
                            <button
                                type="button"
                                data-value=index
                                aria-pressed=move || (selected.get() == index).to_string()
                                class:active=move || selected.get() == index
                                on:click=move |_| on_select.run(index)
                            >
                                {name}
                            </button>
                        }
                    })
                    .collect_view()
            }}
        </div>
    }
}

/// A token list as numbered chips.
#[component]
pub fn TokenChips(
    #[prop(into)] tokens: Signal<Vec<String>>,
    test_id: &'static str,
) -> impl IntoView {
    view! {
        <ol class="tokens" data-testid=test_id>
            {move || {
                tokens
                    .get()
                    .into_iter()
                    .enumerate()
                    .map(|(index, token)| {
                        view! {
                            <li class="chip" data-testid="token-chip">
                                <span class="chip-index">{index}</span>
                                <span class="chip-text">{token}</span>
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ol>
    }
}

fn mask_index(mask: &Option<MaskRequest>) -> usize {
    match mask {
        None | Some(MaskRequest::None) => 0,
        Some(MaskRequest::Causal) => 1,
        Some(MaskRequest::Padding { .. }) => 2,
        Some(MaskRequest::Window { .. }) => 3,
        Some(MaskRequest::Custom { .. }) => 4,
    }
}

/// The sentence, its tokens, and the optional source sentence of cross-attention.
#[component]
pub fn InputPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let sentence = move || lab.request.with(|r| r.sentence.clone().unwrap_or_default());
    let source = move || lab.request.with(|r| r.source_sentence.clone());
    let set_sentence = move |value: String| {
        lab.change(Request {
            sentence: Some(value),
            ..Request::default()
        })
    };
    // Memos: the chips are rebuilt only when the tokens change, not on every new trace.
    let tokens = Memo::new(move |_| {
        lab.shown
            .get()
            .map(|t| t.0.config.tokens().to_vec())
            .unwrap_or_default()
    });
    let source_tokens = Memo::new(move |_| {
        lab.shown
            .get()
            .and_then(|t| t.0.config.source().map(|s| s.tokens.clone()))
            .unwrap_or_default()
    });
    let toggle_cross = move |on: bool| {
        lab.notice.set(None);
        lab.request.update(|r| {
            r.source_tokens = None;
            r.source_x = None;
            r.source_sentence = on.then(|| super::i18n::EXAMPLES[1].to_string());
        });
    };
    view! {
        <section class="panel input-panel" aria-labelledby="sentence-label">
            <label class="field-label" id="sentence-label" for="sentence">
                {move || text().sentence_label}
            </label>
            <textarea
                id="sentence"
                data-testid="sentence"
                rows="2"
                spellcheck="false"
                placeholder=move || text().sentence_placeholder
                prop:value=sentence
                on:input=move |ev| set_sentence(event_target_value(&ev))
            ></textarea>
            <div class="examples">
                <span class="field-label">{move || text().examples_label}</span>
                {super::i18n::EXAMPLES
                    .iter()
                    .map(|&example| {
                        view! {
                            <button
                                type="button"
                                class="example"
                                data-testid="example"
                                on:click=move |_| set_sentence(example.to_string())
                            >
                                {example}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <h2 class="field-label">
                {move || text().tokens_label}
                <span class="count" data-testid="token-count">
                    {move || tokens.get().len()}
                </span>
            </h2>
            <TokenChips tokens=Signal::from(tokens) test_id="tokens" />
            <label class="checkbox">
                <input
                    type="checkbox"
                    data-testid="cross-toggle"
                    prop:checked=move || source().is_some()
                    on:change=move |ev| toggle_cross(event_target_checked(&ev))
                />
                {move || text().cross_attention}
                <span class="help">{move || text().cross_attention_help}</span>
            </label>
            <Show when=move || source().is_some()>
                <label class="field-label" for="source-sentence">
                    {move || text().source_label}
                </label>
                <textarea
                    id="source-sentence"
                    data-testid="source-sentence"
                    rows="2"
                    spellcheck="false"
                    placeholder=move || text().source_placeholder
                    prop:value=move || source().unwrap_or_default()
                    on:input=move |ev| {
                        lab.change(Request {
                            source_sentence: Some(event_target_value(&ev)),
                            ..Request::default()
                        })
                    }
                ></textarea>
                <h2 class="field-label">{move || text().source_tokens_label}</h2>
                <TokenChips tokens=Signal::from(source_tokens) test_id="source-tokens" />
            </Show>
        </section>
    }
}

/// Every numeric and categorical parameter.
#[component]
pub fn Controls() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || -> &'static Text { lab.lang.get().text() };
    let dims = Memo::new(move |_| {
        lab.shown.with(|t| {
            t.as_ref().map_or(
                Dims {
                    d_model: 16,
                    n_heads: 2,
                    n_kv_heads: 2,
                    d_k: 8,
                    d_v: 8,
                },
                |t| *t.0.config.dims(),
            )
        })
    });
    let dims = move || dims.get();
    let lengths = Memo::new(move |_| {
        lab.shown.with(|t| {
            t.as_ref()
                .map_or((1, 1), |t| (t.0.config.seq_len(), t.0.config.key_len()))
        })
    });
    let lengths = move || lengths.get();
    let set = move |update: Request| lab.change(update);

    let d_model = Signal::from(Memo::new(move |_| {
        lab.request
            .with(|r| r.d_model)
            .unwrap_or_else(|| dims().d_model)
    }));
    let n_heads = Signal::from(Memo::new(move |_| {
        lab.request
            .with(|r| r.n_heads)
            .unwrap_or_else(|| dims().n_heads)
    }));
    let n_kv_heads = Signal::from(Memo::new(move |_| {
        lab.request
            .with(|r| r.n_kv_heads)
            .unwrap_or_else(|| dims().n_kv_heads)
    }));
    let set_heads = Callback::new(move |n: usize| {
        let previous_kv = n_kv_heads.get_untracked();
        let kv = kv_heads_for(n, previous_kv);
        set(Request {
            n_heads: Some(n),
            n_kv_heads: Some(kv),
            ..Request::default()
        });
        if kv != previous_kv && n > 0 {
            lab.notice
                .set(Some(text().kv_adjusted.replace("{n}", &kv.to_string())));
        }
    });
    let kv_kind = move || {
        let (h, kv) = (n_heads.get(), n_kv_heads.get());
        let kinds = text().kv_kind;
        if kv == h {
            kinds[0]
        } else if kv == 1 {
            kinds[2]
        } else {
            kinds[1]
        }
    };
    let d_k_auto = move || lab.request.with(|r| r.d_k.is_none());
    let d_v_auto = move || lab.request.with(|r| r.d_v.is_none());

    let temperature = move || lab.request.with(|r| r.temperature).unwrap_or(1.0);
    let set_temperature = move |t: f64| {
        set(Request {
            temperature: Some(t),
            ..Request::default()
        })
    };

    let mask = move || lab.request.with(|r| r.mask.clone());
    // The kind alone decides which extra control shows: changing a valid length or painting a
    // cell must not rebuild (and so reset) the control being used.
    let mask_kind = Memo::new(move |_| lab.request.with(|r| mask_index(&r.mask)));
    let valid_len = Signal::derive(move || match mask() {
        Some(MaskRequest::Padding { valid_len }) => valid_len,
        _ => 0,
    });
    let radius = Signal::derive(move || match mask() {
        Some(MaskRequest::Window { radius }) => radius,
        _ => 0,
    });
    let select_mask = Callback::new(move |index: usize| {
        let (queries, keys) = lengths();
        let mask = match index {
            0 => MaskRequest::None,
            1 => MaskRequest::Causal,
            2 => MaskRequest::Padding {
                valid_len: keys.saturating_sub(2).max(1).min(keys),
            },
            3 => MaskRequest::Window { radius: 1 },
            // Start from whatever the mask shows now, so a user edits what they see.
            _ => MaskRequest::Custom {
                allowed: lab.shown.with(|t| {
                    t.as_ref().map_or_else(
                        || vec![vec![true; keys]; queries],
                        |t| t.0.mask.outer_iter().map(|row| row.to_vec()).collect(),
                    )
                }),
            },
        };
        set(Request {
            mask: Some(mask),
            ..Request::default()
        });
    });
    let layer_norm_index = move || match lab.request.with(|r| r.layer_norm).unwrap_or_default() {
        LayerNormRequest::None => 0,
        LayerNormRequest::Pre => 1,
        LayerNormRequest::Post => 2,
    };
    let block = move || lab.request.with(|r| r.block).unwrap_or_default();
    let seed = move || lab.request.with(|r| r.seed).unwrap_or(0);

    view! {
        <section class="panel controls" data-testid="controls">
            <h2>{move || text().model_section}</h2>
            <IntControl
                label="d_model"
                help=Signal::derive(move || text().d_model_help.to_string())
                test_id="d-model"
                min=1usize
                max=256usize
                value=d_model
                on_change=Callback::new(move |v| set(Request { d_model: Some(v), ..Request::default() }))
            />
            <IntControl
                label=Signal::derive(move || text().heads.to_string())
                help=""
                test_id="n-heads"
                min=1usize
                max=16usize
                value=n_heads
                on_change=set_heads
            />
            <div class="control">
                <label class="control-label" for="n-kv-heads">
                    {move || text().kv_heads}
                    <span class="help" data-testid="kv-kind">{kv_kind}</span>
                </label>
                <select
                    id="n-kv-heads"
                    data-testid="n-kv-heads"
                    on:change=move |ev| {
                        if let Some(kv) = parse::<usize>(&event_target_value(&ev)) {
                            set(Request { n_kv_heads: Some(kv), ..Request::default() });
                        }
                    }
                >
                    {move || {
                        let current = n_kv_heads.get();
                        divisors(n_heads.get())
                            .into_iter()
                            .map(|d| {
                                view! {
                                    <option value=d.to_string() selected=d == current>
                                        {d}
                                    </option>
                                }
                            })
                            .collect_view()
                    }}
                </select>
            </div>
            <div>
                <AutoIntControl
                    label="d_k"
                    help=Signal::derive(move || text().d_k_help.to_string())
                    test_id="d-k"
                    value=Signal::derive(move || dims().d_k)
                    auto=Signal::derive(d_k_auto)
                    on_change=Callback::new(move |v: Option<usize>| {
                        lab.notice.set(None);
                        lab.request.update(|r| r.d_k = v);
                    })
                />
                <AutoIntControl
                    label="d_v"
                    help=Signal::derive(move || text().d_v_help.to_string())
                    test_id="d-v"
                    value=Signal::derive(move || dims().d_v)
                    auto=Signal::derive(d_v_auto)
                    on_change=Callback::new(move |v: Option<usize>| {
                        lab.notice.set(None);
                        lab.request.update(|r| r.d_v = v);
                    })
                />
            </div>

            <h2>{move || text().softmax_section}</h2>
            <div class="control">
                <label class="control-label" for="temperature">
                    {move || text().temperature}
                    <span class="help">{move || text().temperature_help}</span>
                </label>
                <div class="control-row">
                    <input
                        type="range"
                        data-testid="temperature-slider"
                        aria-label=move || text().temperature
                        min="0"
                        max="1000"
                        step="1"
                        prop:value=move || temperature_to_slider(temperature()).to_string()
                        on:input=move |ev| {
                            if let Some(position) = parse::<f64>(&event_target_value(&ev)) {
                                set_temperature(slider_to_temperature(position));
                            }
                        }
                    />
                    <input
                        type="number"
                        id="temperature"
                        data-testid="temperature"
                        step="any"
                        prop:value=move || temperature().to_string()
                        on:change=move |ev| {
                            if let Some(t) = parse::<f64>(&event_target_value(&ev)) {
                                set_temperature(t);
                            }
                        }
                    />
                </div>
            </div>

            <h2>{move || text().mask_section}</h2>
            <Segmented
                names=Signal::derive(move || text().mask_names.to_vec())
                selected=Signal::from(mask_kind)
                test_id="mask-kind"
                on_select=select_mask
            />
            <p class="help block" data-testid="mask-help">
                {move || text().mask_help[mask_kind.get()]}
            </p>
            {move || match mask_kind.get() {
                2 => {
                    view! {
                        <IntControl
                            label=Signal::derive(move || text().valid_len.to_string())
                            help=""
                            test_id="valid-len"
                            min=0usize
                            max=Signal::derive(move || lengths().1)
                            value=valid_len
                            on_change=Callback::new(move |v| {
                                set(Request { mask: Some(MaskRequest::Padding { valid_len: v }), ..Request::default() })
                            })
                        />
                    }
                        .into_any()
                }
                3 => {
                    view! {
                        <IntControl
                            label=Signal::derive(move || text().radius.to_string())
                            help=""
                            test_id="window-radius"
                            min=0usize
                            max=Signal::derive(move || lengths().0.max(lengths().1))
                            value=radius
                            on_change=Callback::new(move |v| {
                                set(Request { mask: Some(MaskRequest::Window { radius: v }), ..Request::default() })
                            })
                        />
                    }
                        .into_any()
                }
                4 => view! { <MaskEditor /> }.into_any(),
                _ => ().into_any(),
            }}

            <h2>{move || text().weights_section}</h2>
            <div class="control">
                <label class="control-label" for="seed">{move || text().seed}</label>
                <div class="control-row">
                    <input
                        type="number"
                        id="seed"
                        data-testid="seed"
                        min="0"
                        prop:value=move || seed().to_string()
                        on:change=move |ev| {
                            if let Some(seed) = parse::<u64>(&event_target_value(&ev)) {
                                set(Request { seed: Some(seed), ..Request::default() });
                            }
                        }
                    />
                    <button
                        type="button"
                        class="button"
                        data-testid="reroll"
                        on:click=move |_| {
                            set(Request { seed: Some(random_seed()), ..Request::default() })
                        }
                    >
                        {move || text().reroll}
                    </button>
                </div>
            </div>

            <h2>{move || text().layer_section}</h2>
            <Segmented
                names=Signal::derive(move || text().layer_norm_names.to_vec())
                selected=Signal::derive(layer_norm_index)
                test_id="layer-norm"
                on_select=Callback::new(move |index: usize| {
                    let mode = [LayerNormRequest::None, LayerNormRequest::Pre, LayerNormRequest::Post][index.min(2)];
                    set(Request { layer_norm: Some(mode), ..Request::default() });
                })
            />
            <p class="help block">{move || text().layer_norm_help}</p>

            <BackendControl />

            <h2>{move || text().flash_section}</h2>
            <div class="pair">
                <IntControl
                    label=Signal::derive(move || text().block_rows.to_string())
                    help=""
                    test_id="block-rows"
                    min=1usize
                    max=64usize
                    value=Signal::derive(move || block().rows.unwrap_or(16))
                    on_change=Callback::new(move |v| {
                        set(Request { block: Some(BlockRequest { rows: Some(v), ..block() }), ..Request::default() })
                    })
                />
                <IntControl
                    label=Signal::derive(move || text().block_cols.to_string())
                    help=""
                    test_id="block-cols"
                    min=1usize
                    max=64usize
                    value=Signal::derive(move || block().cols.unwrap_or(16))
                    on_change=Callback::new(move |v| {
                        set(Request { block: Some(BlockRequest { cols: Some(v), ..block() }), ..Request::default() })
                    })
                />
            </div>
            <p class="help block">{move || text().block_help}</p>
        </section>
    }
}

/// Auto, GPU or CPU, with the GPU's state and, after a loss or failure, a way to try again.
#[component]
fn BackendControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || -> &'static Text { lab.lang.get().text() };
    let selected =
        Signal::derive(
            move || match lab.request.with(|r| r.backend).unwrap_or_default() {
                BackendChoice::Auto => 0,
                BackendChoice::Gpu => 1,
                BackendChoice::Cpu => 2,
            },
        );
    let status = move || match lab.gpu.get() {
        GpuStatus::Probing => text().gpu_probing.to_string(),
        GpuStatus::Ready(info) => format!(
            "{} {}{}",
            text().gpu_ready,
            info.name,
            if info.software {
                format!(" {}", text().gpu_software)
            } else {
                String::new()
            }
        ),
        GpuStatus::Unavailable { code, message } => {
            format!(
                "{} {}",
                text().gpu_none,
                fallback_message(code, &message, lab.lang.get())
            )
        }
        GpuStatus::Lost(_) => text().gpu_lost.to_string(),
    };
    let fallback = move || {
        lab.outcome.with(|o| {
            o.fallback
                .as_ref()
                .filter(|_| lab.request.with(|r| r.backend) == Some(BackendChoice::Gpu))
                .map(|f| fallback_message(f.code, &f.detail, lab.lang.get()))
        })
    };
    // Retrying helps after a loss or a failure, not where the browser has no WebGPU at all.
    let can_retry = move || match lab.gpu.get() {
        GpuStatus::Lost(_) => true,
        GpuStatus::Unavailable { code, .. } => code != "no-webgpu",
        _ => false,
    };
    view! {
        <h2>{move || text().backend_section}</h2>
        <Segmented
            names=Signal::derive(move || text().backend_names.to_vec())
            selected=selected
            test_id="backend"
            on_select=Callback::new(move |index: usize| {
                let backend = [BackendChoice::Auto, BackendChoice::Gpu, BackendChoice::Cpu][index.min(2)];
                lab.change(Request { backend: Some(backend), ..Request::default() });
            })
        />
        <p class="help block" data-testid="gpu-status">{status}</p>
        <p class="note" data-testid="fallback-reason">{fallback}</p>
        <Show when=can_retry>
            <button type="button" class="button" data-testid="gpu-retry" on:click=move |_| probe(lab)>
                {move || text().gpu_retry}
            </button>
        </Show>
        <p class="help block">{move || text().backend_help}</p>
    }
}

/// A whole number that can also be left to its default ("auto").
#[component]
fn AutoIntControl(
    #[prop(into)] label: Signal<String>,
    #[prop(into)] help: Signal<String>,
    test_id: &'static str,
    /// The value in effect (the default while on auto).
    #[prop(into)]
    value: Signal<usize>,
    #[prop(into)] auto: Signal<bool>,
    /// `None` returns to auto.
    on_change: Callback<Option<usize>>,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <div class="control">
            <label class="control-label" for=test_id>
                {label}
                <span class="help">{help}</span>
            </label>
            <div class="control-row">
                <input
                    type="number"
                    id=test_id
                    data-testid=test_id
                    min="1"
                    prop:value=move || value.get().to_string()
                    on:change=move |ev| {
                        if let Some(v) = parse::<usize>(&event_target_value(&ev)) {
                            on_change.run(Some(v));
                        }
                    }
                />
                <label class="checkbox inline">
                    <input
                        type="checkbox"
                        data-testid=format!("{test_id}-auto")
                        prop:checked=auto
                        on:change=move |ev| {
                            if event_target_checked(&ev) {
                                on_change.run(None);
                            } else {
                                on_change.run(Some(value.get_untracked()));
                            }
                        }
                    />
                    {move || lab.lang.get().text().auto}
                </label>
            </div>
        </div>
    }
}

/// A fresh seed for "re-roll": random in the browser, a counter elsewhere.
fn random_seed() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        (js_sys::Math::random() * 4_294_967_296.0) as u64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }
}
