//! The trace CLI's `{"load": …}` request (a user's file computed under the lab's mask and
//! temperature), and a user's attention as the lab shows it, in the trace's JSON shape.

use serde::Deserialize;

use crate::io::import::{Format, ReadOptions, Tensors, read_with};
use crate::io::imported::ImportedRun;

/// The trace CLI's request to compute from a file:
/// `{"load": {"path": "heads.npz"}, "mask": {"kind": "causal"}, "temperature": 2}`. The format
/// comes from the file's extension unless named; `tokens` (and `key_tokens`) beside the file
/// replace its own. The lab's mask, temperature and FlashAttention tiles apply to Q and K.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadCommand {
    pub load: LoadRequest,
    pub mask: Option<super::MaskRequest>,
    pub temperature: Option<f64>,
    pub block: Option<super::BlockRequest>,
    /// `{"kind": "rope", …}`: the file's Q and K are before RoPE, and the lab turns them.
    pub position: Option<super::PositionRequest>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadRequest {
    pub path: String,
    pub format: Option<Format>,
    pub tokens: Option<Vec<String>>,
    pub key_tokens: Option<Vec<String>>,
    /// The example to read from a batch: a 4-D tensor is then `[batch, heads, …]`.
    pub batch: Option<usize>,
    /// Hide the special tokens (`[CLS]`, `[SEP]`, `<s>`, …), each row renormalised.
    #[serde(default)]
    pub hide_special: bool,
    /// Show the mean over each layer's heads (`"heads"`) or over the layers (`"layers"`).
    pub mean: Option<crate::io::imported_views::Mean>,
}

/// A load command from JSON, or `None` when `json` is not one (an object without `"load"`).
pub fn parse_load(json: &str) -> Option<Result<LoadCommand, super::RequestError>> {
    // Whether it names "load", read without building the request (a request of 2048 × 512
    // numbers took 0.4 s to build as a `Value` only to find that it did not).
    #[derive(Deserialize)]
    struct Probe {
        load: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Probe>(json).ok()?.load?;
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    // What takes a score apart needs the residual stream that wrote q and k: a file of
    // attention (or of Q and K) has none.
    for field in ["explain", "logit_attribution", "composition", "ablate"] {
        if value.get(field).is_some() {
            return Some(Err(super::RequestError::Input {
                field,
                message: "imported attention has no residual stream to take apart: its Q and K \
                          (if any) come without the model that wrote them; use \"model\": \
                          \"trained\" or \"llama\", or random weights",
            }));
        }
    }
    Some(
        serde_path_to_error::deserialize(value).map_err(|error| super::RequestError::Json {
            path: error.path().to_string(),
            message: error.inner().to_string(),
        }),
    )
}

impl LoadCommand {
    /// The format to read the file as: named, or from its extension.
    pub fn format(&self) -> Result<Format, String> {
        self.load
            .format
            .or_else(|| Format::from_file_name(&self.load.path))
            .ok_or_else(|| {
                format!(
                    "load.format: cannot tell the format of {:?} from its name; give \"format\": \"json\", \"npz\", \"npy\" or \"safetensors\"",
                    self.load.path
                )
            })
    }

    /// Reads `bytes` (the file's) and, for Q and K, computes every head under the command's
    /// mask and temperature. The JSON: the tokens, the notices and, per layer, each head's
    /// weights (with scores and, given V, the output and FlashAttention's output).
    pub fn run(&self, bytes: &[u8]) -> Result<serde_json::Value, String> {
        let imported = read_with(
            self.format()?,
            bytes,
            ReadOptions {
                tokens: self.load.tokens.clone(),
                key_tokens: self.load.key_tokens.clone(),
                budget: None,
                batch: self.load.batch,
            },
        )
        .map_err(|e| e.to_string())?;
        let imported = if self.load.hide_special {
            imported
                .without_special()
                .map_err(|e| format!("load.{e}"))?
        } else {
            imported
        };
        let settings = match &imported.tensors {
            Tensors::Attention(_)
                if self.mask.is_some() || self.temperature.is_some() || self.position.is_some() =>
            {
                return Err("mask, temperature, position: the file holds weights already computed; they apply to q and k".into());
            }
            Tensors::Attention(_) => crate::io::imported::ImportSettings::default(),
            Tensors::Vectors { .. } => import_settings(
                self.mask.as_ref(),
                self.temperature,
                self.block,
                self.position.as_ref(),
            )
            .map_err(|e| e.to_string())?,
        };
        let run =
            crate::io::imported::run_imported(&imported, &settings).map_err(|e| e.to_string())?;
        let run = match self.load.mean {
            Some(over) => run.averaged(over),
            None => run,
        };
        Ok(run_json(&run, 0))
    }
}

/// What the lab applies to a file's Q and K, from a request's `mask`, `temperature` and `block`
/// (no mask, 1 and automatic tiles when absent).
pub fn import_settings(
    mask: Option<&super::MaskRequest>,
    temperature: Option<f64>,
    block: Option<super::BlockRequest>,
    position: Option<&super::PositionRequest>,
) -> Result<crate::io::imported::ImportSettings, super::RequestError> {
    let block = block.unwrap_or_default();
    // RoPE turns Q and K given before it; absolute positions and none leave them as they
    // are (a file's vectors carry whatever positions the model added); ALiBi is not theirs.
    let rope = match position.map(super::PositionRequest::position) {
        Some((crate::math::scoring::Position::Rope { base, pairing }, offset)) => {
            Some((base, pairing, offset))
        }
        Some((crate::math::scoring::Position::Alibi, _)) => {
            return Err(super::RequestError::Input {
                field: "position",
                message: "a file's q and k take RoPE (given before it) or nothing; ALiBi's \
                          biases are not computed on them",
            });
        }
        _ => None,
    };
    Ok(crate::io::imported::ImportSettings {
        rope,
        mask: mask
            .map(super::request_params::mask_spec)
            .transpose()?
            .unwrap_or(crate::MaskSpec::None),
        temperature: temperature.unwrap_or(1.0),
        block: (block.rows, block.cols),
    })
}

/// An imported file as shown ([`ImportedRun`]): the selected layer's heads (and every layer) in the trace's JSON shape: `tokens`,
/// `source_tokens` for other keys, `heads` with each head's `weights` (and, from Q and K,
/// `q`, `k`, `v`, `scores`, `output`), `layers` with every layer's heads, FlashAttention's
/// largest difference when V came, and the notices.
pub fn run_json(run: &ImportedRun, layer: usize) -> serde_json::Value {
    use crate::api::matrix_json;
    use crate::io::imported::ShownHead;
    use ndarray::Array2;
    let head_json = |h: &ShownHead| {
        let mut o = serde_json::Map::new();
        let mut put = |name: &str, m: &Option<Array2<f32>>| {
            if let Some(m) = m {
                o.insert(name.into(), matrix_json(m.view()));
            }
        };
        put("q", &h.q);
        put("k", &h.k);
        put("v", &h.v);
        put("scores", &h.scores);
        put("output", &h.output);
        put("flash_output", &h.flash_output);
        o.insert("weights".into(), matrix_json(h.weights.view()));
        if run.from_vectors {
            o.insert(
                "fully_masked_rows".into(),
                serde_json::json!(h.fully_masked_rows),
            );
        }
        serde_json::Value::Object(o)
    };
    let layers: Vec<serde_json::Value> = run
        .layers
        .iter()
        .map(|heads| serde_json::Value::Array(heads.iter().map(head_json).collect()))
        .collect();
    let layer = layer.min(run.layers.len().saturating_sub(1));
    // The file's own tensors, [layers, heads, rows, columns], as the JSON format names them:
    // the download opens again in the lab.
    let stack = |part: fn(&ShownHead) -> Option<&Array2<f32>>| -> Option<serde_json::Value> {
        let layers: Option<Vec<serde_json::Value>> = run
            .layers
            .iter()
            .map(|heads| {
                heads
                    .iter()
                    .map(|h| part(h).map(|m| matrix_json(m.view())))
                    .collect::<Option<Vec<_>>>()
                    .map(serde_json::Value::Array)
            })
            .collect();
        layers.map(serde_json::Value::Array)
    };
    let mut own = serde_json::Map::new();
    if run.from_vectors {
        for (name, part) in [
            (
                "q",
                (|h: &ShownHead| h.q.as_ref()) as fn(&ShownHead) -> Option<&Array2<f32>>,
            ),
            ("k", |h: &ShownHead| h.k.as_ref()),
            ("v", |h: &ShownHead| h.v.as_ref()),
        ] {
            if let Some(tensor) = stack(part) {
                own.insert(name.into(), tensor);
            }
        }
    } else if let Some(tensor) = stack(|h| Some(&h.weights)) {
        own.insert("attention".into(), tensor);
    }
    let mut json = serde_json::json!({
        "source": "imported",
        "kind": if run.from_vectors { "q_k" } else { "attention" },
        "tokens": run.tokens,
        "source_tokens": run.key_tokens,
        "layer": layer,
        "n_layers": run.layer_count(),
        "n_heads": run.head_count(),
        "heads": layers.get(layer).cloned().unwrap_or(serde_json::Value::Null),
        "layers": layers,
        "flash": run.max_flash_diff.map(|d| serde_json::json!({"max_abs_diff": d})),
        "key_tokens": run.key_tokens,
        "notices": run.notices.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "mean": run.mean.map(crate::io::imported_views::Mean::name),
        "rows_are": run.rows_are(),
        "roles": roles_json(run),
    });
    if let Some(object) = json.as_object_mut() {
        object.extend(own);
    }
    json
}

/// Every head's roles (`[layer][head]`): each role's mean weight and the queries it is the mean
/// over (`null` where no query can show it), and the entropy of the rows that are distributions.
fn roles_json(run: &ImportedRun) -> serde_json::Value {
    use crate::io::head_roles::HeadRole;
    run.roles()
        .iter()
        .map(|heads| {
            heads
                .iter()
                .map(|roles| {
                    let mut o = serde_json::Map::new();
                    for role in HeadRole::ALL {
                        o.insert(role.name().into(), serde_json::json!(roles.get(role)));
                    }
                    o.insert("entropy_bits".into(), serde_json::json!(roles.entropy_bits));
                    o.insert("entropy_rows".into(), serde_json::json!(roles.entropy_rows));
                    serde_json::Value::Object(o)
                })
                .collect::<Vec<_>>()
                .into()
        })
        .collect::<Vec<serde_json::Value>>()
        .into()
}
