//! The app shell: masthead (language, theme, backend badge, sharing), the input and control
//! panels, the pipeline, the tooltip and the live region; or, embedded, only the chosen panels.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::controls::{Controls, InputPanel};
use super::embed::{EmbedLayout, connect};
use super::i18n::{Lang, fallback_message};
use super::js_api;
use super::location;
use super::pipeline::Pipeline;
use super::share::ShareBar;
use super::state::Lab;
use super::tooltip::{Tooltip, active_cell};
use attention_core::Backend;

/// A duration for people: "0.8 ms", "12 ms".
pub fn format_ms(ms: f64) -> String {
    // Browsers time to 0.1 ms (without cross-origin isolation).
    if ms < 0.1 {
        "< 0.1 ms".into()
    } else if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

/// The whole lab. `page`: this is the page's own lab, which reads its state from the address,
/// keeps the address up to date and answers a host page when embedded (a lab mounted by a test
/// leaves the address alone).
#[component]
pub fn App(#[prop(optional)] page: bool) -> impl IntoView {
    let (link, mut notices) = if page {
        location::read()
    } else {
        Default::default()
    };
    let lang = link.view.lang.unwrap_or_else(Lang::from_browser);
    let (request, impossible) = location::request_from(&link.request, lang);
    notices.extend(impossible);
    let lab = Lab::new(request, lang);
    lab.embed.set(link.embed.clone());
    location::apply_view(lab, &link.view);
    lab.link_notices.set(notices);
    provide_context(lab);
    js_api::install(lab);
    #[cfg(target_arch = "wasm32")]
    super::engine::probe(lab);

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
    if page {
        location::keep_in_sync(lab);
        connect(lab);
        follow_view(lab);
    }

    let embedded = link.embed.is_some();
    view! {
        {if embedded { view! { <EmbedLayout /> }.into_any() } else { view! { <FullLab /> }.into_any() }}
    }
}

/// Scrolls to the view a link names, then keeps `lab.view` on the step at the top of the screen.
fn follow_view(lab: Lab) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let target = lab.view.get_untracked();
    // After the first render: go to the view the link names.
    let scroll_to = move || {
        if let Some(view) = &target {
            let selector = format!("[data-view=\"{view}\"]");
            if let Some(element) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.query_selector(&selector).ok().flatten())
            {
                element.scroll_into_view();
            }
        }
    };
    let _ = set_timeout_with_handle(scroll_to, std::time::Duration::from_millis(50));
    let on_scroll = wasm_bindgen::prelude::Closure::<dyn Fn()>::new(move || {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let Ok(sections) = document.query_selector_all("[data-view]") else {
            return;
        };
        let at_top = (0..sections.length())
            .filter_map(|i| sections.item(i)?.dyn_into::<web_sys::Element>().ok())
            .find(|s| s.get_bounding_client_rect().bottom() > 120.0)
            .and_then(|s| s.get_attribute("data-view"));
        if at_top.is_some() && at_top != lab.view.get_untracked() {
            lab.view.set(at_top);
        }
    });
    let _ = window.add_event_listener_with_callback("scroll", on_scroll.as_ref().unchecked_ref());
    on_scroll.forget(); // Lives as long as the page.
}

/// The full page.
#[component]
fn FullLab() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
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
                        {move || text().theme_names[lab.theme.get() as usize]}
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
                <ShareBar />
            </header>
            <LinkNotices />
            <div class="layout">
                <aside class="sidebar">
                    <InputPanel />
                    {move || {
                        message()
                            .map(|message| {
                                let stale = lab.error().is_some();
                                // A sentence of its own: end the message before adding another.
                                let ended = message.ends_with(['.', '。', '!', '?', '）', ')']);
                                let separator = if ended { " " } else { ". " };
                                view! {
                                    <p class="error" role="alert" data-testid="error">
                                        {message}
                                        {stale.then(|| format!("{separator}{}", text().showing_last_good))}
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
            <LiveRegion />
        </div>
    }
}

/// What a link could not use, in the reader's language, until dismissed.
#[component]
fn LinkNotices() -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <Show when=move || lab.link_notices.with(|n| !n.is_empty())>
            <div class="link-notices" role="status" data-testid="link-notices">
                <ul>
                    {move || {
                        let lang = lab.lang.get();
                        lab.link_notices
                            .get()
                            .iter()
                            .map(|notice| view! { <li>{location::describe(notice, lang)}</li> })
                            .collect_view()
                    }}
                </ul>
                <button type="button" class="button" data-testid="link-notices-dismiss"
                    on:click=move |_| lab.link_notices.set(Vec::new())>
                    {move || lab.lang.get().text().dismiss}
                </button>
            </div>
        </Show>
    }
}

/// Announces the cell under the keyboard cursor (or pointer) to screen readers: its tokens and
/// its value.
#[component]
pub fn LiveRegion() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let announcement = move || {
        let (active, info) = active_cell(lab)?;
        let title = lab.lang.get().stage(active.stage).title;
        Some(format!("{title}: {}: {}", info.position, info.value))
    };
    view! {
        <div class="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="live-region">
            {announcement}
        </div>
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
