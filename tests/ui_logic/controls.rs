//! The helpers behind the controls: the temperature slider, the arrow keys, the K/V heads offered.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn temperature_slider_is_logarithmic_and_round_trips() {
    let last = temperature_slider_max();
    assert_eq!(temperature_to_slider(0.05), 0.0);
    assert_eq!(temperature_to_slider(10.0), last);
    assert_eq!(slider_to_temperature(0.0), 0.05);
    assert_eq!(slider_to_temperature(last), 10.0);
    assert_eq!(slider_to_temperature(last + 50.0), 10.0, "clamped");
    // T = 1 sits well inside, not at the middle of a linear 0.05–10 scale (which would be ~5).
    let one = temperature_to_slider(1.0) / last;
    assert!((0.5..0.6).contains(&one), "{one}");
    for t in [0.05, 0.1, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0] {
        let back = slider_to_temperature(temperature_to_slider(t));
        assert!((back - t).abs() / t < 0.006, "{t} -> {back}");
    }
}

/// The review's case: from T = 1, ← moved once to 0.99 and then no more; at T = 0.1, → did
/// nothing (two significant figures made neighbouring positions the same number). Every arrow
/// press from every position now changes the temperature, the right way.
#[test]
fn every_arrow_key_moves_the_temperature() {
    let last = temperature_slider_max() as usize;
    for position in 0..last {
        let (here, right) = (
            slider_to_temperature(position as f64),
            slider_to_temperature(position as f64 + 1.0),
        );
        assert!(right > here, "{position}: {here} → {right}");
        // And the value shown maps back to its own position.
        assert_eq!(temperature_to_slider(here), position as f64, "{here}");
    }
    // From a typed value, the arrows step to the neighbours on either side.
    for typed in [1.0, 0.1, 0.37, 2.5, 0.05, 10.0] {
        let at = temperature_to_slider(typed);
        if at > 0.0 {
            assert!(slider_to_temperature(at - 1.0) < typed, "← from {typed}");
        }
        if at < last as f64 {
            assert!(slider_to_temperature(at + 1.0) > typed, "→ from {typed}");
        }
    }
}

#[test]
fn kv_heads_are_offered_only_as_divisors() {
    assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
    assert_eq!(divisors(1), vec![1]);
    assert_eq!(kv_heads_for(8, 4), 4, "still divides");
    assert_eq!(kv_heads_for(6, 4), 3, "largest divisor below");
    assert_eq!(kv_heads_for(5, 2), 1);
}

/// The phone's Controls button tucks away while the page scrolls down and is back on the way
/// up, at the top and at the end; a few pixels of jitter either way move nothing.
#[test]
fn the_controls_button_tucks_away_while_the_page_scrolls_down() {
    use attention_lab::ui::logic::fab::FabScroll;
    let far = 5000.0;
    assert!(!FabScroll::default().tucked);
    // Near the top it shows, however the page moves there.
    let mut fab = FabScroll::default();
    for y in [20.0, 60.0, FabScroll::EDGE] {
        fab = fab.scrolled(y, far);
        assert!(!fab.tucked, "at {y} px");
    }
    // Down past the top by less than MOVE from where it last turned: still shown.
    let mut y = FabScroll::EDGE;
    for _ in 0..2 {
        y += 10.0;
        fab = fab.scrolled(y, far);
        assert!(!fab.tucked, "down by {} px", y - FabScroll::EDGE);
    }
    // A third step takes it past MOVE: tucked.
    y += 10.0;
    fab = fab.scrolled(y, far);
    assert!(fab.tucked, "down by 30 px");
    // Further down, then back up by less than MOVE: jitter, still tucked.
    y += 300.0;
    fab = fab.scrolled(y, far);
    fab = fab.scrolled(y - 10.0, far);
    assert!(fab.tucked, "10 px back up is jitter");
    // Up by MOVE from where it went furthest: back.
    fab = fab.scrolled(y - FabScroll::MOVE, far);
    assert!(!fab.tucked, "up by MOVE");
    // A jitter down from there is not a scroll down.
    assert!(!fab.scrolled(y - FabScroll::MOVE + 10.0, far).tucked);
    // At the page's end it shows, and where the sheet closed.
    let tucked = fab.scrolled(y + 400.0, far);
    assert!(tucked.tucked);
    assert!(
        !tucked.scrolled(y + 500.0, FabScroll::EDGE - 1.0).tucked,
        "at the page's end"
    );
    let closed = tucked.shown();
    assert!(!closed.tucked, "the sheet closed");
    assert!(
        !closed.scrolled(y + 410.0, far).tucked,
        "10 px on from there"
    );
    assert!(closed.scrolled(y + 440.0, far).tucked, "MOVE on from there");
    assert!(!tucked.scrolled(f64::NAN, far).tucked, "no number: shown");
}

/// The note over a folder's model's views says in tokens how much of the text it reads, and
/// why: its context, or the page's memory (where the command line reads more).
#[test]
fn a_folders_reading_window_says_why_in_both_languages() {
    let en = (Lang::En.text().model.folder_window)(567, 959, 392, true);
    assert!(
        en.contains("567 tokens") && en.contains("959") && en.contains("token 392"),
        "{en}"
    );
    assert!(en.contains("memory") && en.contains("command line"), "{en}");
    let context = (Lang::En.text().model.folder_window)(128, 300, 172, false);
    assert!(
        context.contains("its context window") && !context.contains("memory"),
        "{context}"
    );
    let zh = (Lang::Zh.text().model.folder_window)(567, 959, 392, true);
    assert!(
        zh.contains("567 个词元") && zh.contains("内存") && zh.contains("命令行"),
        "{zh}"
    );
    let zh_context = (Lang::Zh.text().model.folder_window)(128, 300, 172, false);
    assert!(
        zh_context.contains("上下文窗口") && !zh_context.contains("内存"),
        "{zh_context}"
    );
}
