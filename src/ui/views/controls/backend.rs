//! Auto, GPU or CPU, with the GPU's state and, after a loss or failure, a way to try again.

use leptos::prelude::*;

use super::widgets::Segmented;
use crate::ui::logic::backend::GpuStatus;
use crate::ui::state::Lab;
use attention_core::api::{BackendChoice, Request};

#[component]
pub fn BackendControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let selected = Signal::derive(move || lab.request.with(|r| r.backend).unwrap_or_default());
    let select = Callback::new(move |backend: BackendChoice| {
        lab.change(Request {
            backend: Some(backend),
            ..Request::default()
        })
    });
    let status = move || {
        let lang = lab.lang.get();
        match lab.gpu.get() {
            GpuStatus::Probing => text().gpu_probing.to_string(),
            GpuStatus::Ready(info) => format!(
                "{} {}{}",
                text().gpu_ready,
                info.name,
                if info.software {
                    format!(" {}", text().gpu_software)
                } else {
                    String::new()
                }
            ),
            GpuStatus::Unavailable(fallback) => {
                format!("{} {}", text().gpu_none, fallback.message(lang))
            }
            GpuStatus::Lost(_) => text().gpu_lost.to_string(),
        }
    };
    let fallback = move || {
        lab.outcome.with(|o| {
            o.fallback
                .as_ref()
                .filter(|_| lab.request.with(|r| r.backend) == Some(BackendChoice::Gpu))
                .map(|f| f.message(lab.lang.get()))
        })
    };
    view! {
        <h2>{move || text().backend_section}</h2>
        <Segmented selected=selected lang=lab.lang test_id="backend" on_select=select
            label=Signal::derive(move || text().backend_section.to_string()) />
        <p class="help block" data-testid="gpu-status">{status}</p>
        <p class="note" data-testid="fallback-reason">{fallback}</p>
        <Show when=move || lab.gpu.with(GpuStatus::can_retry)>
            <button type="button" class="button" data-testid="gpu-retry" on:click=move |_| lab.jobs.probe(lab.gpu)>
                {move || text().gpu_retry}
            </button>
        </Show>
        <p class="help block">{move || text().backend_help}</p>
    }
}
