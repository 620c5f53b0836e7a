//! The backend choice as a table: what the user chose × the GPU's state × the size → the backend
//! (and, for the CPU, the reason it gives).

use attention_core::api::BackendChoice::{self, Auto, Cpu, Gpu};
use attention_gpu::GpuInfo;
use attention_lab::ui::logic::backend::{
    AUTO_GPU_MIN_TOKENS, ChosenBackend, Fallback, FallbackReason, GpuStatus, choose,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn ready(software: bool) -> GpuStatus {
    GpuStatus::Ready(GpuInfo {
        name: if software { "SwiftShader" } else { "RTX" }.into(),
        api: "BrowserWebGpu".into(),
        software,
    })
}

/// `None`: the GPU computes; `Some(None)`: the CPU, as asked; `Some(Some(reason))`: the CPU
/// instead of the GPU, for that reason.
fn check(
    choice: BackendChoice,
    status: GpuStatus,
    tokens: usize,
    expected: Option<Option<FallbackReason>>,
) {
    let chosen = choose(choice, &status, tokens);
    let got = match &chosen {
        ChosenBackend::Gpu => None,
        ChosenBackend::Cpu(fallback) => Some(fallback.as_ref().map(|f| f.reason)),
    };
    assert_eq!(
        got, expected,
        "{choice:?} × {status:?} × {tokens} tokens → {chosen:?}"
    );
}

#[test]
fn every_choice_status_and_size() {
    use FallbackReason::*;
    let big = AUTO_GPU_MIN_TOKENS;
    let small = AUTO_GPU_MIN_TOKENS - 1;
    let unavailable = GpuStatus::Unavailable(Fallback::new(NoWebGpu, ""));
    let lost = GpuStatus::Lost("reset".into());
    let table = [
        // The CPU, when asked, always.
        (Cpu, ready(false), big, Some(None)),
        (Cpu, GpuStatus::Probing, small, Some(None)),
        // The GPU, when asked, whenever it is ready, at any size (even a software one).
        (Gpu, ready(false), 1, None),
        (Gpu, ready(true), small, None),
        (Gpu, GpuStatus::Probing, big, Some(Some(Probing))),
        (Gpu, unavailable.clone(), big, Some(Some(NoWebGpu))),
        (Gpu, lost.clone(), big, Some(Some(DeviceLost))),
        // Auto: a hardware GPU from the threshold up; never a software one.
        (Auto, ready(false), big, None),
        (Auto, ready(false), small, Some(Some(SmallInput))),
        (Auto, ready(true), big, Some(Some(SoftwareAdapter))),
        (Auto, ready(true), small, Some(Some(SoftwareAdapter))),
        (Auto, GpuStatus::Probing, big, Some(Some(Probing))),
        (Auto, unavailable, small, Some(Some(NoWebGpu))),
        (Auto, lost, big, Some(Some(DeviceLost))),
    ];
    for (choice, status, tokens, expected) in table {
        check(choice, status, tokens, expected);
    }
}

#[test]
fn every_gpu_failure_has_a_reason_a_message_and_a_retry_rule() {
    use attention_gpu::GpuError;
    use attention_lab::ui::i18n::Lang;
    let failures = [
        GpuError::NoWebGpu,
        GpuError::NoAdapter("none".into()),
        GpuError::RequestDevice("refused".into()),
        GpuError::DeviceLost("reset".into()),
        GpuError::Shader("bad".into()),
        GpuError::TooLarge {
            needed: 10,
            limit: 5,
        },
        GpuError::Readback("lost".into()),
        GpuError::Unsupported("projection biases"),
    ];
    for error in failures {
        let status = GpuStatus::failed(&error);
        let fallback = status.unusable().expect("a failed GPU is unusable");
        assert_eq!(fallback.reason.code(), error.code(), "{error:?}");
        // As the model worker sends it: its code and detail, read back on the page.
        assert_eq!(
            Fallback::named(error.code(), error.detail()),
            Fallback::of(&error),
            "{error:?}"
        );
        assert_eq!(
            status.can_retry(),
            !matches!(error, GpuError::NoWebGpu),
            "{error:?}"
        );
        for lang in Lang::ALL {
            assert!(!fallback.message(lang).is_empty(), "{error:?} in {lang:?}");
        }
    }
}

/// A trained model's layer on view, the GPU chosen: where its pass was computed and whether the
/// layer's attention came from the GPU → why not, when not.
#[test]
fn a_models_layer_says_why_the_gpu_chosen_did_not_compute_it() {
    use FallbackReason::*;
    use attention_core::models::{Model, ModelRun};
    use attention_lab::ui::logic::backend::{ModelPass, model_fallback};
    let hybrid = Model::from_files(
        include_bytes!("../../assets/hybrid/model.safetensors"),
        include_str!("../../assets/hybrid/config.json"),
        include_str!("../../assets/hybrid/vocab.json"),
    )
    .unwrap();
    let forward = hybrid.read("the cat sat", &ModelRun::default()).unwrap();
    let layer = |linear: bool| {
        forward
            .layers
            .iter()
            .map(|l| &l.attention.config)
            .find(|c| c.linear().is_some() == linear)
            .unwrap()
    };
    let (softmax, linear) = (layer(false), layer(true));
    let lost = Fallback::new(DeviceLost, "reset");
    let worker_gpu = |failed: Option<Fallback>| ModelPass::WorkerGpu(failed);
    let table = [
        // The GPU not chosen: nothing to say, wherever the pass was computed.
        (Cpu, ModelPass::Page, softmax, false, None),
        (Auto, ModelPass::Worker, softmax, false, None),
        (Auto, worker_gpu(None), linear, false, None),
        // Chosen, and the layer's attention came from it.
        (Gpu, worker_gpu(None), softmax, true, None),
        (Gpu, worker_gpu(Some(lost.clone())), softmax, true, None),
        // The lab's own models are computed on the page, on its CPU.
        (
            Gpu,
            ModelPass::Page,
            softmax,
            false,
            Some(Fallback::new(Unsupported, "")),
        ),
        // The pass on view is from before the GPU was chosen: the worker is opening it.
        (
            Gpu,
            ModelPass::Worker,
            softmax,
            false,
            Some(Fallback::new(Probing, "")),
        ),
        // A folder's model on the page (its worker not running): said so, not the lab's own.
        (
            Gpu,
            ModelPass::PageFolder,
            softmax,
            false,
            Some(Fallback::new(ModelOnPage, "")),
        ),
        // The worker's GPU failed: its reason, except where the shaders do not compute the layer.
        (
            Gpu,
            worker_gpu(Some(lost.clone())),
            softmax,
            false,
            Some(lost.clone()),
        ),
        (
            Gpu,
            worker_gpu(Some(lost)),
            linear,
            false,
            Some(Fallback::new(
                Unsupported,
                "a short convolution before linear attention",
            )),
        ),
        // A layer the GPU computes, computed here although nothing failed: not ready.
        (
            Gpu,
            worker_gpu(None),
            softmax,
            false,
            Some(Fallback::new(NotReady, "")),
        ),
        // The GPU computed the other layers; this one the shaders do not compute.
        (
            Gpu,
            worker_gpu(None),
            linear,
            false,
            Some(Fallback::new(
                Unsupported,
                "a short convolution before linear attention",
            )),
        ),
    ];
    for (choice, pass, config, on_gpu, expected) in table {
        assert_eq!(
            model_fallback(choice, &pass, config, on_gpu),
            expected,
            "{choice:?} × {pass:?} × linear {} × on the GPU {on_gpu}",
            config.linear().is_some()
        );
    }
}

/// What the shaders do not compute is said in Chinese in Chinese, not by its English name.
#[test]
fn what_the_gpu_does_not_compute_is_named_in_each_language() {
    use attention_gpu::{GpuError, unsupported};
    use attention_lab::ui::i18n::Lang;
    for what in unsupported::ALL {
        let fallback = Fallback::of(&GpuError::Unsupported(what));
        assert!(fallback.message(Lang::En).contains(what), "{what}");
        let zh = fallback.message(Lang::Zh);
        let latin: String = zh
            .replace("GPU", "")
            .replace("CPU", "")
            .replace("SiLU", "")
            .chars()
            .filter(char::is_ascii_alphabetic)
            .collect();
        assert!(latin.is_empty(), "{what}: {zh}");
    }
}
