//! The app's glue to the browser that knows nothing of the lab's state: the clock, the Web
//! Workers, canvases, observers, local storage, the page's address, downloads, the clipboard,
//! and files held in JavaScript's memory (`js_bytes`).
//! Any layer above may use it (`tests/architecture.rs` checks that it uses none of them).

pub mod address;
pub mod canvas;
pub mod clock;
pub mod from_worker;
pub mod js_bytes;
pub mod observers;
pub mod share;
pub mod storage;
pub mod worker;
