//! The lab's state in a link: every parameter and view setting as a readable query parameter,
//! and back. Pure (no browser), so the round trip is tested natively and in the browser.
//!
//! Names follow the trace CLI's fields (`sentence`, `d_model`, `temperature`, `mask`, …); a custom
//! mask's cells are rows of 0/1 joined by dots (`cells=100.110.111`). Parsing never fails: an
//! unknown name, a malformed value or an over-long text is left out and reported as a
//! [`LinkNotice`]; markup is only ever text.

mod codec;
mod notice;
mod query;
mod state;
mod usable;

pub use codec::{choice_named, decode, encode, is_origin, shorten};
pub use notice::{LinkNotice, ShareWarning};
pub use query::{parse_query, to_query};
pub use state::{Embed, GenerationView, LONG_LINK, LinkState, MAX_TEXT, ViewSettings};
pub use usable::{check_view, share_warnings, usable_request};
