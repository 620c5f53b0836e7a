//! What the page's words name: a control's label in one language names what it names in the
//! other, and a chapter that sends the learner to a control quotes that control's label.

use super::*;
use attention_core::teaching::Chapter;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn only_the_causal_sliding_window_is_called_sliding_in_chinese() {
    // 滑动 (sliding) is the causal window with sink tokens, as "sliding" is in English; the
    // two-sided window must not carry the word, or the windows chapter sends students to it.
    let masks = &Lang::Zh.text().masks;
    assert!(!masks.window.0.contains("滑动"), "{:?}", masks.window);
    assert!(masks.sliding.0.contains("滑动"), "{:?}", masks.sliding);
    assert!(
        !(Lang::Zh.text().masks.why_window)(3, 0, 1).contains("滑动"),
        "the two-sided window's reason calls it sliding"
    );
}

#[test]
fn the_windows_chapter_quotes_the_sliding_masks_label() {
    for lang in [Lang::En, Lang::Zh] {
        let label = lang.text().masks.sliding.0;
        let try_this = lang.text().learn.chapters[Chapter::Windows.index()].try_this;
        assert!(
            try_this.contains(label),
            "{lang:?}: {try_this:?} does not name {label:?}"
        );
        let window = lang.text().masks.window.0;
        let quoted = match lang {
            Lang::En => format!("choose {window},"),
            Lang::Zh => format!("“{window}”"),
        };
        assert!(
            !try_this.contains(&quoted),
            "{lang:?}: {try_this:?} sends to the two-sided window"
        );
    }
}

#[test]
fn the_first_keys_two_shares_say_which_text_each_is_of() {
    // The chapter's table (the learner's short sentence: 53.8 %) and the streaming finding (a
    // long passage: a few per cent) are both true; each says which text it measured and why a
    // short sentence's share is no sink.
    for (lang, short) in [(Lang::En, "short sentence"), (Lang::Zh, "短句")] {
        let share = (lang.text().learn.cache.share)(0.31, 0.538, 2, 12);
        assert!(share.contains("53.8%") && share.contains("12"), "{share}");
        assert!(share.contains("256"), "{share}");
        let finding = (lang.text().model.stream.finding)(0.001, 0.034, 256, 256);
        assert!(
            finding.contains("3.4%") && finding.contains(short),
            "{lang:?}: {finding}"
        );
    }
}

#[test]
fn what_auto_rests_on_is_what_was_measured() {
    // "from 512 tokens up, where it pays off" was never measured; the numbers the page gives
    // instead are the benchmarks' (benches/README.md, the lent H200).
    const BENCHES: &str = include_str!("../../benches/README.md");
    for lang in [Lang::En, Lang::Zh] {
        let help = lang.text().backend_help;
        assert!(!help.contains("pays off"), "{help}");
        for number in ["0.43", "0.96", "113", "110"] {
            assert!(help.contains(number), "{lang:?}: {help}");
            assert!(BENCHES.contains(number), "benches/README.md lacks {number}");
        }
    }
}

#[test]
fn the_pipelines_steps_are_numbered_once_each_in_page_order() {
    use attention_lab::ui::logic::sections::Section;
    let numbers: Vec<usize> = Section::on_page(true)
        .into_iter()
        .filter_map(Section::number)
        .collect();
    let expected: Vec<usize> = (1..=numbers.len()).collect();
    assert_eq!(
        numbers, expected,
        "two sections shared a number (values and all heads were both 5)"
    );
}
