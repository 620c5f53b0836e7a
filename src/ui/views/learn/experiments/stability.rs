//! The stability chapter's experiment, drawn: where and how the naive softmax breaks.

use leptos::prelude::*;

use attention_core::teaching::Experiment;
use attention_core::teaching::{BreakPoint, Breakdown};

use crate::ui::i18n::learn::ExperimentTexts;
use crate::ui::logic::format::significant;
use crate::ui::logic::visible;
use crate::ui::state::Lab;

use super::parts::{f32_cell, texts};

/// The factors the stability slider offers, log-spaced from 1 to 1000.
fn factor_of(position: f64) -> f32 {
    let k = 10f64.powf(position / 100.0 * 3.0);
    // Three significant figures: the link and the box never show float noise.
    let digits = 10f64.powi(2 - k.log10().floor() as i32);
    ((k * digits).round() / digits) as f32
}

/// A precision's name and the state of its naive softmax, in words.
fn state(x: &ExperimentTexts, failure: Option<Breakdown>) -> &'static str {
    match failure {
        None => x.states[0],
        Some(Breakdown::Overflow) => x.states[1],
        Some(Breakdown::Underflow) => x.states[2],
    }
}

fn break_sentence(x: &ExperimentTexts, precision: &str, point: Option<BreakPoint>) -> String {
    match point {
        None => (x.never_breaks)(precision),
        Some(p) => {
            let k = significant(p.factor, 4);
            match p.kind {
                Breakdown::Overflow if p.sum_first => (x.breaks_sum)(precision, &k, p.exponent),
                Breakdown::Overflow => (x.breaks_overflow)(precision, &k, p.exponent),
                Breakdown::Underflow => (x.breaks_underflow)(precision, &k, p.exponent),
            }
        }
    }
}

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let position = RwSignal::new(0.0f64);
    let details = move || {
        let Some(Experiment::Stability(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let tokens: Vec<String> = lab.shown.with(|t| {
            t.as_ref()
                .map(|t| t.0.config.tokens().iter().map(|k| visible(k)).collect())
                .unwrap_or_default()
        });
        let keys: Vec<String> = lab.shown.with(|t| {
            t.as_ref()
                .map(|t| {
                    let i = e.query.min(t.0.mask.nrows().saturating_sub(1));
                    t.0.config
                        .key_sequence()
                        .tokens
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| t.0.mask[[i, j]])
                        .map(|(_, k)| visible(k))
                        .collect()
                })
                .unwrap_or_default()
        });
        let row_top = e.scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        // A row of negative scores can only underflow as k grows: say so, and where to look.
        let only_underflow = (row_top < 0.0 && e.hottest_score > 0.0).then(|| {
            let q = e.hottest_query;
            let token = tokens.get(q).cloned().unwrap_or_default();
            view! {
                <p class="note" data-testid="stability-only-underflow">
                    {(x.only_underflow)(q, &token, e.hottest_score)} " "
                    <button type="button" class="table-toggle" data-testid="stability-hottest"
                        on:click=move |_| lab.lesson_query.set(q)>
                        {(x.choose_query)(q)}
                    </button>
                </p>
            }
        });
        let now = (x.now)(
            &significant(e.factor, 4),
            &significant(e.shift, 3),
            state(x, e.failure_f32),
            state(x, e.failure_f16),
            x.states[0],
        );
        view! {
            <p class="lesson-result" data-testid="lesson-result">
                {(x.largest_exponent)(e.largest)} " "
                {break_sentence(x, "f16", e.break_f16)} " "
                {break_sentence(x, "f32", e.break_f32)}
            </p>
            {only_underflow}
            <p class="lesson-result" data-testid="stability-now">{now}</p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="stability-table">
                    <thead><tr><th>{x.key}</th><th>"k · s + c"</th><th>{x.naive_f32}</th><th>{x.naive_f16}</th><th>{x.stable_f16}</th></tr></thead>
                    <tbody>
                        {(0..e.scores.len()).map(|j| view! {
                            <tr>
                                <td>{keys.get(j).cloned().unwrap_or_default()}</td>
                                <td>{format!("{:.2}", e.scores[j] * e.factor + e.shift)}</td>
                                <td class:broken=e.failure_f32.is_some()>{f32_cell(e.naive_f32[j])}</td>
                                <td class:broken=e.failure_f16.is_some()>{f32_cell(e.naive_f16[j])}</td>
                                <td>{f32_cell(e.stable_f16[j])}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p class="lesson-result">{(x.f16_error)(e.f16_abs_error, e.f16_rel_error)}</p>
        }
        .into_any()
    };
    view! {
        <label class="lesson-factor">
            <span>{move || texts(lab).factor} " = " <output data-testid="lesson-factor-value">{move || significant(lab.lesson_factor.get(), 4)}</output></span>
            <input type="range" min="0" max="100" step="1" data-testid="lesson-factor"
                prop:value=move || position.get()
                on:input=move |ev| {
                    let p = event_target_value(&ev).parse::<f64>().unwrap_or(0.0);
                    position.set(p);
                    lab.lesson_factor.set(factor_of(p));
                } />
        </label>
        <label class="lesson-factor">
            <span>{move || texts(lab).shift} " = " <output data-testid="lesson-shift-value">{move || significant(lab.lesson_shift.get(), 3)}</output></span>
            <input type="range" min="-20" max="20" step="0.5" data-testid="lesson-shift"
                prop:value=move || lab.lesson_shift.get().to_string()
                on:input=move |ev| {
                    if let Ok(c) = event_target_value(&ev).parse::<f32>() {
                        lab.lesson_shift.set(c);
                    }
                } />
        </label>
        {details}
    }
}
