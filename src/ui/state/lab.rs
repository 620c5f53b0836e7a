//! The lab's reactive state: the parameters (a [`Request`], named as in the trace CLI), what the
//! user looks at, and the trace computed from them. Shared by every view and by
//! `window.attentionLab` through the Leptos context.

use leptos::prelude::*;

use super::cpu_jobs::CpuJobs;
use super::gpu_jobs::GpuJobs;
use super::imported::{self, ImportedFile, RunRef};
use super::model::{self, ForwardRef, ModelKey, ModelStatus, pass_request};
use super::model_jobs::ModelJobs;
use super::outcome::{Outcome, Timing, compute, trained_outcome};
use crate::ui::browser::clock::now_ms;
use crate::ui::i18n::{EXAMPLES, Lang};
use crate::ui::logic::TraceRef;
use crate::ui::logic::backend::{
    ChosenBackend, Fallback, FallbackReason, GpuStatus, ModelPass, choice, choose, computes_later,
};
use crate::ui::logic::colormap::ScaleMode;
use crate::ui::logic::fit::{fit_custom_mask, fit_sink_logits};
use crate::ui::logic::lesson::Progress;
use crate::ui::logic::link::{Embed, LinkNotice};
use crate::ui::logic::notice::Notice;
use crate::ui::logic::stages::Stage;
use crate::ui::logic::theme::Theme;
use attention_core::api::{ModelChoice, Request, RequestError};
use attention_core::pipeline::overview::{FULL_HEAD_CELLS, Reduction};
use attention_core::teaching::Chapter;

/// The cell a tooltip explains.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActiveCell {
    pub stage: Stage,
    pub head: usize,
    pub row: usize,
    pub col: usize,
    /// Where to point the tooltip, in viewport coordinates.
    pub x: f64,
    pub y: f64,
    /// `row` and `col` are blocks of an overview, not cells.
    pub block: bool,
}

/// The lab's reactive state, shared by the views and `window.attentionLab`.
#[derive(Clone, Copy)]
pub struct Lab {
    /// Every parameter, as the trace CLI names them.
    pub request: RwSignal<Request>,
    pub lang: RwSignal<Lang>,
    pub theme: RwSignal<Theme>,
    /// Whether the system asks for dark colours (what "auto" follows), kept current by the page.
    pub system_dark: RwSignal<bool>,
    /// The head the per-head views show (clamped to the number of heads when read).
    pub head: RwSignal<usize>,
    /// The latest computation, valid or not.
    pub outcome: Memo<Outcome>,
    /// The latest valid trace: what the views show while the input is invalid.
    pub shown: Memo<Option<TraceRef>>,
    /// The shown trace's number of heads (1 without a trace): what the head's readers follow,
    /// so that a new trace with as many heads does not wake them.
    head_count: Memo<usize>,
    /// A refusal from `attentionLab.set`, or a note about an adjusted control; shown until the
    /// next change.
    pub notice: RwSignal<Option<Notice>>,
    /// The cell under the pointer or the keyboard cursor.
    pub active: RwSignal<Option<ActiveCell>>,
    pub timing: StoredValue<Timing>,
    /// The GPU of the session.
    pub gpu: RwSignal<GpuStatus>,
    pub jobs: GpuJobs,
    /// Large traces the CPU computes after a paint, newest request first.
    pub cpu_jobs: CpuJobs,
    /// The FlashAttention player's position (a frame index).
    pub flash_step: RwSignal<usize>,
    /// The query block the player replays when the input is long (a summarised trace).
    pub flash_block: RwSignal<usize>,
    /// The part of the page in view (a step's id), for links.
    pub view: RwSignal<Option<String>>,
    /// What a link could not use: shown until dismissed.
    pub link_notices: RwSignal<Vec<LinkNotice>>,
    /// Set when the lab is embedded in another page (`?embed=1`).
    pub embed: RwSignal<Option<Embed>>,
    /// Honest colour scales, or each matrix's own range.
    pub scale_mode: RwSignal<ScaleMode>,
    /// Whether exported images carry a title line (the matrix, the sentence, the settings).
    pub export_titles: RwSignal<bool>,
    /// The trained model: not asked for, loading, ready, or failed.
    pub model_status: RwSignal<ModelStatus>,
    /// The trained model's forward pass on the current sentence, when it is chosen and loaded
    /// (a user's model's: the last one its worker finished while it computes the next).
    pub forward: Memo<Option<Result<ForwardRef, RequestError>>>,
    /// A user's model's forward passes, computed in a worker of its own.
    pub model_jobs: ModelJobs,
    /// The trained model's layer the pipeline shows (clamped to its layers when read).
    pub layer: RwSignal<usize>,
    /// The Learn mode's chapter; `None` shows the full lab.
    pub lesson: RwSignal<Option<Chapter>>,
    /// What the Generate view generated (kept in links).
    pub generation: RwSignal<crate::ui::logic::link::GenerationView>,
    /// Presentation mode: large type, the chapter filling the screen, arrow keys to move.
    pub presenting: RwSignal<bool>,
    /// What the lessons look at: the query (from 0, clamped; at first the last token, which sees
    /// the most keys under a causal mask; the head is `head`) and the stability chapter's factor k.
    pub lesson_query: RwSignal<usize>,
    pub lesson_factor: RwSignal<f32>,
    /// The stability chapter's shift c, added to every score (softmax does not change).
    pub lesson_shift: RwSignal<f32>,
    /// The weight "Why here?" takes apart, (query, key), if it is open.
    pub why: RwSignal<Option<(usize, usize)>>,
    /// The learner's answers and chapters seen (kept in local storage by `bridge::progress`).
    pub progress: RwSignal<Progress>,
    /// A long input's zoomed region: its first query and first key (clamped when read).
    pub zoom: RwSignal<(usize, usize)>,
    /// How an overview's blocks are reduced to one value.
    pub reduction: RwSignal<Reduction>,
    /// A user's own attention, read from a file; while it is here the page shows it instead of
    /// what the lab computes (`None`: the lab's own numbers).
    pub imported: RwSignal<Option<ImportedFile>>,
    /// What the page shows of that file: its weights, or every head computed from its Q and K
    /// under the request's mask, temperature and tiles.
    pub imported_run: Memo<Option<Result<RunRef, RequestError>>>,
    /// Each imported head's roles and entropy (`[layer][head]`), computed once for every view
    /// that shows them.
    pub imported_roles: Memo<Option<Vec<Vec<attention_core::io::head_roles::ImportedRoles>>>>,
    /// How the file is looked at: special tokens hidden, a mean over heads or layers.
    pub import_view: RwSignal<imported::ImportView>,
    /// The opener's last word: a file being read or refused.
    pub open_status: RwSignal<Option<imported::OpenStatus>>,
    /// The address the open file was fetched from (`src=` in a link, or an element's `src`):
    /// links carry it, so the file opens again where that address can be fetched.
    pub imported_src: RwSignal<Option<String>>,
    /// The address the user's model folder was fetched from (`model_src=` in a link, or the
    /// element's `model-src`): links carry it, so the model opens again where it can be fetched.
    pub model_src: RwSignal<Option<String>>,
    /// Tokens typed beside a file (for a `.npy`, or to replace the file's own).
    pub import_tokens: RwSignal<String>,
}

impl Lab {
    pub fn new(request: Request, lang: Lang) -> Self {
        let request = RwSignal::new(request);
        let timing = StoredValue::new(Timing::default());
        let gpu = RwSignal::new(GpuStatus::Probing);
        let jobs = GpuJobs::new();
        let cpu_jobs = CpuJobs::new();
        let model_status = RwSignal::new(ModelStatus::Idle);
        let layer = RwSignal::new(0usize);
        // The trained model's forward pass: only what it reads (the sentence, mask, temperature
        // and tiles, and whether its attention is asked of the GPU; not the random shape, the
        // layer or the head looked at) makes it run again.
        // `None` while the model is not loaded.
        let trained_input =
            Memo::new(move |_| request.with(|r| r.is_trained().then(|| pass_request(r))));
        let model_jobs = ModelJobs::default();
        let forward = Memo::new(move |_| {
            let current = trained_input.get()?;
            // Only the model asked for: the other layout may still be in place for a moment.
            let gpt = model_status.with(|s| s.ready(ModelKey::of(&current).as_ref()).cloned())?;
            if model_jobs.serves(&gpt) {
                return model_jobs.last(&current).map(|(result, _)| result);
            }
            Some(model::run(&gpt, &current))
        });
        // A user's model: each new input to its worker (the last pass stays on view meanwhile).
        Effect::new(move |_| {
            let Some(current) = trained_input.get() else {
                return;
            };
            let key = ModelKey::of(&current);
            let Some(gpt) = model_status.with(|s| s.ready(key.as_ref()).cloned()) else {
                return;
            };
            if model_jobs.serves(&gpt) && !matches!(model_jobs.last(&current), Some((_, true))) {
                untrack(|| model_jobs.schedule(current, gpt));
            }
        });
        // The chosen layer's attention (no FlashAttention steps: the tile player replays the head
        // it shows), and how long its forward pass took (the badge's time: the pass, wherever it
        // ran, not this layer's copy): again only when the pass or the layer changes.
        let trained_trace = Memo::new(move |_| {
            forward.get().map(|run| {
                run.map(|run| {
                    let last = run.0.layers.len().saturating_sub(1);
                    let layer = &run.0.layers[layer.get().min(last)];
                    (TraceRef::new(layer.attention.clone()), run.1)
                })
            })
        });
        let outcome = Memo::new(move |previous: Option<&Outcome>| {
            let current = request.get();
            if current.is_trained() {
                let computing = model_jobs.busy.get();
                let trace = trained_trace.get();
                // Where the pass on view was computed: a folder's model's worker, or the page.
                let pass = match model::in_use(request, model_status) {
                    Some(gpt) if model_jobs.serves(&gpt) => model_jobs.pass.get(),
                    _ if matches!(current.model, Some(ModelChoice::Folder(_))) => {
                        ModelPass::PageFolder
                    }
                    _ => ModelPass::Page,
                };
                return trained_outcome(trace, &current, &pass, previous, timing, computing);
            }
            let (queries, keys) = current.lengths(); // One tokenisation per change.
            let tokens = queries.unwrap_or(0);
            let previous_trace = previous.and_then(|o| o.result.as_ref().ok());
            let heads = current
                .n_heads
                .unwrap_or(attention_core::pipeline::config::DEFAULT_N_HEADS);
            let keys = keys.unwrap_or(tokens);
            // The GPU returns every n² matrix: a long input, summarised, is the CPU's.
            let backend = match gpu.with(|status| choose(choice(&current), status, tokens)) {
                ChosenBackend::Gpu if tokens.saturating_mul(keys) > FULL_HEAD_CELLS => {
                    ChosenBackend::Cpu(Some(Fallback::new(FallbackReason::TooLarge, "")))
                }
                backend => backend,
            };
            let later = previous_trace.is_some() && computes_later(heads, tokens, keys);
            let outcome = match backend {
                // A large trace: the last result, marked pending, until the CPU job answers.
                ChosenBackend::Cpu(fallback) if later => match cpu_jobs.done.get() {
                    Some((answered, outcome)) if answered == current => Outcome {
                        fallback,
                        ..outcome
                    },
                    _ => Outcome {
                        pending: true,
                        later: true,
                        fallback,
                        ..previous.cloned().unwrap_or_else(|| compute(&current, None))
                    },
                },
                ChosenBackend::Cpu(fallback) => Outcome {
                    fallback,
                    ..compute(&current, previous_trace.map(|t| &t.0.config))
                },
                ChosenBackend::Gpu => match jobs.done.get() {
                    Some((answered, outcome)) if answered == current => outcome,
                    // Until the GPU answers: the last result, marked pending (or the CPU's,
                    // when there is none yet to show).
                    _ => match previous {
                        Some(previous) if previous.result.is_ok() => Outcome {
                            pending: true,
                            ..previous.clone()
                        },
                        _ => Outcome {
                            pending: true,
                            ..compute(&current, None)
                        },
                    },
                },
            }
            .knocked_out(&current);
            // Time from the change (or, for the first computation, from now) to the result.
            timing.update_value(|timing| {
                if timing.started_ms == 0.0 {
                    timing.started_ms = outcome.started_ms;
                }
                timing.update_ms = now_ms() - timing.started_ms;
            });
            outcome
        });
        let shown =
            Memo::new(
                move |previous: Option<&Option<TraceRef>>| match outcome.get().result {
                    Ok(trace) => Some(trace),
                    Err(_) => previous.cloned().flatten(),
                },
            );
        let imported_file = RwSignal::new(None::<ImportedFile>);
        // Only the mask, the temperature and the tiles reach a file's Q and K.
        let import_settings = Memo::new(move |_| request.with(imported::settings_of));
        let import_view = RwSignal::new(imported::ImportView::default());
        let imported_run = Memo::new(move |_| {
            let view = import_view.get();
            imported_file.with(|file| {
                let file = file.as_ref()?;
                Some(if file.from_vectors() {
                    import_settings.with(|settings| imported::run(file, settings, view))
                } else {
                    imported::run(file, &Ok(Default::default()), view)
                })
            })
        });
        let head_count = Memo::new(move |_| {
            let imported = imported_run.with(|r| match r {
                Some(Ok(run)) => Some(run.0.head_count()),
                _ => None,
            });
            imported.unwrap_or_else(|| shown.with(|t| t.as_ref().map_or(1, |t| t.0.heads.len())))
        });
        let lab = Self {
            request,
            lang: RwSignal::new(lang),
            theme: RwSignal::new(Theme::Auto),
            system_dark: RwSignal::new(false),
            head: RwSignal::new(0),
            outcome,
            shown,
            head_count,
            notice: RwSignal::new(None),
            active: RwSignal::new(None),
            timing,
            gpu,
            jobs,
            cpu_jobs,
            flash_step: RwSignal::new(0),
            flash_block: RwSignal::new(0),
            view: RwSignal::new(None),
            link_notices: RwSignal::new(Vec::new()),
            embed: RwSignal::new(None),
            scale_mode: RwSignal::new(ScaleMode::Honest),
            export_titles: RwSignal::new(true),
            model_status,
            forward,
            model_jobs,
            layer,
            lesson: RwSignal::new(None),
            generation: RwSignal::new(Default::default()),
            presenting: RwSignal::new(false),
            lesson_query: RwSignal::new(usize::MAX),
            why: RwSignal::new(None),
            lesson_factor: RwSignal::new(1.0),
            lesson_shift: RwSignal::new(0.0),
            progress: RwSignal::new(Progress::default()),
            zoom: RwSignal::new((0, 0)),
            reduction: RwSignal::new(Reduction::Max),
            imported: imported_file,
            imported_src: RwSignal::new(None),
            model_src: RwSignal::new(None),
            imported_run,
            import_view,
            imported_roles: Memo::new(move |_| {
                imported_run.with(|r| match r {
                    Some(Ok(run)) => Some(run.0.roles()),
                    _ => None,
                })
            }),
            open_status: RwSignal::new(None),
            import_tokens: RwSignal::new(String::new()),
        };
        // Pending work goes to the GPU. The request is tracked too: a change made while the GPU
        // is busy leaves the outcome as it was (the last result, pending) but must be queued.
        Effect::new(move |_| {
            let current = request.get();
            if current.is_trained() {
                return; // A trained model's passes are the model's (above), not these queues'.
            }
            match outcome.with(|o| (o.pending, o.later)) {
                (true, true) => cpu_jobs.schedule(current, shown),
                (true, false) => jobs.schedule(current, shown, gpu),
                _ => {}
            }
        });
        lab
    }

    /// The colours in use: light or dark ("auto" resolved by the system's preference). Canvases
    /// that draw in the theme's ink redraw when it changes.
    pub fn scheme(&self) -> Theme {
        self.theme.get().resolved(self.system_dark.get())
    }

    /// The lab's opening state: the first example sentence and the CLI's defaults.
    pub fn default_request() -> Request {
        Self::default_request_in(Lang::En)
    }

    /// The opening state of a page in `lang`: an example sentence in that language.
    pub fn default_request_in(lang: Lang) -> Request {
        Request {
            sentence: Some(default_sentence(lang).to_string()),
            ..Request::default()
        }
    }

    /// Switches the language; a sentence still at the other language's default follows it, so
    /// a Chinese page shows a Chinese sentence and an English one an English sentence.
    pub fn switch_language(&self, lang: Lang) {
        let old = self.lang.get_untracked();
        if old == lang {
            return;
        }
        let untouched = self
            .request
            .with_untracked(|r| r.sentence.as_deref() == Some(default_sentence(old)));
        self.lang.set(lang);
        if untouched {
            self.change(Request {
                sentence: Some(default_sentence(lang).to_string()),
                ..Request::default()
            });
        }
    }

    /// Applies a change of parameters from a control. A custom mask follows the sentence:
    /// when the number of tokens changes, cells are kept where they still exist and new ones allowed.
    pub fn change(&self, update: Request) {
        self.change_clearing(update, &[]);
    }

    /// [`Lab::change`], with the fields in `cleared` put back to their defaults (`set()`'s
    /// nulls).
    pub fn change_clearing(&self, update: Request, cleared: &[&str]) {
        let mask_given = update.mask.is_some();
        let model_changed = update.model.is_some();
        self.edit(|request| {
            *request = request.merged_clearing(&update, cleared);
            if !mask_given {
                fit_custom_mask(request);
            }
            fit_sink_logits(request, model_changed);
        });
    }

    /// Changes the parameters with `edit`, which may also clear a field (back to its default),
    /// timing the update and clearing the last notice.
    pub fn edit(&self, edit: impl FnOnce(&mut Request)) {
        self.timing.set_value(Timing {
            started_ms: now_ms(),
            update_ms: 0.0,
        });
        if self.notice.with_untracked(Option::is_some) {
            self.notice.set(None);
        }
        self.request.update(edit);
    }

    /// Why the current input cannot be computed, if it cannot.
    pub fn error(&self) -> Option<RequestError> {
        self.outcome.with(|o| o.result.as_ref().err().cloned())
    }

    /// [`Lab::selected_head`] without subscribing to it.
    pub fn selected_head_untracked(&self) -> usize {
        untrack(|| self.selected_head())
    }

    /// The selected head, within the shown trace's heads.
    pub fn selected_head(&self) -> usize {
        self.head.get().min(self.head_count.get().saturating_sub(1))
    }

    /// Whether the page shows a user's own attention rather than the lab's numbers.
    pub fn is_imported(&self) -> bool {
        self.imported.with(Option::is_some)
    }

    /// The imported file's run, when it could be shown under the current settings.
    pub fn imported_ok(&self) -> Option<RunRef> {
        self.imported_run
            .with(|r| r.as_ref().and_then(|r| r.as_ref().ok()).cloned())
    }

    /// Shows `file` (from the first layer and head), or goes back to the lab's own numbers.
    pub fn show_imported(&self, file: Option<ImportedFile>) {
        if file.is_some() {
            self.layer.set(0);
            self.head.set(0);
        }
        self.notice.set(None);
        self.open_status.set(None);
        self.imported_src.set(None);
        self.import_view.set(Default::default());
        self.imported.set(file);
    }

    /// Records that a view finished redrawing now.
    pub fn drawn(&self) {
        self.timing.update_value(|timing| {
            timing.update_ms = timing.update_ms.max(now_ms() - timing.started_ms);
        });
    }
}

/// The example sentence a page in `lang` opens on.
pub fn default_sentence(lang: Lang) -> &'static str {
    match lang {
        Lang::En => EXAMPLES[0],
        Lang::Zh => EXAMPLES[1],
    }
}
