//! The trained model's pure rules: a head's label, continuing a sentence, its link settings.

use attention_core::api::{ModelChoice, Request};
use attention_core::pipeline::roles::HeadRoles;
use attention_lab::ui::i18n::Lang;
use attention_lab::ui::logic::link::{parse_query, to_query};
use attention_lab::ui::logic::roles::{Role, dominant, label};
use attention_lab::ui::state::model::trained_request;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn a_head_is_labelled_by_the_role_that_dominates_it() {
    let previous = HeadRoles {
        previous: 0.83,
        induction: 0.05,
        first: 0.02,
        same: 0.1,
        ..HeadRoles::default()
    };
    assert_eq!(dominant(&previous), Some((Role::Previous, 0.83)));
    assert_eq!(
        label(&previous, Lang::En),
        "previous-token head: 0.83 of its weight on the character before"
    );
    assert!(label(&previous, Lang::Zh).starts_with("前一词元头：0.83"));
    let induction = HeadRoles {
        previous: 0.1,
        induction: 0.72,
        first: 0.0,
        same: 0.3,
        ..HeadRoles::default()
    };
    assert_eq!(dominant(&induction).map(|(r, _)| r), Some(Role::Induction));
    let mixed = HeadRoles {
        previous: 0.3,
        induction: 0.2,
        first: 0.35,
        same: 0.1,
        ..HeadRoles::default()
    };
    assert_eq!(dominant(&mixed), None);
    assert_eq!(label(&mixed, Lang::En), "no single job on this sentence");
}

#[test]
fn the_model_and_its_layer_are_kept_in_links() {
    let (state, notices) = parse_query("model=trained&layer=2&head=3");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(state.request.model, Some(ModelChoice::Trained));
    assert_eq!((state.view.layer, state.view.head), (1, 2));
    let query = to_query(&state);
    assert!(
        query.contains("model=trained") && query.contains("layer=2"),
        "{query}"
    );
    let (_, notices) = parse_query("model=huge");
    assert_eq!(notices.len(), 1);
}

#[test]
fn the_trained_model_reads_only_what_it_does_not_fix() {
    let request = Request {
        model: Some(ModelChoice::Trained),
        sentence: Some("hello".into()),
        d_model: Some(64),
        seed: Some(3),
        temperature: Some(0.5),
        ..Request::default()
    };
    // The page keeps the random shape for later and runs the model without it.
    let (sentence, run) = trained_request(&request).trained_run().unwrap();
    assert_eq!((sentence.as_str(), run.temperature), ("hello", 0.5));
    // The CLI and the API name the first fixed setting they were given.
    let error = request.trained_run().unwrap_err();
    assert_eq!(error.field(), "d_model");
    assert!(
        Lang::En
            .request_error(&error)
            .contains("fixed by the trained model")
    );
    assert_eq!(
        request.lengths(),
        (Some(5), Some(5)),
        "one token per character"
    );
}
