//! A user's own attention in the page: the views of an opened file that take the pipeline's
//! place (the opener is [`super::import_opener`]) — every layer × head at a glance, what each head does, and the
//! chosen head's weights with hover, its head view and, from Q and K, every matrix of its
//! computation with FlashAttention's outputs compared and its tiles replayed step by step.

use leptos::prelude::*;

use super::flash::FlashView;
use super::head_view::{HeadView, Lines};
use super::heatmap::Look;
use super::heatmap::{CellPick, Heatmap};
use super::import_opener::ImportSummary;
use super::imported_overview::ImportedOverview;
use super::imported_roles::{ImportViewControls, Roles, dominant_name};
use crate::ui::logic::format::format_value;
use crate::ui::logic::imported::{Part, cell, glance, summarised, view};
use crate::ui::logic::visible_all;
use crate::ui::state::Lab;
use attention_core::io::imported_views::Mean;

/// The layer and head the views show, within the file's.
fn chosen(lab: Lab) -> Memo<(usize, usize)> {
    Memo::new(move |_| {
        let (layers, _) = shape(lab);
        (
            lab.layer.get().min(layers.saturating_sub(1)),
            lab.selected_head(),
        )
    })
}

/// The open file's (layers, heads) as shown, (0, 0) when it cannot be shown.
fn shape(lab: Lab) -> (usize, usize) {
    lab.imported_run.with(|r| match r {
        Some(Ok(run)) => (run.0.layer_count(), run.0.head_count()),
        _ => (0, 0),
    })
}

/// The views of an open file, in the pipeline's place.
#[component]
pub fn ImportedViews() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || lab.lang.get().import();
    let error = move || {
        let lang = lab.lang.get();
        lab.imported_run.with(|r| match r {
            Some(Err(e)) => Some(view! {
                <p class="error" role="alert" data-testid="imported-error">
                    {format!("{} {}", lang.import().not_shown, lang.request_error(e))}
                </p>
            }),
            _ => None,
        })
    };
    view! {
        <section class="step imported" data-testid="imported-view" id="section-imported">
            <h2 class="step-title">{move || texts().section}</h2>
            <ImportSummary />
            <p class="note" data-testid="import-link-note">{move || crate::ui::views::share_warnings::link_note(lab)}</p>
            {error}
            <Show when=move || lab.imported_ok().is_some()>
                <ImportViewControls />
                <Glance />
                <Roles />
                <ChosenHead />
            </Show>
        </section>
    }
}

/// Every layer × head as a small heatmap; a click chooses it.
#[component]
fn Glance() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || lab.lang.get().import();
    let size = Memo::new(move |_| shape(lab));
    view! {
        <h3>{move || texts().glance_title}</h3>
        <p class="caption">{move || texts().glance_help}</p>
        <div class="model-grid" data-testid="imported-grid"
            style=move || format!("grid-template-columns: repeat({}, minmax(0, 1fr))", size.get().1.clamp(1, 8))>
            {move || {
                let (layers, heads) = size.get();
                (0..layers).flat_map(|l| (0..heads).map(move |h| (l, h))).map(|(l, h)| {
                    let data = Memo::new(move |_| {
                        glance(&lab.imported_ok()?.0, l, h, lab.scale_mode.get())
                    });
                    let role = move || dominant_name(lab, l, h);
                    let title = move || title_of(lab, l, h);
                    view! {
                        <button type="button" class="small-multiple" data-testid=format!("imported-head-{l}-{h}")
                            class:active=move || lab.layer.get() == l && lab.selected_head() == h
                            aria-pressed=move || (lab.layer.get() == l && lab.selected_head() == h).to_string()
                            aria-label=move || match role() {
                                Some(role) => format!("{} {role}", title()),
                                None => title(),
                            }
                            on:click=move |_| { lab.layer.set(l); lab.head.set(h); }>
                            // A space between: the name reads as the visible text, "Layer 1 · head 1 next".
                            <span class="small-multiple-title">{title}" "<span class="role-tag">{role}</span></span>
                            <Heatmap data=data look=Look::of(lab) test_id=format!("heatmap-imported-{l}-{h}")
                                label=Signal::derive(title) compact=true />
                        </button>
                    }
                }).collect_view()
            }}
        </div>
    }
}

/// The chosen head: its weights with its pickers, its head view, and from Q and K each matrix
/// of its computation.
#[component]
fn ChosenHead() -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <ImportedWeights />
        <ImportedHeadView />
        {Part::ALL.into_iter().filter(|p| *p != Part::Weights).map(|part| view! { <PartCard part=part /> }).collect_view()}
        <FlashLine />
        <Show when=move || has_flash(lab)>
            <FlashView imported=true />
        </Show>
    }
}

/// Whether the shown file's heads are too large to draw cell by cell (past 512 × 512).
fn long(lab: Lab) -> bool {
    lab.imported_ok().is_some_and(|run| summarised(&run.0))
}

/// Whether the open file brought Q, K and V: what FlashAttention's tile player replays.
fn has_flash(lab: Lab) -> bool {
    lab.imported_ok()
        .is_some_and(|run| run.0.computed_under.is_some() && run.0.head(0, 0).v.is_some())
}

/// The chosen head's title, "Layer 2 · head 3".
fn head_title(lab: Lab) -> impl Fn() -> String + Copy + Send + Sync + 'static {
    let at = chosen(lab);
    move || {
        let (l, h) = at.get();
        title_of(lab, l, h)
    }
}

/// Head (`l`, `h`)'s title: "Layer 2 · head 3", or in a mean view what it is the mean of.
fn title_of(lab: Lab, l: usize, h: usize) -> String {
    let lang = lab.lang.get();
    let (layers, heads) = lab.imported.with(|f| {
        f.as_ref().map_or((0, 0), |f| {
            (f.data.tensors.layers(), f.data.tensors.heads())
        })
    });
    match lab.import_view.with(|v| v.mean) {
        Some(Mean::Heads) => (lang.import_roles().mean_heads_title)(l + 1, heads),
        Some(Mean::Layers) => (lang.import_roles().mean_layers_title)(h + 1, layers),
        None => (lang.import().head_title)(l + 1, h + 1),
    }
}

/// The chosen head's layer and head pickers, and its weights with the cell under the pointer
/// read out.
#[component]
fn ImportedWeights() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || lab.lang.get().import();
    let at = chosen(lab);
    let size = Memo::new(move |_| shape(lab));
    let picked = RwSignal::new(None::<(usize, usize)>);
    let readout = move || {
        let lang = lab.lang.get();
        let (layer, head) = at.get();
        match picked.get() {
            Some((row, col)) => lab.imported_ok().and_then(|run| {
                let (q, k, w) = cell(&run.0, layer, head, Part::Weights, row, col)?;
                Some((lang.import().cell)(&q, &k, &format_value(w)))
            }),
            None => Some(lang.import().cell_hint.to_string()),
        }
    };
    let picker = move |label: fn(&crate::ui::i18n::import::ImportTexts) -> &'static str,
                       count: Memo<usize>,
                       signal: RwSignal<usize>,
                       id: &'static str| {
        view! {
            <label class="field inline">
                <span class="field-label">{move || label(texts())}</span>
                <select data-testid=id on:change=move |ev| {
                    if let Ok(n) = event_target_value(&ev).parse::<usize>() { signal.set(n); }
                }>
                    {move || (0..count.get()).map(|i| view! {
                        <option value=i.to_string() selected=move || signal.get() == i>{i + 1}</option>
                    }).collect_view()}
                </select>
            </label>
        }
    };
    let layers = Memo::new(move |_| size.get().0);
    let heads = Memo::new(move |_| size.get().1);
    let title = head_title(lab);
    view! {
        <h3 data-testid="imported-head-title">{title}</h3>
        <div class="imported-pickers">
            {picker(|t| t.layer, layers, lab.layer, "imported-layer")}
            {picker(|t| t.head, heads, lab.head, "imported-head")}
        </div>
        <div class="imported-card">
            <h4>{move || texts().parts[4]}</h4>
            {move || if long(lab) {
                view! {
                    <ImportedOverview part=Part::Weights at=at
                        label=Signal::derive(move || format!("{} · {}", title(), texts().parts[4]))
                        on_cell=Callback::new(move |pick: Option<CellPick>| picked.set(pick.map(|p| (p.row, p.col)))) />
                }.into_any()
            } else {
                view! {
                    <Heatmap data=part_data(lab, Part::Weights) look=Look::of(lab) test_id="heatmap-imported-weights"
                        label=Signal::derive(move || format!("{} · {}", title(), texts().parts[4]))
                        on_cell=Callback::new(move |pick: Option<CellPick>| picked.set(pick.map(|p| (p.row, p.col)))) />
                }.into_any()
            }}
            <p class="help block" data-testid="imported-cell" aria-live="polite">{readout}</p>
        </div>
    }
}

/// `part` of the chosen head as a heatmap's data.
fn part_data(lab: Lab, part: Part) -> Memo<Option<crate::ui::logic::matrix::MatrixView>> {
    let at = chosen(lab);
    Memo::new(move |_| {
        let (layer, head) = at.get();
        view(
            &lab.imported_ok()?.0,
            layer,
            head,
            part,
            lab.scale_mode.get(),
        )
    })
}

/// The chosen head's head view.
#[component]
fn ImportedHeadView() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let at = chosen(lab);
    let lines = Memo::new(move |_| {
        let run = lab.imported_ok()?;
        let (layer, head) = at.get();
        Some(Lines {
            weights: run.0.head(layer, head).weights.clone(),
            queries: visible_all(&run.0.tokens),
            keys: visible_all(run.0.keys()),
        })
    });
    view! {
        <div class="imported-card">
            <h4>{move || lab.lang.get().import().head_view_title}</h4>
            <HeadView lines=lines />
        </div>
    }
}

/// One matrix of the chosen head's computation (Q, K, V, the scores, the output), when the file
/// brought Q and K.
#[component]
fn PartCard(part: Part) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || lab.lang.get().import();
    let at = chosen(lab);
    let index = Part::ALL.iter().position(|p| *p == part).unwrap_or(0);
    let has = move || {
        let (layer, head) = at.get();
        lab.imported_ok()
            .is_some_and(|run| part.matrix(run.0.head(layer, head)).is_some())
    };
    let title = head_title(lab);
    view! {
        <Show when=has>
            <div class="imported-card">
                <h4>{move || texts().parts[index]}</h4>
                {(part == Part::Scores).then(|| view! { <p class="caption">{move || texts().scores_caption}</p> })}
                {move || if long(lab) && part.cols_are_keys() {
                    view! {
                        <ImportedOverview part=part at=chosen(lab)
                            label=Signal::derive(move || format!("{} · {}", title(), texts().parts[index])) />
                    }.into_any()
                } else {
                    view! {
                        <Heatmap data=part_data(lab, part) look=Look::of(lab) test_id=format!("heatmap-imported-{}", part.id())
                            label=Signal::derive(move || format!("{} · {}", title(), texts().parts[index]))
                            on_cell=Callback::new(|_| {}) />
                    }.into_any()
                }}
            </div>
        </Show>
    }
}

/// FlashAttention's outputs against the standard ones, when the file brought V.
#[component]
fn FlashLine() -> impl IntoView {
    let lab = expect_context::<Lab>();
    move || {
        let diff = lab.imported_ok()?.0.max_flash_diff?;
        Some(view! {
            <p class="note" data-testid="imported-flash">
                {(lab.lang.get().import().flash_equal)(&format!("{diff:.1e}"))}
            </p>
        })
    }
}

/// One panel of an embed showing a user's file, by the embed's panel names: `weights`,
/// `head-view`, `all-heads` (or `model-view`), `head-roles`, the stages a file can have (`q`,
/// `k`, `v`, `dot`/`scaled`/`masked` for the scores, `head-output`) and `flash`. Others show
/// nothing of a file.
pub fn imported_panel(name: &str) -> Option<AnyView> {
    let part = match name {
        "q" => Some(Part::Q),
        "k" => Some(Part::K),
        "v" => Some(Part::V),
        "dot" | "scaled" | "masked" => Some(Part::Scores),
        "head-output" => Some(Part::Output),
        _ => None,
    };
    if let Some(part) = part {
        return Some(view! { <div class="embed-panel"><PartCard part=part /></div> }.into_any());
    }
    Some(match name {
        "weights" => view! { <div class="embed-panel"><ImportedWeights /></div> }.into_any(),
        "head-view" => view! { <div class="embed-panel"><ImportedHeadView /></div> }.into_any(),
        "all-heads" | "model-view" => {
            view! { <div class="embed-panel wide"><Glance /></div> }.into_any()
        }
        "head-roles" => view! { <div class="embed-panel wide"><Roles /></div> }.into_any(),
        "flash" => view! {
            <div class="embed-panel wide">
                <FlashLine />
                <Show when=move || has_flash(expect_context::<Lab>())>
                    <FlashView imported=true />
                </Show>
            </div>
        }
        .into_any(),
        _ => return None,
    })
}
