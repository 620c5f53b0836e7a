//! The Leptos app. Reads traces computed by [`crate::core`]; never computes attention itself.

mod app;
mod colormap;
mod colormap_data;
mod heatmap;
mod i18n;
mod js_api;

pub use app::App;
pub use colormap::{Scale, viridis};
pub use i18n::Lang;

/// Mounts the lab into `<body>` and installs `window.attentionLab`.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}
