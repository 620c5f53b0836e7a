//! What every section of the page has: its heading with its number, its link, embed and present
//! buttons, the bar over a presented section, and the note a view shows instead of itself for an
//! input too long to draw every cell of.

use leptos::prelude::*;

use crate::ui::bridge::location;
use crate::ui::browser::{address, share};
use crate::ui::i18n::OverviewTexts;
use crate::ui::logic::link::LinkState;
use crate::ui::logic::sections::Section;
use crate::ui::state::Lab;

/// Whether `section` is the one the lab presents full screen (every other section is hidden).
pub fn presented(lab: Lab, section: Section) -> bool {
    lab.presenting.get()
        && lab.lesson.with(Option::is_none)
        && lab.view.with(|v| v.as_deref() == Some(section.id()))
}

/// Presents `section` full screen, from its top.
pub fn present(lab: Lab, section: Section) {
    lab.view.set(Some(section.id().to_string()));
    lab.presenting.set(true);
    if let Some(window) = web_sys::window() {
        window.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

/// Whether the shown heads compute linear attention (the page then has no score, softmax or
/// tile sections).
pub fn linear_heads(lab: Lab) -> bool {
    lab.shown
        .with(|t| t.as_ref().is_some_and(|t| t.0.config.linear().is_some()))
}

/// The bar over a presented section: where it is among the page's sections, the buttons to
/// move, and ← → and Esc.
#[component]
pub fn PresentBar() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().share;
    let current = move || {
        let page = (lab.request.with(|r| r.is_trained()), linear_heads(lab));
        let sections = Section::on_page(page.0, page.1);
        let section = lab
            .view
            .with(|v| v.as_deref().and_then(Section::from_id))
            .filter(|s| sections.contains(s))
            .unwrap_or(sections[0]);
        (section, page)
    };
    let go = move |step: isize| {
        let (section, (trained, linear)) = current();
        if let Some(next) = section.beside(trained, linear, step) {
            present(lab, next);
        }
    };
    let keys = window_event_listener(leptos::ev::keydown, move |event| {
        if !lab.presenting.get_untracked() || lab.lesson.with_untracked(Option::is_some) {
            return;
        }
        let typing = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if typing || event.default_prevented() {
            return;
        }
        match event.key().as_str() {
            "ArrowRight" | "PageDown" => untrack(|| go(1)),
            "ArrowLeft" | "PageUp" => untrack(|| go(-1)),
            "Escape" => lab.presenting.set(false),
            _ => return,
        }
        event.prevent_default();
    });
    on_cleanup(move || keys.remove());
    // Entering with no section in view presents the first.
    Effect::new(move |_| {
        if lab.presenting.get()
            && lab.lesson.with(Option::is_none)
            && lab
                .view
                .with(|v| v.as_deref().and_then(Section::from_id).is_none())
        {
            let (section, _) = untrack(current);
            lab.view.set(Some(section.id().to_string()));
        }
    });
    view! {
        <Show when=move || lab.presenting.get() && lab.lesson.with(Option::is_none)>
            <div class="present-bar" data-testid="present-bar">
                <span class="help" data-testid="present-where">{move || {
                    let (section, (trained, linear)) = current();
                    let sections = Section::on_page(trained, linear);
                    let at = sections.iter().position(|&s| s == section).unwrap_or(0);
                    format!("{} · {}", (texts().section_of)(at + 1, sections.len()), section.title(lab.lang.get()))
                }}</span>
                <button type="button" class="button" data-testid="present-previous"
                    disabled=move || { let (s, (t, l)) = current(); s.beside(t, l, -1).is_none() }
                    on:click=move |_| go(-1)>{move || texts().previous_section}</button>
                <button type="button" class="button" data-testid="present-next"
                    disabled=move || { let (s, (t, l)) = current(); s.beside(t, l, 1).is_none() }
                    on:click=move |_| go(1)>{move || texts().next_section}</button>
                <button type="button" class="button" data-testid="present-end"
                    on:click=move |_| lab.presenting.set(false)>{move || texts().end_present}</button>
                <span class="help">{move || texts().present_help}</span>
            </div>
        </Show>
    }
}

/// The link and the embed code of one section, which keep it (and the head and step) in view.
#[component]
pub fn SectionShare(section: Section) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().share;
    let shown = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<bool>);
    let state = move || LinkState {
        view: crate::ui::logic::link::ViewSettings {
            view: Some(section.id().to_string()),
            ..location::current(lab).view
        },
        ..location::current(lab)
    };
    let copy = move |text: String| {
        shown.set(Some(text.clone()));
        status.set(None);
        leptos::task::spawn_local(async move {
            status.set(Some(share::copy(&text).await));
        });
    };
    view! {
        <span class="section-share">
            <button type="button" class="table-toggle" data-testid=format!("link-{}", section.id())
                on:click=move |_| copy(address::href(&state()))>
                {move || texts().link_here}
            </button>
            <button type="button" class="table-toggle" data-testid=format!("embed-{}", section.id())
                on:click=move |_| copy(share::embed_code(&state(), &section.panels()))>
                {move || texts().embed_here}
            </button>
            // Not inside an embed (it has no page to fill), nor while presenting.
            <Show when=move || lab.embed.with(Option::is_none) && !lab.presenting.get()>
                <button type="button" class="table-toggle" data-testid=format!("present-{}", section.id())
                    on:click=move |_| present(lab, section)>
                    {move || texts().present_here}
                </button>
            </Show>
        </span>
        {move || shown.get().map(|value| view! {
            <div class="share-result section-share-result">
                <input type="text" readonly data-testid=format!("share-text-{}", section.id()) prop:value=value
                    aria-label=move || (texts().copied_of)(section.title(lab.lang.get())) />
                <span class="help" role="status">
                    {move || match status.get() {
                        Some(true) => lab.lang.get().text().copied,
                        Some(false) => lab.lang.get().text().copy_by_hand,
                        None => "",
                    }}
                </span>
            </div>
        })}
        <crate::ui::views::share_warnings::ShareWarnings shared=shown.into() />
    }
}

/// A section's heading: its number, its title, and its link and embed buttons.
#[component]
pub fn SectionHeading(section: Section) -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <h2 class="step-title">
            {move || section.number(linear_heads(lab)).map(|n| view! { <span class="step-number">{n}</span> })}
            {move || section.title(lab.lang.get())}
        </h2>
        <SectionShare section=section />
    }
}

/// A note's sentence from the number of tokens and the most a view takes.
pub type WhyWaiting = fn(usize, usize) -> String;

/// Its children while the shown trace keeps every cell; for a summarised trace, a note saying
/// why they wait for a shorter input (`why` picks the sentence).
#[component]
pub fn UnlessSummarised(
    test_id: &'static str,
    why: fn(&OverviewTexts) -> WhyWaiting,
    children: ChildrenFn,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let note =
        move || summarised(lab).map(|n| why(&lab.lang.get().text().overview)(n, MOST_TRACED));
    view! {
        <Show when=move || summarised(lab).is_none() fallback=move || view! {
            <p class="note" data-testid=test_id>{note}</p>
        }>
            {children()}
        </Show>
    }
}

/// The most tokens (queries, with as many keys) whose every cell the page keeps: beyond, heads
/// are summarised (`attention_core::pipeline::overview::FULL_HEAD_CELLS`).
pub const MOST_TRACED: usize = 512;

/// The number of tokens when the shown trace is summarised.
pub fn summarised(lab: Lab) -> Option<usize> {
    lab.shown.with(|t| {
        t.as_ref()
            .filter(|t| t.0.is_summarised())
            .map(|t| t.0.config.seq_len().max(t.0.config.key_len()))
    })
}
