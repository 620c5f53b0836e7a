//! The Leptos app. Reads traces computed by [`crate::core`]; never computes attention itself.

mod app;
mod colormap;
mod colormap_data;
mod controls;
pub mod engine;
pub mod flash_frames;
mod flash_view;
mod head_view;
mod heatmap;
mod i18n;
mod js_api;
mod mask_editor;
mod memory_chart;
mod pipeline;
pub mod stages;
mod state;
mod tooltip;

pub use app::App;
pub use colormap::{Scale, viridis};
pub use controls::{divisors, kv_heads_for, slider_to_temperature, temperature_to_slider};
pub use i18n::Lang;
pub use state::{Lab, TraceRef, compute};

/// Mounts the lab into `<body>` and installs `window.attentionLab`.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}
