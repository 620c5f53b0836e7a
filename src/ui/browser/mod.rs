//! The app's glue to the browser outside its own views: the address bar, sharing and downloads,
//! embedding (`postMessage`), `window.attentionLab`, observers, canvases and the clock. Never
//! imports a view (`tests/architecture.rs` checks it).

pub mod canvas;
pub mod clock;
pub mod embed;
pub mod files;
pub mod js_api;
pub mod location;
pub mod model_files;
pub mod observers;
pub mod progress;
pub mod share;
pub mod worker;
