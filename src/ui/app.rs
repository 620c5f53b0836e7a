//! The app shell: masthead (language, theme, backend badge), the input and control panels, the
//! pipeline, and the tooltip.

use leptos::prelude::*;

use super::controls::{Controls, InputPanel};
use super::i18n::{Lang, fallback_message};
use super::js_api;
use super::pipeline::Pipeline;
use super::state::Lab;
use super::tooltip::Tooltip;
use crate::core::Backend;

/// The whole lab.
#[component]
pub fn App() -> impl IntoView {
    let lab = Lab::new(Lab::default_request(), Lang::from_browser());
    provide_context(lab);
    js_api::install(lab);
    #[cfg(target_arch = "wasm32")]
    super::engine::probe(lab);
    let text = move || lab.lang.get().text();

    // The theme lives on <html>, so the page background follows it too.
    Effect::new(move |_| {
        let theme = lab.theme.get();
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            && let Err(error) = root.set_attribute("data-theme", theme.name())
        {
            web_sys::console::error_2(&"theme: could not be set".into(), &error);
        }
    });

    let message = move || lab.error().or_else(|| lab.notice.get());
    view! {
        <div class="lab" lang=move || lab.lang.get().code()>
            <header class="masthead">
                <div>
                    <h1>{move || text().title}</h1>
                    <p class="tagline">{move || text().tagline}</p>
                </div>
                <div class="masthead-tools">
                    <BackendBadge />
                    <button
                        type="button"
                        class="pill"
                        data-testid="theme-toggle"
                        on:click=move |_| lab.theme.update(|t| *t = t.next())
                    >
                        {move || text().theme}
                        ": "
                        {move || {
                            let names = text().theme_names;
                            names[lab.theme.get() as usize]
                        }}
                    </button>
                    <button
                        type="button"
                        class="pill"
                        data-testid="lang-toggle"
                        on:click=move |_| lab.lang.update(|lang| *lang = lang.other())
                    >
                        {move || text().switch_language}
                    </button>
                </div>
            </header>
            <div class="layout">
                <aside class="sidebar">
                    <InputPanel />
                    {move || {
                        message()
                            .map(|message| {
                                let stale = lab.error().is_some();
                                view! {
                                    <p class="error" role="alert" data-testid="error">
                                        {message}
                                        {stale.then(|| format!(" {}", text().showing_last_good))}
                                    </p>
                                }
                            })
                    }}
                    <Controls />
                </aside>
                <main class="main">
                    <Pipeline />
                </main>
            </div>
            <Tooltip />
        </div>
    }
}

/// A duration for people: "0.8 ms", "12 ms".
pub fn format_ms(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

/// Which engine computed the numbers (and on which adapter), and how long the last computation
/// took; while the GPU works, that it is computing. The title says why the CPU computed, if so.
#[component]
fn BackendBadge() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let label = move || {
        let outcome = lab.outcome.get();
        let engine = match outcome.result.as_ref().ok().map(|t| t.0.backend.clone()) {
            Some(Backend::Gpu { adapter }) => format!("{} · {adapter}", text().computed_on_gpu),
            _ => text().computed_on_cpu.to_string(),
        };
        if outcome.pending {
            format!("{} · {}", text().computed_on_gpu, text().computing)
        } else {
            format!("{engine} · {}", format_ms(outcome.compute_ms))
        }
    };
    let title = move || {
        let outcome = lab.outcome.get();
        match outcome.fallback {
            Some(fallback) => fallback_message(fallback.code, &fallback.detail, lab.lang.get()),
            None => text().last_update.to_string(),
        }
    };
    view! {
        <span class="badge" data-testid="backend-badge" title=title>
            <span class="badge-dot" class:busy=move || lab.outcome.with(|o| o.pending) aria-hidden="true"></span>
            {label}
        </span>
    }
}
