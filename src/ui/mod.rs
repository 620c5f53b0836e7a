//! The Leptos app. Reads traces computed by [`attention_core`]; never computes attention itself.

mod app;
mod colormap;
mod colormap_data;
mod controls;
mod embed;
pub mod engine;
pub mod flash_frames;
mod flash_view;
mod head_view;
mod heatmap;
mod i18n;
mod js_api;
pub mod link;
mod location;
mod mask_editor;
mod memory_chart;
mod pipeline;
mod share;
pub mod stages;
pub mod state;
mod tooltip;

pub use app::App;
pub use colormap::{Scale, viridis};
pub use controls::{divisors, kv_heads_for, slider_to_temperature, temperature_to_slider};
pub use i18n::Lang;
pub use share::csv;
pub use state::{Lab, TraceRef, compute};

/// Mounts the page's lab into `<body>`: it reads and writes the address, installs
/// `window.attentionLab` and, inside a frame, talks to the host page.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(|| leptos::view! { <App page=true /> });
}
