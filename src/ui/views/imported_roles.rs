//! What each head of a user's file does (its roles, each over every query that can show it; none
//! where the numbers are not weights), and how the file is looked at: special tokens hidden with
//! each row renormalised, head by head or the mean over heads or layers.

use leptos::prelude::*;

use attention_core::io::head_roles::{HeadRole, ImportedRoles, RowsAre};
use attention_core::io::imported_views::Mean;

use crate::ui::state::Lab;

/// Below this mean weight, no role is said to dominate a head (as for the lab's own heads).
pub const DOMINANT: f32 = 0.4;

/// The roles some head measures on this file (a role no query can show anywhere is left out).
fn shown_roles(rows: &[Vec<ImportedRoles>]) -> Vec<HeadRole> {
    HeadRole::ALL
        .into_iter()
        .filter(|role| rows.iter().flatten().any(|r| r.get(*role).is_some()))
        .collect()
}

/// A head's dominant role's name, for its thumbnail.
pub fn dominant_name(lab: Lab, layer: usize, head: usize) -> Option<&'static str> {
    lab.imported_roles.with(|r| {
        let roles = r.as_ref()?.get(layer)?.get(head)?;
        let (role, _) = roles.dominant(DOMINANT)?;
        Some(lab.lang.get().role_name(role))
    })
}

/// Special tokens hidden or not; each head, or a mean.
#[component]
pub fn ImportViewControls() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || lab.lang.get().import_roles();
    let specials = Memo::new(move |_| {
        lab.imported.with(|f| {
            f.as_ref()
                .map(|f| (f.data.special_tokens(), f.data.can_hide_special().err()))
        })
    });
    let hide = move || {
        specials.get().and_then(|(found, why)| {
            if found.is_empty() {
                return None;
            }
            let checked = move || lab.import_view.with(|v| v.hide_special);
            let refused = why.map(|why| lab.lang.get().cannot_hide(why));
            Some(view! {
                <label class="field inline">
                    <input type="checkbox" data-testid="import-hide-special" prop:checked=checked
                        disabled=refused.is_some()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            lab.import_view.update(|v| v.hide_special = on);
                        } />
                    <span>{(texts().hide_label)(&found.join(" "))}</span>
                </label>
                <p class="help block" data-testid="import-hide-help">
                    {refused.unwrap_or(texts().hide_help)}
                </p>
            })
        })
    };
    let many = move || {
        lab.imported.with(|f| {
            f.as_ref()
                .is_some_and(|f| f.data.tensors.layers() * f.data.tensors.heads() > 1)
        })
    };
    let chosen = move || match lab.import_view.with(|v| v.mean) {
        None => 0,
        Some(Mean::Heads) => 1,
        Some(Mean::Layers) => 2,
    };
    view! {
        <div class="imported-view-controls" data-testid="import-view-controls">
            {hide}
            <Show when=many>
                <label class="field inline">
                    <span class="field-label">{move || texts().view_label}</span>
                    <select data-testid="import-mean" on:change=move |ev| {
                        let mean = match event_target_value(&ev).as_str() {
                            "heads" => Some(Mean::Heads),
                            "layers" => Some(Mean::Layers),
                            _ => None,
                        };
                        lab.import_view.update(|v| v.mean = mean);
                        lab.layer.set(0);
                        lab.head.set(0);
                    }>
                        {["each", "heads", "layers"].into_iter().enumerate().map(|(i, value)| view! {
                            <option value=value selected=move || chosen() == i>{move || texts().views[i]}</option>
                        }).collect_view()}
                    </select>
                </label>
            </Show>
            <Show when=move || { chosen() > 0 }>
                <p class="note" data-testid="import-mean-note">{move || texts().mean_note}</p>
            </Show>
        </div>
    }
}

/// Each head's roles and entropy, as a table with its numbers (the text alternative of the
/// thumbnails' role tags).
#[component]
pub fn Roles() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || lab.lang.get().import_roles();
    let rows = Memo::new(move |_| lab.imported_roles.get().unwrap_or_default());
    let rows_are = Memo::new(move |_| lab.imported_ok().map(|run| run.0.rows_are()));
    let cross = move || {
        lab.imported
            .with(|f| f.as_ref().is_some_and(|f| f.data.key_tokens.is_some()))
    };
    let weights = move || rows_are.get().is_none_or(RowsAre::are_weights);
    let help = move || {
        let lang = lab.lang.get();
        let mut help = rows_are
            .get()
            .map(|rows| (texts().help)(&rows))
            .unwrap_or_default();
        if cross() && weights() {
            help = format!("{} {help}", lang.import_roles().cross);
        }
        help
    };
    let roles = Memo::new(move |_| rows.with(|r| shown_roles(r)));
    // How many queries each role's mean is over, from the first head that measures it.
    let over = move |role: HeadRole| {
        rows.with(|r| {
            r.iter()
                .flatten()
                .find_map(|h| h.get(role))
                .map_or(0, |m| m.queries)
        })
    };
    view! {
        <h3>{move || lab.lang.get().import().roles_title}</h3>
        <p class="caption" data-testid="imported-roles-help">{help}</p>
        <Show when=weights>
        <div class="table-scroll" tabindex="0">
        <table class="roles-table" data-testid="imported-roles">
            <thead><tr>
                <th scope="col">{move || lab.lang.get().import().layer}</th>
                <th scope="col">{move || lab.lang.get().import().head}</th>
                {move || roles.get().into_iter().map(|role| view! {
                    <th scope="col" data-testid=format!("role-{}", role.name())>
                        {lab.lang.get().role_name(role)}
                        <span class="role-over">{(texts().over)(over(role))}</span>
                    </th>
                }).collect_view()}
                <th scope="col">{move || lab.lang.get().import().entropy}</th>
            </tr></thead>
            <tbody>
                {move || {
                    let shown = roles.get();
                    rows.get().into_iter().enumerate().flat_map(|(l, heads)| {
                        let shown = shown.clone();
                        heads.into_iter().enumerate().map(move |(h, r)| {
                            let strongest = r.dominant(DOMINANT).map(|d| d.0);
                            let cells = shown.iter().map(|&role| {
                                let text = r.get(role).map_or_else(|| texts().none.to_string(), |m| format!("{:.2}", m.mean));
                                view! { <td class:strong=strongest == Some(role) data-testid=format!("role-{}", role.name())>{text}</td> }
                            }).collect_view();
                            let entropy = r.entropy_bits.map_or_else(|| texts().none.to_string(), |e| format!("{e:.2}"));
                            view! {
                                <tr data-testid=format!("imported-roles-{l}-{h}")>
                                    <td>{l + 1}</td>
                                    <td>{h + 1}</td>
                                    {cells}
                                    <td data-testid="entropy">{entropy}</td>
                                </tr>
                            }
                        }).collect::<Vec<_>>()
                    }).collect_view()
                }}
            </tbody>
        </table>
        </div>
        </Show>
    }
}
