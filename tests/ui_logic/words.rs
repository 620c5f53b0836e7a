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
        let named = match lang {
            Lang::En => format!("choose {label},"),
            Lang::Zh => format!("“{label}”"),
        };
        assert!(
            try_this.contains(&named),
            "{lang:?}: {try_this:?} does not name {named:?}"
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
    for linear in [false, true] {
        let sections = Section::on_page(true, linear);
        let numbers: Vec<usize> = sections.iter().filter_map(|s| s.number(linear)).collect();
        let expected: Vec<usize> = (1..=numbers.len()).collect();
        assert_eq!(
            numbers, expected,
            "two sections shared a number (values and all heads were both 5), or one was \
             skipped (linear heads: 2 then 5)"
        );
        // Linear heads have no scores, softmax or tiles: a presentation does not step through
        // empty sections.
        let softmax_only = [Section::Scores, Section::Softmax, Section::Flash];
        assert_eq!(
            softmax_only.iter().any(|s| sections.contains(s)),
            !linear,
            "linear = {linear}: {sections:?}"
        );
    }
}

#[test]
fn generation_plays_calmly_when_reduced_motion_is_asked_for() {
    use attention_lab::ui::logic::motion::{CALM_STEP, generate_pace};
    use std::time::Duration;
    assert!(generate_pace(true) >= Duration::from_secs(1));
    assert_eq!(generate_pace(true), CALM_STEP);
    assert!(generate_pace(false) < Duration::from_millis(200));
}

/// Three or more English words in a row: a sentence left untranslated.
fn english_run(text: &str) -> Option<String> {
    let mut run: Vec<&str> = Vec::new();
    for word in text.split(|c: char| !(c.is_ascii_alphabetic() || c == '\'')) {
        if word.len() >= 2 {
            run.push(word);
            if run.len() >= 3 {
                return Some(run.join(" "));
            }
        } else if !word.is_empty() || run.is_empty() {
            run.clear();
        }
    }
    None
}

#[test]
fn the_generator_and_streaming_errors_are_chinese_on_the_chinese_page() {
    use attention_core::api::GenerationRefusal;
    use attention_core::models::generate::GenerateError;
    use attention_core::models::stream::StreamError;
    use attention_lab::ui::i18n::model_errors::ModelProblem;
    let problems = [
        ModelProblem::NeedModel,
        ModelProblem::Refused(GenerationRefusal::Mask),
        ModelProblem::Refused(GenerationRefusal::Shaping),
        ModelProblem::Generate(GenerateError::EmptyPrompt),
        ModelProblem::Generate(GenerateError::UnknownCharacters("“☃”".into())),
        ModelProblem::Generate(GenerateError::Steps {
            value: 0,
            max: 1024,
        }),
        ModelProblem::Generate(GenerateError::PastContext {
            prompt: 200,
            steps: 100,
            context: 256,
        }),
        ModelProblem::Generate(GenerateError::SamplingTemperature(0.0)),
        ModelProblem::Stream(StreamError::LearnedPositions),
        ModelProblem::Stream(StreamError::ZeroWindow),
        ModelProblem::Stream(StreamError::SinksNotBelowWindow {
            sink_tokens: 64,
            window: 64,
        }),
        ModelProblem::Stream(StreamError::PastContext {
            window: 250,
            sink_tokens: 16,
            context: 256,
        }),
        ModelProblem::Stream(StreamError::Length {
            count: 1,
            max: 4096,
        }),
        ModelProblem::Stream(StreamError::Text(GenerateError::EmptyPrompt)),
    ];
    for problem in &problems {
        let zh = Lang::Zh.model_problem(problem);
        assert_eq!(english_run(&zh), None, "{problem:?}: {zh}");
        assert!(
            !zh.contains("stream_eval") && !zh.contains("generate."),
            "{zh}"
        );
        let en = Lang::En.model_problem(problem);
        assert!(
            !en.contains("stream_eval"),
            "the page's English names no CLI field: {en}"
        );
    }
    assert!(english_run("a sentence left here").is_some());
}

/// The twins' verdicts (all four, whichever the shipped models show today) and what was tried:
/// each carries its numbers as the table shows them, and the Chinese ones are Chinese.
#[test]
fn every_twin_verdict_says_its_numbers_in_both_languages() {
    use attention_core::models::sinks::TwinVerdict;
    let verdicts = [
        TwinVerdict::GateRemovesSink,
        TwinVerdict::BothSink,
        TwinVerdict::OnlyGatedSinks,
        TwinVerdict::NeitherSinks,
    ];
    for lang in [Lang::En, Lang::Zh] {
        let t = lang.text().twins;
        let mut said = Vec::new();
        for verdict in verdicts {
            let text = (t.verdict)(verdict, 0.412, 0.037, 0.125, -0.004, 0.3);
            for number in ["41.2", "3.7", "+0.125", "-0.004"] {
                assert!(
                    text.contains(number),
                    "{lang:?} {verdict:?} lacks {number}: {text}"
                );
            }
            said.push(text);
        }
        // Four different things said.
        said.sort();
        said.dedup();
        assert_eq!(said.len(), 4, "{lang:?}");
        for tried in [(256, 256), (256, 512)] {
            let text = (t.tried)(tried.0, tried.1);
            assert!(text.contains("256"), "{lang:?}: {text}");
            said.push(text);
        }
        if lang == Lang::Zh {
            for text in &said {
                assert_eq!(english_run(text), None, "English in: {text}");
            }
        }
    }
}
