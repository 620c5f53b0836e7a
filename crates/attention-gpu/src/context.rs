//! The device: found once, kept for the whole session. Validation errors and device loss are
//! captured (never a panic) and reported by the next computation.

use std::sync::{Arc, Mutex};

use super::error::GpuError;

/// What the page says about the GPU in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInfo {
    /// The adapter's name, as the driver reports it.
    pub name: String,
    /// The API underneath: "BrowserWebGpu", "Vulkan", "Metal", …
    pub api: String,
    /// A software rasteriser (SwiftShader, lavapipe): correct, but slower than the CPU path, so
    /// "auto" never picks it.
    pub software: bool,
}

pub struct Context {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: GpuInfo,
    pub limits: wgpu::Limits,
    /// Set by the device's lost callback.
    lost: Arc<Mutex<Option<String>>>,
    /// The last error no error scope caught.
    uncaptured: Arc<Mutex<Option<String>>>,
}

impl Context {
    pub async fn new() -> Result<Self, GpuError> {
        #[cfg(target_arch = "wasm32")]
        if !wgpu::util::is_browser_webgpu_supported().await {
            return Err(GpuError::NoWebGpu);
        }
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                ..Default::default()
            })
            .await
            .map_err(|error| GpuError::NoAdapter(error.to_string()))?;
        let adapter_info = adapter.get_info();
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("attention-lab"),
                required_features: wgpu::Features::empty(),
                required_limits: limits.clone(),
                memory_hints: wgpu::MemoryHints::Performance,
                ..Default::default()
            })
            .await
            .map_err(|error| GpuError::RequestDevice(error.to_string()))?;

        let lost = Arc::new(Mutex::new(None));
        let lost_slot = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut slot) = lost_slot.lock() {
                *slot = Some(format!("{reason:?}: {message}"));
            }
        });
        let uncaptured = Arc::new(Mutex::new(None));
        let uncaptured_slot = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |error| {
            if let Ok(mut slot) = uncaptured_slot.lock() {
                *slot = Some(error.to_string());
            }
        }));

        let software = is_software(&adapter_info.name, adapter_info.device_type);
        // Browsers leave wgpu's name empty; GPUAdapter.info still tells vendor and architecture.
        #[cfg(target_arch = "wasm32")]
        let name = match adapter_info.name.as_str() {
            "" => browser_adapter_label()
                .await
                .unwrap_or_else(|| "WebGPU adapter".into()),
            name => name.to_string(),
        };
        #[cfg(not(target_arch = "wasm32"))]
        let name = adapter_info.name.clone();
        Ok(Self {
            device,
            queue,
            info: GpuInfo {
                name,
                api: format!("{:?}", adapter_info.backend),
                software,
            },
            limits,
            lost,
            uncaptured,
        })
    }

    /// The device's loss, if it happened, or an error nothing else caught.
    pub fn check(&self) -> Result<(), GpuError> {
        if let Some(reason) = self.lost.lock().ok().and_then(|slot| slot.clone()) {
            return Err(GpuError::DeviceLost(reason));
        }
        if let Some(message) = self.uncaptured.lock().ok().and_then(|mut slot| slot.take()) {
            return Err(GpuError::Shader(message));
        }
        Ok(())
    }

    /// Destroys the device (as a driver reset would), for tests of the recovery path.
    pub fn simulate_loss(&self) {
        // The browser reports a loss asynchronously; record it at once so the next use sees it.
        if let Ok(mut slot) = self.lost.lock() {
            *slot = Some("the device was destroyed".into());
        }
        self.device.destroy();
    }
}

/// "vendor architecture" (or the description) of the browser's WebGPU adapter.
#[cfg(target_arch = "wasm32")]
async fn browser_adapter_label() -> Option<String> {
    use wasm_bindgen::JsCast;
    // The page's `window.navigator`, or a worker's `self.navigator` (the model worker).
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    let gpu = js_sys::Reflect::get(&navigator, &"gpu".into()).ok()?;
    let request: js_sys::Function = js_sys::Reflect::get(&gpu, &"requestAdapter".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let promise: js_sys::Promise = request.call0(&gpu).ok()?.dyn_into().ok()?;
    let adapter = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
    let info = js_sys::Reflect::get(&adapter, &"info".into()).ok()?;
    let field = |name: &str| {
        js_sys::Reflect::get(&info, &name.into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    let label = match field("description") {
        description if !description.is_empty() => description,
        _ => format!("{} {}", field("vendor"), field("architecture"))
            .trim()
            .to_string(),
    };
    (!label.is_empty()).then_some(label)
}

/// Whether an adapter is a software rasteriser (lavapipe/llvmpipe, SwiftShader, WARP): correct,
/// but slower than the CPU path, so "auto" never picks it. Told by its type where the driver
/// says it, and by its name where it does not (browsers report no type).
pub fn is_software(name: &str, device_type: wgpu::DeviceType) -> bool {
    let name = name.to_lowercase();
    device_type == wgpu::DeviceType::Cpu
        || [
            "llvmpipe",
            "lavapipe",
            "swiftshader",
            "microsoft basic render",
        ]
        .iter()
        .any(|n| name.contains(n))
}
