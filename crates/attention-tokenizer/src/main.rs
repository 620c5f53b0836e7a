//! Attention Lab's tokenizer module: a Hugging Face model folder's `tokenizer.json`, read by
//! Hugging Face's own `tokenizers` crate (the core's `HfTokenizer`), for the page. Trunk builds it
//! beside the app as a no-modules script and module; the page loads them only when a model folder
//! is opened (`src/ui/bridge/tokenizer_module.rs`), so that the 0.8 MB of the tokenizers crate is
//! never part of the app's own download. Natively it does nothing: the CLI links the crate itself.

#[cfg(target_arch = "wasm32")]
mod page {
    use attention_core::models::tokenizer::{HfTokenizer, TextTokenizer};
    use wasm_bindgen::prelude::*;

    /// One `tokenizer.json`, as the page calls it.
    #[wasm_bindgen]
    pub struct PageTokenizer(HfTokenizer);

    #[wasm_bindgen]
    impl PageTokenizer {
        /// The tokenizer in `tokenizer.json`'s text; refused with the reason.
        #[wasm_bindgen(constructor)]
        pub fn new(json: &str) -> Result<PageTokenizer, JsError> {
            HfTokenizer::parse(json)
                .map(PageTokenizer)
                .map_err(|e| JsError::new(&e))
        }

        /// `text`'s tokens, with the special tokens the tokenizer adds: JSON `[[piece, id], …]`.
        pub fn encode(&self, text: &str) -> String {
            serde_json::to_string(&TextTokenizer::encode(&self.0, text)).unwrap_or_default()
        }

        /// The text of `ids` (bytes split over tokens joined again).
        pub fn decode(&self, ids: Vec<u32>) -> Option<String> {
            TextTokenizer::decode(&self.0, &ids)
        }

        /// Its vocabulary as readable pieces, index = id: a JSON list of strings.
        pub fn vocab(&self) -> String {
            serde_json::to_string(&TextTokenizer::vocab(&self.0)).unwrap_or_default()
        }
    }
}

fn main() {}
