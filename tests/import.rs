//! A user's own attention read from files that NumPy and safetensors wrote
//! (`tests/reference/imports.py` → `tests/fixtures/imports/`): every format gives the file's
//! numbers, and every bad file a message that names what is wrong, never a panic.
//! Runs natively (`cargo test`) and in headless Chromium (`cargo test --target wasm32-unknown-unknown`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

use attention_core::io::import::{
    DEFAULT_BUDGET, Format, ImportError, ImportNotice, Imported, MAX_TOKENS, ReadOptions, Tensors,
    read, read_value, read_with,
};
use attention_core::pipeline::trace::max_abs_diff;
use ndarray::{Array4, ArrayD, IxDyn};
use serde_json::{Value, json};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!("fixtures/imports/", $name)).as_slice()
    };
}

const FILES: [(&str, Format, &[u8]); 13] = [
    ("attention.json", Format::Json, fixture!("attention.json")),
    ("cross.json", Format::Json, fixture!("cross.json")),
    ("qkv.json", Format::Json, fixture!("qkv.json")),
    ("attention.npz", Format::Npz, fixture!("attention.npz")),
    (
        "attention_compressed.npz",
        Format::Npz,
        fixture!("attention_compressed.npz"),
    ),
    ("qkv.npz", Format::Npz, fixture!("qkv.npz")),
    ("attention.npy", Format::Npy, fixture!("attention.npy")),
    ("fortran.npy", Format::Npy, fixture!("fortran.npy")),
    (
        "attention_f16.npy",
        Format::Npy,
        fixture!("attention_f16.npy"),
    ),
    (
        "attention_f32.safetensors",
        Format::Safetensors,
        fixture!("attention_f32.safetensors"),
    ),
    (
        "attention_f16.safetensors",
        Format::Safetensors,
        fixture!("attention_f16.safetensors"),
    ),
    (
        "attention_bf16.safetensors",
        Format::Safetensors,
        fixture!("attention_bf16.safetensors"),
    ),
    (
        "qkv.safetensors",
        Format::Safetensors,
        fixture!("qkv.safetensors"),
    ),
];

fn expected() -> Value {
    serde_json::from_slice(fixture!("expected.json")).unwrap()
}

/// A nested list of the expected file as an array.
fn array(value: &Value) -> ArrayD<f64> {
    let mut shape = Vec::new();
    let mut probe = value;
    while let Value::Array(items) = probe {
        shape.push(items.len());
        probe = &items[0];
    }
    fn flat(v: &Value, out: &mut Vec<f64>) {
        match v {
            Value::Array(items) => items.iter().for_each(|i| flat(i, out)),
            other => out.push(other.as_f64().unwrap()),
        }
    }
    let mut values = Vec::new();
    flat(value, &mut values);
    ArrayD::from_shape_vec(IxDyn(&shape), values).unwrap()
}

/// `got` against `want`: a tolerance of 0 means equal as f32 (serde_json may read the expected
/// f64 a unit in its last place off, far below an f32's).
fn close(got: &Array4<f32>, want: &ArrayD<f64>, tolerance: f64, what: &str) {
    let tolerance = tolerance.max(1e-12);
    let want = want.clone().into_shape_with_order(got.raw_dim()).unwrap();
    let worst = got
        .iter()
        .zip(want.iter())
        .map(|(&g, &w)| (f64::from(g) - w).abs())
        .fold(0.0, f64::max);
    assert!(worst <= tolerance, "{what}: max |Δ| {worst}");
}

fn load(name: &str) -> Imported {
    let (_, format, bytes) = FILES.iter().find(|(n, ..)| *n == name).unwrap();
    read(*format, bytes, None, None, None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn weights(imported: &Imported) -> &Array4<f32> {
    match &imported.tensors {
        Tensors::Attention(a) => a,
        other => panic!("not attention: {other:?}"),
    }
}

fn tokens(value: &Value) -> Vec<String> {
    serde_json::from_value(value.clone()).unwrap()
}

#[test]
fn every_format_gives_the_files_numbers_and_tokens() {
    let e = expected();
    let all = array(&e["attention"]);
    for name in [
        "attention.json",
        "attention.npz",
        "attention_compressed.npz",
        "attention_f32.safetensors",
    ] {
        let got = load(name);
        assert_eq!(weights(&got).dim(), (2, 3, 5, 5), "{name}");
        close(weights(&got), &all, 0.0, name);
        assert_eq!(got.tokens, tokens(&e["tokens"]), "{name}");
        assert_eq!(got.key_tokens, None);
        // Four dimensions without a batch given: layers, and the notice names both readings.
        assert_eq!(
            got.notices,
            [ImportNotice::ReadAsLayers { layers: 2 }],
            "{name}"
        );
    }
    // Half precision, exactly as NumPy rounded it; bfloat16 as truncated.
    close(
        weights(&load("attention_f16.safetensors")),
        &array(&e["attention_f16"]),
        0.0,
        "f16",
    );
    close(
        weights(&load("attention_bf16.safetensors")),
        &array(&e["attention_bf16"]),
        0.0,
        "bf16",
    );
    let f16_layer_1 = array(&e["attention_f16"])
        .index_axis(ndarray::Axis(0), 1)
        .to_owned();
    close(
        weights(&load("attention_f16.npy")),
        &f16_layer_1,
        0.0,
        "f16 npy",
    );
}

#[test]
fn lower_ranks_become_one_layer_and_one_head() {
    let e = expected();
    let all = array(&e["attention"]);
    // [heads, queries, keys]: one layer. An .npy brings no tokens: they are numbered.
    let npy = load("attention.npy");
    assert_eq!(weights(&npy).dim(), (1, 3, 5, 5));
    close(
        weights(&npy),
        &all.index_axis(ndarray::Axis(0), 1).to_owned(),
        0.0,
        "npy",
    );
    assert_eq!(npy.tokens, ["0", "1", "2", "3", "4"]);
    assert_eq!(npy.notices, [ImportNotice::NumberedTokens { count: 5 }]);
    // Tokens given beside the file replace the numbers.
    let given: Vec<String> = tokens(&e["tokens"]);
    let (_, _, bytes) = FILES[6];
    let named = read(Format::Npy, bytes, Some(given.clone()), None, None).unwrap();
    assert_eq!((named.tokens.clone(), named.notices.len()), (given, 0));
    // [queries, keys] stored column-major (np.asfortranarray) reads as NumPy shows it.
    let fortran = load("fortran.npy");
    assert_eq!(weights(&fortran).dim(), (1, 1, 5, 5));
    let head = all.slice(ndarray::s![0, 2, .., ..]).to_owned().into_dyn();
    close(weights(&fortran), &head, 0.0, "fortran order");
}

#[test]
fn cross_attention_keeps_its_key_tokens() {
    let e = expected();
    let got = load("cross.json");
    assert_eq!(weights(&got).dim(), (1, 4, 5, 6));
    close(weights(&got), &array(&e["cross"]), 1e-7, "cross");
    assert_eq!(got.key_tokens, Some(tokens(&e["key_tokens"])));
    assert_eq!(got.keys().len(), 6);
}

#[test]
fn q_k_and_v_are_read_for_the_lab_to_compute_from() {
    let e = expected();
    for name in ["qkv.json", "qkv.npz", "qkv.safetensors"] {
        let got = load(name);
        let Tensors::Vectors { q, k, v } = &got.tensors else {
            panic!("{name}: not vectors");
        };
        assert_eq!(q.dim(), (2, 3, 5, 4), "{name}");
        close(q, &array(&e["q"]), 1e-7, name);
        close(k, &array(&e["k"]), 1e-7, name);
        match (name, v) {
            ("qkv.safetensors", None) => {}
            (_, Some(v)) => close(v, &array(&e["v"]), 1e-7, name),
            (_, None) => panic!("{name}: v is missing"),
        }
        assert_eq!(got.tokens, tokens(&e["tokens"]));
    }
}

#[test]
fn an_object_reads_as_the_json_format_does() {
    let e = expected();
    let got = read_value(
        &json!({"attention": e["attention"], "tokens": e["tokens"]}),
        None,
    )
    .unwrap();
    close(weights(&got), &array(&e["attention"]), 1e-7, "object");
}

/// The error of reading `bytes` as `format`, with nothing beside the file.
fn refused_file(format: Format, bytes: &[u8]) -> ImportError {
    read(format, bytes, None, None, None).unwrap_err()
}

/// The error of reading `value` as JSON.
fn refused(value: Value) -> ImportError {
    read_value(&value, None).expect_err(&value.to_string())
}

#[test]
fn bad_shapes_and_tokens_are_named() {
    let rank = refused(json!({"attention": [0.5, 0.5]}));
    assert!(
        matches!(&rank, ImportError::Rank { tensor, rank: 1, .. } if tensor == "attention"),
        "{rank}"
    );
    assert!(
        rank.to_string().contains("[layers, heads, queries, keys]"),
        "{rank}"
    );
    let six = refused(json!({"attention": [[[[[[1.0]]]]]]}));
    assert!(matches!(six, ImportError::Rank { rank: 6, .. }), "{six}");

    let ragged = refused(json!({"attention": [[0.5, 0.5], [1.0]]}));
    assert!(
        ragged.to_string().contains("attention: at [1]: 1 entries"),
        "{ragged}"
    );
    let null = refused(json!({"attention": [[0.5, null], [0.5, 0.5]]}));
    assert!(null.to_string().contains("null"), "{null}");

    let d = refused(json!({"q": [[1.0, 2.0]], "k": [[1.0, 2.0, 3.0]]}));
    assert!(
        matches!(
            d,
            ImportError::Disagree {
                tensor: "k",
                other: "q",
                ..
            }
        ),
        "{d}"
    );
    assert!(d.to_string().contains("last dimension"), "{d}");
    // Three query heads over two key heads: no grouped-query reading (2 does not divide 3).
    let heads = refused(json!({"q": [[[1.0]], [[1.0]], [[1.0]]], "k": [[[1.0]], [[1.0]]]}));
    assert!(
        heads.to_string().contains("grouped-query attention"),
        "{heads}"
    );
    let v = refused(json!({"q": [[1.0]], "k": [[1.0]], "v": [[1.0], [2.0]]}));
    assert!(
        matches!(v, ImportError::Disagree { tensor: "v", .. }),
        "{v}"
    );

    let few = refused(json!({"attention": [[1.0, 0.0], [0.5, 0.5]], "tokens": ["a"]}));
    assert!(
        few.to_string()
            .contains("tokens has 1 entries where the tensors have 2 queries"),
        "{few}"
    );
    let cross = refused(json!({"attention": [[0.5, 0.5]], "tokens": ["a"]}));
    assert!(cross.to_string().contains("key_tokens"), "{cross}");
    let keys = refused(json!({"attention": [[0.5, 0.5]], "tokens": ["a"], "key_tokens": ["x"]}));
    assert!(
        matches!(
            keys,
            ImportError::Tokens {
                tensor: "key_tokens",
                count: 1,
                ..
            }
        ),
        "{keys}"
    );
    let empty = refused(json!({"attention": [[]]}));
    assert!(matches!(empty, ImportError::Empty { .. }), "{empty}");

    assert_eq!(
        refused(json!({"attention": [[1.0]], "q": [[1.0]]})),
        ImportError::Both
    );
    assert!(matches!(
        refused(json!({"q": [[1.0]]})),
        ImportError::Missing {
            tensor: "q",
            missing: "k"
        }
    ));
    assert!(matches!(
        refused(json!({"attention": [[1.0]], "v": [[1.0]]})),
        ImportError::Missing { tensor: "v", .. }
    ));
    let nothing = refused(json!({"weights": [[1.0]]}));
    assert!(matches!(nothing, ImportError::Nothing { .. }), "{nothing}");
    assert!(matches!(refused(json!([1, 2])), ImportError::Format { .. }));
    let words = refused(json!({"attention": [[1.0]], "tokens": [["a"]]}));
    assert!(words.to_string().contains("tokens"), "{words}");
}

#[test]
fn limits_refuse_before_anything_is_kept() {
    let long = vec![vec![1.0f32]; MAX_TOKENS + 1];
    let e = refused(json!({"q": long, "k": long}));
    assert!(
        matches!(e, ImportError::TooManyTokens { tensor: "queries", count, max: MAX_TOKENS } if count == MAX_TOKENS + 1),
        "{e}"
    );
    let (_, _, bytes) = FILES[0];
    let over = read(Format::Json, bytes, None, None, Some(100)).unwrap_err();
    assert_eq!(
        over,
        ImportError::OverBudget {
            numbers: 2 * 3 * 5 * 5,
            budget: 100
        }
    );
    // Within the default budget the same file reads.
    assert!(read(Format::Json, bytes, None, None, Some(DEFAULT_BUDGET)).is_ok());
    // A .npy says its shape before its values: 2 layers × 4 heads × 2048² is refused from the
    // header alone (over the page's 16 Mi), here with no values at all (not "truncated").
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 2048, 2048), }";
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    let padded = format!("{header:<117}\n");
    npy.extend_from_slice(&(padded.len() as u16).to_le_bytes());
    npy.extend_from_slice(padded.as_bytes());
    assert_eq!(
        read(Format::Npy, &npy, None, None, Some(16 << 20)).unwrap_err(),
        ImportError::OverBudget {
            numbers: 2 * 4 * 2048 * 2048,
            budget: 16 << 20
        }
    );
}

#[test]
fn rows_that_do_not_sum_to_one_are_a_notice() {
    let got = read_value(
        &json!({"attention": [[0.5, 0.5], [0.25, 0.25]], "tokens": ["a", "b"]}),
        None,
    )
    .unwrap();
    assert_eq!(
        got.notices,
        [ImportNotice::RowsDoNotSumToOne {
            rows: 1,
            layer: 0,
            head: 0,
            row: 1,
            sum: 0.5
        }]
    );
    assert!(got.notices[0].to_string().contains("sink"));
}

/// `bytes` with the f32 at `index` of the data (after a header of `header` bytes) replaced.
fn with_value(bytes: &[u8], header: usize, index: usize, value: f32) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let at = header + 4 * index;
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    out
}

#[test]
fn numbers_that_are_not_finite_are_named_with_their_index() {
    let (_, _, npy) = FILES[6];
    let header = npy.len() - 3 * 5 * 5 * 4;
    let nan = refused_file(Format::Npy, &with_value(npy, header, 5 * 5 + 7, f32::NAN));
    assert_eq!(
        nan.to_string(),
        "attention[0, 1, 1, 2] is NaN: every number must be finite"
    );
    let inf = refused_file(Format::Npy, &with_value(npy, header, 0, f32::INFINITY));
    assert!(
        inf.to_string().contains("attention[0, 0, 0, 0] is inf"),
        "{inf}"
    );
    let (_, _, st) = FILES[12];
    let q_bytes = 2 * 3 * 5 * 4 * 4;
    let header = st.len() - 2 * q_bytes;
    // q or k first, whichever the file stores first: either is named.
    let bad = refused_file(
        Format::Safetensors,
        &with_value(st, header, 3, f32::NEG_INFINITY),
    );
    assert!(
        matches!(&bad, ImportError::NotFinite { value, .. } if value == "-inf"),
        "{bad}"
    );
}

/// A safetensors file written here: `header` as JSON, then `data`.
fn safetensors(header: Value, data: &[u8]) -> Vec<u8> {
    let text = header.to_string();
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend(text.as_bytes());
    out.extend(data);
    out
}

#[test]
fn files_that_lie_or_end_early_are_refused() {
    // A header whose offsets run past the data.
    let data = [0u8; 16];
    let lying = safetensors(
        json!({"attention": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 32]}}),
        &data,
    );
    let e = refused_file(Format::Safetensors, &lying);
    assert_eq!(
        e.to_string(),
        "attention: its data_offsets [0, 32] run past the end of the data (16 bytes)"
    );
    let short = safetensors(
        json!({"attention": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 16]}}),
        &data,
    );
    let e = refused_file(Format::Safetensors, &short);
    assert!(
        e.to_string()
            .contains("hold 16 bytes; shape [2, 3] of F32 needs 24"),
        "{e}"
    );
    // An unsupported type.
    let ints = safetensors(
        json!({"attention": {"dtype": "I32", "shape": [2, 2], "data_offsets": [0, 16]}}),
        &data,
    );
    let e = refused_file(Format::Safetensors, &ints);
    assert!(
        matches!(e, ImportError::Dtype { ref dtype, .. } if dtype == "I32"),
        "{e}"
    );
    let npy_ints = b"\x93NUMPY\x01\x00\x46\x00{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }                   \n";
    let mut npy = npy_ints.to_vec();
    npy.extend([0u8; 16]);
    let e = refused_file(Format::Npy, &npy);
    assert!(
        matches!(e, ImportError::Dtype { ref dtype, .. } if dtype == "<i4"),
        "{e}"
    );
    // Metadata tokens that are not a list.
    let meta = safetensors(
        json!({"__metadata__": {"tokens": "the cat"}, "attention": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}),
        &data,
    );
    let e = refused_file(Format::Safetensors, &meta);
    assert!(e.to_string().contains("__metadata__.tokens"), "{e}");

    // Every good file cut short anywhere, and garbage: a message, never a panic.
    for (name, format, bytes) in FILES {
        for end in 0..bytes.len() {
            if let Ok(got) = read(format, &bytes[..end], None, None, None) {
                // Only a JSON cut inside trailing whitespace could still read.
                panic!(
                    "{name} cut at {end} of {} read as {:?}",
                    bytes.len(),
                    got.tensors.queries()
                );
            }
        }
        let e = read(format, &bytes[..bytes.len() / 2], None, None, None).unwrap_err();
        assert!(!e.to_string().is_empty(), "{name}");
    }
    for format in Format::ALL {
        let garbage: Vec<u8> = (0..500u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        assert!(
            read(format, &garbage, None, None, None).is_err(),
            "{format:?}"
        );
    }
    let cut = refused_file(Format::Npy, &FILES[6].2[..FILES[6].2.len() - 4]);
    assert!(matches!(cut, ImportError::Truncated { .. }), "{cut}");
    assert!(
        cut.to_string()
            .contains("needs 300 bytes of data, the file has 296"),
        "{cut}"
    );
}

#[test]
fn formats_are_named_as_the_api_names_them() {
    for format in Format::ALL {
        assert_eq!(Format::from_name(format.name()), Some(format));
        assert_eq!(serde_json::to_value(format).unwrap(), json!(format.name()));
    }
    assert_eq!(Format::from_file_name("heads.NPZ"), Some(Format::Npz));
    assert_eq!(
        Format::from_file_name("model.safetensors"),
        Some(Format::Safetensors)
    );
    assert_eq!(Format::from_file_name("notes.txt"), None);
}

/// softmax(q kᵀ / (√d · T)) in f64 from the expected file, `allowed(i, j)` keys only.
fn reference_weights(
    e: &Value,
    layer: usize,
    head: usize,
    t: f64,
    allowed: impl Fn(usize, usize) -> bool,
) -> ndarray::Array2<f64> {
    let (q, k) = (array(&e["q"]), array(&e["k"]));
    let (q, k) = (
        q.slice(ndarray::s![layer, head, .., ..]).to_owned(),
        k.slice(ndarray::s![layer, head, .., ..]).to_owned(),
    );
    let d = q.shape()[1] as f64;
    let scores = q.dot(&k.t()) / (d.sqrt() * t);
    let mut w = ndarray::Array2::zeros(scores.raw_dim());
    for i in 0..scores.nrows() {
        let max = (0..scores.ncols())
            .filter(|&j| allowed(i, j))
            .map(|j| scores[[i, j]])
            .fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = (0..scores.ncols())
            .filter(|&j| allowed(i, j))
            .map(|j| (scores[[i, j]] - max).exp())
            .sum();
        for j in (0..scores.ncols()).filter(|&j| allowed(i, j)) {
            w[[i, j]] = (scores[[i, j]] - max).exp() / sum;
        }
    }
    w
}

fn worst(a: &ndarray::Array2<f32>, b: &ndarray::Array2<f64>) -> f64 {
    a.iter()
        .zip(b.iter())
        .map(|(&x, &y)| (f64::from(x) - y).abs())
        .fold(0.0, f64::max)
}

/// Q and K from a PyTorch-style SelfAttention give the weights its own softmax gave; the mask
/// and the temperature apply as in the lab; FlashAttention's tiles give the same output.
#[test]
fn imported_q_and_k_give_the_models_own_weights() {
    use attention_core::MaskSpec;
    use attention_core::io::imported::attend_imported;
    let e = expected();
    let got = load("qkv.npz");
    let Tensors::Vectors { q, k, v } = &got.tensors else {
        panic!("not vectors");
    };
    let heads = attend_imported(q, k, v.as_ref(), &MaskSpec::None, 1.0, (2, 3)).unwrap();
    assert_eq!((heads.len(), heads[0].len()), (2, 3));
    let torch = array(&e["qk_weights"]);
    let values = array(&e["v"]);
    for (layer, row) in heads.iter().enumerate() {
        for (h, head) in row.iter().enumerate() {
            let want = torch.slice(ndarray::s![layer, h, .., ..]).to_owned();
            assert!(worst(&head.weights, &want) < 1e-6, "{layer}/{h}");
            let v = values.slice(ndarray::s![layer, h, .., ..]).to_owned();
            let output = head.output.as_ref().unwrap();
            assert!(worst(output, &want.dot(&v)) < 1e-5, "output {layer}/{h}");
            let flash = head.flash_output.as_ref().unwrap();
            assert!(
                worst(flash, &output.mapv(f64::from)) < 1e-5,
                "flash {layer}/{h}"
            );
        }
    }

    // Causal, at T = 2: keys after the query get exactly 0, the rest as the formula says.
    let causal = attend_imported(q, k, None, &MaskSpec::Causal, 2.0, (4, 4)).unwrap();
    let head = &causal[1][2];
    let want = reference_weights(&e, 1, 2, 2.0, |i, j| j <= i);
    assert!(worst(&head.weights, &want) < 1e-6);
    assert!(head.weights[[0, 1]] == 0.0 && head.output.is_none() && head.flash_output.is_none());

    // What the lab refuses of its own settings, it refuses here.
    let cross = load("cross.json");
    assert_eq!(cross.keys().len(), 6);
    let (q5, k6) = (q.slice(ndarray::s![.., .., .., ..]).to_owned(), {
        let mut k6 = ndarray::Array4::<f32>::zeros((2, 3, 6, 4));
        k6.slice_mut(ndarray::s![.., .., ..5, ..]).assign(k);
        k6
    });
    let e = attend_imported(&q5, &k6, None, &MaskSpec::Causal, 1.0, (4, 4)).unwrap_err();
    assert!(e.to_string().contains("causal"), "{e}");
    let e = attend_imported(q, k, None, &MaskSpec::None, 0.0, (4, 4)).unwrap_err();
    assert!(e.to_string().contains("temperature"), "{e}");
}

/// A small .npz that inflates to 16 MB is unpacked only as far as the budget allows.
#[test]
fn a_file_that_inflates_past_the_budget_is_refused_while_inflating() {
    let bomb = fixture!("zeros_compressed.npz");
    assert!(bomb.len() < 32 * 1024);
    let e = read(Format::Npz, bomb, None, None, Some(1 << 16)).unwrap_err();
    assert!(
        matches!(e, ImportError::OverBudget { budget, .. } if budget == 1 << 16),
        "{e}"
    );
    let whole = read(Format::Npz, bomb, None, None, None).unwrap();
    assert_eq!(whole.tensors.queries(), 2048);
    assert!(
        matches!(
            whole.notices[..],
            [
                ImportNotice::NumberedTokens { count: 2048 },
                ImportNotice::RowsDoNotSumToOne { rows: 2048, .. }
            ]
        ),
        "{:?}",
        whole.notices
    );
}

#[test]
fn every_file_is_told_apart_by_its_first_bytes() {
    for (name, format, bytes) in FILES {
        assert_eq!(Format::sniff(bytes), Some(format), "{name}");
    }
    assert_eq!(Format::sniff(b"  \n[[1]]"), Some(Format::Json));
    assert_eq!(
        Format::sniff(b"\xEF\xBB\xBF{\"attention\": 1}"),
        Some(Format::Json)
    );
    assert_eq!(Format::sniff(b"\x01\x02\x03"), None);
    assert_eq!(Format::sniff(b""), None);
}

#[test]
fn a_run_shows_weights_as_read_and_computes_q_and_k_under_the_settings() {
    use attention_core::MaskSpec;
    use attention_core::io::head_roles::entropy_of_distributions;
    use attention_core::io::imported::{ImportSettings, run_imported};
    let e = expected();
    let run = run_imported(&load("attention.npz"), &ImportSettings::default()).unwrap();
    assert!(!run.from_vectors && run.max_flash_diff.is_none());
    assert_eq!((run.layer_count(), run.head_count()), (2, 3));
    close(
        &Array4::from_shape_fn((2, 3, 5, 5), |(l, h, i, j)| {
            run.layers[l][h].weights[[i, j]]
        }),
        &array(&e["attention"]),
        0.0,
        "weights as read",
    );
    // The head asked for past the file's last is its last.
    assert_eq!(run.head(9, 9), &run.layers[1][2]);
    // In the trace's shape: the selected layer's heads, and every layer.
    let json = attention_core::api::import::run_json(&run, 1);
    assert_eq!(
        (&json["source"], &json["kind"]),
        (&json!("imported"), &json!("attention"))
    );
    assert_eq!(json["heads"], json["layers"][1]);
    assert_eq!(json["tokens"], e["tokens"]);
    assert!(json["heads"][0].get("q").is_none());
    // The download opens again, giving the same numbers.
    let again = run_imported(
        &read_value(&json, None).unwrap(),
        &ImportSettings::default(),
    )
    .unwrap();
    assert_eq!(again.layers, run.layers);
    assert_eq!(again.tokens, run.tokens);

    let causal = ImportSettings {
        mask: MaskSpec::Causal,
        temperature: 2.0,
        block: (Some(2), None),
        rope: None,
    };
    let run = run_imported(&load("qkv.npz"), &causal).unwrap();
    assert!(run.from_vectors);
    assert!(
        run.max_flash_diff.unwrap() < 1e-5,
        "{:?}",
        run.max_flash_diff
    );
    let head = &run.layers[0][0];
    assert_eq!(head.weights[[0, 1]], 0.0);
    assert_eq!(head.weights[[0, 0]], 1.0);
    for part in [&head.q, &head.k, &head.v, &head.scores, &head.output] {
        assert!(part.is_some());
    }
    let json = attention_core::api::import::run_json(&run, 0);
    assert_eq!(json["kind"], "q_k");
    assert!(json["flash"]["max_abs_diff"].as_f64().unwrap() < 1e-5);
    let again = run_imported(&read_value(&json, None).unwrap(), &causal).unwrap();
    assert_eq!(again.layers, run.layers);
    // The tile player's replay: every tile step of the chosen query blocks, ending in the
    // head's output; one query block alone gives that block's rows.
    let under = run.computed_under.as_ref().unwrap();
    assert_eq!(under.block, (2, 2));
    let replay = run.flash_replay(1, 2, 0..3).unwrap();
    let output = run.layers[1][2].output.as_ref().unwrap();
    assert!(max_abs_diff(replay.output.view(), output.view()) < 1e-5);
    // 3 × 3 tiles of 2 × 2, each a step; the causal mask hides the 3 above the diagonal.
    assert_eq!(replay.steps.len(), 9);
    assert_eq!(replay.steps.iter().filter(|s| s.skipped).count(), 3);
    let second = run.flash_replay(1, 2, 1..2).unwrap();
    assert!(second.steps.iter().all(|s| s.row_block == 1));
    assert!(
        max_abs_diff(
            second.output.slice(ndarray::s![2..4, ..]),
            output.slice(ndarray::s![2..4, ..])
        ) < 1e-5
    );
    // Weights read as they are have nothing to replay.
    let read = run_imported(&load("attention.npz"), &ImportSettings::default()).unwrap();
    assert!(read.computed_under.is_none() && read.flash_replay(0, 0, 0..1).is_none());
    // A mask that does not fit the file is an error, not a panic.
    let window = ImportSettings {
        mask: MaskSpec::Padding { valid_len: 9 },
        ..ImportSettings::default()
    };
    assert!(run_imported(&load("qkv.npz"), &window).is_err());

    // Entropy in bits: one-hot rows 0, uniform rows over 4 keys 2.
    let one_hot = ndarray::Array2::<f32>::eye(4);
    assert_eq!(entropy_of_distributions(one_hot.view()), (Some(0.0), 4));
    let uniform = ndarray::Array2::<f32>::from_elem((3, 4), 0.25);
    let (bits, rows) = entropy_of_distributions(uniform.view());
    assert!((bits.unwrap() - 2.0).abs() < 1e-6 && rows == 3);
}

#[test]
fn imported_roles_tell_tokens_apart_by_their_text() {
    use attention_core::io::head_roles::HeadRole;
    use attention_core::io::imported::{ImportSettings, run_imported};
    // "a b a b": a head that looks one token back.
    let mut previous = vec![vec![0.0f32; 4]; 4];
    previous[0][0] = 1.0;
    for (i, row) in previous.iter_mut().enumerate().skip(1) {
        row[i - 1] = 1.0;
    }
    let file = read_value(
        &json!({"attention": [previous.clone()], "tokens": ["a", "b", "a", "b"]}),
        None,
    )
    .unwrap();
    let run = run_imported(&file, &ImportSettings::default()).unwrap();
    let roles = run.roles();
    let r = &roles[0][0];
    // Every query after the first (a causal head's first query has no choice) shows it.
    let previous = r.get(HeadRole::Previous).unwrap();
    assert_eq!(previous.queries, 3);
    assert!((previous.mean - 1.0).abs() < 1e-6, "{r:?}");
    assert_eq!(r.get(HeadRole::SelfToken).unwrap().mean, 0.0);
    // A causal head sees no later key: the next-token role cannot show.
    assert_eq!(r.get(HeadRole::Next), None);
    assert_eq!(r.entropy_bits, Some(0.0));
    assert_eq!(r.dominant(0.4).map(|d| d.0), Some(HeadRole::Previous));
    // In "a b a b" the token after each earlier occurrence is the previous token: no query
    // can tell induction from looking back one, so induction is not measured.
    assert_eq!(r.get(HeadRole::Induction), None);
    // Cross-attention: only the first key's role (and special tokens, punctuation) measure.
    let cross = run_imported(&load("cross.json"), &ImportSettings::default()).unwrap();
    let r = &cross.roles()[0][0];
    for role in [
        HeadRole::Previous,
        HeadRole::Induction,
        HeadRole::Same,
        HeadRole::SelfToken,
    ] {
        assert_eq!(r.get(role), None, "{role:?}");
    }
    assert!(r.get(HeadRole::First).is_some());
}

/// PyTorch itself (`tests/reference/torch_selfattention.py`, run by hand: torch is not in CI):
/// a SelfAttention module as the articles write it saved its per-head Q, K and V with
/// `safetensors.torch`, and what it computed beside them. The lab, from those files, gives
/// torch's own weights (with and without the causal mask), its outputs and
/// `scaled_dot_product_attention`'s; from torch's float16 and bfloat16 roundings, the weights
/// torch gets from the same rounded numbers.
#[test]
fn pytorchs_own_tensors_give_pytorchs_own_weights() {
    use attention_core::MaskSpec;
    use attention_core::io::imported::{ImportSettings, run_imported};
    let e: Value = serde_json::from_slice(fixture!("torch_expected.json")).unwrap();
    let heads = |key: &str| {
        let a = array(&e[key]);
        let shape = a.shape().to_vec();
        a.into_shape_with_order((1, shape[0], shape[1], shape[2]))
            .unwrap()
    };
    let file = |bytes: &[u8]| read(Format::Safetensors, bytes, None, None, None).unwrap();
    let f32_file = file(fixture!("torch_qkv_f32.safetensors"));
    assert_eq!(
        f32_file.tokens,
        tokens(&e["tokens"]),
        "tokens from the metadata"
    );
    let shown =
        |run: &attention_core::io::imported::ImportedRun,
         part: fn(&attention_core::io::imported::ShownHead) -> ndarray::Array2<f32>| {
            let h = run.head_count();
            let (n, d) = part(&run.layers[0][0]).dim();
            Array4::from_shape_fn((1, h, n, d), |(_, head, i, j)| {
                part(&run.layers[0][head])[[i, j]]
            })
        };
    for (mask, weights, output) in [
        (MaskSpec::None, "weights", "output"),
        (MaskSpec::Causal, "causal_weights", "causal_output"),
    ] {
        let settings = ImportSettings {
            mask,
            ..ImportSettings::default()
        };
        let run = run_imported(&f32_file, &settings).unwrap();
        assert_eq!((run.layer_count(), run.head_count()), (1, 4));
        let got = shown(&run, |h| h.weights.clone());
        close(&got, &heads(weights).into_dyn(), 1e-6, weights);
        let out = shown(&run, |h| h.output.clone().unwrap());
        close(&out, &heads(output).into_dyn(), 1e-5, output);
        let flash = shown(&run, |h| h.flash_output.clone().unwrap());
        close(&flash, &heads(output).into_dyn(), 1e-5, "flash");
        if weights == "causal_weights" {
            close(&out, &heads("sdpa_causal_output").into_dyn(), 1e-5, "sdpa");
        }
    }
    for (name, bytes) in [
        ("weights_f16", fixture!("torch_qkv_f16.safetensors")),
        ("weights_bf16", fixture!("torch_qkv_bf16.safetensors")),
    ] {
        let run = run_imported(&file(bytes), &ImportSettings::default()).unwrap();
        close(
            &shown(&run, |h| h.weights.clone()),
            &heads(name).into_dyn(),
            1e-6,
            name,
        );
    }
}

/// An `.npz` whose arrays the lab does not read (np.savez's `arr_0`, a hook's `attn_weights`):
/// the refusal names what it found.
#[test]
fn an_npz_without_what_the_lab_reads_names_what_it_holds() {
    let e = read(Format::Npz, fixture!("other_names.npz"), None, None, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the file has neither \"attention\" nor \"q\" and \"k\" (found: attn_weights, arr_0)"
    );
}

/// A safetensors file of one tensor `attention` [1, 1, rows, cols], its values given as raw
/// little-endian words of `dtype` ("BF16" or "F32").
fn one_tensor_safetensors(dtype: &str, shape: [usize; 4], words: &[u32]) -> Vec<u8> {
    let size = if dtype == "BF16" { 2 } else { 4 };
    let data: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes()[..size].to_vec())
        .collect();
    let mut header = format!(
        r#"{{"attention":{{"dtype":"{dtype}","shape":{shape:?},"data_offsets":[0,{}]}}}}"#,
        data.len()
    );
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    bytes.extend(data);
    bytes
}

/// bf16 keeps 8 significant bits: rows of three weights of 1/3 sum to 1.0020 once rounded.
/// That is bf16's rounding, not a sink logit: no notice. The same numbers stored as f32 are
/// 0.002 off 1 for real, and said so.
#[test]
fn bf16_rounding_is_not_blamed_on_a_sink_logit() {
    // bf16(1/3) = 0x3EAB = 0.333984375.
    let third_bf16 = 0x3EAB_u32;
    let file = one_tensor_safetensors("BF16", [1, 1, 3, 3], &[third_bf16; 9]);
    let read_bf16 = read(Format::Safetensors, &file, None, None, None).unwrap();
    assert!(
        read_bf16
            .notices
            .iter()
            .all(|n| !matches!(n, ImportNotice::RowsDoNotSumToOne { .. })),
        "{:?}",
        read_bf16.notices
    );
    let file = one_tensor_safetensors("F32", [1, 1, 3, 3], &[third_bf16 << 16; 9]);
    let read_f32 = read(Format::Safetensors, &file, None, None, None).unwrap();
    assert!(
        read_f32
            .notices
            .iter()
            .any(|n| matches!(n, ImportNotice::RowsDoNotSumToOne { rows: 3, .. })),
        "{:?}",
        read_f32.notices
    );
}

/// Grouped-query Q and K (K with fewer heads, as Llama 3 or Qwen save them): each key/value
/// head serves its group of query heads in turn, as if K and V had been repeated by
/// transformers' `repeat_kv`; said in a notice. Heads that do not divide are refused.
#[test]
fn grouped_query_q_and_k_are_read_as_repeat_kv_spreads_them() {
    let value = |l: usize, h: usize, n: usize, d: usize, seed: f32| -> Value {
        json!(
            (0..l)
                .map(|a| (0..h)
                    .map(|b| (0..n)
                        .map(|c| (0..d)
                            .map(|e| ((a * 7 + b * 5 + c * 3 + e) as f32 * seed).sin())
                            .collect::<Vec<_>>())
                        .collect::<Vec<_>>())
                    .collect::<Vec<_>>())
                .collect::<Vec<_>>()
        )
    };
    let tokens = json!(["a", "b", "c"]);
    let q = value(1, 4, 3, 2, 0.3);
    let (k, v) = (value(1, 2, 3, 2, 0.7), value(1, 2, 3, 2, 1.1));
    // K and V repeated by hand: head 2·j and 2·j + 1 are K's head j.
    let repeat = |x: &Value| -> Value {
        let heads = x[0].as_array().unwrap();
        json!([[heads[0], heads[0], heads[1], heads[1]]])
    };
    let file = |k: &Value, v: &Value| json!({"q": q, "k": k, "v": v, "tokens": tokens}).to_string();
    let grouped = read(Format::Json, file(&k, &v).as_bytes(), None, None, None).unwrap();
    let by_hand = read(
        Format::Json,
        file(&repeat(&k), &repeat(&v)).as_bytes(),
        None,
        None,
        None,
    )
    .unwrap();
    assert_eq!(grouped.tensors, by_hand.tensors);
    assert_eq!(
        grouped.notices,
        [ImportNotice::GroupedHeads {
            q_heads: 4,
            kv_heads: 2
        }]
    );
    assert!(
        grouped.notices[0]
            .to_string()
            .contains("each key/value head serves 2 query heads")
    );
    // 3 K heads for 4 Q heads: refused, naming both shapes.
    let three = value(1, 3, 3, 2, 0.7);
    let e = read(
        Format::Json,
        json!({"q": q, "k": three, "tokens": tokens})
            .to_string()
            .as_bytes(),
        None,
        None,
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("grouped-query attention"), "{e}");
}

/// Attention saved one tensor per layer, as forward hooks save it (`layers.0.attn`,
/// `layers.1.attn`, …, each [heads, queries, keys], or with a batch of one in front), is read as
/// the layers of one model; a gap in the layers or a shape that disagrees is refused by name.
#[test]
fn per_layer_dumps_are_stacked_into_layers() {
    let head = |shift: f32| json!([[1.0, 0.0, 0.0], [shift, 1.0 - shift, 0.0], [0.2, 0.3, 0.5]]);
    let tokens = json!(["a", "b", "c"]);
    let whole = json!({
        "attention": [[head(0.5), head(0.25)], [head(0.75), head(0.0)]],
        "tokens": tokens,
    });
    let per_layer = json!({
        "model.layers.0.self_attn.attn_weights": [[head(0.5), head(0.25)]],
        "model.layers.1.self_attn.attn_weights": [[head(0.75), head(0.0)]],
        "tokens": tokens,
    });
    let a = read(Format::Json, whole.to_string().as_bytes(), None, None, None).unwrap();
    let b = read(
        Format::Json,
        per_layer.to_string().as_bytes(),
        None,
        None,
        None,
    )
    .unwrap();
    assert_eq!(a.tensors, b.tensors);
    // `layers.N.q` and `layers.N.k` alike, one head each as [queries, d].
    let qk = json!({
        "layers.0.q": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        "layers.0.k": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        "layers.1.q": [[0.5, 0.0], [0.0, 0.5], [0.5, 0.5]],
        "layers.1.k": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        "tokens": tokens,
    });
    let read_qk = read(Format::Json, qk.to_string().as_bytes(), None, None, None).unwrap();
    let Tensors::Vectors { q, .. } = &read_qk.tensors else {
        panic!("q and k are read as vectors");
    };
    assert_eq!(q.dim(), (2, 1, 3, 2));
    // Layer 1 missing: named.
    let gap = json!({"layers.0.attn": [head(0.5)], "layers.2.attn": [head(0.5)], "tokens": tokens});
    let e = read(Format::Json, gap.to_string().as_bytes(), None, None, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "layers.2.attn: the layers saved run to 2 without layer 1"
    );
    let odd = json!({"layers.0.attn": [head(0.5)], "layers.1.attn": [head(0.5), head(0.5)], "tokens": tokens});
    let e = read(Format::Json, odd.to_string().as_bytes(), None, None, None).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("layers.1.attn: shape [2, 3, 3], where layers.0.attn has [1, 3, 3]"),
        "{e}"
    );
}

/// `np.stack(outputs.attentions)` saved to a file: [layers, batch, heads, queries, keys]. The
/// first example is read, and a notice says so when the batch has more.
#[test]
fn a_stacked_batch_is_read_as_layers_of_its_first_example() {
    let row = |a: f32| json!([[1.0, 0.0], [a, 1.0 - a]]);
    let tokens = json!(["a", "b"]);
    let stacked = json!({
        "attention": [[[row(0.5)], [row(0.1)]], [[row(0.25)], [row(0.2)]]],
        "tokens": tokens,
    });
    let first = json!({"attention": [[row(0.5)], [row(0.25)]], "tokens": tokens});
    let a = read(
        Format::Json,
        stacked.to_string().as_bytes(),
        None,
        None,
        None,
    )
    .unwrap();
    let b = read(Format::Json, first.to_string().as_bytes(), None, None, None).unwrap();
    assert_eq!(a.tensors, b.tensors);
    assert_eq!(
        a.notices,
        [ImportNotice::Example {
            examples: 2,
            shown: 0
        }]
    );
    // A batch of one: no notice.
    let one = json!({"attention": [[[row(0.5)]], [[row(0.25)]]], "tokens": tokens});
    let c = read(Format::Json, one.to_string().as_bytes(), None, None, None).unwrap();
    assert_eq!((c.tensors, c.notices), (b.tensors, vec![]));
    // Six dimensions: the refusal lists every shape it reads.
    let six = json!({"attention": [[[[row(0.5)]]]], "tokens": tokens});
    let e = read(Format::Json, six.to_string().as_bytes(), None, None, None).unwrap_err();
    assert!(
        e.to_string()
            .contains("expected 2 to 5: [layers, batch, heads"),
        "{e}"
    );
}

/// Q and K saved before RoPE, with positions set to RoPE: the lab turns them as its own
/// pipeline does, and the weights are those of its own trace with RoPE (whose `q` and `k` are
/// the vectors before the turn). Read as they are, they differ; ALiBi is refused for a file.
#[test]
fn imported_q_and_k_before_rope_are_turned_as_the_lab_turns_its_own() {
    use attention_core::api::PositionRequest;
    use attention_core::api::import::import_settings;
    use attention_core::io::imported::run_imported;
    use attention_core::{Params, compute_trace};
    let position = PositionRequest::Rope {
        base: 500.0,
        pairing: attention_core::api::PairingRequest::Interleaved,
        offset: 3,
    };
    let mut params = Params::sentence("the cat sat on the warm mat");
    params.d_model = Some(16);
    params.n_heads = 2;
    let (p, offset) = position.position();
    params.shaping.position = p;
    params.shaping.offset = offset;
    let trace = compute_trace(&params.validate().unwrap());
    let heads = |pick: fn(&attention_core::pipeline::trace::HeadTrace) -> &ndarray::Array2<f32>| {
        json!([trace
            .heads
            .iter()
            .map(|h| pick(h).outer_iter().map(|r| r.to_vec()).collect::<Vec<_>>())
            .collect::<Vec<_>>()])
    };
    let file = json!({"q": heads(|h| &h.q), "k": heads(|h| &h.k), "tokens": trace.config.tokens()});
    let imported = read_value(&file, None).unwrap();
    let settings = import_settings(None, None, None, Some(&position)).unwrap();
    let run = run_imported(&imported, &settings).unwrap();
    assert_eq!(run.rope.map(|r| r.0), Some(500.0));
    for (h, head) in trace.heads.iter().enumerate() {
        let diff = max_abs_diff(run.head(0, h).weights.view(), head.weights.view());
        assert!(diff < 1e-5, "head {h}: {diff}");
    }
    let as_given =
        run_imported(&imported, &import_settings(None, None, None, None).unwrap()).unwrap();
    assert!(
        max_abs_diff(
            as_given.head(0, 0).weights.view(),
            trace.heads[0].weights.view()
        ) > 1e-3
    );
    let alibi = PositionRequest::Alibi { offset: 0 };
    let e = import_settings(None, None, None, Some(&alibi)).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("position: a file's q and k take RoPE"),
        "{e}"
    );
}

/// The review's defect: a 4-D `[batch, heads, q, k]` (one layer of `outputs.attentions`) was read
/// as layers. With `batch` given it is a batch (the example chosen); five dimensions are
/// `[layers, batch, …]` and `batch` picks among them; without `batch` a 4-D array is read as
/// layers, as documented, and a notice names both readings; a batch out of range, or a batch
/// asked of a tensor without one, is refused with the count.
#[test]
fn a_batch_axis_is_read_as_a_batch_when_batch_is_given() {
    let row = |a: f32| json!([[1.0, 0.0], [a, 1.0 - a]]);
    let tokens = json!(["a", "b"]);
    // [batch 3, heads 1, 2, 2]: example b puts 0.1·(b + 1) on the first key.
    let four = json!([[row(0.1)], [row(0.2)], [row(0.3)]]);
    let bytes = json!({"attention": four, "tokens": tokens}).to_string();
    let with = |batch| {
        read_with(
            Format::Json,
            bytes.as_bytes(),
            ReadOptions {
                batch,
                ..ReadOptions::default()
            },
        )
    };
    let second = with(Some(1)).unwrap();
    let Tensors::Attention(a) = &second.tensors else {
        panic!("weights")
    };
    assert_eq!(a.dim(), (1, 1, 2, 2));
    assert!((a[[0, 0, 1, 0]] - 0.2).abs() < 1e-7);
    assert_eq!(
        second.notices,
        [ImportNotice::Example {
            examples: 3,
            shown: 1
        }]
    );
    // Without batch: three layers, and the notice names both readings.
    let layers = with(None).unwrap();
    assert_eq!(layers.tensors.layers(), 3);
    assert_eq!(layers.notices, [ImportNotice::ReadAsLayers { layers: 3 }]);
    let said = layers.notices[0].to_string();
    assert!(
        said.contains("[layers, heads, queries, keys]")
            && said.contains("[batch, heads, queries, keys]")
            && said.contains("batch="),
        "{said}"
    );
    // The same given in the JSON itself.
    let named = json!({"attention": four, "tokens": tokens, "batch": 2}).to_string();
    let third = read(Format::Json, named.as_bytes(), None, None, None).unwrap();
    let Tensors::Attention(a) = &third.tensors else {
        panic!("weights")
    };
    assert!((a[[0, 0, 1, 0]] - 0.3).abs() < 1e-7);
    // Out of range: the count named.
    let e = with(Some(3)).unwrap_err();
    assert!(
        matches!(
            e,
            ImportError::Batch {
                batch: 3,
                examples: 3,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("0 to 2"), "{e}");
    // Five dimensions, example 1 of 2 in every layer.
    let five = json!({"attention": [[[row(0.5)], [row(0.1)]], [[row(0.25)], [row(0.2)]]], "tokens": tokens}).to_string();
    let b1 = read_with(
        Format::Json,
        five.as_bytes(),
        ReadOptions {
            batch: Some(1),
            ..ReadOptions::default()
        },
    )
    .unwrap();
    let Tensors::Attention(a) = &b1.tensors else {
        panic!("weights")
    };
    assert_eq!(a.dim().0, 2);
    assert!((a[[0, 0, 1, 0]] - 0.1).abs() < 1e-7 && (a[[1, 0, 1, 0]] - 0.2).abs() < 1e-7);
    // A batch asked of three dimensions.
    let three = json!({"attention": [row(0.5)], "tokens": tokens}).to_string();
    let e = read_with(
        Format::Json,
        three.as_bytes(),
        ReadOptions {
            batch: Some(1),
            ..ReadOptions::default()
        },
    )
    .unwrap_err();
    assert!(matches!(e, ImportError::NoBatch { .. }), "{e}");
    // batch 0 of a tensor without a batch is that tensor.
    assert!(
        read_with(
            Format::Json,
            three.as_bytes(),
            ReadOptions {
                batch: Some(0),
                ..ReadOptions::default()
            }
        )
        .is_ok()
    );
    // Q and K with a batch: both read alike.
    let q = json!([[[[1.0, 0.0], [0.0, 1.0]]], [[[2.0, 0.0], [0.0, 2.0]]]]);
    let qk = json!({"q": q, "k": q, "tokens": tokens, "batch": 1}).to_string();
    let read_qk = read(Format::Json, qk.as_bytes(), None, None, None).unwrap();
    let Tensors::Vectors { q, .. } = &read_qk.tensors else {
        panic!("vectors")
    };
    assert_eq!((q.dim(), q[[0, 0, 0, 0]]), ((1, 1, 2, 2), 2.0));
}

/// Per-layer dumps as hooks save them, in every format the page reads: `.npz`
/// (`tests/reference/imports.py` writes `per_layer.npz`) and safetensors as JSON does; a batch
/// in front of each layer's tensor picks an example.
#[test]
fn per_layer_dumps_with_a_batch_read_one_example() {
    let row = |a: f32| json!([[1.0, 0.0], [a, 1.0 - a]]);
    let file = json!({
        "layers.0.attn": [[row(0.1)], [row(0.6)]],
        "layers.1.attn": [[row(0.2)], [row(0.7)]],
        "tokens": ["a", "b"],
    })
    .to_string();
    let read_batch = |batch| {
        read_with(
            Format::Json,
            file.as_bytes(),
            ReadOptions {
                batch,
                ..ReadOptions::default()
            },
        )
        .unwrap()
    };
    let Tensors::Attention(a) = read_batch(Some(1)).tensors else {
        panic!("weights")
    };
    assert_eq!(a.dim(), (2, 1, 2, 2));
    assert!((a[[0, 0, 1, 0]] - 0.6).abs() < 1e-7 && (a[[1, 0, 1, 0]] - 0.7).abs() < 1e-7);
    let first = read_batch(None);
    assert_eq!(
        first.notices,
        [ImportNotice::Example {
            examples: 2,
            shown: 0
        }]
    );
    // NumPy's, safetensors' and JSON's per-layer files hold the attention of attention.npz.
    let whole = load("attention.npz");
    for (format, bytes) in [
        (Format::Npz, fixture!("per_layer.npz")),
        (Format::Safetensors, fixture!("per_layer.safetensors")),
        (Format::Json, fixture!("per_layer.json")),
    ] {
        let file = read(format, bytes, None, None, None).unwrap();
        assert_eq!(file.tensors, whole.tensors, "{format:?}");
        assert_eq!(file.tokens, whole.tokens, "{format:?}");
    }
}

/// Head roles over every query that can show each, on one hand-made head of each kind; scores
/// (a negative number, rows past 1) get no roles and no entropy; rows summing to less than 1
/// are said to; entropy is of the rows that are distributions only.
#[test]
fn head_roles_are_measured_over_every_query_that_can_show_them() {
    use attention_core::io::head_roles::{HeadRole, RowsAre, is_punctuation, is_special};
    use attention_core::io::imported::{ImportSettings, run_imported};
    let run_of = |attention: Value, tokens: Value| {
        run_imported(
            &read_value(&json!({"attention": attention, "tokens": tokens}), None).unwrap(),
            &ImportSettings::default(),
        )
        .unwrap()
    };
    // An encoder's head (it sees later keys) that looks at the next token; the last query at
    // itself. "[CLS] the cat , the [SEP]".
    let tokens = json!(["[CLS]", "the", "cat", ",", "the", "[SEP]"]);
    let n = 6;
    let next: Vec<Vec<f32>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| f32::from(u8::from(j == (i + 1).min(n - 1))))
                .collect()
        })
        .collect();
    let run = run_of(json!([[next]]), tokens.clone());
    assert_eq!(run.rows_are(), RowsAre::Weights);
    let r = &run.roles()[0][0];
    let next = r.get(HeadRole::Next).unwrap();
    // Every query but the last can look at the next token; all five do.
    assert_eq!((next.queries, next.mean), (5, 1.0));
    assert_eq!(r.dominant(0.4).map(|d| d.0), Some(HeadRole::Next));
    // Same token: only the two "the" have another occurrence (the later one counts: an
    // encoder sees it); the first "the" puts its weight on "cat", not on the other "the".
    let same = r.get(HeadRole::Same).unwrap();
    assert_eq!(same.queries, 2);
    // The special tokens: [SEP] takes the weight of the query before it and of itself — not
    // counted (a query on itself is the self role).
    let special = r.get(HeadRole::Special).unwrap();
    assert_eq!(special.queries, n);
    assert!((special.mean - 1.0 / n as f32).abs() < 1e-6, "{special:?}");
    let punctuation = r.get(HeadRole::Punctuation).unwrap();
    assert!(
        (punctuation.mean - 1.0 / 5.0).abs() < 1e-6,
        "{punctuation:?}"
    );
    assert!(is_special("<|endoftext|>") && is_special("</s>") && is_special("[PAD]"));
    assert!(!is_special("<0xE6>") && !is_special("[x]") && !is_special("cat"));
    assert!(is_punctuation("Ġ,") && is_punctuation("。") && !is_punctuation("Ġa,"));

    // Scores, not weights: no role, no entropy, and the first place named.
    let scores = json!([[[[2.0, -1.0], [0.5, 3.0]]]]);
    let run = run_of(scores, json!(["a", "b"]));
    assert!(matches!(
        run.rows_are(),
        RowsAre::NotWeights {
            layer: 0,
            head: 0,
            row: 0,
            value: Some(-1.0),
            ..
        }
    ));
    let r = &run.roles()[0][0];
    assert!(r.measures.iter().all(Option::is_none) && r.entropy_bits.is_none());
    // A sink's rows sum to less than 1: weights still, said; the entropy of the rows that are
    // distributions only (row 0 sums to 1, row 1 to 0.5).
    let sink = json!([[[[1.0, 0.0], [0.25, 0.25]]]]);
    let run = run_of(sink, json!(["a", "b"]));
    assert_eq!(run.rows_are(), RowsAre::PartWeights { rows: 1 });
    let r = &run.roles()[0][0];
    assert_eq!((r.entropy_bits, r.entropy_rows), (Some(0.0), 1));
    assert_eq!(r.get(HeadRole::Previous).unwrap().mean, 0.25);
    // In the CLI's JSON: each role's mean and queries, and what the rows are.
    let json = attention_core::api::import::run_json(&run, 0);
    assert_eq!(json["rows_are"]["kind"], "part_weights");
    assert_eq!(json["roles"][0][0]["previous"]["queries"], 1);
    assert_eq!(json["roles"][0][0]["next"], Value::Null);
}

/// Special tokens hidden, each row renormalised over the keys left; from Q and K the same rows
/// dropped give the same weights (a softmax over fewer keys is the renormalisation). The mean
/// over heads and over layers.
#[test]
fn special_tokens_hide_with_rows_renormalised_and_means_average() {
    use attention_core::io::imported::{ImportSettings, run_imported};
    use attention_core::io::imported_views::{CannotHide, Mean};
    let tokens = json!(["[CLS]", "a", "b", "[SEP]"]);
    // Q and K of 2 layers × 2 heads, and the weights they give, read as weights.
    let q: Vec<f32> = (0..2 * 2 * 4 * 3)
        .map(|i| ((i * 7 % 11) as f32 - 5.0) / 4.0)
        .collect();
    let k: Vec<f32> = (0..2 * 2 * 4 * 3)
        .map(|i| ((i * 5 % 13) as f32 - 6.0) / 5.0)
        .collect();
    let q = Array4::from_shape_vec((2, 2, 4, 3), q).unwrap();
    let k = Array4::from_shape_vec((2, 2, 4, 3), k).unwrap();
    let nested = |a: &Array4<f32>| {
        serde_json::to_value(
            a.outer_iter()
                .map(|l| {
                    l.outer_iter()
                        .map(|h| h.outer_iter().map(|r| r.to_vec()).collect::<Vec<_>>())
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>(),
        )
        .unwrap()
    };
    let from_qk = read_value(
        &json!({"q": nested(&q), "k": nested(&k), "tokens": tokens}),
        None,
    )
    .unwrap();
    let computed = run_imported(&from_qk, &ImportSettings::default()).unwrap();
    let weights = Array4::from_shape_fn((2, 2, 4, 4), |(l, h, i, j)| {
        computed.layers[l][h].weights[[i, j]]
    });
    let as_weights = read_value(
        &json!({"attention": nested(&weights), "tokens": tokens}),
        None,
    )
    .unwrap();

    let hidden = as_weights.without_special().unwrap();
    assert_eq!(hidden.tokens, ["a", "b"]);
    assert!(matches!(
        hidden.notices.last(),
        Some(ImportNotice::SpecialHidden {
            queries: 2,
            keys: 2,
            ..
        })
    ));
    let hidden_run = run_imported(&hidden, &ImportSettings::default()).unwrap();
    let hidden_qk = run_imported(
        &from_qk.without_special().unwrap(),
        &ImportSettings::default(),
    )
    .unwrap();
    for l in 0..2 {
        for h in 0..2 {
            let w = &hidden_run.layers[l][h].weights;
            // Query "a" (1) over keys "a", "b" (1, 2), renormalised.
            let whole = &weights.slice(ndarray::s![l, h, .., ..]);
            let left = whole[[1, 1]] + whole[[1, 2]];
            assert!((w[[0, 0]] - whole[[1, 1]] / left).abs() < 1e-6);
            for row in w.outer_iter() {
                assert!((row.sum() - 1.0).abs() < 1e-6);
            }
            assert!(max_abs_diff(w.view(), hidden_qk.layers[l][h].weights.view()) < 1e-6);
        }
    }
    // Nothing to hide; scores cannot be renormalised.
    let plain = read_value(
        &json!({"attention": [[[1.0, 0.0], [0.5, 0.5]]], "tokens": ["a", "b"]}),
        None,
    )
    .unwrap();
    assert_eq!(
        plain.without_special().unwrap_err(),
        CannotHide::NoSpecialTokens
    );
    let scores = read_value(
        &json!({"attention": [[[1.0, -2.0], [0.5, 0.5]]], "tokens": ["<s>", "b"]}),
        None,
    )
    .unwrap();
    assert_eq!(
        scores.without_special().unwrap_err(),
        CannotHide::NotWeights
    );

    // Means: over each layer's heads, and over the layers.
    let run = run_imported(&as_weights, &ImportSettings::default()).unwrap();
    let heads = run.averaged(Mean::Heads);
    assert_eq!((heads.layer_count(), heads.head_count()), (2, 1));
    let want = (&weights.slice(ndarray::s![1, 0, .., ..])
        + &weights.slice(ndarray::s![1, 1, .., ..]))
        / 2.0;
    assert!(max_abs_diff(heads.layers[1][0].weights.view(), want.view()) < 1e-6);
    let layers = run.averaged(Mean::Layers);
    assert_eq!((layers.layer_count(), layers.head_count()), (1, 2));
    let want = (&weights.slice(ndarray::s![0, 1, .., ..])
        + &weights.slice(ndarray::s![1, 1, .., ..]))
        / 2.0;
    assert!(max_abs_diff(layers.layers[0][1].weights.view(), want.view()) < 1e-6);
    assert_eq!(
        attention_core::api::import::run_json(&layers, 0)["mean"],
        "layers"
    );
}
