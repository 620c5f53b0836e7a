//! The building blocks of the control panel: a whole number with a slider and an exact field,
//! one that may be left to its default ("auto"), and a row of toggle buttons.

use leptos::prelude::*;

use crate::ui::i18n::Lang;
use crate::ui::logic::controls::Choice;

pub fn parse<T: std::str::FromStr>(text: &str) -> Option<T> {
    text.trim().parse().ok()
}

/// A whole number with a slider and an exact field.
#[component]
pub fn IntControl(
    #[prop(into)] label: Signal<String>,
    #[prop(into)] help: Signal<String>,
    test_id: &'static str,
    #[prop(into)] min: Signal<usize>,
    #[prop(into)] max: Signal<usize>,
    #[prop(into)] value: Signal<usize>,
    on_change: Callback<usize>,
) -> impl IntoView {
    let input = move |text: String| {
        if let Some(v) = parse::<usize>(&text) {
            on_change.run(v);
        }
    };
    view! {
        <div class="control">
            <label class="control-label" for=test_id>
                {label}
                <span class="help">{help}</span>
            </label>
            <div class="control-row">
                <input
                    type="range"
                    aria-label=label
                    min=move || min.get().to_string()
                    max=move || max.get().max(min.get()).to_string()
                    step="1"
                    prop:value=move || value.get().to_string()
                    on:input=move |ev| input(event_target_value(&ev))
                />
                <input
                    type="number"
                    id=test_id
                    data-testid=test_id
                    min=move || min.get().to_string()
                    prop:value=move || value.get().to_string()
                    on:change=move |ev| input(event_target_value(&ev))
                />
            </div>
        </div>
    }
}

/// A whole number that can also be left to its default ("auto").
#[component]
pub fn AutoIntControl(
    #[prop(into)] label: Signal<String>,
    #[prop(into)] help: Signal<String>,
    test_id: &'static str,
    /// The value in effect (the default while on auto).
    #[prop(into)]
    value: Signal<usize>,
    #[prop(into)] auto: Signal<bool>,
    #[prop(into)] lang: Signal<Lang>,
    /// `None` returns to auto.
    on_change: Callback<Option<usize>>,
) -> impl IntoView {
    view! {
        <div class="control">
            <label class="control-label" for=test_id>
                {label}
                <span class="help">{help}</span>
            </label>
            <div class="control-row">
                <input
                    type="number"
                    id=test_id
                    data-testid=test_id
                    min="1"
                    prop:value=move || value.get().to_string()
                    on:change=move |ev| {
                        if let Some(v) = parse::<usize>(&event_target_value(&ev)) {
                            on_change.run(Some(v));
                        }
                    }
                />
                <label class="checkbox inline">
                    <input
                        type="checkbox"
                        data-testid=format!("{test_id}-auto")
                        prop:checked=auto
                        on:change=move |ev| {
                            if event_target_checked(&ev) {
                                on_change.run(None);
                            } else {
                                on_change.run(Some(value.get_untracked()));
                            }
                        }
                    />
                    {move || lang.get().text().auto}
                </label>
            </div>
        </div>
    }
}

/// One choice among a few, as a row of toggle buttons; `label` names the group for a screen
/// reader (the heading above it, said again when focus enters the row).
#[component]
pub fn Segmented<T: Choice>(
    #[prop(into)] selected: Signal<T>,
    #[prop(into)] lang: Signal<Lang>,
    test_id: &'static str,
    on_select: Callback<T>,
    #[prop(optional, into)] label: Option<Signal<String>>,
) -> impl IntoView {
    view! {
        <div class="segmented" role="group" data-testid=test_id
            aria-label=move || label.map(|l| l.get())>
            {T::all()
                .into_iter()
                .map(|choice| {
                    view! {
                        <button
                            type="button"
                            data-value=choice.name()
                            aria-pressed=move || (selected.get() == choice).to_string()
                            class:active=move || selected.get() == choice
                            on:click=move |_| on_select.run(choice)
                        >
                            {move || choice.label(lang.get())}
                        </button>
                    }
                })
                .collect_view()}
        </div>
    }
}
