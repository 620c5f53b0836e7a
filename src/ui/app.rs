//! The app shell: the state of the lab, the sentence box, the tokens and the views.

use std::sync::Arc;

use leptos::prelude::*;

use super::colormap::Scale;
use super::heatmap::{Heatmap, HeatmapData, format_value};
use super::i18n::{EXAMPLES, Lang, request_error_message};
use super::js_api;
use crate::api::{Request, RequestError};
use crate::core::{Trace, compute_trace};

/// A computed trace, compared by identity: the UI never diffs matrices to see a change.
#[derive(Debug, Clone)]
pub struct TraceRef(pub Arc<Trace>);

impl PartialEq for TraceRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The result of computing the current request.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: Result<TraceRef, RequestError>,
    /// Wall time of validation plus computation.
    pub compute_ms: f64,
}

/// Checks a request and computes its trace.
pub fn compute(request: &Request) -> Outcome {
    let start = now_ms();
    let result = request
        .to_params()
        .and_then(|params| Ok(params.validate()?))
        .map(|config| TraceRef(Arc::new(compute_trace(&config))));
    Outcome {
        result,
        compute_ms: now_ms() - start,
    }
}

/// Milliseconds from an arbitrary origin, for durations.
pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
    }
}

/// The lab's reactive state, shared by the views and `window.attentionLab`.
#[derive(Clone, Copy)]
pub struct Lab {
    /// Every parameter, as the trace CLI names them.
    pub request: RwSignal<Request>,
    pub lang: RwSignal<Lang>,
    /// The latest computation, valid or not.
    pub outcome: Memo<Outcome>,
    /// The latest valid trace: what the views show while the input is invalid.
    pub shown: Memo<Option<TraceRef>>,
    /// A refusal from `attentionLab.set`, shown until the next change.
    pub notice: RwSignal<Option<String>>,
}

impl Lab {
    pub fn new(request: Request, lang: Lang) -> Self {
        let request = RwSignal::new(request);
        let outcome = Memo::new(move |_| compute(&request.get()));
        let shown =
            Memo::new(
                move |previous: Option<&Option<TraceRef>>| match outcome.get().result {
                    Ok(trace) => Some(trace),
                    Err(_) => previous.cloned().flatten(),
                },
            );
        Self {
            request,
            lang: RwSignal::new(lang),
            outcome,
            shown,
            notice: RwSignal::new(None),
        }
    }

    /// The message for the current input, if it cannot be computed.
    pub fn error(&self) -> Option<String> {
        let lang = self.lang.get();
        self.outcome
            .get()
            .result
            .err()
            .map(|error| request_error_message(&error, lang))
    }
}

fn default_request() -> Request {
    Request {
        sentence: Some(EXAMPLES[0].to_string()),
        ..Request::default()
    }
}

/// The whole lab.
#[component]
pub fn App() -> impl IntoView {
    let lab = Lab::new(default_request(), Lang::from_browser());
    provide_context(lab);
    js_api::install(lab);
    let text = move || lab.lang.get().text();

    let sentence = move || lab.request.with(|r| r.sentence.clone().unwrap_or_default());
    let set_sentence = move |value: String| {
        lab.notice.set(None);
        lab.request.update(|r| {
            *r = r.merged(&Request {
                sentence: Some(value),
                ..Request::default()
            })
        });
    };
    let tokens = move || {
        lab.shown
            .get()
            .map(|t| t.0.config.tokens().to_vec())
            .unwrap_or_default()
    };
    let weights = Signal::derive(move || {
        lab.shown.get().map(|t| {
            let tokens = t.0.config.tokens().to_vec();
            let keys = t.0.config.key_sequence().tokens.clone();
            HeatmapData {
                scale: Scale::fit(t.0.heads[0].weights.iter().copied()),
                values: t.0.heads[0].weights.clone(),
                row_labels: tokens,
                col_labels: keys,
            }
        })
    });
    let weights_label = Signal::derive(move || text().weights_title.to_string());

    view! {
        <div class="lab" lang=move || lab.lang.get().code()>
            <header class="masthead">
                <div>
                    <h1>{move || text().title}</h1>
                    <p class="tagline">{move || text().tagline}</p>
                </div>
                <button
                    class="lang-toggle"
                    data-testid="lang-toggle"
                    on:click=move |_| lab.lang.update(|lang| *lang = lang.other())
                >
                    {move || text().switch_language}
                </button>
            </header>
            <main class="stages">
                <section class="panel input-panel">
                    <label class="field-label" for="sentence">
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
                    {move || {
                        lab.error()
                            .or_else(|| lab.notice.get())
                            .map(|message| {
                                view! {
                                    <p class="error" role="alert" data-testid="error">
                                        {message}
                                        " "
                                        {text().showing_last_good}
                                    </p>
                                }
                            })
                    }}
                    <h2 class="field-label">
                        {move || text().tokens_label}
                        <span class="count" data-testid="token-count">
                            {move || tokens().len()}
                        </span>
                    </h2>
                    <ol class="tokens" data-testid="tokens">
                        {move || {
                            tokens()
                                .into_iter()
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
                    </ol>
                </section>
                <section class="panel">
                    <h2>{move || text().weights_title}</h2>
                    <p class="formula">"softmax(QKᵀ / (√d_k · T) + M)"</p>
                    <p class="caption">{move || text().weights_caption}</p>
                    <div class="heatmap-frame">
                        <Heatmap data=weights test_id="weights-heatmap" label=weights_label />
                    </div>
                    <p class="meta" data-testid="compute-time">
                        {move || text().rows_are_queries}
                        " · "
                        {move || text().computed_in}
                        " "
                        {move || format_value(lab.outcome.get().compute_ms as f32)}
                        " ms"
                    </p>
                </section>
            </main>
        </div>
    }
}
