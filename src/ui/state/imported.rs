//! A user's own attention in the page: the file as read (`api::import`), and what the page shows
//! of it (`imported::run_imported`: the weights as they are, or computed from Q and K under the
//! lab's mask, temperature and tiles). A file that cannot be read changes nothing.

use std::sync::Arc;

use attention_core::api::Request;
use attention_core::api::RequestError;
use attention_core::api::import::import_settings;
use attention_core::io::import::{Format, ImportError, Imported, ReadOptions, Tensors, read_with};
use attention_core::io::imported::{ImportSettings, ImportedRun, run_imported};
use attention_core::io::imported_views::Mean;

pub use crate::ui::logic::imported::Refusal;

/// The most numbers a file may bring into the page (64 MiB as f32): past this, a browser tab
/// risks running out of memory while drawing every head.
pub const PAGE_BUDGET: usize = 16 << 20;

/// A file read into the page, compared by identity.
#[derive(Debug, Clone)]
pub struct ImportedFile {
    /// Its name as the user gave it ("pasted JSON", "attentionLab.load" when there was none).
    pub name: String,
    pub data: Arc<Imported>,
}

impl PartialEq for ImportedFile {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.data, &other.data)
    }
}

impl ImportedFile {
    /// Whether the lab computes its weights (from Q and K) rather than showing them as read.
    pub fn from_vectors(&self) -> bool {
        matches!(self.data.tensors, Tensors::Vectors { .. })
    }
}

/// What the page shows of a file, compared by identity.
#[derive(Debug, Clone)]
pub struct RunRef(pub Arc<ImportedRun>);

impl PartialEq for RunRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Reads `bytes` as `format` (tokens given beside it replace the file's; `batch` picks an
/// example), within the page's budget.
pub fn read_file(
    name: &str,
    format: Format,
    bytes: &[u8],
    tokens: Option<Vec<String>>,
    batch: Option<usize>,
) -> Result<ImportedFile, ImportError> {
    let options = ReadOptions {
        tokens,
        key_tokens: None,
        budget: Some(PAGE_BUDGET),
        batch,
    };
    let data = read_with(format, bytes, options)?;
    Ok(ImportedFile {
        name: name.to_string(),
        data: Arc::new(data),
    })
}

/// What of `request` applies to a file's Q and K: the mask, the temperature, the tiles.
pub fn settings_of(request: &Request) -> Result<ImportSettings, RequestError> {
    import_settings(
        request.mask.as_ref(),
        request.temperature,
        request.block,
        request.position.as_ref(),
    )
}

/// How a file is looked at: with its special tokens or without (rows renormalised), head by head
/// or a mean.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportView {
    pub hide_special: bool,
    pub mean: Option<Mean>,
}

/// Shows `file` under `settings` (weights read as they are ignore them), looked at as `view`
/// (special tokens that cannot be hidden stay: the control says why).
pub fn run(
    file: &ImportedFile,
    settings: &Result<ImportSettings, RequestError>,
    view: ImportView,
) -> Result<RunRef, RequestError> {
    let settings = match (&file.data.tensors, settings) {
        (Tensors::Attention(_), _) => ImportSettings::default(),
        (Tensors::Vectors { .. }, Ok(settings)) => settings.clone(),
        (Tensors::Vectors { .. }, Err(error)) => return Err(error.clone()),
    };
    let hidden = view
        .hide_special
        .then(|| file.data.without_special().ok())
        .flatten();
    let run = run_imported(hidden.as_ref().unwrap_or(&file.data), &settings)?;
    Ok(RunRef(Arc::new(match view.mean {
        Some(over) => run.averaged(over),
        None => run,
    })))
}

/// The opener's last word: a file being read, or refused (the page keeps what it showed).
#[derive(Debug, Clone, PartialEq)]
pub enum OpenStatus {
    Reading(String),
    Refused { name: String, why: Refusal },
}

/// Reads `bytes` named `name`, its format named, or told by its extension or its first bytes.
pub fn open_bytes(
    name: &str,
    format: Option<Format>,
    bytes: &[u8],
    tokens: Option<Vec<String>>,
    batch: Option<usize>,
) -> Result<ImportedFile, Refusal> {
    let format = format
        .or_else(|| Format::from_file_name(name))
        .or_else(|| Format::sniff(bytes))
        .ok_or(Refusal::UnknownFormat)?;
    read_file(name, format, bytes, tokens, batch).map_err(Refusal::Import)
}

/// Tokens typed beside a file: a JSON list of strings, or words separated by white space;
/// `None` when nothing is typed. A list that is not all strings is taken as words.
pub fn parse_tokens(text: &str) -> Option<Vec<String>> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if text.starts_with('[')
        && let Ok(list) = serde_json::from_str::<Vec<String>>(text)
    {
        return Some(list);
    }
    Some(text.split_whitespace().map(String::from).collect())
}
