//! A generation's state, shared by the Generate view's parts: the settings (steps, cache,
//! sampling), the decoder under way, the steps taken and the one on view; and how steps are
//! taken, a frame's budget at a time (or one per pace while playing), the page drawing in between.
//! A user's model held by its worker generates there, a step asked for at a time; its steps are
//! checked against a recompute only at the end of each run asked for (a recompute of the whole
//! text is a forward pass of the model: a second for GPT-2 small), the lab's own at every step.

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;

use super::in_worker::{self, Stepper};
use crate::ui::browser::clock::now_ms;
use crate::ui::i18n::model_errors::ModelProblem;
use crate::ui::logic::link::GenerationView;
use crate::ui::state::model::trained_request;
use crate::ui::state::{Generated, Lab};
use attention_core::api::generation_input;
use attention_core::models::generate::{Decoder, GenerateSpec, Sampling, Step};
use attention_core::models::{Model, ModelConfig};

/// Steps run back to back for this long before the page draws (when not paced).
const FRAME_BUDGET_MS: f64 = 12.0;

/// The trained model in use, when loaded.
pub fn model(lab: Lab) -> Option<Arc<Model>> {
    crate::ui::state::model::in_use(lab.request, lab.model_status)
}

/// A number in [0, 1) for sampling seeds: random in the browser, fixed elsewhere.
pub fn random_draw() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Math::random()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.5
    }
}

/// A generation under way: the model it runs and where its decoder is.
pub struct Run {
    pub model: Arc<Model>,
    pub stepper: Stepper,
    pub cache: bool,
    /// Every step checked against a recompute of the whole text (the lab's own models); else
    /// only the last of each run asked for (a model folder's: a recompute is a whole forward
    /// pass of it).
    pub check_each: bool,
}

/// Everything the Generate view's parts read and change (reactive, so `Copy`).
#[derive(Clone, Copy)]
pub struct Generation {
    pub lab: Lab,
    /// Characters asked for.
    pub asked: RwSignal<usize>,
    pub cache: RwSignal<bool>,
    /// The sampling temperature (0: the likeliest character each time) and its seed.
    pub sampling: RwSignal<f64>,
    pub seed: StoredValue<u64>,
    pub run: StoredValue<Option<Run>, LocalStorage>,
    pub steps: RwSignal<Vec<Step>>,
    /// The prompt's characters.
    pub prompt: RwSignal<Vec<String>>,
    /// The step the scrubber shows (`None`: the latest).
    pub shown: RwSignal<Option<usize>>,
    /// Steps to take before stopping.
    pub target: RwSignal<usize>,
    pace: StoredValue<Duration>,
    ticking: StoredValue<bool>,
    /// The worker refused or lost a generation: the page generates from now on.
    page_only: StoredValue<bool>,
    /// Why it cannot generate, worded in the reader's language when shown.
    pub error: RwSignal<Option<ModelProblem>>,
    /// Measured: (steps, ms) with the cache and without, for the latest run of each.
    pub speed: RwSignal<[Option<(usize, f64)>; 2]>,
    /// The strip cell under the pointer: layer, head, position.
    pub hover: RwSignal<Option<(usize, usize, usize)>>,
    pub playing: RwSignal<bool>,
}

impl Generation {
    /// A generation of `lab`'s trained model, its settings as the link gave them.
    pub fn new(lab: Lab) -> Self {
        let linked = lab.generation.get_untracked();
        Self {
            lab,
            asked: RwSignal::new(if linked.steps > 0 { linked.steps } else { 40 }),
            cache: RwSignal::new(true),
            sampling: RwSignal::new(linked.temperature),
            seed: StoredValue::new(linked.seed),
            run: StoredValue::new_local(None),
            steps: RwSignal::new(Vec::new()),
            prompt: RwSignal::new(Vec::new()),
            shown: RwSignal::new(None),
            target: RwSignal::new(0),
            pace: StoredValue::new(Duration::ZERO),
            ticking: StoredValue::new(false),
            page_only: StoredValue::new(false),
            error: RwSignal::new(None),
            speed: RwSignal::new([None; 2]),
            hover: RwSignal::new(None),
            playing: RwSignal::new(false),
        }
    }

    /// Steps taken.
    pub fn taken(self) -> usize {
        self.steps.with(Vec::len)
    }

    /// The step on view: the scrubber's, or the latest.
    pub fn at(self) -> Option<usize> {
        let n = self.taken();
        self.shown.get().filter(|&s| s < n).or(n.checked_sub(1))
    }

    /// The model's numbers, when it is loaded.
    pub fn config(self) -> Option<ModelConfig> {
        model(self.lab).map(|m| m.config)
    }

    /// The prompt's characters and the generated ones.
    pub fn characters(self) -> Vec<String> {
        let mut all = self.prompt.get();
        self.steps
            .with(|s| all.extend(s.iter().map(|s| s.token.clone())));
        all
    }

    /// Positions cached at the step on view.
    pub fn cached_now(self) -> usize {
        self.at().map_or(0, |i| self.prompt.with(Vec::len) + i + 1)
    }

    /// Forgets the run: nothing generated, nothing on view.
    pub fn reset(self) {
        // A run in the worker ticks when its step is answered, which is now ignored: nothing
        // ticks any more. (A run on the page ticks until it finds no run.)
        let in_worker = self.in_worker();
        if in_worker {
            self.ticking.set_value(false);
        }
        // Nothing plays on (a step in flight is dropped with its run), and the next run tries
        // the model's worker again.
        if self.playing.get_untracked() {
            self.playing.set(false);
        }
        self.page_only.set_value(false);
        self.run.set_value(None);
        // Only what holds something is cleared: a new sentence typed (each character resets
        // the run) must not wake every view of the generator when nothing was generated.
        if self.steps.with_untracked(|s| !s.is_empty()) {
            self.steps.set(Vec::new());
        }
        if self.prompt.with_untracked(|p| !p.is_empty()) {
            self.prompt.set(Vec::new());
        }
        if self.shown.with_untracked(Option::is_some) {
            self.shown.set(None);
        }
        if self.target.get_untracked() != 0 {
            self.target.set(0);
        }
        if self.error.with_untracked(Option::is_some) {
            self.error.set(None);
        }
        if self.hover.with_untracked(Option::is_some) {
            self.hover.set(None);
        }
    }

    /// A fresh seed, for a run about to start with sampling.
    pub fn draw_seed(self) {
        if self.run.with_value(Option::is_none) && self.sampling.get_untracked() > 0.0 {
            self.seed.set_value((random_draw() * 1e15) as u64);
        }
    }

    /// Keeps what was generated in links (regenerating it gives the same characters).
    pub fn keep_link(self) {
        let taken = self.steps.with_untracked(Vec::len);
        let t = self.sampling.get_untracked();
        let view = GenerationView {
            steps: taken,
            temperature: if taken > 0 { t } else { 0.0 },
            seed: if taken > 0 && t > 0.0 {
                self.seed.get_value()
            } else {
                0
            },
        };
        if self.lab.generation.get_untracked() != view {
            self.lab.generation.set(view);
        }
    }

    /// The decoder for the current sentence, model and settings, the prompt prefilled; `false`
    /// (with the reason in `error`) when none can start.
    fn start(self) -> bool {
        if self.run.with_value(Option::is_some) {
            return true;
        }
        let Some(model) = model(self.lab) else {
            self.error.set(Some(ModelProblem::NeedModel));
            return false;
        };
        let request = trained_request(&self.lab.request.get_untracked());
        let t = self.sampling.get_untracked();
        let spec = GenerateSpec {
            steps: self.asked.get_untracked(),
            cache: self.cache.get_untracked(),
            sampling: if t > 0.0 {
                Sampling::Temperature {
                    temperature: t,
                    seed: self.seed.get_value(),
                }
            } else {
                Sampling::Greedy
            },
            check: true,
        };
        let input = generation_input(&request).map_err(ModelProblem::Refused);
        let check_each = request.model.as_ref().and_then(|m| m.folder()).is_none();
        if !self.page_only.get_value() {
            let on = move |answer| self.answered(answer);
            match in_worker::start(self.lab.model_jobs, &model, &request, &spec, &input, on) {
                Some(Ok((prompt, stepper))) => {
                    self.started(&model, &prompt, &spec);
                    self.run.set_value(Some(Run {
                        model,
                        stepper,
                        cache: spec.cache,
                        check_each,
                    }));
                    return true;
                }
                Some(Err(problem)) => {
                    self.error.set(Some(problem));
                    return false;
                }
                None => {}
            }
        }
        let decoder = input.and_then(|(sentence, temperature)| {
            Decoder::new(&model, &sentence, &spec, temperature, &now_ms)
                .map_err(ModelProblem::Generate)
        });
        match decoder {
            Ok(decoder) => {
                self.started(&model, decoder.prompt(), &spec);
                self.run.set_value(Some(Run {
                    model,
                    stepper: Stepper::Page(Box::new(decoder)),
                    cache: spec.cache,
                    check_each,
                }));
                true
            }
            Err(message) => {
                self.error.set(Some(message));
                false
            }
        }
    }

    /// A run started: its prompt shown, its speed slot cleared, no error.
    fn started(self, model: &Model, prompt: &[u32], spec: &GenerateSpec) {
        self.prompt.set(
            prompt
                .iter()
                .map(|&id| model.vocab[id as usize].clone())
                .collect(),
        );
        let slot = usize::from(!spec.cache);
        self.speed.update(|s| s[slot] = None);
        self.error.set(None);
    }

    /// What the worker said of the run's step asked for.
    fn answered(self, answer: Generated) {
        match answer {
            Generated::Failed => return self.again_on_page(),
            // Its model was replaced in the worker: the run is over.
            Generated::Dropped => return self.reset(),
            Generated::Step(_) => {}
        }
        let mut stepped = None;
        let mut slot = 0;
        let ours = self
            .run
            .try_update_value(|run| {
                let Some(Run {
                    stepper:
                        Stepper::Worker {
                            taken,
                            waiting,
                            done,
                            ..
                        },
                    cache,
                    ..
                }) = run.as_mut()
                else {
                    return false;
                };
                slot = usize::from(!*cache);
                *waiting = false;
                match answer {
                    Generated::Step(Some(step)) => {
                        *taken += 1;
                        stepped = Some(step);
                    }
                    Generated::Step(None) => *done = true,
                    Generated::Failed | Generated::Dropped => {}
                }
                true
            })
            .unwrap_or(false);
        if !ours {
            return;
        }
        if let Some(step) = stepped {
            self.speed.update(|s| {
                let (n, total) = s[slot].unwrap_or((0, 0.0));
                s[slot] = Some((n + 1, total + step.ms));
            });
            self.steps.update(|s| s.push(step));
        }
        // Unpaced, the next step is asked for at once: the worker computes it while the page
        // draws this one.
        match self.pace.get_value() {
            Duration::ZERO => self.tick(),
            pace => set_timeout(move || self.tick(), pace),
        }
    }

    /// The worker stopped or refused the run: the page runs it again from its start, with the
    /// same settings and seed (so the same characters), and generates from now on.
    fn again_on_page(self) {
        let worker_run = self.in_worker();
        if !worker_run {
            return;
        }
        self.page_only.set_value(true);
        // A run already over stays on view; asking it for more steps finds the worker gone
        // and comes back here, ticking.
        if !self.ticking.get_value() {
            return;
        }
        self.run.set_value(None);
        self.steps.set(Vec::new());
        self.ticking.set_value(false);
        self.go(self.target.get_untracked(), self.pace.get_value());
    }

    /// Generates up to `to` steps, `step_pace` apart (zero: a frame's budget at a time).
    pub fn go(self, to: usize, step_pace: Duration) {
        if !self.start() {
            return;
        }
        self.target.set(to);
        self.pace.set_value(step_pace);
        self.shown.set(None);
        if !self.ticking.get_value() {
            self.ticking.set_value(true);
            set_timeout(move || self.tick(), Duration::ZERO);
        }
    }

    /// Steps until the target, a frame's budget at a time (or one per pace while playing); in
    /// the worker, one step asked for at a time (its answer ticks again).
    fn tick(self) {
        let began = now_ms();
        let mut taken = Vec::new();
        let mut slot = 0;
        let wanted = self.target.get_untracked();
        let jobs = self.lab.model_jobs;
        let mut lost = false;
        let more = self
            .run
            .try_update_value(|run| {
                let Some(run) = run.as_mut() else {
                    return false;
                };
                slot = usize::from(!run.cache);
                match &mut run.stepper {
                    Stepper::Page(decoder) => {
                        while decoder.taken() < wanted {
                            let last = decoder.taken() + 1 >= wanted.min(decoder.asked());
                            let check = run.check_each || last;
                            let Some(step) = decoder.step_checked(&run.model, &now_ms, check)
                            else {
                                break;
                            };
                            taken.push(step);
                            if self.pace.get_value() > Duration::ZERO
                                || now_ms() - began > FRAME_BUDGET_MS
                            {
                                break;
                            }
                        }
                        decoder.taken() < wanted && !decoder.done()
                    }
                    Stepper::Worker {
                        id,
                        steps,
                        taken,
                        waiting,
                        done,
                    } => {
                        if *done || *taken >= wanted.min(*steps) {
                            return false;
                        }
                        if !*waiting {
                            // The last step of what was asked for is checked.
                            let check = *taken + 1 == wanted.min(*steps);
                            *waiting = jobs.step(*id, check);
                            lost = !*waiting;
                        }
                        // Its answer ticks again.
                        true
                    }
                }
            })
            .unwrap_or(false);
        if lost {
            return self.again_on_page();
        }
        if !taken.is_empty() {
            let ms: f64 = taken.iter().map(|s| s.ms).sum();
            self.speed.update(|s| {
                let (n, total) = s[slot].unwrap_or((0, 0.0));
                s[slot] = Some((n + taken.len(), total + ms));
            });
            self.steps.update(|s| s.extend(taken));
        }
        let in_worker = self.in_worker();
        if more && in_worker {
            // The worker's answer ticks again.
        } else if more {
            set_timeout(move || self.tick(), self.pace.get_value());
        } else {
            self.ticking.set_value(false);
            self.playing.set(false);
            self.keep_link();
        }
    }

    /// Whether the run under way steps in the model's worker.
    fn in_worker(self) -> bool {
        self.run.with_value(|r| {
            r.as_ref()
                .is_some_and(|r| matches!(r.stepper, Stepper::Worker { .. }))
        })
    }

    /// Whether the run under way has generated all it will.
    pub fn done(self) -> bool {
        self.run
            .with_value(|r| r.as_ref().is_some_and(|r| r.stepper.done()))
    }
}
