//! The complexity chapter's experiment, drawn: O(n²), measured in the page.

use leptos::prelude::*;

use attention_core::teaching::log_log_slope;
use attention_core::teaching::{CostPoint, Experiment, measure_cost};

use crate::ui::browser::clock::now_ms;
use crate::ui::state::Lab;
use crate::ui::views::chart::Chart;

use super::parts::{chart, series, texts};

/// Sizes the complexity chapter times, up to the core's largest input.
const COST_SIZES: [usize; 7] = [64, 128, 256, 512, 1024, 2048, 4096];

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let points = RwSignal::new(Vec::<CostPoint>::new());
    let measuring = RwSignal::new(None::<usize>);
    // One size per task, so the page paints "measuring n = …" between sizes.
    fn step(points: RwSignal<Vec<CostPoint>>, measuring: RwSignal<Option<usize>>, index: usize) {
        let Some(&n) = COST_SIZES.get(index) else {
            measuring.set(None);
            return;
        };
        measuring.set(Some(n));
        set_timeout(
            move || {
                let clock = || now_ms();
                let measured = measure_cost(&[n], &clock);
                points.update(|p| p.extend(measured.points));
                step(points, measuring, index + 1);
            },
            std::time::Duration::from_millis(30),
        );
    }
    let start = move |_| {
        if measuring.get_untracked().is_none() {
            points.set(Vec::new());
            step(points, measuring, 0);
        }
    };
    let timing = Signal::derive(move || {
        let p = points.get();
        if p.is_empty() {
            return None;
        }
        let x = texts(lab);
        Some(chart(
            x.time_title,
            "n",
            x.time_y,
            (true, true),
            vec![
                series(
                    x.standard,
                    p.iter().map(|p| (p.n as f64, p.standard_ms)).collect(),
                    0,
                    false,
                ),
                series(
                    x.flash,
                    p.iter().map(|p| (p.n as f64, p.flash_ms)).collect(),
                    1,
                    false,
                ),
            ],
        ))
    });
    let slope = move || {
        let p = points.get();
        let large: Vec<&CostPoint> = p.iter().filter(|p| p.n >= 256).collect();
        (large.len() >= 2 && measuring.get().is_none()).then(|| {
            let fit = |f: fn(&CostPoint) -> f64| {
                log_log_slope(&large.iter().map(|p| (p.n as f64, f(p))).collect::<Vec<_>>())
            };
            (texts(lab).slope)(fit(|p| p.standard_ms), fit(|p| p.flash_ms))
        })
    };
    // FlashAttention is slower on a CPU: say why, from the measurement at the largest n.
    let flash_note = move || {
        let p = points.get();
        let last = p.last()?;
        (measuring.get().is_none() && last.standard_ms > 0.0)
            .then(|| (texts(lab).flash_on_cpu)(last.n, last.flash_ms / last.standard_ms))
    };
    let counts = move || {
        let Some(Experiment::Complexity(e)) = e.get() else {
            return String::new();
        };
        (texts(lab).counts)(
            e.n,
            e.cells,
            e.standard_bytes,
            e.flash_bytes,
            e.recurrent_path,
        )
    };
    view! {
        <p class="lesson-result" data-testid="lesson-result">{counts}</p>
        <p class="help">{move || texts(lab).measure_help}</p>
        <button type="button" class="button" data-testid="lesson-measure" disabled=move || measuring.get().is_some() on:click=start>
            {move || texts(lab).measure}
        </button>
        <span class="help" role="status" data-testid="lesson-measuring">{move || measuring.get().map(|n| (texts(lab).measuring)(n))}</span>
        <Show when=move || !points.with(Vec::is_empty)>
            <Chart chart=timing test_id="chart-cost" />
        </Show>
        <p class="lesson-result" data-testid="lesson-slope">{slope}</p>
        <p class="lesson-result" data-testid="lesson-flash-cpu">{flash_note}</p>
    }
}
