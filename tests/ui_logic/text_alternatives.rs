//! The views a canvas draws, by keyboard and in words: the head view's and the generator's
//! strips' arrow keys, what is picked said with its numbers in both languages, and every chart
//! as a table.

use super::*;
use attention_lab::ui::logic::head_lines::{Focus, describe, step};
use ndarray::array;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn arrow_keys_move_along_a_side_and_cross_to_the_other() {
    assert_eq!(step(None, "ArrowDown", 3, 3), Some(Some(Focus::Query(0))));
    assert_eq!(
        step(Some(Focus::Query(0)), "ArrowDown", 3, 3),
        Some(Some(Focus::Query(1)))
    );
    assert_eq!(
        step(Some(Focus::Query(2)), "ArrowDown", 3, 3),
        Some(Some(Focus::Query(2)))
    );
    assert_eq!(
        step(Some(Focus::Query(1)), "ArrowRight", 3, 2),
        Some(Some(Focus::Key(1)))
    );
    assert_eq!(
        step(Some(Focus::Key(1)), "ArrowLeft", 3, 2),
        Some(Some(Focus::Query(1)))
    );
    assert_eq!(
        step(Some(Focus::Key(0)), "End", 3, 2),
        Some(Some(Focus::Key(1)))
    );
    assert_eq!(step(Some(Focus::Key(0)), "Escape", 3, 2), Some(None));
    assert_eq!(
        step(Some(Focus::Key(0)), "Tab", 3, 2),
        None,
        "Tab leaves the view"
    );
    assert_eq!(step(None, "ArrowDown", 0, 0), None);
}

#[test]
fn what_is_picked_is_said_with_its_numbers() {
    let weights = array![[1.0f32, 0.0], [0.25, 0.75]];
    let (queries, keys) = (
        vec!["a".to_string(), "b".to_string()],
        vec!["a".to_string(), "b".to_string()],
    );
    let summary = describe(&weights, &queries, &keys, None, Lang::En);
    assert!(
        summary.contains("0 “a” → 0 “a” 1.00") && summary.contains("1 “b” → 1 “b” 0.75"),
        "{summary}"
    );
    let query = describe(&weights, &queries, &keys, Some(Focus::Query(1)), Lang::En);
    assert!(query.contains("1 “b” 0.75; 0 “a” 0.25"), "{query}");
    let key = describe(&weights, &queries, &keys, Some(Focus::Key(0)), Lang::Zh);
    assert!(
        key.contains("0 “a” 1.00；1 “b” 0.25") && key.contains("查询"),
        "{key}"
    );
}

#[test]
fn the_generators_strips_move_by_arrow_keys() {
    use attention_lab::ui::logic::strip_keys::step;
    // 2 layers × 2 heads, 5 cached positions.
    assert_eq!(step(None, "ArrowRight", 2, 2, 5), Some(Some((0, 0, 4))));
    assert_eq!(
        step(Some((0, 1, 4)), "ArrowDown", 2, 2, 5),
        Some(Some((1, 0, 4)))
    );
    assert_eq!(
        step(Some((1, 1, 4)), "ArrowDown", 2, 2, 5),
        Some(Some((1, 1, 4)))
    );
    assert_eq!(
        step(Some((1, 0, 4)), "ArrowLeft", 2, 2, 5),
        Some(Some((1, 0, 3)))
    );
    assert_eq!(
        step(Some((1, 0, 3)), "Home", 2, 2, 5),
        Some(Some((1, 0, 0)))
    );
    assert_eq!(
        step(Some((1, 0, 9)), "ArrowUp", 2, 2, 5),
        Some(Some((0, 1, 4))),
        "clamped to the cache"
    );
    assert_eq!(step(Some((1, 0, 3)), "Escape", 2, 2, 5), Some(None));
    assert_eq!(step(Some((1, 0, 3)), "x", 2, 2, 5), None);
}

#[test]
fn a_chart_as_a_table_keeps_each_series_ends() {
    use attention_lab::ui::logic::line_chart::{LineChart, Series, table_rows};
    let series = |label: &str, n: usize| Series {
        label: label.into(),
        points: (0..n).map(|i| (i as f64, (i * i) as f64)).collect(),
        color: (0, 0, 0),
        reference: false,
        points_only: false,
    };
    let chart = LineChart {
        title: "t".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        x_log: false,
        y_log: false,
        series: vec![series("long", 100), series("short", 3)],
        marker: None,
        ink: (0, 0, 0),
    };
    let rows = table_rows(&chart, 16);
    let long: Vec<_> = rows.iter().filter(|r| r.0 == "long").collect();
    assert_eq!(long.len(), 16);
    assert_eq!((long[0].1, long[15].1, long[15].2), (0.0, 99.0, 9801.0));
    assert_eq!(rows.iter().filter(|r| r.0 == "short").count(), 3);
}

#[test]
fn a_long_chart_title_wraps_instead_of_being_cut_off() {
    use attention_lab::ui::logic::line_chart::{ChartLayout, LineChart, text_width, wrap};
    for lang in [Lang::En, Lang::Zh] {
        let title = lang.text().model.stream.chart_title;
        let lines = wrap(title, 460, 14);
        assert!(
            lines.iter().all(|l| text_width(l) * 14 <= 460 * 12),
            "{lines:?}"
        );
        let joined: String = lines.concat().split_whitespace().collect();
        let whole: String = title.split_whitespace().collect();
        assert_eq!(joined, whole, "nothing lost");
        let chart = LineChart {
            title: title.into(),
            x_label: String::new(),
            y_label: String::new(),
            x_log: false,
            y_log: false,
            series: Vec::new(),
            marker: None,
            ink: (0, 0, 0),
        };
        let layout = ChartLayout::new(&chart, 480);
        assert_eq!(layout.title, lines);
        if lang == Lang::En {
            assert!(
                lines.len() >= 2,
                "the streaming chart's title is longer than a line: {lines:?}"
            );
        }
    }
    assert_eq!(wrap("short", 460, 14), vec!["short".to_string()]);
    assert_eq!(wrap("", 460, 14), Vec::<String>::new());
}
