//! The Leptos app. It reads traces computed by `attention-core` (or `attention-gpu`); it never
//! computes attention itself. Layers, each using only those before it:
//! - [`i18n`]: every sentence in English and Chinese (pure);
//! - [`model`]: what each view shows and the rules behind the controls, links and engine choice
//!   (pure: no leptos, web-sys, js-sys or wasm-bindgen);
//! - [`state`]: the reactive `Lab` and the GPU's job queue;
//! - [`browser`]: the address bar, sharing, embedding, `window.attentionLab`, observers;
//! - [`views`]: the components.

pub mod browser;
pub mod i18n;
pub mod model;
pub mod state;
pub mod views;

pub use views::app::App;

/// Mounts the page's lab into `<body>`: it reads and writes the address, installs
/// `window.attentionLab` and, inside a frame, talks to the host page.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(|| leptos::view! { <App page=true /> });
}
