//! Links that restore the state, hostile links, and a host page driving the lab.

use attention_lab::ui::App;
use leptos::mount::mount_to;
use leptos::task::tick;
use leptos::view;
use serde_json::{Value, json};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

use super::dom::*;

/// Sets the test page's address (so that a page-mode lab reads it), returning the old one.
fn set_address(query: &str) -> String {
    let window = web_sys::window().unwrap();
    let old = window.location().href().unwrap();
    let path = window.location().pathname().unwrap();
    window
        .history()
        .unwrap()
        .replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{query}")))
        .unwrap();
    old
}

fn restore_address(old: &str) {
    web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .replace_state_with_url(&JsValue::NULL, "", Some(old))
        .unwrap();
}

#[wasm_bindgen_test]
async fn a_link_restores_the_state_and_the_address_follows_the_user() {
    use attention_lab::ui::logic::link::{parse_query, to_query};
    let old = set_address(
        "?sentence=%E7%8C%AB%20sat%20down&n_heads=4&n_kv_heads=2&temperature=0.25&mask=padding&valid_len=2&seed=9&head=3&lang=zh&theme=dark&step=5",
    );
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App page=true /> });
    tick().await;
    let s = state();
    assert_eq!(s["sentence"], "猫 sat down");
    assert_eq!(
        (
            s["n_heads"].clone(),
            s["n_kv_heads"].clone(),
            s["temperature"].clone()
        ),
        (json!(4), json!(2), json!(0.25))
    );
    assert_eq!(s["mask"], json!({"kind": "padding", "valid_len": 2}));
    assert_eq!(
        (
            s["head"].clone(),
            s["lang"].clone(),
            s["theme"].clone(),
            s["seed"].clone()
        ),
        (json!(3), json!("zh"), json!("dark"), json!(9))
    );
    assert_eq!(
        texts(&host, "[data-testid=tokens] .chip-text"),
        ["猫", "sat", "down"]
    );
    assert!(
        texts(&host, "[data-testid=link-notices]").is_empty(),
        "a clean link has no notices"
    );

    // The user works; the address follows (without new history entries).
    let history_length = web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .length()
        .unwrap();
    enter(&host, "[data-testid=temperature]", "0.75");
    click(&host, "[data-testid=mask-kind] button[data-value='causal']");
    let search = || web_sys::window().unwrap().location().search().unwrap();
    until("the address to follow", || {
        search().contains("temperature=0.75") && search().contains("mask=causal")
    })
    .await;
    let (link, notices) = parse_query(&search());
    assert!(notices.is_empty());
    assert_eq!(link.request.temperature, Some(0.75));
    // Heads count from 1 in links, as on the page: head=3 is the third head.
    assert_eq!(link.view.head, 2);
    assert!(
        search().contains("head=3") && search().contains("step=5"),
        "{}",
        search()
    );
    assert_eq!(
        web_sys::window()
            .unwrap()
            .history()
            .unwrap()
            .length()
            .unwrap(),
        history_length,
        "no history entries added"
    );
    // What the address holds is the state itself: writing it again gives the same link.
    assert_eq!(to_query(&link), search().trim_start_matches('?'));
    restore_address(&old);
}

#[wasm_bindgen_test]
async fn bad_and_hostile_links_show_a_notice_and_the_defaults() {
    for (query, expected_notices) in [
        (
            "?sentence=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&d_model=wide&colour=red",
            2,
        ),
        ("?n_heads=3&n_kv_heads=2", 1),
        (&*format!("?sentence={}", "a%20".repeat(9_000)), 1),
        ("?mask=custom&cells=1x1", 2),
    ] {
        let old = set_address(query);
        let host = host();
        let app = mount_to(host.clone(), || view! { <App page=true /> });
        tick().await;
        let notices = host
            .query_selector_all("[data-testid=link-notices] li")
            .unwrap()
            .length();
        assert_eq!(
            notices as usize,
            expected_notices,
            "{}",
            &query[..query.len().min(80)]
        );
        // The only images are the heatmaps' own row labels.
        assert!(
            host.query_selector("img:not(.heatmap-rows), [onerror]")
                .unwrap()
                .is_none(),
            "markup stays text"
        );
        let s = state();
        assert_eq!(s["d_model"], Value::Null, "the default shape");
        if query.contains("n_heads=3") {
            // Only the value that cannot work is left out: 3 heads, multi-head.
            assert_eq!(
                (s["n_heads"].clone(), s["n_kv_heads"].clone()),
                (json!(3), Value::Null)
            );
            assert_eq!(
                texts(&host, "[data-testid=tokens] .chip-text")
                    .first()
                    .map(String::as_str),
                Some("The")
            );
        }
        if query.contains("img") {
            // The hostile text is a sentence like any other: tokens shown as text.
            assert!(texts(&host, "[data-testid=tokens] .chip-text").contains(&"img".to_string()));
        }
        click(&host, "[data-testid=link-notices-dismiss]");
        tick().await;
        assert!(
            host.query_selector("[data-testid=link-notices]")
                .unwrap()
                .is_none(),
            "dismissed"
        );
        drop(app);
        restore_address(&old);
    }
}

#[wasm_bindgen_test]
async fn a_host_message_changes_the_state() {
    let old = set_address("?embed=1&panels=weights");
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App page=true /> });
    tick().await;
    assert!(
        host.query_selector("[data-testid=embed]")
            .unwrap()
            .is_some(),
        "the compact layout"
    );
    assert!(
        host.query_selector("[data-testid=controls]")
            .unwrap()
            .is_none(),
        "no page chrome"
    );
    let post = |message: Value| {
        let window = web_sys::window().unwrap();
        window
            .post_message(&js_sys::JSON::parse(&message.to_string()).unwrap(), "*")
            .unwrap();
    };
    post(
        json!({"type": "attention-lab:set", "params": {"temperature": 0.3, "sentence": "hello host page", "head": 1}}),
    );
    let s = until_state("the message", |s| s["temperature"] == 0.3).await;
    assert_eq!(s["sentence"], "hello host page");
    assert_eq!(s["head"], 1);
    // Invalid or foreign messages change nothing.
    post(json!({"type": "attention-lab:set", "params": {"n_heads": 3, "n_kv_heads": 2}}));
    post(json!({"type": "something-else", "params": {"temperature": 5}}));
    post(json!("not even an object"));
    frames().await;
    frames().await;
    let after = state();
    assert_eq!(
        (after["temperature"].clone(), after["n_heads"].clone()),
        (json!(0.3), Value::Null)
    );
    restore_address(&old);
}

#[wasm_bindgen_test]
async fn one_bad_value_is_left_out_and_the_rest_of_the_link_kept() {
    let old = set_address(
        "?sentence=students%20read%20the%20article&temperature=0.00001&mask=causal&head=2",
    );
    let host = host();
    let app = mount_to(host.clone(), || view! { <App page=true /> });
    tick().await;
    let s = state();
    assert_eq!(
        s["sentence"], "students read the article",
        "the sentence is kept"
    );
    assert_eq!(s["mask"], json!({"kind": "causal"}));
    assert_eq!(s["head"], 2);
    assert_eq!(s["temperature"], Value::Null);
    let notices = texts(&host, "[data-testid=link-notices] li");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].contains("0.00001") && notices[0].contains("too small"),
        "{}",
        notices[0]
    );
    drop(app);
    restore_address(&old);
}

#[wasm_bindgen_test]
async fn every_section_has_its_own_link_and_embed_code() {
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let _ = api("set", Some(json!({"head": 2, "step": 4})));
    tick().await;
    click(&host, "[data-testid=link-scores]");
    tick().await;
    let field: web_sys::HtmlInputElement =
        find(&host, "[data-testid=share-text-scores]").unchecked_into();
    let link = field.value();
    assert!(
        link.contains("view=scores") && link.contains("head=2") && link.contains("step=4"),
        "{link}"
    );
    click(&host, "[data-testid=embed-softmax]");
    tick().await;
    let field: web_sys::HtmlInputElement =
        find(&host, "[data-testid=share-text-softmax]").unchecked_into();
    let code = field.value();
    assert!(
        code.starts_with("<iframe")
            && code.contains("panels=weights%2Chead-view")
            && code.contains("view=softmax"),
        "{code}"
    );
    click(&host, "[data-testid=embed-flash]");
    tick().await;
    let field: web_sys::HtmlInputElement =
        find(&host, "[data-testid=share-text-flash]").unchecked_into();
    assert!(field.value().contains("panels=flash"), "{}", field.value());
    drop(app);
}

#[wasm_bindgen_test]
async fn an_embed_names_unknown_panels_and_keeps_chinese_unspaced() {
    let old = set_address(
        "?embed=1&panels=nonsense,weights&sentence=%E7%8C%AB%E5%9D%90%E5%9C%A8%E5%9E%AB%E5%AD%90%E4%B8%8A",
    );
    let host = host();
    let app = mount_to(host.clone(), || view! { <App page=true /> });
    tick().await;
    let notices = texts(&host, "[data-testid=link-notices] li");
    assert!(
        notices.len() == 1 && notices[0].contains("nonsense"),
        "{notices:?}"
    );
    assert!(
        host.query_selector("[data-testid=heatmap-weights]")
            .unwrap()
            .is_some()
    );
    assert_eq!(texts(&host, ".embed-sentence"), ["猫坐在垫子上"]);
    drop(app);
    restore_address(&old);
}
