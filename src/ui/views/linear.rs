//! The "Linear attention" section: the selected head's own Q, K and V read by linear attention
//! (elu + 1, the delta rule, gated), its hidden matrix A beside the softmax weights on one
//! signed scale, β and α per token, the state S after a token with a slider over the tokens,
//! and the chunked form checked against the token-by-token one. The numbers are the core's
//! (`teaching::linear`).

use leptos::prelude::*;

use super::controls::Segmented;
use super::heatmap::{CellPick, Heatmap, Look};
use crate::ui::logic::format::format_value;
use crate::ui::logic::format::group_digits;
use crate::ui::logic::linear::{
    AttentionChoice, hybrid_memory, pair, row_sum_range, state, strips,
};
use crate::ui::logic::visible_all;
use crate::ui::state::Lab;
use crate::ui::views::chart::paint;
use attention_core::math::linear::{DEFAULT_CHUNK, LinearKind, LinearSpec, MAX_CHUNK};
use attention_core::models::generate::CacheSizes;
use attention_core::teaching::linear::{LinearView, linear_view};

/// `children` (a view that replays a softmax over the heads' q and k: the head view, the tile
/// player), or, when the shown heads compute linear attention, a note saying why not.
#[component]
pub fn SoftmaxOnly(children: ChildrenFn) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let linear = Memo::new(move |_| super::section::linear_heads(lab));
    view! {
        <Show when=move || !linear.get() fallback=move || view! {
            <p class="note" data-testid="softmax-only">{move || lab.lang.get().text().linear.softmax_only}</p>
        }>
            {children()}
        </Show>
    }
}

#[component]
pub fn LinearSection() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().linear;
    // The page's own linear attention (random weights): its kind and chunk are the request's.
    let page = Memo::new(move |_| lab.request.with(|r| r.linear));
    let trained = Memo::new(move |_| lab.request.with(|r| r.is_trained()));
    // The shipped hybrid or a Qwen3-Next folder: the model in use has linear layers.
    let hybrid = Memo::new(move |_| {
        crate::ui::state::model::in_use(lab.request, lab.model_status)
            .is_some_and(|m| m.config.hybrid_every.is_some())
    });
    // A trained layer's chunk is the learner's to try here.
    let local_chunk = RwSignal::new(DEFAULT_CHUNK);
    let chunk = move || {
        page.get()
            .map_or(local_chunk.get(), |l| l.chunk.unwrap_or(DEFAULT_CHUNK))
    };
    let set_chunk = move |c: usize| {
        if page.get_untracked().is_some() {
            lab.edit(|r| {
                if let Some(l) = r.linear.as_mut() {
                    l.chunk = Some(c);
                }
            });
        } else {
            local_chunk.set(c);
        }
    };
    let after = RwSignal::new(usize::MAX);
    let head = move || {
        let heads = lab
            .shown
            .with(|t| t.as_ref().map_or(1, |t| t.0.heads.len()));
        lab.selected_head().min(heads.saturating_sub(1))
    };
    // The shown layer's heads when they are linear attention (the page's, or a hybrid's layer).
    let linear_trace = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().is_some_and(|t| t.0.config.linear().is_some()))
    });
    let computed: Memo<Option<(LinearView, Vec<String>)>> = Memo::new(move |_| {
        let chunk = chunk();
        let head = head();
        lab.shown.with(|t| {
            let trace = &t.as_ref()?.0;
            let (own, _) = trace.config.linear()?;
            let spec = LinearSpec {
                kind: own.kind,
                chunk,
            };
            let view = linear_view(trace, spec, head)?;
            Some((view, trace.config.tokens().to_vec()))
        })
    });
    let shown = move || lab.shown.with(|t| t.is_some());
    // Softmax heads of random weights: the section invites to compute them as linear attention.
    let invite = move || !linear_trace.get() && !trained.get();
    let page_kind = Signal::derive(move || lab.request.with(AttentionChoice::of));
    let choose_page = Callback::new(move |choice: AttentionChoice| {
        lab.edit(|r| r.linear = choice.request(r.linear));
    });
    // A trained layer's own numbers: no kind to choose and no softmax beside A.
    let own = move || trained.get();
    let shown_kind = move || {
        computed.with(|c| {
            c.as_ref()
                .map_or(LinearKind::GatedDelta, |(v, _)| v.spec.kind)
        })
    };
    let kind = Signal::derive(shown_kind);
    let choose = Callback::new(move |k: LinearKind| {
        lab.edit(|r| r.linear = AttentionChoice::Linear(k).request(r.linear));
    });
    let title = move || {
        if !linear_trace.get() && hybrid.get() {
            words().hybrid_title.to_string()
        } else if own() {
            (words().own_title)(lab.layer.get() + 1)
        } else {
            words().title.to_string()
        }
    };
    let pictures =
        Memo::new(move |_| computed.with(|c| c.as_ref().map(|(v, t)| pair(v, t, !own()))));
    let softmax = Signal::derive(move || pictures.get().map(|p| p.0));
    let matrix = Signal::derive(move || pictures.get().map(|p| p.1));
    let strip = Signal::derive(move || {
        computed.with(|c| c.as_ref().map(|(v, t)| strips(v, t, words().strip_rows)))
    });
    let kept = move || computed.with(|c| c.as_ref().map_or(0, |(v, _)| v.states.len()));
    let at = move || after.get().min(kept().saturating_sub(1));
    let state_view = Signal::derive(move || {
        let t = at();
        computed.with(|c| c.as_ref().and_then(|(v, _)| state(v, t)))
    });
    let token_at = move |t: usize| {
        computed.with(|c| {
            c.as_ref()
                .and_then(|(_, tokens)| visible_all(tokens).get(t).cloned())
                .unwrap_or_default()
        })
    };
    let readout = RwSignal::new(None::<String>);
    let on_cell = move |of_a: bool| {
        Callback::new(move |pick: Option<CellPick>| {
            readout.set(pick.and_then(|p| {
                computed.with(|c| {
                    let (v, _) = c.as_ref()?;
                    let m = if of_a { &v.matrix } else { &v.softmax };
                    let value = *m.get((p.row, p.col))?;
                    Some((words().cell)(
                        &format!("{} “{}”", p.row, token_at(p.row)),
                        &format!("{} “{}”", p.col, token_at(p.col)),
                        &format_value(value),
                    ))
                })
            }));
        })
    };
    let check = move || {
        computed.with(|c| {
            c.as_ref().map(|(v, _)| {
                let (lo, hi) = row_sum_range(v);
                format!(
                    "{} {}",
                    (words().check)(
                        v.spec.chunk,
                        &format!("{:.1e}", v.chunked_diff),
                        &format!("{:.1e}", v.matrix_diff)
                    ),
                    (words().row_sums)(&lo, &hi)
                )
            })
        })
    };
    let explanation = move || {
        let i = LinearKind::ALL
            .iter()
            .position(|&k| k == shown_kind())
            .unwrap_or(0);
        words().kinds[i].1
    };
    let look = Look::of(lab);
    view! {
        <Show when=shown>
            <section class="step linear" data-view="linear" id="section-linear" data-testid="linear-section">
                <h2 class="step-title" data-testid="linear-title">{title}</h2>
                <Show when=invite>
                    <p class="help block" data-testid="linear-invite">{move || words().invite}</p>
                    <Segmented selected=page_kind lang=lab.lang test_id="linear-invite-kind" on_select=choose_page />
                </Show>
                <Show when=move || !linear_trace.get() && hybrid.get()>
                    <p class="note block" data-testid="linear-full-layer">{move || (words().full_layer)(lab.layer.get() + 1)}</p>
                    <HybridMemory />
                </Show>
                <Show when=move || linear_trace.get()>
                <p class="help block">{move || if own() { words().own_help } else { words().page_help }}</p>
                <div class="linear-controls">
                    <Show when=move || !own()>
                        <span class="field-label">{move || words().kind_label}</span>
                        <Segmented selected=kind lang=lab.lang test_id="linear-kind" on_select=choose />
                    </Show>
                    <label class="field-label">
                        {move || words().chunk} " "
                        <input type="number" min="1" max=MAX_CHUNK.to_string() data-testid="linear-chunk"
                            prop:value=move || chunk().to_string()
                            on:change=move |ev| {
                                let value = event_target_value(&ev).trim().parse::<usize>().unwrap_or(DEFAULT_CHUNK);
                                set_chunk(value.clamp(1, MAX_CHUNK));
                            } />
                    </label>
                </div>
                <p class="help">{explanation} " " {move || words().chunk_help}</p>
                {move || match computed.with(Option::is_some) {
                    false => view! { <p class="note" data-testid="linear-unavailable">{words().unavailable}</p> }.into_any(),
                    true => view! {
                        <div class="linear-pair">
                            <Show when=move || !own()>
                            <figure class="stage" data-testid="linear-softmax">
                                <figcaption><h3>{move || words().softmax_title}</h3></figcaption>
                                <Heatmap data=softmax look=look test_id="heatmap-linear-softmax"
                                    label=Signal::derive(move || words().softmax_title.to_string())
                                    on_cell=on_cell(false) />
                            </figure>
                            </Show>
                            <figure class="stage" data-testid="linear-matrix">
                                <figcaption><h3>{move || words().matrix_title}</h3></figcaption>
                                <Heatmap data=matrix look=look test_id="heatmap-linear-matrix"
                                    label=Signal::derive(move || words().matrix_title.to_string())
                                    on_cell=on_cell(true) />
                            </figure>
                        </div>
                        <p class="help readout" aria-live="polite" data-testid="linear-readout">{move || readout.get()}</p>
                        <p class="help">{move || if own() { words().own_caption } else { words().matrix_caption }}</p>
                        <p class="flash-check" data-testid="linear-check">{check}</p>
                        <Show when=move || shown_kind().is_delta()>
                        <figure class="stage" data-testid="linear-strips">
                            <figcaption><h3>{move || words().strips_title}</h3></figcaption>
                            <Heatmap data=strip look=look test_id="heatmap-linear-strips"
                                label=Signal::derive(move || words().strips_title.to_string()) />
                            <p class="help">{move || words().strips_caption}</p>
                        </figure>
                        </Show>
                        <HybridMemory />
                        <figure class="stage" data-testid="linear-state">
                            <figcaption><h3>{move || words().state_title}</h3></figcaption>
                            <label class="linear-scrubber">
                                <span>{move || (words().state_after)(at(), &token_at(at()))}</span>
                                <input type="range" min="0" data-testid="linear-after"
                                    max=move || kept().saturating_sub(1).to_string()
                                    prop:value=move || at().to_string()
                                    aria-valuetext=move || (words().state_after)(at(), &token_at(at()))
                                    on:input=move |ev| {
                                        if let Ok(t) = event_target_value(&ev).parse::<usize>() {
                                            after.set(t);
                                        }
                                    } />
                            </label>
                            <Heatmap data=state_view look=look test_id="heatmap-linear-state"
                                label=Signal::derive(move || format!("{} ({})", words().state_title, (words().state_after)(at(), &token_at(at())))) />
                            <p class="help">{move || words().state_caption} " "
                                {move || {
                                    let tokens = computed.with(|c| c.as_ref().map_or(0, |(v, _)| v.beta.len()));
                                    (kept() < tokens).then(|| (words().states_limit)(kept()))
                                }}</p>
                        </figure>
                    }.into_any(),
                }}
                </Show>
            </section>
        </Show>
    }
}

/// A hybrid model's memory against length: its states and its full layers' cache beside the
/// same model with every layer softmax, with the numbers in words.
#[component]
fn HybridMemory() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().linear;
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let sizes = Memo::new(move |_| {
        let model = crate::ui::views::generate::model(lab)?;
        let sizes = CacheSizes::of(&model.config);
        (sizes.linear_layers > 0).then_some((sizes, model.config.context))
    });
    let chart = Memo::new(move |_| {
        let _ = lab.scheme();
        sizes
            .get()
            .map(|(s, _)| hybrid_memory(&s, words().memory_labels, (0, 0, 0)))
    });
    Effect::new(move |_| {
        if let (Some(canvas), Some(chart)) = (canvas.get(), chart.get()) {
            paint(&canvas, chart, 520);
        }
    });
    let said = move || {
        let (s, context) = sizes.get()?;
        let digits = |n: usize| group_digits(n as u64);
        Some((words().memory_text)(
            s.linear_layers,
            &digits(s.state_bytes),
            s.layers_with_keys,
            // One full layer's, as one softmax layer in a linear one's place would add.
            &digits(s.this_model / s.layers_with_keys.max(1)),
            s.crossover_tokens()?,
            context,
            &digits(s.hybrid_bytes(context)),
            &digits(s.all_softmax_bytes(context)),
        ))
    };
    view! {
        <Show when=move || sizes.with(Option::is_some)>
            <figure class="stage" data-testid="hybrid-memory">
                <canvas class="memory-chart" node_ref=canvas data-testid="hybrid-memory-chart" role="img"
                    aria-label=move || words().memory_labels[0]></canvas>
                <p class="help" data-testid="hybrid-memory-text">{said}</p>
            </figure>
        </Show>
    }
}
