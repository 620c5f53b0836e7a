//! Criterion benchmarks of the attention core, natively:
//! - the full traced computation (standard + flash with every tile step) at
//!   (seq_len, d_model, n_heads) = (64, 64, 4), (128, 128, 8), (512, 512, 8);
//! - the untraced outputs (standard in row chunks + flash) at (4096, 64, 4), with the peak heap
//!   memory it allocates, measured by a counting allocator;
//! - the trained model's forward pass at 128 characters (assets/gpt2), and a user's Hugging Face
//!   folder of GPT-2 small's shape (`HF_BENCH_FOLDER`, made by `tools/hf/make_fixtures.py`);
//! - one generated character with and without the KV cache, for both trained models, at 16 to
//!   250 cached characters;
//! - the same trace and outputs on the machine's GPU through wgpu (lavapipe, a software Vulkan,
//!   on the CI machine: its numbers show the GPU path's overhead; on a real GPU, its speed).
//!
//! `cargo bench --bench attention`

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::hint::black_box;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use attention_core::math::flash::flash_attention;
    use attention_core::{
        Config, Input, Params, compute_outputs, compute_parts_with, compute_trace,
    };
    use criterion::{BenchmarkId, Criterion};

    /// The system allocator, counting the bytes live now and the most live since the last reset.
    struct PeakAlloc;

    static LIVE: AtomicUsize = AtomicUsize::new(0);
    static PEAK: AtomicUsize = AtomicUsize::new(0);

    // SAFETY: every call is forwarded unchanged to `System`; the counters only observe sizes.
    unsafe impl GlobalAlloc for PeakAlloc {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
            // SAFETY: forwarded with the caller's layout.
            unsafe { System.alloc(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            // SAFETY: `ptr` came from `alloc` above with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: PeakAlloc = PeakAlloc;

    /// Peak bytes allocated by `f` beyond what was live before it.
    fn peak_bytes<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let result = f();
        (result, PEAK.load(Ordering::Relaxed) - before)
    }

    fn config(seq_len: usize, d_model: usize, n_heads: usize, trace: bool) -> Config {
        const WORDS: [&str; 8] = ["the", "cat", "sat", "on", "a", "warm", "mat", "today"];
        let tokens = (0..seq_len)
            .map(|i| WORDS[i % WORDS.len()].to_string())
            .collect();
        Params {
            input: Input::Tokens(tokens),
            d_model: Some(d_model),
            n_heads,
            trace,
            // The tiles a GPU kernel would use (and these benchmarks always have).
            block_rows: Some(16),
            block_cols: Some(16),
            ..Params::sentence("")
        }
        .validate()
        .expect("benchmark shapes are valid")
    }

    pub fn traced(c: &mut Criterion) {
        let mut group = c.benchmark_group("trace");
        for (seq_len, d_model, n_heads) in [(64, 64, 4), (128, 128, 8), (512, 512, 8)] {
            if seq_len >= 512 {
                group.sample_size(10);
            }
            let config = config(seq_len, d_model, n_heads, true);
            group.bench_with_input(
                BenchmarkId::from_parameter(format!("{seq_len}x{d_model}x{n_heads}")),
                &config,
                |b, config| b.iter(|| compute_trace(black_box(config))),
            );
        }
        group.finish();
    }

    /// The trained model (assets/gpt2): a forward pass with every intermediate at 128
    /// characters, and one layer traced again with FlashAttention's steps.
    pub fn model(c: &mut Criterion) {
        let gpt = attention_core::models::Model::from_files(
            include_bytes!("../assets/gpt2/model.safetensors"),
            include_str!("../assets/gpt2/config.json"),
            include_str!("../assets/gpt2/vocab.json"),
        )
        .expect("the shipped model loads");
        let text = "The cat sat on the mat because it was tired. 猫坐在垫子上，因为它累了。";
        let sentence: String = text.repeat(4).chars().take(128).collect();
        let (tokens, ids): (Vec<String>, Vec<u32>) = gpt.tokenize(&sentence).into_iter().unzip();
        let run = attention_core::models::ModelRun::default();
        let mut group = c.benchmark_group("model");
        group.bench_function("forward 128 characters", |b| {
            b.iter(|| gpt.forward(black_box(&tokens), black_box(&ids), &run))
        });
        let forward = gpt
            .forward(&tokens, &ids, &run)
            .expect("128 characters fit");
        group.bench_function("layer trace with flash steps", |b| {
            b.iter(|| forward.layer_trace(black_box(1)))
        });
        group.finish();
    }

    /// A user's Hugging Face folder of GPT-2 small's shape (124 M parameters; made by
    /// `tools/hf/make_fixtures.py --gpt2-small DIR`, named by `HF_BENCH_FOLDER=DIR`): a 64-token
    /// forward pass with every layer traced, and 16 tokens generated with the KV cache after a
    /// 48-token prompt. Skipped, saying how, when no folder is named.
    pub fn hf_folder(c: &mut Criterion) {
        let Ok(folder) = std::env::var("HF_BENCH_FOLDER") else {
            eprintln!(
                "hf: set HF_BENCH_FOLDER to a folder made by tools/hf/make_fixtures.py --gpt2-small DIR"
            );
            return;
        };
        let files = attention_core::io::hf_folder::read_folder(std::path::Path::new(&folder))
            .expect("the benchmark's folder reads");
        let model = attention_core::models::hf::from_folder("gpt2-small", &files)
            .expect("the benchmark's folder opens");
        drop(files);
        eprintln!(
            "hf: {} parameters, {} MB as f32",
            model.parameter_count(),
            model.parameter_count() * 4 / 1_000_000
        );
        let ids: Vec<u32> = (0..64).map(|i| (i * 7 % 300) as u32).collect();
        let tokens: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
        let run = attention_core::models::ModelRun {
            mask: attention_core::MaskSpec::Causal,
            ..attention_core::models::ModelRun::default()
        };
        let mut group = c.benchmark_group("hf");
        group.sample_size(10);
        group.bench_function("gpt2-small forward 64 tokens, every layer traced", |b| {
            b.iter(|| model.forward(black_box(&tokens), black_box(&ids), &run))
        });
        group.bench_function("gpt2-small 16 tokens with the KV cache after 48", |b| {
            b.iter(|| {
                let mut cache = attention_core::models::generate::KvCache::new(&model);
                let rows = model.extend(&mut cache, &ids[..48], 1.0);
                let mut last = model.head(rows.row(rows.nrows() - 1));
                for _ in 0..16 {
                    let next =
                        attention_core::models::sample_next(last.view(), 0.0, 0.0, 0).unwrap_or(0);
                    let rows = model.extend(&mut cache, &[next], 1.0);
                    last = model.head(rows.row(0));
                }
                black_box(last)
            })
        });
        group.finish();
    }

    /// Why a head attends, on both trained models at their 128-character benchmark sentence:
    /// one cell of the last layer taken apart (its components built from the forward pass, as
    /// the page does on a click), its whole row, the composition of every head pair from the
    /// weights and on the sentence, and a forward pass with one head knocked out.
    pub fn circuits(c: &mut Criterion) {
        use attention_core::circuits::composition::{composition, sentence_shares};
        use attention_core::circuits::{Components, explain::Reading};
        use attention_core::models::{Model, ModelRun};
        use attention_core::pipeline::knockout::{HeadKnockout, Knockout};
        let models = [
            (
                "gpt2",
                Model::from_files(
                    include_bytes!("../assets/gpt2/model.safetensors"),
                    include_str!("../assets/gpt2/config.json"),
                    include_str!("../assets/gpt2/vocab.json"),
                ),
            ),
            (
                "llama",
                Model::from_files(
                    include_bytes!("../assets/llama/model.safetensors"),
                    include_str!("../assets/llama/config.json"),
                    include_str!("../assets/llama/vocab.json"),
                ),
            ),
        ];
        let text = "The cat sat on the mat because it was tired. 猫坐在垫子上，因为它累了。";
        let sentence: String = text.repeat(4).chars().take(128).collect();
        let mut group = c.benchmark_group("circuits");
        for (name, model) in models {
            let model = model.expect("the shipped model loads");
            let run = ModelRun::default();
            let forward = model.read(&sentence, &run).expect("128 characters fit");
            let last = forward.layers.len() - 1;
            let trace = &forward.layers[last].attention;
            group.bench_function(format!("{name} explain one cell at 128"), |b| {
                b.iter(|| {
                    let components = Components::entering(&model, &forward, last);
                    let reading = Reading::new(trace, &components, 0).expect("head 1");
                    reading.cell(black_box(127), black_box(64))
                })
            });
            group.bench_function(format!("{name} explain one row at 128"), |b| {
                b.iter(|| {
                    let components = Components::entering(&model, &forward, last);
                    let reading = Reading::new(trace, &components, 0).expect("head 1");
                    reading.row(black_box(127))
                })
            });
            group.bench_function(format!("{name} composition, every head pair"), |b| {
                b.iter(|| composition(black_box(&model)))
            });
            group.bench_function(
                format!("{name} composition of one head on the sentence"),
                |b| b.iter(|| sentence_shares(&model, &forward, last, black_box(0))),
            );
            let knocked = ModelRun {
                ablate: vec![HeadKnockout {
                    layer: 0,
                    head: 1,
                    how: Knockout::Mean,
                }],
                ..ModelRun::default()
            };
            group.bench_function(
                format!("{name} forward at 128, one head knocked out"),
                |b| b.iter(|| model.read(black_box(&sentence), &knocked)),
            );
            group.bench_function(format!("{name} forward at 128"), |b| {
                b.iter(|| model.read(black_box(&sentence), &run))
            });
        }
        group.finish();
    }

    /// One generated character with the KV cache (its row through the model, reading n cached
    /// positions) and without (the whole text of n + 1 characters again), for both trained
    /// models at several lengths: the two curves of the KV-cache chapter.
    pub fn decode(c: &mut Criterion) {
        use attention_core::models::generate::KvCache;
        let models = [
            (
                "gpt2",
                attention_core::models::Model::from_files(
                    include_bytes!("../assets/gpt2/model.safetensors"),
                    include_str!("../assets/gpt2/config.json"),
                    include_str!("../assets/gpt2/vocab.json"),
                ),
            ),
            (
                "llama",
                attention_core::models::Model::from_files(
                    include_bytes!("../assets/llama/model.safetensors"),
                    include_str!("../assets/llama/config.json"),
                    include_str!("../assets/llama/vocab.json"),
                ),
            ),
        ];
        let text =
            "The cat sat on the mat because it was tired. 猫坐在垫子上，因为它累了。".repeat(8);
        let mut group = c.benchmark_group("decode");
        for (name, model) in models {
            let model = model.expect("the shipped model loads");
            let ids: Vec<u32> = model
                .tokenize(&text)
                .into_iter()
                .map(|(_, id)| id)
                .collect();
            for n in [16, 64, 120, 250] {
                if n >= model.config.context {
                    continue;
                }
                let mut cache = KvCache::new(&model);
                model.extend(&mut cache, &ids[..n], 1.0);
                group.bench_function(format!("{name} cached step at {n}"), |b| {
                    b.iter_batched_ref(
                        || cache.clone(),
                        |cache| model.extend(cache, black_box(&ids[n..=n]), 1.0),
                        criterion::BatchSize::SmallInput,
                    )
                });
                group.bench_function(format!("{name} recompute step at {n}"), |b| {
                    b.iter(|| model.extend(&mut KvCache::new(&model), black_box(&ids[..=n]), 1.0))
                });
            }
        }
        group.finish();
    }

    pub fn gpu(c: &mut Criterion) {
        let Ok(mut backend) = pollster::block_on(attention_gpu::GpuBackend::new()) else {
            println!("gpu: no adapter on this machine; skipping the GPU benchmarks");
            return;
        };
        println!("gpu: {:?}", backend.info());
        let mut group = c.benchmark_group("gpu");
        group.sample_size(10);
        for (seq_len, d_model, n_heads) in [(64, 64, 4), (128, 128, 8), (512, 512, 8)] {
            let config = config(seq_len, d_model, n_heads, true);
            group.bench_function(format!("trace {seq_len}x{d_model}x{n_heads}"), |b| {
                b.iter(|| pollster::block_on(backend.trace(black_box(&config))))
            });
        }
        let config = config(4096, 64, 4, false);
        group.bench_function("outputs 4096x64x4", |b| {
            b.iter(|| pollster::block_on(backend.outputs(black_box(&config))))
        });
        group.finish();
    }

    /// Issue 24's kernel measure (`attention_core::pipeline::kernel_case`, which the page's harness times too):
    /// one head, n = 1024, d_k = 64, no mask, QKᵀ + softmax + ·V, in floating-point operations
    /// per second (criterion's "elem/s": 2·n²·d for each product). The standard pass, and
    /// FlashAttention's tiles of 16 × 16 (as everywhere here) and 64 × 64.
    pub fn kernel(c: &mut Criterion) {
        let (n, d) = (1024, 64);
        let case =
            attention_core::pipeline::kernel_case::KernelCase::new(n, d, 24).expect("in range");
        let mut group = c.benchmark_group("kernel");
        group.sample_size(20);
        group.throughput(criterion::Throughput::Elements(case.flops() as u64));
        group.bench_function(format!("standard {n}x{d} (flop/s)"), |b| {
            b.iter(|| black_box(&case).standard())
        });
        for block in [16, 64] {
            group.bench_function(format!("flash {n}x{d} tiles {block} (flop/s)"), |b| {
                b.iter(|| black_box(&case).flash(block))
            });
        }
        group.finish();
    }

    /// Issue 42's measure: one head of the gated delta rule, n = 1024, d_k = d_v = 64, token by
    /// token and in chunks of 16 and 64, in floating-point operations per second (criterion's
    /// "elem/s", counted by `math::linear::{recurrent_flops, chunked_flops}`), beside the softmax
    /// kernel's (`kernel`); and a whole request of 4096 tokens × 4 heads, outputs only, with the
    /// gated delta rule against the softmax's `untraced` figure.
    pub fn linear(c: &mut Criterion) {
        use attention_core::math::linear::{
            HeadInput, LinearKind, LinearSpec, chunked, chunked_flops, prepared, recurrent,
            recurrent_flops,
        };
        let (n, d) = (1024, 64);
        let mut rng = attention_core::math::rng::SplitMix64::new(42);
        let mut matrix = |cols: usize| {
            ndarray::Array2::from_shape_simple_fn((n, cols), || rng.next_symmetric(1.0) as f32)
        };
        let (q, k, v) = (matrix(d), matrix(d), matrix(d));
        let beta = ndarray::Array1::from_elem(n, 0.5f32);
        let log_alpha = ndarray::Array1::from_elem(n, -0.05f32);
        let input = HeadInput {
            kind: LinearKind::GatedDelta,
            q: q.view(),
            k: k.view(),
            v: v.view(),
            beta: beta.view(),
            log_alpha: log_alpha.view(),
        };
        let (qp, kp) = prepared(LinearKind::GatedDelta, q.view(), k.view());
        let mut group = c.benchmark_group("linear");
        group.sample_size(20);
        group.throughput(criterion::Throughput::Elements(
            recurrent_flops(n, d, d) as u64
        ));
        group.bench_function(
            format!("gated delta token by token {n}x{d} (flop/s)"),
            |b| b.iter(|| recurrent(black_box(&input), qp.view(), kp.view(), 0)),
        );
        for chunk in [16, 64] {
            group.throughput(criterion::Throughput::Elements(
                chunked_flops(n, d, d, chunk) as u64,
            ));
            group.bench_function(
                format!("gated delta chunks of {chunk} {n}x{d} (flop/s)"),
                |b| b.iter(|| chunked(black_box(&input), qp.view(), kp.view(), chunk)),
            );
        }
        group.finish();
        // The picture of a long input's A (issue 42 §5): every row of one delta-rule head of 4096
        // tokens, d_k = 16 (the page's d_model 64 over 4 heads), one row at a time and four at a
        // time (`hidden_rows_with`, what the overview uses), in rows per second.
        {
            use attention_core::math::linear::{
                ROWS_AT_ONCE, decays, hidden_row_with, hidden_rows_with,
            };
            let (n, d) = (4096, 16);
            let mut m = |cols: usize| {
                ndarray::Array2::from_shape_simple_fn((n, cols), || rng.next_symmetric(1.0) as f32)
            };
            let (q, k, v) = (m(d), m(d), m(d));
            let beta = ndarray::Array1::from_elem(n, 0.5f32);
            let log_alpha = ndarray::Array1::zeros(n);
            let input = HeadInput {
                kind: LinearKind::Delta,
                q: q.view(),
                k: k.view(),
                v: v.view(),
                beta: beta.view(),
                log_alpha: log_alpha.view(),
            };
            let (qp, kp) = prepared(LinearKind::Delta, q.view(), k.view());
            let alpha = decays(&input);
            let mut group = c.benchmark_group("linear");
            group.sample_size(10);
            group.throughput(criterion::Throughput::Elements(n as u64));
            let mut row = ndarray::Array1::<f32>::zeros(n);
            group.bench_function(format!("A's rows {n}x{d} delta, one at a time"), |b| {
                b.iter(|| {
                    for t in 0..n {
                        hidden_row_with(&input, &alpha, qp.view(), kp.view(), t, row.view_mut());
                    }
                })
            });
            let mut rows = vec![0.0f32; ROWS_AT_ONCE * n];
            group.bench_function(
                format!("A's rows {n}x{d} delta, {ROWS_AT_ONCE} at a time"),
                |b| {
                    b.iter(|| {
                        for first in (0..n).step_by(ROWS_AT_ONCE) {
                            hidden_rows_with(
                                &input,
                                &alpha,
                                qp.view(),
                                kp.view(),
                                first,
                                &mut rows,
                            );
                        }
                    })
                },
            );
            group.finish();
        }
        let (seq_len, d_model, n_heads) = (4096, 64, 4);
        const WORDS: [&str; 8] = ["the", "cat", "sat", "on", "a", "warm", "mat", "today"];
        // A causal request of 4096 tokens × 4 heads: softmax (`None`) or linear attention.
        let request = |kind: Option<LinearKind>| {
            Params {
                input: Input::Tokens(
                    (0..seq_len)
                        .map(|i| WORDS[i % WORDS.len()].to_string())
                        .collect(),
                ),
                d_model: Some(d_model),
                n_heads,
                trace: false,
                mask: attention_core::MaskSpec::Causal,
                linear: kind.map(|kind| LinearSpec { kind, chunk: 64 }),
                block_rows: Some(16),
                block_cols: Some(16),
                ..Params::sentence("")
            }
            .validate()
            .expect("a valid request")
        };
        let config = request(Some(LinearKind::GatedDelta));
        let mut group = c.benchmark_group("linear");
        group.sample_size(10);
        group.bench_function(
            format!("outputs {seq_len}x{d_model}x{n_heads} gated delta, chunks of 64"),
            |b| b.iter(|| compute_outputs(black_box(&config))),
        );
        // What the page's workers compute for a long input's edit (every unit: the outputs and
        // the overview of A or of the weights), each kind beside softmax attention (§5).
        let kinds = [
            ("softmax", None),
            ("elu + 1", Some(LinearKind::Elu)),
            ("delta", Some(LinearKind::Delta)),
            ("gated delta", Some(LinearKind::GatedDelta)),
        ];
        for (name, kind) in kinds {
            let config = request(kind);
            group.bench_function(
                format!("summarised {seq_len}x{d_model}x{n_heads} {name}"),
                |b| b.iter(|| compute_parts_with(black_box(&config), true, &mut |_, _| {})),
            );
        }
        group.finish();
    }

    pub fn untraced(c: &mut Criterion) {
        let (seq_len, d_model, n_heads) = (4096, 64, 4);
        let config = config(seq_len, d_model, n_heads, false);
        let (outputs, peak) = peak_bytes(|| compute_outputs(&config));
        let dense = seq_len * seq_len * std::mem::size_of::<f32>();
        println!(
            "peak heap of compute_outputs at {seq_len}x{d_model}x{n_heads}: {:.2} MiB \
             (one {seq_len}² score matrix alone would be {:.0} MiB); flash vs standard max |Δ| = {:e}",
            peak as f64 / (1 << 20) as f64,
            dense as f64 / (1 << 20) as f64,
            outputs.max_abs_diff
        );
        let x = config.x();
        let w = config.weights();
        let d_k = config.dims().d_k;
        let (q, k, v) = (x.dot(&w.w_q), x.dot(&w.w_k), x.dot(&w.w_v));
        let (q, k, v) = (
            q.slice(ndarray::s![.., ..d_k]),
            k.slice(ndarray::s![.., ..d_k]),
            v.slice(ndarray::s![.., ..d_k]),
        );
        let (_, flash_peak) = peak_bytes(|| {
            flash_attention(
                q,
                k,
                v,
                &config.scoring(0),
                config.mask(),
                config.block(),
                false,
            )
        });
        println!(
            "peak heap of one untraced flash head at {seq_len}x{d_k}: {:.3} MiB (output {:.3} MiB)",
            flash_peak as f64 / (1 << 20) as f64,
            (seq_len * d_k * 4) as f64 / (1 << 20) as f64
        );

        // What the page's worker computes for a long input: every head's output, FlashAttention's,
        // and each head's overview (no n² matrix held).
        let (parts, summary_peak) =
            peak_bytes(|| compute_parts_with(&config, true, &mut |_, _| {}));
        println!(
            "peak heap of the summarised parts at {seq_len}x{d_model}x{n_heads}: {:.2} MiB \
             ({} overviews of {:?} blocks)",
            summary_peak as f64 / (1 << 20) as f64,
            parts.overviews.len(),
            parts.overviews[0].scores_max.dim(),
        );

        let mut group = c.benchmark_group("untraced");
        group.sample_size(10);
        group.bench_function(format!("summarised {seq_len}x{d_model}x{n_heads}"), |b| {
            b.iter(|| compute_parts_with(black_box(&config), true, &mut |_, _| {}))
        });
        group.bench_function(format!("outputs {seq_len}x{d_model}x{n_heads}"), |b| {
            b.iter(|| compute_outputs(black_box(&config)))
        });
        group.bench_function(format!("overview head {seq_len}x{d_k}"), |b| {
            b.iter(|| {
                attention_core::pipeline::overview::attend_overview(
                    q,
                    k,
                    v,
                    &config.scoring(0),
                    config.mask(),
                )
            })
        });
        group.bench_function(format!("flash head {seq_len}x{d_k}"), |b| {
            b.iter(|| {
                flash_attention(
                    q,
                    k,
                    v,
                    &config.scoring(0),
                    config.mask(),
                    config.block(),
                    false,
                )
            })
        });
        group.finish();
    }
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_group!(
    benches,
    native::kernel,
    native::traced,
    native::untraced,
    native::linear,
    native::model,
    native::hf_folder,
    native::circuits,
    native::decode,
    native::gpu
);
#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(benches);

#[cfg(target_arch = "wasm32")]
fn main() {}
