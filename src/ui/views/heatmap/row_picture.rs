//! A heatmap's row labels: drawn on a canvas at once, and turned into a picture (an `<img>`) once
//! they have been left alone for a moment.
//!
//! Why a picture: Chromium gives every canvas in the page a composited layer of its own and,
//! without a GPU, copies each one's pixels into every frame it commits. A long matrix's label
//! strip is as tall as its cells (43 × 5120 px at 1024 tokens), and six such canvases cost each
//! typed character's frame about a millisecond (benches/README.md). An image is painted with the
//! page and rastered only where it is seen.
//!
//! Why a canvas first: a picture costs its making. Encoding one takes a few milliseconds of the
//! page's thread and decoding it more on the browser's others; at 256 tokens, where every typed
//! character relabels six heatmaps, pictures made at once cost the typing frames more than the
//! canvases they replaced (p95 15.4 → 18.8 ms). So the labels are drawn on the canvas, which shows
//! them at once, and become a picture only once they have been left alone for [`QUIET_MS`]; the
//! canvas stays on screen until the picture has been decoded, so they never blink. Not an SVG
//! image: Chromium parses and lays one out on the page's thread each time it changes.
//!
//! The picture is lossless WebP (PNG where a browser cannot make WebP) at the screen's pixel
//! ratio, as sharp as the canvas.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{HtmlCanvasElement, HtmlImageElement};

use super::draw::{self, Layout};

/// Labels left alone this many milliseconds become a picture.
pub const QUIET_MS: i32 = 300;

/// The style of whichever of the two shows nothing.
const HIDDEN: &str = "display: none";

#[derive(Default)]
struct State {
    /// Counts the labels drawn: a picture of older labels is dropped.
    drawn: u64,
    /// The picture's blob URL, given back when it is replaced.
    url: Option<String>,
}

/// The row labels of one heatmap: its `<canvas class="heatmap-rows">` and its
/// `<img class="heatmap-rows">`, one of which shows them.
#[derive(Clone, Default)]
pub struct RowLabels(Rc<RefCell<State>>);

impl RowLabels {
    /// Draws `layout`'s row labels in `ink` at `ratio` device pixels per CSS pixel on `canvas`,
    /// shows them there, and makes them a picture in `image` if they are left alone for
    /// [`QUIET_MS`].
    pub fn show(
        &self,
        canvas: &HtmlCanvasElement,
        image: &HtmlImageElement,
        layout: &Layout,
        ink: &str,
        ratio: f64,
    ) -> Result<(), wasm_bindgen::JsValue> {
        let ctx = draw::size_canvas(canvas, layout.left, layout.grid_height(), ratio)?;
        draw::row_labels(&ctx, layout, ink, (0.0, 0.0))?;
        canvas.style().remove_property("display")?;
        self.drop_picture(image);
        let drawn = self.0.borrow().drawn;
        let (this, canvas, image) = (self.clone(), canvas.clone(), image.clone());
        // The density the labels are drawn at: the picture's pixels ÷ this are CSS pixels.
        let density = canvas.width() as f64 / layout.left.max(1.0);
        let later = Closure::once_into_js(move || this.encode(canvas, image, drawn, density));
        web_sys::window()
            .ok_or("no window")?
            .set_timeout_with_callback_and_timeout_and_arguments_0(
                later.unchecked_ref(),
                QUIET_MS,
            )?;
        Ok(())
    }

    /// Shows no labels.
    pub fn hide(&self, canvas: &HtmlCanvasElement, image: &HtmlImageElement) {
        let _ = draw::size_canvas(canvas, 0.0, 0.0, 1.0);
        self.drop_picture(image);
    }

    /// Drops any picture still being made and gives back the one kept: the heatmap is gone, or
    /// (through [`Self::drop_picture`]) its labels are drawn anew.
    pub fn release(&self) {
        self.0.borrow_mut().drawn += 1;
        self.replace_url(None);
    }

    /// Whether `drawn` is still the labels on the canvas.
    fn current(&self, drawn: u64) -> bool {
        self.0.borrow().drawn == drawn
    }

    /// Hides the picture and forgets it (labels are drawn anew, or none are wanted).
    fn drop_picture(&self, image: &HtmlImageElement) {
        let _ = image.remove_attribute("srcset");
        let _ = image.set_attribute("style", HIDDEN);
        self.release();
    }

    /// Encodes the canvas (off the page's thread), then loads and decodes the picture, then shows
    /// it in the canvas's place: each step only while the labels drawn are still `drawn`.
    fn encode(&self, canvas: HtmlCanvasElement, image: HtmlImageElement, drawn: u64, density: f64) {
        if !self.current(drawn) {
            return;
        }
        let (this, source) = (self.clone(), canvas.clone());
        let encoded = Closure::once_into_js(move |blob: Option<web_sys::Blob>| {
            let url = blob.and_then(|blob| web_sys::Url::create_object_url_with_blob(&blob).ok());
            let Some(url) = url.filter(|_| this.current(drawn)) else {
                return;
            };
            let _ = image.set_attribute("srcset", &format!("{url} {density}x"));
            this.replace_url(Some(url));
            leptos::task::spawn_local(async move {
                // A picture that does not decode is not shown: the canvas keeps the labels.
                let decoded = wasm_bindgen_futures::JsFuture::from(image.decode()).await;
                if decoded.is_ok() && this.current(drawn) {
                    let _ = image.remove_attribute("style");
                    let _ = canvas.style().set_property("display", "none");
                    // The canvas's pixels are not needed until the labels change.
                    canvas.set_width(0);
                    canvas.set_height(0);
                }
            });
        });
        // Lossless (quality 1) WebP; a browser that cannot encode WebP makes a PNG instead.
        let _ = source.to_blob_with_type_and_encoder_options(
            encoded.unchecked_ref(),
            "image/webp",
            &wasm_bindgen::JsValue::from_f64(1.0),
        );
    }

    /// Gives back the URL kept (a loaded image keeps its pixels) and keeps `url` instead.
    fn replace_url(&self, url: Option<String>) {
        if let Some(old) = std::mem::replace(&mut self.0.borrow_mut().url, url) {
            let _ = web_sys::Url::revoke_object_url(&old);
        }
    }
}

/// The image's style before its first picture.
pub const IMAGE_STYLE: &str = HIDDEN;
