//! Where positions enter: absolute (X = E + P), none, RoPE (with its base and pairing) or ALiBi,
//! and the offset added to every position. The trained model keeps the positions it learned.

use leptos::prelude::*;

use super::widgets::{IntControl, Segmented, parse};
use crate::ui::logic::controls::{PositionKind, position_offset, with_offset};
use crate::ui::state::Lab;
use attention_core::api::{PairingRequest, PositionRequest, Request};

/// The offset slider's end (the exact field takes up to the core's limit).
const OFFSET_SLIDER_MAX: usize = 4096;

#[component]
pub fn PositionsControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().shaping;
    let trained = super::shown::trained(lab);
    // Memos: a change elsewhere in the request (the temperature) must not rewrite these inputs.
    let position = Memo::new(move |_| lab.request.with(|r| r.position));
    let position = move || position.get();
    let kind = Memo::new(move |_| PositionKind::of(position().as_ref()));
    let offset = Signal::from(Memo::new(move |_| position_offset(position().as_ref())));
    let set = move |position: PositionRequest| {
        lab.change(Request {
            position: Some(position),
            ..Request::default()
        })
    };
    let select = Callback::new(move |kind: PositionKind| {
        let previous = lab.request.with_untracked(|r| r.position);
        set(kind.request(offset.get_untracked(), previous.as_ref()));
    });
    let rope = move || match position() {
        Some(PositionRequest::Rope { base, pairing, .. }) => Some((base, pairing)),
        _ => None,
    };
    let pairing = Signal::from(Memo::new(move |_| {
        rope().map_or(PairingRequest::Half, |(_, p)| p)
    }));
    let set_rope = move |base: f64, pairing: PairingRequest| {
        set(PositionRequest::Rope {
            base,
            pairing,
            offset: offset.get_untracked(),
        })
    };
    view! {
        <div data-testid="positions-control">
        <h2>{move || words().positions_section}</h2>
        <Show
            when=move || !trained.get()
            fallback=move || view! {
                <p class="help block" data-testid="positions-fixed">{move || words().fixed_by_model}</p>
            }
        >
            <Segmented selected=kind lang=lab.lang test_id="position-kind" on_select=select
                label=Signal::derive(move || words().positions_section.to_string()) />
            <p class="help block" data-testid="position-help">
                {move || kind.get().help(lab.lang.get())}
            </p>
            <Show when=move || rope().is_some()>
                <div class="control">
                    <label class="control-label" for="rope-base">
                        {move || words().base}
                        <span class="help">{move || words().base_help}</span>
                    </label>
                    <div class="control-row">
                        <input
                            type="number"
                            id="rope-base"
                            data-testid="rope-base"
                            step="any"
                            min="1"
                            prop:value=move || rope().map(|(base, _)| base.to_string()).unwrap_or_default()
                            on:change=move |ev| {
                                if let Some(base) = parse::<f64>(&event_target_value(&ev)) {
                                    set_rope(base, pairing.get_untracked());
                                }
                            }
                        />
                    </div>
                </div>
                <div class="control">
                    <span class="control-label">{move || words().pairing}</span>
                    <Segmented
                        selected=pairing
                        lang=lab.lang
                        test_id="rope-pairing"
                        on_select=Callback::new(move |p: PairingRequest| {
                            let base = rope().map_or(10_000.0, |(base, _)| base);
                            set_rope(base, p);
                        })
                    />
                    <p class="help block" data-testid="pairing-help">
                        {move || match pairing.get() {
                            PairingRequest::Half => words().pairings[0].1,
                            PairingRequest::Interleaved => words().pairings[1].1,
                        }}
                    </p>
                </div>
            </Show>
            <IntControl
                label=Signal::derive(move || words().offset.to_string())
                help=Signal::derive(move || words().offset_help.to_string())
                test_id="position-offset"
                min=0usize
                max=Signal::derive(move || OFFSET_SLIDER_MAX.max(offset.get()))
                value=offset
                on_change=Callback::new(move |v| {
                    let previous = lab.request.with_untracked(|r| r.position);
                    set(with_offset(previous.as_ref(), v));
                })
            />
        </Show>
        </div>
    }
}
