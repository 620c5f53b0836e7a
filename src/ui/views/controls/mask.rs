//! The mask: its kind, and the control that kind needs (a valid length, a window radius, or the
//! custom cell editor).

use leptos::prelude::*;

use super::shown::shown_lengths;
use super::widgets::{IntControl, Segmented};
use crate::ui::logic::controls::MaskKind;
use crate::ui::state::Lab;
use crate::ui::views::mask_editor::MaskEditor;
use attention_core::api::{MaskRequest, Request};

#[component]
pub fn MaskControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let lengths = shown_lengths(lab);
    let set_mask = move |mask: MaskRequest| {
        lab.change(Request {
            mask: Some(mask),
            ..Request::default()
        })
    };
    let mask = move || lab.request.with(|r| r.mask.clone());
    // The kind alone decides which extra control shows: changing a valid length or painting a
    // cell must not rebuild (and so reset) the control being used.
    // The trained model runs under its causal mask unless another is chosen.
    let kind = Memo::new(move |_| {
        lab.request.with(|r| match (&r.mask, r.is_trained()) {
            (None, true) => MaskKind::Causal,
            (mask, _) => MaskKind::of(mask.as_ref()),
        })
    });
    let valid_len = Signal::derive(move || match mask() {
        Some(MaskRequest::Padding { valid_len }) => valid_len,
        _ => 0,
    });
    let radius = Signal::derive(move || match mask() {
        Some(MaskRequest::Window { radius } | MaskRequest::Sliding { radius, .. }) => radius,
        _ => 0,
    });
    let sink_tokens = Signal::derive(move || match mask() {
        Some(MaskRequest::Sliding { sink_tokens, .. }) => sink_tokens,
        _ => 0,
    });
    let select = Callback::new(move |kind: MaskKind| {
        let (queries, keys) = lengths.get_untracked();
        set_mask(match kind {
            MaskKind::None => MaskRequest::None,
            MaskKind::Causal => MaskRequest::Causal,
            MaskKind::Padding => MaskRequest::Padding {
                valid_len: keys.saturating_sub(2).max(1).min(keys),
            },
            MaskKind::Window => MaskRequest::Window { radius: 1 },
            MaskKind::Sliding => MaskRequest::Sliding {
                radius: 3.min(keys.saturating_sub(1)),
                sink_tokens: 1.min(keys),
            },
            // Start from whatever the mask shows now, so a user edits what they see.
            MaskKind::Custom => MaskRequest::Custom {
                allowed: lab.shown.with_untracked(|t| {
                    t.as_ref().map_or_else(
                        || vec![vec![true; keys]; queries],
                        |t| t.0.mask.outer_iter().map(|row| row.to_vec()).collect(),
                    )
                }),
            },
        });
    });
    view! {
        <h2>{move || text().mask_section}</h2>
        <Segmented selected=kind lang=lab.lang test_id="mask-kind" on_select=select
            label=Signal::derive(move || text().mask_section.to_string()) />
        <p class="help block" data-testid="mask-help">
            {move || kind.get().help(lab.lang.get())}
        </p>
        {move || match kind.get() {
            MaskKind::Padding => view! {
                <IntControl
                    label=Signal::derive(move || text().valid_len.to_string())
                    help=""
                    test_id="valid-len"
                    min=0usize
                    max=Signal::derive(move || lengths.get().1)
                    value=valid_len
                    on_change=Callback::new(move |v| set_mask(MaskRequest::Padding { valid_len: v }))
                />
            }
            .into_any(),
            MaskKind::Window => view! {
                <IntControl
                    label=Signal::derive(move || text().radius.to_string())
                    help=""
                    test_id="window-radius"
                    min=0usize
                    max=Signal::derive(move || { let (q, k) = lengths.get(); q.max(k) })
                    value=radius
                    on_change=Callback::new(move |v| set_mask(MaskRequest::Window { radius: v }))
                />
            }
            .into_any(),
            MaskKind::Sliding => view! {
                <IntControl
                    label=Signal::derive(move || text().radius.to_string())
                    help=""
                    test_id="sliding-radius"
                    min=0usize
                    max=Signal::derive(move || lengths.get().1.saturating_sub(1))
                    value=radius
                    on_change=Callback::new(move |v| set_mask(MaskRequest::Sliding { radius: v, sink_tokens: sink_tokens.get_untracked() }))
                />
                <IntControl
                    label=Signal::derive(move || text().masks.sink_tokens.to_string())
                    help=Signal::derive(move || text().masks.sink_tokens_help.to_string())
                    test_id="sink-tokens"
                    min=0usize
                    max=Signal::derive(move || lengths.get().1)
                    value=sink_tokens
                    on_change=Callback::new(move |v| set_mask(MaskRequest::Sliding { radius: radius.get_untracked(), sink_tokens: v }))
                />
            }
            .into_any(),
            MaskKind::Custom => view! { <MaskEditor /> }.into_any(),
            MaskKind::None | MaskKind::Causal => ().into_any(),
        }}
    }
}
