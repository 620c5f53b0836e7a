//! The softmax chapter's experiment, drawn: the temperature sweep.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::logic::visible;
use crate::ui::state::Lab;
use crate::ui::views::chart::Chart;

use super::parts::{chart, series, texts};

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let sweep = Signal::derive(move || {
        let Some(Experiment::Softmax(e)) = e.get() else {
            return None;
        };
        let x = texts(lab);
        let ln_n = e.uniform_entropy.max(f64::MIN_POSITIVE);
        let mut c = chart(
            x.sweep_title,
            x.temperature,
            x.sweep_y,
            (true, false),
            vec![
                series(
                    x.largest,
                    e.sweep.iter().map(|p| (p.temperature, p.largest)).collect(),
                    0,
                    false,
                ),
                series(
                    x.entropy_share,
                    e.sweep
                        .iter()
                        .map(|p| {
                            (
                                p.temperature,
                                if e.allowed > 1 { p.entropy / ln_n } else { 0.0 },
                            )
                        })
                        .collect(),
                    1,
                    false,
                ),
            ],
        );
        c.marker = Some(e.temperature);
        Some(c)
    });
    let result = move || {
        let Some(Experiment::Softmax(e)) = e.get() else {
            return String::new();
        };
        let token = e.argmax_token.as_deref().map(visible).unwrap_or_default();
        (texts(lab).sweep_result)(
            e.temperature,
            e.current.largest,
            e.current.entropy,
            e.uniform_entropy,
            &token,
        )
    };
    view! {
        <Chart chart=sweep test_id="chart-temperature" />
        <p class="lesson-result" data-testid="lesson-result">{result}</p>
    }
}
