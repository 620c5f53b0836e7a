//! The app shell: masthead (language, theme, backend badge, sharing), the input and control
//! panels, the pipeline, the tooltip and the live region; or, embedded, only the chosen panels.

use leptos::prelude::*;

use super::controls::Controls;
use super::controls::own_model;
use super::embed_layout::EmbedLayout;
use super::import_opener::ImportOpener;
use super::imported::ImportedViews;
use super::input_panel::InputPanel;
use super::learn::LearnMode;
use super::link_notices::LinkNotices;
use super::live_region::LiveRegion;
use super::pipeline::Pipeline;
use super::share_bar::ShareBar;
use super::tooltip::Tooltip;
use crate::ui::bridge::{embed, js_api, location, model_files, progress};
use crate::ui::browser::{address, canvas};
use crate::ui::i18n::Lang;
use crate::ui::logic::fab::FabScroll;
use crate::ui::logic::format::format_ms;
use crate::ui::logic::link::check_view;
use crate::ui::state::Lab;
use attention_core::Backend;

/// The whole lab. `page`: this is the page's own lab, which reads its state from the address,
/// keeps the address up to date and answers a host page when embedded (a lab mounted by a test
/// leaves the address alone).
#[component]
pub fn App(#[prop(optional)] page: bool) -> impl IntoView {
    let (link, mut notices) = if page {
        address::read()
    } else {
        Default::default()
    };
    let lang = link.view.lang.unwrap_or_else(|| {
        canvas::browser_language().map_or(Lang::En, |l| Lang::from_browser_language(&l))
    });
    let (request, impossible) = location::request_from(&link.request, lang);
    notices.extend(impossible);
    let lab = Lab::new(request, lang);
    lab.embed.set(link.embed.clone());
    // A link naming one's own attention (`src=`) shows it once fetched.
    if let Some(src) = link.src.clone() {
        crate::ui::bridge::files::open_url(lab, src);
    }
    location::apply_view(lab, &link.view);
    lab.link_notices.set(notices);
    provide_context(lab);
    let own = own_model::OwnModel(RwSignal::new(Default::default()));
    provide_context(own);
    // A link naming a model folder's address (`model_src=`) opens it once fetched.
    if let Some(src) = link.model_src.clone() {
        own_model::open_address(lab, Some(own), src);
    }
    js_api::install(lab);
    model_files::load_when_needed(lab);
    progress::keep(lab);
    #[cfg(target_arch = "wasm32")]
    lab.jobs.probe(lab.gpu);

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
    // The link's head and layer, checked once the lab knows how many it has.
    let asked = link.view.clone();
    Effect::new(move |checked: Option<bool>| {
        if checked == Some(true) {
            return true;
        }
        let trained = lab.request.with_untracked(|r| r.is_trained());
        let counts = if trained {
            lab.forward.with(|f| {
                let run = f.as_ref()?.as_ref().ok()?;
                let heads = run.0.layers.first()?.attention.heads.len();
                Some((heads, run.0.layers.len()))
            })
        } else {
            lab.shown.with(|t| t.as_ref().map(|t| (t.0.heads.len(), 1)))
        };
        let Some((heads, layers)) = counts else {
            return false;
        };
        let (notices, head, layer) = check_view(&asked, heads, layers);
        if !notices.is_empty() {
            lab.link_notices.update(|n| n.extend(notices));
            lab.head.set(head);
            lab.layer.set(layer);
        }
        true
    });
    if page {
        canvas::follow_system_scheme(lab.system_dark);
        if address::given_link().is_none() {
            location::keep_in_sync(lab);
        }
        embed::connect(lab);
        location::follow_view(lab);
    }

    let embedded = link.embed.is_some();
    view! {
        {if embedded { view! { <EmbedLayout /> }.into_any() } else { view! { <FullLab /> }.into_any() }}
    }
}

/// The full page.
#[component]
fn FullLab() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    // On a phone the controls are a sheet over the bottom of the screen, opened and closed by a
    // button that stays in reach: they sit next to the view they change.
    let controls_open = RwSignal::new(false);
    // It tucks itself below the screen while the page scrolls down, over what is being read.
    let fab = RwSignal::new(FabScroll::default());
    let scrolling = window_event_listener(leptos::ev::scroll, move |_| {
        let Some(window) = web_sys::window() else {
            return;
        };
        let y = window.scroll_y().unwrap_or(0.0);
        let screen = window
            .inner_height()
            .ok()
            .and_then(|h| h.as_f64())
            .unwrap_or(0.0);
        let page = window
            .document()
            .and_then(|d| d.document_element())
            .map_or(0.0, |e| f64::from(e.scroll_height()));
        let next = fab.get_untracked().scrolled(y, page - y - screen);
        if next != fab.get_untracked() {
            fab.set(next);
        }
    });
    on_cleanup(move || scrolling.remove());
    // A file dragged over the page: dropped anywhere, it opens as the user's own attention.
    let dragging = RwSignal::new(false);
    let carries_files = |ev: &web_sys::DragEvent| {
        ev.data_transfer().is_some_and(|t| {
            t.types()
                .iter()
                .any(|ty| ty.as_string().as_deref() == Some("Files"))
        })
    };
    let on_dragover = move |ev: web_sys::DragEvent| {
        if carries_files(&ev) {
            ev.prevent_default();
            if !dragging.get_untracked() {
                dragging.set(true);
            }
        }
    };
    let on_dragleave = move |ev: web_sys::DragEvent| {
        // Leaving the page (not moving between its elements).
        if ev.related_target().is_none() {
            dragging.set(false);
        }
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        dragging.set(false);
        let files = ev.data_transfer().and_then(|t| t.files());
        // A model folder's files (config.json, tokenizer.json among them) open as the model.
        if let Some(files) = files.as_ref().filter(|f| own_model::is_model_folder(f)) {
            ev.prevent_default();
            own_model::open_files(lab, use_context::<own_model::OwnModel>(), files.clone());
            return;
        }
        let file = files.and_then(|f| f.get(0));
        if let Some(file) = file {
            ev.prevent_default();
            lab.lesson.set(None);
            crate::ui::bridge::files::open_picked(
                lab,
                file,
                crate::ui::state::imported::parse_tokens(&lab.import_tokens.get_untracked()),
            );
        }
    };
    // A long input (a summarised trace: its heatmaps are tall scrolling sheets): the steps far
    // from the screen are left unrendered until they come near (`.main.long .step`, main.css).
    let long = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().is_some_and(|t| t.0.is_summarised()))
    });
    // A user's model: dozens of canvases and tables below the sentence (style/main.css).
    let own_model = Memo::new(move |_| {
        matches!(
            lab.request.with(crate::ui::state::model::ModelKey::of),
            Some(crate::ui::state::model::ModelKey::Folder(_))
        )
    });
    view! {
        <div class="lab" lang=move || lab.lang.get().code() class:controls-open=controls_open
            on:dragover=on_dragover on:dragleave=on_dragleave on:drop=on_drop
            class:learning=move || lab.lesson.with(Option::is_some) class:presenting=move || lab.presenting.get()>
            <nav class="skip-links" aria-label="skip links">
                <a href="#controls" data-testid="skip-controls">{move || text().share.skip_to_controls}</a>
                <a href=move || if super::section::linear_heads(lab) { "#section-linear" } else { "#section-softmax" } data-testid="skip-weights">{move || text().share.skip_to_weights}</a>
                <a href="#section-flash" data-testid="skip-flash">{move || text().share.skip_to_flash}</a>
            </nav>
            <header class="masthead">
                <div>
                    <h1>{move || text().title}</h1>
                    <p class="tagline">{move || text().tagline}</p>
                </div>
                <div class="masthead-tools">
                    <ModeSwitch />
                    <BackendBadge />
                    <button
                        type="button"
                        class="pill"
                        data-testid="theme-toggle"
                        on:click=move |_| lab.theme.update(|t| *t = t.next())
                    >
                        {move || text().theme}
                        ": "
                        {move || lab.theme.get().label(lab.lang.get())}
                    </button>
                    <button
                        type="button"
                        class="pill"
                        data-testid="lang-toggle"
                        on:click=move |_| lab.switch_language(lab.lang.get_untracked().other())
                    >
                        {move || text().switch_language}
                    </button>
                </div>
                <ShareBar />
            </header>
            <LinkNotices />
            <div class="layout">
                <aside class="sidebar">
                    // A file open: its tokens replace the sentence until the way back is taken.
                    <Show when=move || !lab.is_imported()>
                        <InputPanel />
                    </Show>
                    <ImportOpener />
                    <Message />
                    <div class="controls-sheet" id="controls" tabindex="-1" data-testid="controls-sheet">
                        <button type="button" class="button sheet-close" data-testid="controls-close"
                            on:click=move |_| {
                                controls_open.set(false);
                                fab.update(|f| *f = f.shown());
                            }>
                            {move || text().share.hide_controls}
                        </button>
                        <Controls />
                    </div>
                </aside>
                <main class="main" class:long=long class:own-model=own_model>
                    <Show when=move || lab.lesson.with(Option::is_some)
                        fallback=move || view! {
                            <Show when=move || lab.is_imported() fallback=|| view! { <Pipeline /> }>
                                <ImportedViews />
                            </Show>
                        }>
                        <LearnMode />
                    </Show>
                </main>
            </div>
            <button type="button" class="button controls-fab" data-testid="controls-open"
                class:tucked=move || fab.with(|f| f.tucked) && !controls_open.get()
                aria-controls="controls" aria-expanded=move || controls_open.get().to_string()
                on:click=move |_| {
                    controls_open.update(|open| *open = !*open);
                    fab.update(|f| *f = f.shown());
                }>
                {move || text().share.show_controls}
            </button>
            <Tooltip />
            <LiveRegion />
            <Show when=move || dragging.get()>
                <div class="drop-overlay" data-testid="drop-overlay" aria-hidden="true">
                    <p>{move || lab.lang.get().import().drop_overlay}</p>
                </div>
            </Show>
        </div>
    }
}

/// Lab or Learn: the full pipeline, or the guided chapters (the first unseen one, or the last
/// one open).
#[component]
fn ModeSwitch() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let learn = move || lab.lang.get().text().learn;
    let last = StoredValue::new(attention_core::teaching::Chapter::Tokens);
    Effect::new(move |_| {
        if let Some(chapter) = lab.lesson.get() {
            last.set_value(chapter);
        }
    });
    let learning = move || lab.lesson.with(Option::is_some);
    view! {
        <div class="mode-switch" role="group">
            <button type="button" class="pill" data-testid="mode-lab" aria-pressed=move || (!learning()).to_string()
                on:click=move |_| { lab.presenting.set(false); lab.lesson.set(None); }>
                {move || learn().lab}
            </button>
            <button type="button" class="pill" data-testid="mode-learn" aria-pressed=move || learning().to_string()
                on:click=move |_| {
                    if !learning() {
                        lab.lesson.set(Some(last.get_value()));
                    }
                }>
                {move || learn().learn}
            </button>
        </div>
    }
}

/// Why the input cannot be computed (the views keep the last result), or a notice about the last
/// change; in the reader's language, translated again when it changes.
#[component]
fn Message() -> impl IntoView {
    let lab = expect_context::<Lab>();
    move || {
        let lang = lab.lang.get();
        let (message, stale) = match lab.error() {
            Some(error) => (lang.request_error(&error), true),
            None => (lab.notice.get()?.message(lang), false),
        };
        let mut sentences = vec![message];
        if stale {
            sentences.push(lang.text().errors.showing_last_good.to_string());
        }
        Some(view! {
            <p class="error" role="alert" data-testid="error">{lang.join_sentences(&sentences)}</p>
        })
    }
}

/// Which backend computed the numbers (and on which adapter), and how long the last computation
/// took; while the GPU works, that it is computing. The title says why the CPU computed, if so.
#[component]
fn BackendBadge() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let label = move || {
        let outcome = lab.outcome.get();
        let backend = match outcome.result.as_ref().ok().map(|t| t.0.backend.clone()) {
            Some(Backend::Gpu { adapter }) => format!("{} · {adapter}", text().computed_on_gpu),
            _ => text().computed_on_cpu.to_string(),
        };
        if outcome.pending {
            let on = if outcome.later {
                text().computed_on_cpu
            } else {
                text().computed_on_gpu
            };
            format!("{on} · {}", text().computing)
        } else {
            format!("{backend} · {}", format_ms(outcome.compute_ms))
        }
    };
    let title = move || {
        lab.outcome.with(|outcome| match &outcome.fallback {
            Some(fallback) => fallback.message(lab.lang.get()),
            None => text().last_update.to_string(),
        })
    };
    view! {
        <span class="badge" data-testid="backend-badge" title=title>
            <span class="badge-dot" class:busy=move || lab.outcome.with(|o| o.pending) aria-hidden="true"></span>
            {label}
        </span>
    }
}
