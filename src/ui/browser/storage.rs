//! The browser's local storage, where the page may keep a little text between visits. Nothing
//! leaves the browser. Without storage (a private window that refuses it, an embed in a
//! sandboxed frame) nothing is kept and nothing fails.

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The text kept under `key`, if any.
pub fn read(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

/// Keeps `text` under `key`; a refusal is reported in the console.
pub fn write(key: &str, text: &str) {
    if let Some(storage) = storage()
        && let Err(error) = storage.set_item(key, text)
    {
        web_sys::console::warn_2(&format!("{key}: could not be stored").into(), &error);
    }
}
