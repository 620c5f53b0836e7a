//! The trained model's own views: every layer and head at a glance (a click opens one in the
//! pipeline), what each head does on this sentence, and what the model predicts next, with a
//! button that continues the sentence one character at a time.

use leptos::prelude::*;

use super::heatmap::Heatmap;
use super::heatmap::Look;
use super::section::{SectionHeading, presented};
use crate::ui::logic::matrix::Legend;
use crate::ui::logic::roles::{Role, dominant, label};
use crate::ui::logic::sections::Section;
use crate::ui::logic::stages::Stage;
use crate::ui::logic::visible;
use crate::ui::state::Lab;
use crate::ui::state::model::{ForwardRef, ModelKey};
use attention_core::api::Request;
use attention_core::models::sample_next;
use attention_core::pipeline::roles::HeadRoles;

/// The forward pass the views show, when the trained model ran.
fn forward(lab: Lab) -> Memo<Option<ForwardRef>> {
    Memo::new(move |_| {
        lab.forward
            .with(|f| f.as_ref().and_then(|f| f.as_ref().ok()).cloned())
    })
}

/// When the text is longer than the model's context: which characters the model reads.
#[component]
fn ContextWindow() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let run = forward(lab);
    move || {
        run.with(|r| {
            let r = r.as_ref()?;
            (r.0.dropped > 0).then(|| {
                let read = r.0.tokens.len();
                let (whole, first) = (read + r.0.dropped, r.0.dropped);
                let texts = &lab.lang.get().text().model;
                // A folder's model counts its tokens, and the page's memory may cut it short.
                let folder = lab
                    .request
                    .with(|q| matches!(ModelKey::of(q), Some(ModelKey::Folder(_))));
                let text = match super::circuit_views::model(lab).filter(|_| folder) {
                    Some(model) => {
                        (texts.folder_window)(read, whole, first, read < model.config.context)
                    }
                    None => (texts.window)(read, whole, first),
                };
                view! { <p class="note" data-testid="context-window">{text}</p> }
            })
        })
    }
}

/// The grid's columns: a layer's heads on one row while each thumbnail keeps 4.5rem; more heads
/// (a Llama 3.2 model's 32 beside the controls) wrap, each layer starting a row of its own
/// (`.layer-start`), rather than squeezing thumbnails, titles and buttons over each other. (Half a
/// pixel under the exact share, so that rounding never leaves a layer one column short.)
fn grid_columns(heads: usize) -> String {
    let heads = heads.max(1);
    let gaps = 0.6 * (heads - 1) as f64;
    format!(
        "grid-template-columns: repeat(auto-fill, minmax(max(4.5rem, calc((100% - {gaps:.1}rem) / {heads} - 0.5px)), 1fr))"
    )
}

/// Every layer × head as a small heatmap of its weights, with its role on this sentence.
#[component]
pub fn ModelOverview() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().model;
    let run = forward(lab);
    let shape = Memo::new(move |_| {
        run.with(|r| {
            r.as_ref().map_or((0, 0), |r| {
                (r.0.layers.len(), r.0.layers[0].attention.heads.len())
            })
        })
    });
    let roles = Memo::new(move |_| run.with(|r| r.as_ref().map(|r| r.0.head_roles())));
    let ablated = super::circuit_views::ablated_memo(lab);
    let section = Section::Model;
    provide_context(super::circuit_views::MeanAblation(RwSignal::new(false)));
    view! {
        <section class="step model-overview" data-view=section.id() data-testid="model-view"
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <ContextWindow />
            <p class="caption" data-testid="model-view-help">
                {move || texts().overview_help}
                // A hybrid's linear layers draw A, not weights: said where the grid is.
                {move || {
                    let mixed = run.with(|r| {
                        r.as_ref().is_some_and(|r| {
                            r.0.layers.iter().any(|l| l.attention.config.linear().is_some())
                        })
                    });
                    mixed.then(|| format!(" {}", lab.lang.get().text().linear.grid_help))
                }}
            </p>
            <super::circuit_views::AblationControls />
            <div class="model-grid" style=move || grid_columns(shape.get().1)>
                {move || {
                    let (layers, heads) = shape.get();
                    (0..layers).flat_map(|l| (0..heads).map(move |h| (l, h))).map(|(l, h)| {
                        let data = Memo::new(move |_| {
                            let run = run.get()?;
                            let trace = &run.0.layers.get(l)?.attention;
                            let mut view = Stage::Weights.view(trace, h, lab.scale_mode.get());
                            view.row_labels.clear();
                            view.col_labels.clear();
                            view.legend = Legend::Hidden;
                            Some(view)
                        });
                        let linear = move || {
                            run.with(|r| r.as_ref().and_then(|r| r.0.layers.get(l)).is_some_and(|x| x.attention.config.linear().is_some()))
                        };
                        // A hybrid's linear heads show A, which has no roles: their kind instead.
                        let role = move || {
                            if linear() {
                                return Some(lab.lang.get().text().linear.grid_tag);
                            }
                            roles.with(|r| r.as_ref().and_then(|r| dominant(&r[l][h])).map(|(role, _)| role.name(lab.lang.get())))
                        };
                        let active = move || lab.layer.get() == l && lab.selected_head() == h;
                        view! {
                            <div class="small-multiple-cell" class:layer-start=h == 0 class:knocked=move || ablated.with(|a| a.iter().any(|a| a.layer == l + 1 && a.head == h + 1))>
                            <button type="button" class="small-multiple" data-testid=format!("model-head-{l}-{h}")
                                class:active=active
                                title=move || if linear() { lab.lang.get().text().linear.no_roles.to_string() } else { roles.with(|r| r.as_ref().map(|r| label(&r[l][h], lab.lang.get())).unwrap_or_default()) }
                                on:click=move |_| { lab.layer.set(l); lab.head.set(h); }>
                                <span class="small-multiple-title">
                                    {move || format!("{} {} · {} {}", texts().layer_label, l + 1, lab.lang.get().text().head_label, h + 1)}
                                    <span class="role-tag">{role}</span>
                                </span>
                                <Heatmap data=data look=Look::of(lab) test_id=format!("heatmap-model-{l}-{h}")
                                    label=Signal::derive(move || format!("{} {} · {} {}", texts().layer_label, l + 1, lab.lang.get().text().head_label, h + 1))
                                    compact=true />
                            </button>
                            <super::circuit_views::KnockOut layer=l head=h />
                            </div>
                        }
                    }).collect_view()
                }}
            </div>
            <super::circuit_graph::CircuitGraph />
            <HeadRoles />
        </section>
    }
}

/// Each head's measured role scores on this sentence, and its label.
#[component]
fn HeadRoles() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().model;
    let run = forward(lab);
    // Each layer's heads' roles, and whether it is linear (a hybrid's: A is not a share of
    // attention, so its heads have no roles and the table says so).
    let rows = Memo::new(move |_| {
        run.with(|r| {
            r.as_ref().map(|r| {
                let linear =
                    r.0.layers
                        .iter()
                        .map(|layer| layer.attention.config.linear().is_some());
                linear.zip(r.0.head_roles()).collect::<Vec<_>>()
            })
        })
        .unwrap_or_default()
    });
    // What the shares are averaged over, from the first softmax layer.
    let footing = move || {
        rows.with(|r| {
            r.iter()
                .find(|(linear, _)| !linear)
                .and_then(|(_, layer)| layer.first())
                .map(|roles| (texts().roles_help)(roles.queries, roles.repeated_only))
        })
    };
    view! {
        <h3>{move || texts().roles_title}</h3>
        <p class="caption" data-testid="roles-help">{footing}</p>
        <div class="table-scroll" tabindex="0">
        <table class="roles-table" data-testid="head-roles">
            <thead><tr>
                <th scope="col">{move || texts().layer_label}</th>
                <th scope="col">{move || lab.lang.get().text().head_label}</th>
                {Role::ALL.iter().map(|&role| view! { <th scope="col">{move || role.name(lab.lang.get())}</th> }).collect_view()}
                <th scope="col">{move || texts().role_other}</th>
                <th scope="col"></th>
            </tr></thead>
            <tbody>
                {move || rows.get().into_iter().enumerate().flat_map(|(l, (linear, heads))| {
                    heads.into_iter().enumerate().map(move |(h, roles)| {
                        if linear {
                            let empty = (0..=Role::ALL.len()).map(|_| view! { <td>"—"</td> }).collect_view();
                            return view! {
                                <tr data-testid=format!("roles-{l}-{h}")>
                                    <td>{l + 1}</td>
                                    <td>{h + 1}</td>
                                    {empty}
                                    <td class="role-label" data-testid="role-label">{move || lab.lang.get().text().linear.no_roles}</td>
                                </tr>
                            }
                            .into_any();
                        }
                        view! {
                            <tr data-testid=format!("roles-{l}-{h}")>
                                {role_cells(l, h, &roles)}
                                <td class="role-label" data-testid="role-label">{move || label(&roles, lab.lang.get())}</td>
                            </tr>
                        }
                        .into_any()
                    }).collect::<Vec<_>>()
                }).collect_view()}
            </tbody>
        </table>
        </div>
    }
}

/// One head's row of a roles table: its layer and head (from 1), each role's share (the
/// dominant one marked) and the share no role names. Shared by the trained model's table and an
/// imported file's.
pub fn role_cells(layer: usize, head: usize, roles: &HeadRoles) -> impl IntoView + use<> {
    let strongest = dominant(roles).map(|(role, _)| role);
    let shares = Role::ALL
        .iter()
        .map(|&role| {
            view! { <td class:strong=strongest == Some(role)>{format!("{:.2}", role.score(roles))}</td> }
        })
        .collect_view();
    view! {
        <td>{layer + 1}</td>
        <td>{head + 1}</td>
        {shares}
        <td data-testid="role-other">{format!("{:.2}", roles.other)}</td>
    }
}

/// The model's top predictions after the last character (or after the one under the pointer),
/// and a button that appends the next character.
#[component]
pub fn NextToken() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().model;
    // A folder's model predicts tokens, not characters.
    let own = move || matches!(lab.request.with(ModelKey::of), Some(ModelKey::Folder(_)));
    let run = forward(lab);
    let focus = RwSignal::new(None::<usize>);
    let sampling = RwSignal::new(0.0f64);
    let position = move || {
        let n = run.with(|r| r.as_ref().map_or(0, |r| r.0.tokens.len()));
        focus
            .get()
            .filter(|&p| p < n)
            .unwrap_or(n.saturating_sub(1))
    };
    let predictions = move || {
        let at = position();
        run.with(|r| {
            r.as_ref().map(|r| {
                lab.model_status.with(|s| match s {
                    crate::ui::state::model::ModelStatus::Ready(g) if at < r.0.tokens.len() => {
                        crate::ui::state::next_logits::predictions(&g.0, &r.0, at, 5)
                            .into_iter()
                            .map(|p| {
                                let token =
                                    g.0.vocab.get(p.id as usize).cloned().unwrap_or_default();
                                (token, p.p)
                            })
                            .collect::<Vec<_>>()
                    }
                    _ => Vec::new(),
                })
            })
        })
        .unwrap_or_default()
    };
    // Past the model's context the window slides: continuing always works.
    let idle = move || run.with(Option::is_none);
    let continue_sentence = move |_| {
        let Some(run) = run.get_untracked() else {
            return;
        };
        let Some(last) = run.0.tokens.len().checked_sub(1) else {
            return;
        };
        let logits = lab.model_status.with_untracked(|s| match s {
            crate::ui::state::model::ModelStatus::Ready(g) => {
                Some((g.0.logits(&run.0, last), g.0.tokenizer.first_choosable()))
            }
            _ => None,
        });
        let Some((logits, first)) = logits else {
            return;
        };
        let draw = super::generate::random_draw();
        let Some(id) = sample_next(logits.view(), sampling.get_untracked(), draw, first) else {
            return;
        };
        let token = lab.model_status.with_untracked(|s| match s {
            crate::ui::state::model::ModelStatus::Ready(g) => g.0.vocab.get(id as usize).cloned(),
            _ => None,
        });
        if let Some(token) = token.filter(|t| t != attention_core::models::UNK) {
            let sentence = lab
                .request
                .with_untracked(|r| r.sentence.clone().unwrap_or_default());
            focus.set(None);
            lab.change(Request {
                sentence: Some(format!("{sentence}{token}")),
                ..Request::default()
            });
        }
    };
    let section = Section::Next;
    view! {
        <section class="step next-token" data-view=section.id() data-testid="next-token"
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <ContextWindow />
            <p class="caption">{move || if own() { lab.lang.get().text().own_model.next_help } else { texts().next_help }}</p>
            <ol class="tokens next-positions" on:pointerleave=move |_| focus.set(None)>
                {move || run.with(|r| r.as_ref().map(|r| r.0.tokens.clone()).unwrap_or_default()).into_iter().enumerate().map(|(i, token)| view! {
                    <li class="chip" class:active=move || position() == i tabindex="0"
                        on:pointerenter=move |_| focus.set(Some(i)) on:focus=move |_| focus.set(Some(i))>
                        <span class="chip-index">{i}</span><span class="chip-text">{visible(&token)}</span>
                    </li>
                }).collect_view()}
            </ol>
            <p class="help block" data-testid="next-after">
                {move || run.with(|r| r.as_ref().map(|r| {
                    let after = if own() { lab.lang.get().text().own_model.after } else { texts().after };
                    after(position(), &visible(r.0.tokens.get(position()).map_or("", String::as_str)))
                }))}
            </p>
            <ul class="predictions" data-testid="predictions">
                {move || predictions().into_iter().map(|(token, p)| view! {
                    <li>
                        <span class="prediction-token">{visible(&token)}</span>
                        <span class="prediction-bar" style=format!("width: {:.1}%", (p * 100.0).max(0.5))></span>
                        <span class="prediction-p">{format!("{:.1}%", p * 100.0)}</span>
                    </li>
                }).collect_view()}
            </ul>
            <div class="control-row continue-row">
                <button type="button" class="button" data-testid="continue" disabled=idle on:click=continue_sentence>
                    {move || texts().continue_button}
                </button>
                <label class="control-label">
                    {move || texts().sampling}
                    " "
                    <input type="range" min="0" max="2" step="0.1" data-testid="sampling"
                        prop:value=move || sampling.get().to_string()
                        on:input=move |ev| if let Ok(v) = event_target_value(&ev).parse() { sampling.set(v) } />
                    " "
                    <span class="help">{move || if sampling.get() == 0.0 { texts().greedy.to_string() } else { format!("{:.1}", sampling.get()) }}</span>
                </label>
            </div>
            <p class="help block">{move || texts().sampling_help}</p>
            <super::circuit_views::WhoWrote position=Signal::derive(position) />
        </section>
    }
}
