//! A file's bytes held in JavaScript's memory, outside the WebAssembly memory, and read from
//! there a range at a time ([`ReadAt`]): a user's model's weights files, so that the page's
//! 4 GB of WebAssembly memory holds the model and never its files beside it.

use attention_core::io::safetensors::ReadAt;
use js_sys::{ArrayBuffer, Uint8Array};

/// The bytes of one file, in an `ArrayBuffer` of their own (which can be handed to a worker).
#[derive(Clone)]
pub struct JsBytes(Uint8Array);

impl JsBytes {
    /// The bytes of `buffer`, copied into a buffer of their own (what the caller gave stays
    /// theirs: a buffer handed to a worker is no longer usable where it was).
    pub fn copied(view: &Uint8Array) -> Self {
        Self(view.slice(0, view.length()))
    }

    /// A buffer the page made itself (a Blob read, a download put together), taken as it is.
    pub fn owned(buffer: &ArrayBuffer) -> Self {
        Self(Uint8Array::new(buffer))
    }

    /// Bytes made here (a string's UTF-8).
    pub fn from_slice(bytes: &[u8]) -> Self {
        Self(Uint8Array::from(bytes))
    }

    /// A copy of its bytes in the WebAssembly memory (a small file).
    pub fn to_vec(&self) -> Vec<u8> {
        self.0.to_vec()
    }

    /// Its buffer, to be handed over.
    pub fn buffer(&self) -> ArrayBuffer {
        self.0.buffer()
    }
}

impl ReadAt for JsBytes {
    fn size(&self) -> u64 {
        u64::from(self.0.length())
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), String> {
        let end = offset.checked_add(out.len() as u64);
        match end {
            Some(end) if end <= self.size() => {
                // Both within the buffer's length, which is a u32.
                self.0.subarray(offset as u32, end as u32).copy_to(out);
                Ok(())
            }
            _ => Err(format!("{} bytes at {offset} run past its end", out.len())),
        }
    }
}
