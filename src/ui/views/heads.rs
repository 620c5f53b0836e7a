//! Choosing the head (and the trained model's layer) the per-head views show, and every head's
//! weights side by side.

use leptos::prelude::*;

use super::heatmap::Heatmap;
use super::heatmap::look::Look;
use super::section::{SectionHeading, presented};
use crate::ui::logic::matrix::Legend;
use crate::ui::logic::sections::Section;
use crate::ui::logic::stages::Stage;
use crate::ui::state::Lab;

/// Buttons to choose the head the per-head views show.
#[component]
pub fn HeadSelector() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let heads = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().map_or(0, |t| t.0.heads.len()))
    });
    let group = move || {
        lab.shown.with(|t| {
            t.as_ref().map_or(0, |t| {
                t.0.heads[lab.selected_head().min(t.0.heads.len() - 1)].kv_group
            })
        })
    };
    view! {
        <div class="head-selector" role="tablist" data-testid="head-selector">
            <span class="field-label">{move || text().head_label}</span>
            {move || {
                (0..heads.get())
                    .map(|h| {
                        view! {
                            <button
                                type="button"
                                role="tab"
                                data-testid=format!("head-tab-{h}")
                                aria-selected=move || (lab.selected_head() == h).to_string()
                                class:active=move || lab.selected_head() == h
                                on:click=move |_| lab.head.set(h)
                            >
                                {h + 1}
                            </button>
                        }
                    })
                    .collect_view()
            }}
            // Which K/V head the selected head reads, when heads share them.
            {move || {
                let groups = lab.shown.with(|t| {
                    t.as_ref().map_or(1, |t| t.0.config.dims().n_kv_heads)
                });
                (groups < heads.get()).then(|| view! {
                    <span class="help kv-reads" data-testid="kv-reads" title=move || text().kv.reads_help>
                        {(text().kv.reads)(group() + 1, groups)}
                    </span>
                })
            }}
            <LayerSelector />
        </div>
    }
}

/// Buttons to choose the trained model's layer the pipeline shows.
#[component]
fn LayerSelector() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let layers = Memo::new(move |_| {
        lab.forward.with(|f| {
            f.as_ref()
                .and_then(|f| f.as_ref().ok())
                .map_or(0, |f| f.0.layers.len())
        })
    });
    let selected = move || lab.layer.get().min(layers.get().saturating_sub(1));
    // A hybrid's layers are labelled by kind (linear attention or full softmax attention).
    let kinds = Memo::new(move |_| {
        lab.forward.with(|f| {
            let layers = &f.as_ref()?.as_ref().ok()?.0.layers;
            layers
                .iter()
                .any(|l| l.attention.config.linear().is_some())
                .then(|| {
                    layers
                        .iter()
                        .map(|l| l.attention.config.linear().is_some())
                        .collect::<Vec<_>>()
                })
        })
    });
    let kind = move |l: usize| {
        kinds.with(|k| {
            k.as_ref()
                .and_then(|k| k.get(l))
                .map(|&linear| lab.lang.get().text().linear.layer_kinds[usize::from(!linear)])
        })
    };
    view! {
        <Show when=move || lab.request.with(|r| r.is_trained()) && (layers.get() > 0)>
            <span class="layer-selector" data-testid="layer-selector">
                <span class="field-label">{move || lab.lang.get().text().model.layer_label}</span>
                {move || {
                    (0..layers.get())
                        .map(|l| view! {
                            <button type="button" role="tab" data-testid=format!("layer-tab-{l}")
                                aria-selected=move || (selected() == l).to_string()
                                class:active=move || selected() == l
                                on:click=move |_| lab.layer.set(l)>
                                {l + 1}
                                {move || kind(l).map(|k| view! { <span class="layer-kind">" " {k}</span> })}
                            </button>
                        })
                        .collect_view()
                }}
            </span>
        </Show>
    }
}

/// Small multiples: every head's weights side by side, on the weights' scale; a click selects
/// the head.
#[component]
pub fn AllHeads() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    // Only a new number of heads rebuilds the grid; new weights just redraw it.
    let heads = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().map_or(0, |t| t.0.heads.len()))
    });
    let section = Section::AllHeads;
    let random = Memo::new(move |_| lab.request.with(|r| !r.is_trained()));
    let random = move || random.get();
    let ablated = super::circuit_views::ablated_memo(lab);
    view! {
        <section class="step" data-testid="all-heads" data-view=section.id()
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <p class="caption">{move || if super::section::linear_heads(lab) { text().linear.all_heads_help } else { text().all_heads_help }}</p>
            // Random weights: a switch under each head (the trained model has them at a glance).
            <Show when=random><super::circuit_views::RandomKnockouts /></Show>
            <div class="small-multiples">
                {move || {
                    (0..heads.get())
                        .map(|h| {
                            let data = Memo::new(move |_| {
                                let trace = lab.shown.get()?;
                                if h >= trace.0.heads.len() {
                                    return None;
                                }
                                let mut view = Stage::Weights.view(&trace.0, h, lab.scale_mode.get());
                                view.row_labels.clear();
                                view.col_labels.clear();
                                view.legend = Legend::Hidden;
                                Some(view)
                            });
                            let knocked = move || {
                                random() && ablated.with(|a| a.iter().any(|a| a.head == h + 1))
                            };
                            view! {
                                <div class="small-multiple-cell" class:knocked=knocked>
                                <button
                                    type="button"
                                    class="small-multiple"
                                    data-testid=format!("all-heads-{h}")
                                    class:active=move || lab.selected_head() == h
                                    aria-pressed=move || (lab.selected_head() == h).to_string()
                                    aria-label=move || format!("{} {}", text().head_label, h + 1)
                                    on:click=move |_| lab.head.set(h)
                                >
                                    <span class="small-multiple-title">
                                        {move || text().head_label}
                                        " "
                                        {h + 1}
                                    </span>
                                    <Heatmap
                                        data=data
                                        look=Look::of(lab)
                                        test_id=format!("heatmap-head-{h}")
                                        label=Signal::derive(move || format!("{} {}", text().head_label, h + 1))
                                        compact=true
                                        on_drawn=Callback::new(move |_| lab.drawn())
                                    />
                                </button>
                                <Show when=random><super::circuit_views::KnockOut layer=0 head=h /></Show>
                                </div>
                            }
                        })
                        .collect_view()
                }}
            </div>
        </section>
    }
}
