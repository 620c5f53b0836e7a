//! "How the heads compose": the trained model's heads as a circuit (layers as columns, heads as
//! buttons over a drawing of the arrows, weighted by Q-, K- and V-composition, the strongest
//! named), the chosen head's composition on the sentence, and the scores as a table.

use std::sync::Arc;

use leptos::prelude::*;

use super::circuit_views::{model, writer_bar};
use crate::ui::logic::circuit::{
    CircuitLayout, Kind, chosen_head, pair_rows, percent, spread_labels, strongest_lines,
};
use crate::ui::logic::format::group_digits;
use crate::ui::logic::roles::{dominant, label};
use crate::ui::state::{Composed, Lab};
use attention_core::circuits::composition::{
    Composition, composition, composition_cost, composition_pairs, sentence_shares,
};
use attention_core::models::Model;

/// The most multiply-adds the composition is computed with unasked (on the page's thread: a
/// second or so). The lab's models take a few million; a user's GPT-2 small, 90 billion.
const UNASKED_COST: u64 = 2_000_000_000;

/// The model the reader asked the composition of, by address (`None`: none yet).
type Asked = RwSignal<Option<usize>>;

/// Whether the composition of `model` waits to be asked for: it costs more than
/// [`UNASKED_COST`] and this model's was not asked for (asking for one model's does not ask
/// for the next one's).
fn waits(model: &Arc<Model>, asked: Asked) -> bool {
    composition_cost(&model.config) > UNASKED_COST
        && asked.get() != Some(Arc::as_ptr(model) as usize)
}

/// A composition and its drawing's layout.
type Drawn = Arc<(Composition, CircuitLayout)>;

/// The composition of the model in use, computed once per model: unasked when it is cheap; a
/// folder's model's in its worker once asked (`from_worker`, by the model's address), the page
/// computing it only where no worker holds the model.
fn composed(lab: Lab, asked: Asked, from_worker: WorkerComposition) -> Memo<Option<Drawn>> {
    Memo::new(move |_| {
        let model = model(lab)?;
        if waits(&model, asked) {
            return None;
        }
        let address = Arc::as_ptr(&model) as usize;
        let worker = from_worker.with(|w| InWorker::for_model(w, address));
        match worker {
            WorkerAnswer::Done(drawn) => return Some(drawn),
            WorkerAnswer::Computing => return None,
            WorkerAnswer::None => {}
        }
        // Too costly for the page's thread and held by a worker: asked for there.
        if composition_cost(&model.config) > UNASKED_COST && lab.model_jobs.serves(&model) {
            return None;
        }
        let c = composition(&model);
        let layout = CircuitLayout::of(&c, model.config.n_heads);
        Some(Arc::new((c, layout)))
    })
}

/// What the model's worker computes of a folder's model's composition: for which model (its
/// address), and how far it is or its scores.
#[derive(Clone, Default)]
struct InWorker {
    model: usize,
    progress: Option<(usize, usize)>,
    done: Option<Drawn>,
    /// It stopped: the page computes it.
    ended: bool,
}

type WorkerComposition = RwSignal<Option<InWorker>, LocalStorage>;

enum WorkerAnswer {
    Done(Drawn),
    Computing,
    None,
}

impl InWorker {
    fn for_model(this: &Option<Self>, address: usize) -> WorkerAnswer {
        match this {
            Some(w) if w.model == address && !w.ended => match &w.done {
                Some(drawn) => WorkerAnswer::Done(drawn.clone()),
                None => WorkerAnswer::Computing,
            },
            _ => WorkerAnswer::None,
        }
    }
}

/// Asks the model's worker for the composition of a folder's model once the reader asked for
/// it (or of any model too costly to compute unasked that the worker holds).
fn compose_in_worker(
    lab: Lab,
    asked: Asked,
    from_worker: WorkerComposition,
    listener: StoredValue<Option<u32>>,
) {
    Effect::new(move |_| {
        let Some(model) = model(lab) else { return };
        let address = Arc::as_ptr(&model) as usize;
        let costly = composition_cost(&model.config) > UNASKED_COST;
        if !costly || waits(&model, asked) || !lab.model_jobs.serves(&model) {
            return;
        }
        // Asked already for this model, unless that ended (another model came between).
        let asked_already = from_worker
            .with_untracked(|w| w.as_ref().is_some_and(|w| w.model == address && !w.ended));
        if asked_already {
            return;
        }
        let n_heads = model.config.n_heads;
        let on = move |answer: Composed| {
            if matches!(answer, Composed::Ended) {
                // Its worker stopped: asked again, the page computes it (and says it stops).
                asked.try_set(None);
            }
            from_worker.try_update(|w| {
                let Some(w) = w.as_mut().filter(|w| w.model == address) else {
                    return;
                };
                match answer {
                    Composed::Progress(done, all) => w.progress = Some((done, all)),
                    Composed::Done(c) => {
                        let layout = CircuitLayout::of(&c, n_heads);
                        w.done = Some(Arc::new((c, layout)));
                    }
                    Composed::Ended => w.ended = true,
                }
            });
        };
        // Asked again once the worker holds the model, if it has not had it yet.
        if let Some(number) = untrack(|| lab.model_jobs.compose(&model, on)) {
            listener.set_value(Some(number));
            from_worker.set(Some(InWorker {
                model: address,
                progress: None,
                done: None,
                ended: false,
            }));
        }
    });
}

/// The section's circuit: the drawing, its legend and switches, the chosen head, the table.
#[component]
pub fn CircuitGraph() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let t = move || lab.lang.get().text().circuits;
    let asked: Asked = RwSignal::new(None);
    let from_worker: WorkerComposition = RwSignal::new_local(None);
    let listener = StoredValue::new(None);
    compose_in_worker(lab, asked, from_worker, listener);
    // The view gone, what its worker computes is not wanted (unless someone else waits for it).
    on_cleanup(move || {
        if let Some(number) = listener.get_value() {
            lab.model_jobs.stop_compose(number);
        }
    });
    let data = composed(lab, asked, from_worker);
    let shown = RwSignal::new([true, true, true]);
    let only_chosen = RwSignal::new(false);
    // A model with too many heads to compare unasked: what it would cost, and a button.
    let costly = move || {
        let model = model(lab)?;
        let cost = composition_cost(&model.config);
        let address = Arc::as_ptr(&model) as usize;
        let c = &model.config;
        let heads = c.n_layers * c.n_heads;
        let pairs = group_digits(composition_pairs(c));
        if !waits(&model, asked) {
            // Asked, and its worker computing it: how far it is.
            let progress = from_worker.with(|w| match w {
                Some(w) if w.model == address && w.done.is_none() && !w.ended => {
                    Some(w.progress.unwrap_or((0, 2 * heads)))
                }
                _ => None,
            })?;
            return Some(view! {
                <div class="circuit" data-testid="circuit-composing">
                    <h3>{move || t().graph_title}</h3>
                    <p class="note" role="status">{move || (t().composing)(progress.0, progress.1)}</p>
                </div>
            }.into_any());
        }
        let in_worker = lab.model_jobs.serves(&model);
        Some(view! {
            <div class="circuit" data-testid="circuit-costly">
                <h3>{move || t().graph_title}</h3>
                <p class="note">{move || if in_worker { (t().too_costly_worker)(heads, &pairs, cost) } else { (t().too_costly)(heads, &pairs, cost) }}</p>
                <button type="button" data-testid="circuit-compute" on:click=move |_| asked.set(Some(address))>
                    {move || t().compute_anyway}
                </button>
            </div>
        }.into_any())
    };
    let drawn = move || {
        data.get().map(|data| {
            let data2 = data.clone();
            let per_layer = data.1.per_layer;
            let chosen = move || lab.layer.get() * per_layer + lab.selected_head();
            let (width, height) = (data.1.width, data.1.height);
            view! {
                <div class="circuit" data-testid="circuit">
                    <h3>{move || t().graph_title}</h3>
                    <p class="caption">{move || t().graph_help}</p>
                    <div class="control-row circuit-kinds" role="group" aria-label=move || t().graph_title>
                        {Kind::ALL.into_iter().enumerate().map(|(i, kind)| view! {
                            <label class=format!("check circuit-kind {}", kind.id())>
                                <input type="checkbox" data-testid=format!("circuit-kind-{}", kind.id())
                                    prop:checked=move || shown.get()[i]
                                    on:change=move |ev| shown.update(|s| s[i] = event_target_checked(&ev)) />
                                <svg class="circuit-swatch" viewBox="0 0 28 8" width="28" height="8" aria-hidden="true">
                                    <line x1="1" y1="4" x2="27" y2="4" class=format!("circuit-line {}", kind.id()) />
                                </svg>
                                " " {move || t().kinds[i]}
                            </label>
                        }).collect_view()}
                        <label class="check">
                            <input type="checkbox" data-testid="circuit-only-chosen" prop:checked=move || only_chosen.get()
                                on:change=move |ev| only_chosen.set(event_target_checked(&ev)) />
                            " " {move || t().only_chosen}
                        </label>
                    </div>
                    <figure class="circuit-figure" style=format!("aspect-ratio: {width} / {height}")
                        role="group" aria-label=move || t().graph_label>
                        <svg viewBox=format!("0 0 {width} {height}") aria-hidden="true" class="circuit-svg">
                            <defs>
                                {Kind::ALL.into_iter().map(|kind| view! {
                                    <marker id=format!("circuit-head-{}", kind.id()) viewBox="0 0 10 10" refX="8" refY="5"
                                        markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto">
                                        <path d="M0,0 L10,5 L0,10 z" class=format!("circuit-tip {}", kind.id()) />
                                    </marker>
                                }).collect_view()}
                            </defs>
                            {move || {
                                let on = shown.get();
                                let only = only_chosen.get();
                                let at = chosen();
                                let layout = &data2.1;
                                let drawn: Vec<_> = layout.arrows.iter()
                                    .filter(|a| on[a.kind.index()])
                                    .filter(|a| !only || a.touches(at))
                                    .cloned()
                                    .collect();
                                let labels: Vec<_> = layout.strongest.iter()
                                    .filter_map(|s| drawn.iter().find(|a| a.kind == s.kind && a.from == s.from && a.to == s.to))
                                    .map(|a| (a.kind, a.middle, format!("{} {:.3}", a.kind.letter(), a.score)))
                                    .collect();
                                // Labels that would cover each other are moved apart.
                                let spread = spread_labels(&labels.iter().map(|l| l.1).collect::<Vec<_>>());
                                let labels: Vec<_> = labels.into_iter().zip(spread)
                                    .map(|((kind, _, text), at)| (kind, at, text))
                                    .collect();
                                view! {
                                    {drawn.into_iter().map(|a| view! {
                                        <path d=a.path.clone() class=format!("circuit-line {}", a.kind.id())
                                            class:touching=a.touches(at)
                                            stroke-width=format!("{:.2}", a.width())
                                            // Alone, a head's faint arrows are still seen.
                                            stroke-opacity=format!("{:.2}", if only { a.opacity().max(0.6) } else { a.opacity() })
                                            // Faint arrows go without a head: every arrow runs left to right, earlier to later.
                                            marker-end=(a.strength >= 0.3).then(|| format!("url(#circuit-head-{})", a.kind.id()))
                                            data-from=a.from data-to=a.to data-kind=a.kind.id() />
                                    }).collect_view()}
                                    {labels.into_iter().map(|(kind, (x, y), text)| view! {
                                        <text x=format!("{x:.1}") y=format!("{:.1}", y - 4.0) class=format!("circuit-label {}", kind.id())
                                            text-anchor="middle">{text}</text>
                                    }).collect_view()}
                                }
                            }}
                        </svg>
                        <Nodes data=data.clone() chosen=Signal::derive(chosen) />
                    </figure>
                    <p class="note circuit-empty" data-testid="circuit-empty"
                        hidden=move || shown.get().iter().any(|&s| s)>{move || t().no_arrows}</p>
                    <ul class="circuit-strongest" data-testid="circuit-strongest">
                        {let data = data.clone(); move || strongest_lines(&data.0, &data.1, lab.lang.get())
                            .into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}
                    </ul>
                    <p class="help">{let b = data.1.baseline; move || (t().baseline_line)(&format!("{b:.3}"))}</p>
                    <ChosenHead data=data.clone() />
                    <CompositionTable data=data.clone() />
                </div>
            }
        })
    };
    view! { {costly} {drawn} }
}

/// The heads, as buttons laid over the drawing: a click (or Enter) chooses one.
#[component]
fn Nodes(data: Arc<(Composition, CircuitLayout)>, chosen: Signal<usize>) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let t = move || lab.lang.get().text().circuits;
    let roles = Memo::new(move |_| {
        lab.forward.with(|f| {
            f.as_ref()
                .and_then(|f| f.as_ref().ok())
                .map(|f| f.0.head_roles())
        })
    });
    let (width, height) = (data.1.width, data.1.height);
    data.1
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let (l, h) = (node.layer, node.head);
            let role = move || {
                roles.with(|r| {
                    r.as_ref()
                        .and_then(|r| dominant(r.get(l)?.get(h)?))
                        .map_or("", |(role, _)| role.name(lab.lang.get()))
                })
            };
            let described = move || {
                roles.with(|r| {
                    r.as_ref()
                        .and_then(|r| r.get(l)?.get(h).map(|r| label(r, lab.lang.get())))
                        .unwrap_or_default()
                })
            };
            let knocked = move || {
                lab.request.with(|r| {
                    r.ablate
                        .as_ref()
                        .is_some_and(|a| a.iter().any(|a| a.layer == l + 1 && a.head == h + 1))
                })
            };
            let style = format!(
                "left: {:.2}%; top: {:.2}%",
                100.0 * node.x / width,
                100.0 * node.y / height
            );
            view! {
                <button type="button" class="circuit-node" style=style data-testid=format!("circuit-node-{l}-{h}")
                    class:active=move || chosen.get() == i class:knocked=knocked
                    aria-pressed=move || if chosen.get() == i { "true" } else { "false" }
                    aria-label=move || (t().node_label)(l + 1, h + 1, role(), &described())
                    on:click=move |_| { lab.layer.set(l); lab.head.set(h); }>
                    <span class="circuit-node-name">{format!("L{}·H{}", l + 1, h + 1)}</span>
                    // A space between: the name (which begins with the visible text) reads "L1·H2 previous".
                    " "
                    <span class="circuit-node-role" aria-hidden="true">{role}</span>
                </button>
            }
        })
        .collect_view()
}

/// Where the chosen head's scores on this sentence came from.
#[component]
fn ChosenHead(data: Arc<(Composition, CircuitLayout)>) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let t = move || lab.lang.get().text().circuits;
    let per_layer = data.1.per_layer;
    let shown = Memo::new(move |_| {
        let model = model(lab)?;
        let forward = lab
            .forward
            .with(|f| f.as_ref().and_then(|f| f.as_ref().ok()).cloned())?;
        let (layer, head) = (lab.layer.get(), lab.selected_head());
        // A linear layer (a hybrid's Gated DeltaNet) has no scores to take apart.
        if forward
            .0
            .layers
            .get(layer)?
            .attention
            .config
            .linear()
            .is_some()
        {
            return None;
        }
        let shares = sentence_shares(&model, &forward.0, layer, head)?;
        Some(chosen_head(
            &data.0,
            layer * per_layer + head,
            &shares,
            lab.lang.get(),
        ))
    });
    let bars = |values: Vec<(String, f64)>| {
        values
            .into_iter()
            .filter(|(_, v)| *v > 0.0)
            .take(6)
            .map(|(writer, v)| writer_bar(writer, v, false, percent(v)))
            .collect_view()
    };
    move || {
        shown.get().map(|c| {
            view! {
                <div class="circuit-chosen" data-testid="circuit-chosen" aria-live="polite">
                    <h4>{c.title}</h4>
                    <p data-testid="circuit-chosen-summary">{c.summary}</p>
                    <p class="help">{move || t().chosen_help}</p>
                    <div class="circuit-sides">
                        <div>
                            <h5>{move || t().query_side}</h5>
                            <ul class="who-bars" data-testid="circuit-query-side">{bars(c.query)}</ul>
                        </div>
                        <div>
                            <h5>{move || t().key_side}</h5>
                            <ul class="who-bars" data-testid="circuit-key-side">{bars(c.key)}</ul>
                        </div>
                    </div>
                </div>
            }
        })
    }
}

/// Every (earlier, later) pair's three scores, strongest first: the drawing's text alternative.
#[component]
fn CompositionTable(data: Arc<(Composition, CircuitLayout)>) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let t = move || lab.lang.get().text().circuits;
    let baseline = data.1.baseline;
    view! {
        <details class="circuit-table" data-testid="circuit-table">
            <summary>{move || t().table_title}</summary>
            <div class="table-scroll" tabindex="0">
                <table>
                    <caption>{move || (t().table_caption)(&format!("{baseline:.3}"))}</caption>
                    <thead><tr>
                        {move || t().table_columns.iter().map(|c| view! { <th scope="col">{*c}</th> }).collect_view()}
                    </tr></thead>
                    <tbody>
                        {move || pair_rows(&data.0, lab.lang.get()).into_iter().map(|row| view! {
                            <tr>
                                <th scope="row">{row.from}</th>
                                <td>{row.to}</td>
                                {row.scores.iter().map(|&s| view! {
                                    <td class:above={s > baseline}>{format!("{s:.3}")}</td>
                                }).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </details>
    }
}
