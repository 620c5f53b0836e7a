//! d_model, heads, K/V heads (multi-head, grouped-query or multi-query), d_k and d_v.

use leptos::prelude::*;

use super::shown_dims;
use super::widgets::{AutoIntControl, IntControl, parse};
use crate::ui::model::controls::{KvSharing, divisors, kv_heads_for};
use crate::ui::model::notice::Notice;
use crate::ui::state::Lab;
use attention_core::api::Request;

#[component]
pub fn ModelShape() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let dims = shown_dims(lab);
    let set = move |update: Request| lab.change(update);

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
    let n_kv_heads = Signal::from(Memo::new(move |_| {
        lab.request
            .with(|r| r.n_kv_heads)
            .unwrap_or_else(|| dims.get().n_kv_heads)
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
            lab.notice.set(Some(Notice::KvHeadsAdjusted(kv)));
        }
    });
    let kv_kind = move || KvSharing::of(n_heads.get(), n_kv_heads.get()).label(lab.lang.get());
    let set_width = move |field: fn(&mut Request) -> &mut Option<usize>| {
        Callback::new(move |v: Option<usize>| {
            lab.notice.set(None);
            lab.request.update(|r| *field(r) = v);
        })
    };
    view! {
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
    }
}
