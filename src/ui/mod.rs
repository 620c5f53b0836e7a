//! The Leptos app. It reads traces computed by `attention-core` (or `attention-gpu`); it never
//! computes attention itself. Layers, each using only those before it:
//! - [`i18n`]: every sentence in English and Chinese (pure);
//! - [`logic`]: what each view shows and the rules behind the controls, links and the choice of
//!   backend (pure: it names no leptos, web-sys, js-sys or wasm-bindgen; `backend.rs` reads the
//!   GPU crate's adapter facts and errors);
//! - [`browser`]: the browser's clock, workers, canvases, observers, storage, address and
//!   downloads, knowing no `Lab` (it uses `logic`'s link and embed types);
//! - [`state`]: the reactive `Lab`, and the CPU's and the GPU's job queues;
//! - [`bridge`]: the lab's state and the world outside its views: the address bar, a host
//!   page's messages, `window.attentionLab`, files;
//! - [`views`]: the components.
//!
//! `tests/architecture.rs` checks the order, and that no file uses itself through others.

pub mod bridge;
pub mod browser;
pub mod i18n;
pub mod logic;
pub mod state;
pub mod views;

pub use views::app::App;

/// Mounts the page's lab into `<body>`: it reads and writes the address, installs
/// `window.attentionLab` and, inside a frame, talks to the host page.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(|| leptos::view! { <App page=true /> });
}
