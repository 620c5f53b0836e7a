//! The GPU in the browser (SwiftShader): chosen, lost, and the CPU taking over.

use attention_lab::ui::App;
use leptos::mount::mount_to;
use leptos::task::tick;
use leptos::view;
use wasm_bindgen_test::wasm_bindgen_test;

use super::dom::*;

#[wasm_bindgen_test]
async fn the_gpu_computes_when_chosen_and_the_cpu_takes_over_when_it_is_lost() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    // This browser runs with --enable-unsafe-webgpu: SwiftShader, a software adapter.
    let ready = until_state("the GPU probe", |s| s["gpu"] != "probing").await;
    assert_eq!(ready["gpu"], "ready", "{ready}");
    assert_eq!(
        ready["backend"], "cpu",
        "auto does not use a software adapter"
    );
    assert_eq!(ready["fallback_reason"], "software-adapter");
    let cpu = trace();

    click(&host, "[data-testid=backend] button[data-value='gpu']");
    let on_gpu = until_state("the GPU's result", |s| {
        s["backend"] == "gpu" && s["pending"] == false
    })
    .await;
    assert!(
        !on_gpu["adapter"].as_str().unwrap_or_default().is_empty(),
        "{on_gpu}"
    );
    let badge = texts(&host, "[data-testid=backend-badge]").join("");
    assert!(badge.starts_with("GPU · "), "{badge}");
    let gpu = trace();
    for (g, c) in weights(&gpu, 1)
        .iter()
        .flatten()
        .zip(weights(&cpu, 1).iter().flatten())
    {
        assert!((g - c).abs() < 1e-4, "GPU weight {g} vs CPU {c}");
    }

    // A parameter change goes to the GPU too.
    enter(&host, "[data-testid=temperature]", "0.5");
    until_state("the GPU's new result", |s| {
        s["temperature"] == 0.5 && s["backend"] == "gpu" && s["pending"] == false
    })
    .await;

    // The device is lost: the CPU takes over with everything the user set, and says why.
    api("simulateGpuLoss", None);
    enter(&host, "[data-testid=temperature]", "0.7");
    let fallen = until_state("the CPU to take over", |s| {
        s["backend"] == "cpu" && s["gpu"] == "lost"
    })
    .await;
    assert_eq!(fallen["fallback_reason"], "device-lost");
    assert_eq!(fallen["temperature"], 0.7);
    assert_eq!(fallen["sentence"], ready["sentence"]);
    assert_eq!(
        trace()["temperature"],
        0.7,
        "the CPU computed the latest parameters"
    );
    assert!(
        !texts(&host, "[data-testid=fallback-reason]")
            .join("")
            .is_empty(),
        "the page says why"
    );

    click(&host, "[data-testid=gpu-retry]");
    let back = until_state("the GPU to come back", |s| {
        s["backend"] == "gpu" && s["pending"] == false
    })
    .await;
    assert_eq!(back["temperature"], 0.7);
}
