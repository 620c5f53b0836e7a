//! The sentence, its tokens as numbered chips, and the optional source sentence of
//! cross-attention.

use leptos::prelude::*;

use crate::ui::i18n::EXAMPLES;
use crate::ui::logic::visible_all;
use crate::ui::state::Lab;
use attention_core::api::Request;

/// The most chips a list shows: a long input's first tokens, then how many follow (thousands of
/// chips would cost every layout of the page, and nobody reads them one by one).
pub const MOST_CHIPS: usize = 512;

/// From this many tokens a list surely fills its 12rem (about eight chips a row at most in the
/// sidebar's 360 px: 16 rows or more, where 12rem holds 7), so it takes exactly that height and
/// is laid out and painted apart from the page (`contain: strict`): at 1024 tokens that took
/// 1.5 ms off each typed character's frame (benches/README.md), the text box beside it being
/// laid out each time.
pub const FULL_CHIPS: usize = 128;

/// A token list as numbered chips: `tokens` are its first [`MOST_CHIPS`] (or all), `count`
/// how many it has.
#[component]
pub fn TokenChips(
    #[prop(into)] tokens: Signal<Vec<String>>,
    #[prop(into)] count: Signal<usize>,
    test_id: &'static str,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let rest = move || {
        let n = count.get();
        (n > MOST_CHIPS).then(|| (lab.lang.get().text().more_tokens)(n - MOST_CHIPS, n))
    };
    let full = move || count.get() >= FULL_CHIPS;
    view! {
        <ol class="tokens" class:full=full data-testid=test_id tabindex="0"
            aria-label=move || (lab.lang.get().text().token_list)(count.get())>
            {move || {
                tokens
                    .get()
                    .into_iter()
                    .take(MOST_CHIPS)
                    .enumerate()
                    .map(|(index, token)| {
                        view! {
                            <li class="chip" data-testid="token-chip">
                                <span class="chip-index">{index}</span>
                                <span class="chip-text">{token}</span>
                            </li>
                        }
                    })
                    .collect_view()
            }}
            {move || rest().map(|rest| view! { <li class="chip chip-more" data-testid="more-tokens">{rest}</li> })}
        </ol>
    }
}

/// The sentence, its tokens, and the optional source sentence of cross-attention.
#[component]
pub fn InputPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let sentence = move || lab.request.with(|r| r.sentence.clone().unwrap_or_default());
    let trained = move || lab.request.with(|r| r.is_trained());
    let source = move || lab.request.with(|r| r.source_sentence.clone());
    let set_sentence = move |value: String| {
        lab.change(Request {
            sentence: Some(value),
            ..Request::default()
        })
    };
    // Memos: the chips are rebuilt only when the tokens they show change, not on every new
    // trace, nor when a long sentence changes past its first chips (typing at the end of 4096
    // words rebuilt 512 chips, 7 ms, on every result).
    let count = Memo::new(move |_| lab.shown.get().map_or(0, |t| t.0.config.tokens().len()));
    let tokens = Memo::new(move |_| {
        lab.shown
            .get()
            .map(|t| {
                let tokens = t.0.config.tokens();
                visible_all(&tokens[..tokens.len().min(MOST_CHIPS)])
            })
            .unwrap_or_default()
    });
    let source_count = Memo::new(move |_| {
        lab.shown
            .get()
            .and_then(|t| t.0.config.source().map(|s| s.tokens.len()))
            .unwrap_or(0)
    });
    let source_tokens = Memo::new(move |_| {
        lab.shown
            .get()
            .and_then(|t| {
                let tokens = &t.0.config.source()?.tokens;
                Some(tokens[..tokens.len().min(MOST_CHIPS)].to_vec())
            })
            .unwrap_or_default()
    });
    let toggle_cross = move |on: bool| {
        lab.notice.set(None);
        lab.request.update(|r| {
            r.source_tokens = None;
            r.source_x = None;
            r.source_sentence = on.then(|| EXAMPLES[1].to_string());
        });
    };
    view! {
        <section class="panel input-panel" aria-labelledby="sentence-label">
            <label class="field-label" id="sentence-label" for="sentence">
                {move || text().sentence_label}
            </label>
            <textarea
                id="sentence"
                data-testid="sentence"
                rows="2"
                spellcheck="false"
                placeholder=move || text().sentence_placeholder
                prop:value=sentence
                on:input=move |ev| set_sentence(event_target_value(&ev))
            ></textarea>
            <div class="examples">
                <span class="field-label">{move || text().examples_label}</span>
                {EXAMPLES
                    .iter()
                    .map(|&example| {
                        view! {
                            <button
                                type="button"
                                class="example"
                                data-testid="example"
                                on:click=move |_| set_sentence(example.to_string())
                            >
                                {example}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <h2 class="field-label">
                {move || text().tokens_label}
                <span class="count" data-testid="token-count">
                    {move || count.get()}
                </span>
            </h2>
            <TokenChips tokens=Signal::from(tokens) count=Signal::from(count) test_id="tokens" />
            <label class="checkbox">
                <input
                    type="checkbox"
                    data-testid="cross-toggle"
                    prop:checked=move || source().is_some() && !trained()
                    disabled=trained
                    on:change=move |ev| toggle_cross(event_target_checked(&ev))
                />
                {move || text().cross_attention}
                <span class="help">
                    {move || if trained() { text().model.no_cross } else { text().cross_attention_help }}
                </span>
            </label>
            <Show when=move || source().is_some() && !trained()>
                <label class="field-label" for="source-sentence">
                    {move || text().source_label}
                </label>
                <textarea
                    id="source-sentence"
                    data-testid="source-sentence"
                    rows="2"
                    spellcheck="false"
                    placeholder=move || text().source_placeholder
                    prop:value=move || source().unwrap_or_default()
                    on:input=move |ev| {
                        lab.change(Request {
                            source_sentence: Some(event_target_value(&ev)),
                            ..Request::default()
                        })
                    }
                ></textarea>
                <h2 class="field-label">{move || text().source_tokens_label}</h2>
                <TokenChips
                    tokens=Signal::from(source_tokens)
                    count=Signal::from(source_count)
                    test_id="source-tokens"
                />
            </Show>
        </section>
    }
}
