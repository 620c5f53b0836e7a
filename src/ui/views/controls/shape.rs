//! d_model, heads, d_k and d_v; and sharing keys and values across groups of heads (grouped-query
//! or multi-query attention), a deliberate choice: without it K/V heads follow the heads, so
//! multi-head attention stays multi-head whatever the number of heads.

use leptos::prelude::*;

use super::shown::shown_dims;
use super::widgets::{AutoIntControl, IntControl, parse};
use crate::ui::logic::controls::{KvSharing, divisors, kv_heads_for, shared_kv_heads};
use crate::ui::logic::notice::Notice;
use crate::ui::state::Lab;
use attention_core::api::Request;

#[component]
pub fn ModelShape() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let dims = shown_dims(lab);

    let d_model = Signal::from(Memo::new(move |_| {
        lab.request
            .with(|r| r.d_model)
            .unwrap_or_else(|| dims.get().d_model)
    }));
    let n_heads = Signal::from(Memo::new(move |_| {
        lab.request
            .with(|r| r.n_heads)
            .unwrap_or_else(|| dims.get().n_heads)
    }));
    // Sharing is on when the request names fewer K/V heads than heads.
    let kv_asked = move || lab.request.with(|r| r.n_kv_heads);
    let sharing = Signal::derive(move || kv_asked().is_some_and(|kv| kv < n_heads.get()));
    let n_kv_heads = Signal::derive(move || {
        if sharing.get() {
            kv_asked().unwrap_or(1)
        } else {
            n_heads.get()
        }
    });
    let set_heads = Callback::new(move |n: usize| {
        let previous_kv = n_kv_heads.get_untracked();
        let shared = sharing.get_untracked();
        // Multi-head stays multi-head; shared K/V heads stay shared where they still divide.
        let kv = shared
            .then(|| kv_heads_for(n, previous_kv))
            .filter(|&kv| kv < n);
        lab.edit(|r| {
            r.n_heads = Some(n);
            r.n_kv_heads = kv;
        });
        if let Some(kv) = kv
            && kv != previous_kv
        {
            lab.notice.set(Some(Notice::KvHeadsAdjusted(kv)));
        }
    });
    let set_sharing = move |on: bool| {
        let n = n_heads.get_untracked();
        lab.edit(|r| r.n_kv_heads = if on { shared_kv_heads(n) } else { None });
    };
    let kind = move || KvSharing::of(n_heads.get(), n_kv_heads.get()).label(lab.lang.get());
    let set_width = move |field: fn(&mut Request) -> &mut Option<usize>| {
        Callback::new(move |v: Option<usize>| lab.edit(|r| *field(r) = v))
    };
    let trained = super::shown::trained(lab);
    view! {
        <h2>{move || text().model_section}</h2>
        <Show when=move || trained.get()>
            <p class="help block" data-testid="shape-fixed">
                {move || { let d = dims.get(); (text().model.fixed_shape)(d.d_model, d.n_heads, d.d_k) }}
            </p>
        </Show>
        <Show when=move || !trained.get()>
        <IntControl
            label="d_model"
            help=Signal::derive(move || text().d_model_help.to_string())
            test_id="d-model"
            min=1usize
            max=256usize
            value=d_model
            on_change=Callback::new(move |v| lab.change(Request { d_model: Some(v), ..Request::default() }))
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
        <div class="control kv-sharing">
            <label class="checkbox">
                <input
                    type="checkbox"
                    data-testid="share-kv"
                    prop:checked=sharing
                    disabled=move || n_heads.get() < 2
                    on:change=move |ev| set_sharing(event_target_checked(&ev))
                />
                <span class="checkbox-text">{move || text().kv.share}</span>
                <span class="help" data-testid="kv-kind">{kind}</span>
            </label>
            <Show
                when=move || sharing.get()
                fallback=move || view! {
                    <p class="help block">
                        {move || if n_heads.get() < 2 { text().kv.needs_two_heads } else { text().kv.help }}
                    </p>
                }
            >
                <div class="control-row">
                    <label class="control-label" for="n-kv-heads">{move || text().kv_heads}</label>
                    <select
                        id="n-kv-heads"
                        data-testid="n-kv-heads"
                        on:change=move |ev| {
                            if let Some(kv) = parse::<usize>(&event_target_value(&ev)) {
                                lab.change(Request { n_kv_heads: Some(kv), ..Request::default() });
                            }
                        }
                    >
                        {move || {
                            let (current, n) = (n_kv_heads.get(), n_heads.get());
                            divisors(n)
                                .into_iter()
                                .filter(|&d| d < n)
                                .map(|d| view! { <option value=d.to_string() selected=d == current>{d}</option> })
                                .collect_view()
                        }}
                    </select>
                </div>
                <p class="help block" data-testid="kv-groups">
                    {move || (text().kv.groups)(n_heads.get() / n_kv_heads.get().max(1), n_kv_heads.get())}
                    " "
                    {move || text().kv.help}
                </p>
            </Show>
        </div>
        <div>
            <AutoIntControl
                label="d_k"
                help=Signal::derive(move || text().d_k_help.to_string())
                test_id="d-k"
                value=Signal::derive(move || dims.get().d_k)
                auto=Signal::derive(move || lab.request.with(|r| r.d_k.is_none()))
                lang=lab.lang
                on_change=set_width(|r| &mut r.d_k)
            />
            <AutoIntControl
                label="d_v"
                help=Signal::derive(move || text().d_v_help.to_string())
                test_id="d-v"
                value=Signal::derive(move || dims.get().d_v)
                auto=Signal::derive(move || lab.request.with(|r| r.d_v.is_none()))
                lang=lab.lang
                on_change=set_width(|r| &mut r.d_v)
            />
        </div>
        </Show>
    }
}
