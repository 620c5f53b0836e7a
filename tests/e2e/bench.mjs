// Browser timing harness for the performance goal of the lab (issue 5): from a parameter change
// until every view has been recomputed and redrawn, not counting the wait for the next frame.
//
//   trunk build --release && node tests/e2e/bench.mjs [iterations]
//   BENCH_SET='{"position": {"kind": "rope"}, "softcap": 5}' node tests/e2e/bench.mjs
//     the same with more settings (any set() fields) applied to every size
//
// Views draw only on screen, so it measures at two places: the top of the page, and scrolled to
// the softmax step (the weights and the head view, the busiest views a temperature change
// redraws). For each it changes the temperature `iterations` times through window.attentionLab.set()
// and measures, in the page, from just before set() to the end of the task in which the
// reactive effects (computation and every canvas redraw) ran: a MessageChannel message is
// delivered only after those microtasks, and before the browser paints. The app's own figure
// (state().update_ms: from the change to its last redraw) is reported beside it.
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';

const iterations = Number(process.argv[2] ?? 200);
const extra = JSON.parse(process.env.BENCH_SET ?? '{}');
const sizes = [
  { seq_len: 64, d_model: 64, n_heads: 4, goal_ms: 8 },
  { seq_len: 128, d_model: 128, n_heads: 8, goal_ms: 16 },
];

const server = await serve(process.env.DIST ?? join(ROOT, 'dist'));
const browser = await launch();
const page = await browser.newPage();
await page.goto(server.url);
await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
let failed = false;
const places = [
  { name: 'top of page', selector: null },
  { name: 'softmax step', selector: '[data-testid=heatmap-weights]' },
];
for (const size of sizes) for (const place of places) {
  const result = await page.evaluate(async ({ size, iterations, selector, extra }) => {
    const words = ['the', 'cat', 'sat', 'on', 'a', 'warm', 'mat', 'today', '猫', '坐'];
    const sentence = Array.from({ length: size.seq_len }, (_, i) => words[i % words.length]).join(' ');
    const api = window.attentionLab;
    const ok = api.set({ sentence, d_model: size.d_model, n_heads: size.n_heads, n_kv_heads: size.n_heads, temperature: 1, ...extra });
    if (!ok.ok) return { error: ok.error };
    if (selector) document.querySelector(selector).scrollIntoView({ block: 'start' });
    else window.scrollTo(0, 0);
    const nextTask = () => new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = resolve;
      channel.port2.postMessage(0);
    });
    // Let the first layout settle (labels measured, canvases sized).
    for (let i = 0; i < 5; i++) { await nextTask(); await new Promise((r) => requestAnimationFrame(r)); }
    const outer = [];
    const inner = [];
    const frames = [];
    for (let i = 0; i < iterations; i++) {
      // Like a slider move: a new task, just after a frame was painted.
      await new Promise((r) => requestAnimationFrame(r));
      await nextTask();
      const temperature = 0.3 + (i % 20) / 10;
      const start = performance.now();
      api.set({ temperature });
      await nextTask();
      outer.push(performance.now() - start);
      inner.push(api.state().update_ms);
      // Until the next frame starts: includes the wait for it, so an upper bound.
      await new Promise((r) => requestAnimationFrame(r));
      frames.push(performance.now() - start);
    }
    return { outer, inner, frames, tokens: api.state().tokens.length };
  }, { size, iterations, selector: place.selector, extra });
  if (result.error) {
    console.log(`bench ${size.seq_len}/${size.d_model}/${size.n_heads}: could not set: ${result.error}`);
    failed = true;
    continue;
  }
  const outer = [...result.outer].sort((a, b) => a - b);
  const inner = [...result.inner].sort((a, b) => a - b);
  const frames = [...result.frames].sort((a, b) => a - b);
  const p95 = quantile(outer, 0.95);
  console.log(
    `update seq_len ${size.seq_len} / d_model ${size.d_model} / heads ${size.n_heads}, ${place.name} ` +
    `(${result.tokens} tokens, ${iterations} changes): ` +
    `median ${quantile(outer, 0.5).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${outer[outer.length - 1].toFixed(1)} ms ` +
    `[app's own: median ${quantile(inner, 0.5).toFixed(1)}, p95 ${quantile(inner, 0.95).toFixed(1)}; ` +
    `to the next frame, wait included: median ${quantile(frames, 0.5).toFixed(1)}] ` +
    `goal p95 < ${size.goal_ms} ms: ${p95 < size.goal_ms ? 'met' : 'NOT met'}`,
  );
}
// FlashAttention's player: one step forward at 128 tokens with 16 × 16 tiles, the view on screen.
const step = await page.evaluate(async (iterations) => {
  const words = ['the', 'cat', 'sat', 'on', 'a', 'warm', 'mat', 'today'];
  const sentence = Array.from({ length: 128 }, (_, i) => words[i % words.length]).join(' ');
  window.attentionLab.set({ sentence, d_model: 64, n_heads: 4, n_kv_heads: 4, mask: { kind: 'causal' }, block: { rows: 16, cols: 16 } });
  document.querySelector('[data-testid=flash-view]').scrollIntoView({ block: 'start' });
  const nextTask = () => new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = resolve;
    channel.port2.postMessage(0);
  });
  for (let i = 0; i < 5; i++) { await nextTask(); await new Promise((r) => requestAnimationFrame(r)); }
  const forward = document.querySelector('[data-testid=flash-forward]');
  const times = [];
  for (let i = 0; i < iterations; i++) {
    await new Promise((r) => requestAnimationFrame(r));
    await nextTask();
    const start = performance.now();
    forward.click();
    await nextTask();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)], frame: document.querySelector('[data-testid=flash-frame]').textContent };
}, Math.min(iterations, 150));
console.log(`flash step at 128 tokens, 16 × 16 tiles, view on screen: median ${step.median.toFixed(1)} ms, p95 ${step.p95.toFixed(1)} ms (${step.frame}; a frame is 16.7 ms)`);

// The trained models: a forward pass with every intermediate (3 layers, every head, the MLPs,
// the next-character predictions), GPT-2 at its context of 128 characters and the Llama model at
// its 256, timed inside the page (state().forward_ms), and the whole update until the redrawn
// views, as above.
for (const [name, characters] of [['trained', 128], ['llama', 256]]) {
  const model = await page.evaluate(async ([name, characters, iterations]) => {
    const nextTask = () => new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = resolve;
      channel.port2.postMessage(0);
    });
    const text = 'The cat sat on the mat because it was tired. 猫坐在垫子上，因为它累了。';
    const sentence = Array.from({ length: 8 }, () => text).join(' ').slice(0, characters);
    const api = window.attentionLab;
    api.set({ model: name, sentence, temperature: 1, block: { rows: 16, cols: 16 } });
    for (let i = 0; i < 600 && !(api.state().model === name && api.state().model_status === 'ready' && api.state().predictions); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!api.state().predictions) return { error: api.state().model_status };
    window.scrollTo(0, 0);
    for (let i = 0; i < 5; i++) { await nextTask(); await new Promise((r) => requestAnimationFrame(r)); }
    const forward = [];
    const outer = [];
    for (let i = 0; i < iterations; i++) {
      await new Promise((r) => requestAnimationFrame(r));
      await nextTask();
      const start = performance.now();
      api.set({ temperature: 0.5 + (i % 20) / 10 });
      await nextTask();
      outer.push(performance.now() - start);
      forward.push(api.state().forward_ms);
    }
    forward.sort((a, b) => a - b);
    outer.sort((a, b) => a - b);
    const q = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    return { characters: api.state().tokens.length, forward: [q(forward, 0.5), q(forward, 0.95)], outer: [q(outer, 0.5), q(outer, 0.95)] };
  }, [name, characters, Math.min(iterations, 100)]);
  const label = name === 'trained' ? 'trained model' : 'Llama model';
  if (model.error) {
    console.log(`${label}: could not run (${model.error})`);
    failed = true;
  } else {
    console.log(
      `${label} forward pass, every intermediate, ${model.characters} characters: median ${model.forward[0].toFixed(1)} ms, ` +
      `p95 ${model.forward[1].toFixed(1)} ms; whole update to the redrawn views: median ${model.outer[0].toFixed(1)} ms, ` +
      `p95 ${model.outer[1].toFixed(1)} ms (a frame is 16.7 ms)`,
    );
  }
}

// Generation in the page (attentionLab.generate, the core's KV-cache path in wasm): characters
// per second with the cache and without, for every shipped model (the hybrid's cache: states for
// its linear layers, keys and values for its full one), from a 16-character prompt to the end of
// each context; and the step time at a few cache lengths (the two curves).
const CONTEXTS = { trained: 128, llama: 256, 'llama-gated': 512, hybrid: 256 };
const NAMES = { trained: 'GPT-2', llama: 'Llama', 'llama-gated': 'gated Llama', hybrid: 'hybrid' };
for (const name of Object.keys(CONTEXTS)) {
  const gen = await page.evaluate(async (name) => {
    const api = window.attentionLab;
    api.set({ model: name, sentence: 'The cat sat on t', temperature: 1 });
    for (let i = 0; i < 600 && !(api.state().model_status === 'ready' && api.state().model === name); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    if (api.state().model_status !== 'ready') return { error: api.state().model_status };
    const context = { trained: 128, llama: 256, 'llama-gated': 512, hybrid: 256 }[name];
    const steps = context - 16;
    const run = (cache) => api.generate({ steps, cache, sampling: 'greedy', check: false });
    await run(true); // warm-up
    const results = {};
    for (const cache of [true, false]) {
      const r = await run(cache);
      if (!r.ok) return { error: r.error };
      const at = (n) => {
        const around = r.steps.filter((s) => Math.abs(s.cache_len - n) <= 4 || Math.abs(16 + s.step - n) <= 4);
        const ms = around.map((s) => s.ms).sort((a, b) => a - b);
        return ms[Math.floor(ms.length / 2)];
      };
      results[cache ? 'cached' : 'recompute'] = {
        chars_per_second: r.chars_per_second,
        step_ms: [32, 64, 128, context - 8].filter((n) => n < context).map((n) => [n, at(n)]),
      };
    }
    return { steps, ...results };
  }, name);
  if (gen.error) {
    console.log(`generation, ${name}: could not run (${gen.error})`);
    failed = true;
    continue;
  }
  const curve = (r) => r.step_ms.map(([n, ms]) => `${ms.toFixed(2)} ms at ${n}`).join(', ');
  console.log(
    `generation, ${NAMES[name]} model, ${gen.steps} characters after a 16-character prompt: ` +
    `with the KV cache ${gen.cached.chars_per_second.toFixed(0)} characters/s (a step: ${curve(gen.cached)}); ` +
    `without ${gen.recompute.chars_per_second.toFixed(0)} characters/s (${curve(gen.recompute)})`,
  );
}

await browser.close();

// Navigation → the first heatmap drawn, on localhost: each time in a fresh browser (no HTTP or
// code cache: a first visit), timed inside the page from the navigation's start until a heatmap
// canvas has its size (checked every frame, so up to a frame late).
const loads = [];
for (let i = 0; i < 5; i++) {
  const fresh = await launch();
  const p = await fresh.newPage();
  await p.goto(server.url);
  const ms = await p.evaluate(() => new Promise((resolve) => {
    const check = () => {
      const drawn = [...document.querySelectorAll('canvas[data-testid^="heatmap-"]')].some((c) => c.width > 0);
      if (drawn) resolve(performance.now());
      else requestAnimationFrame(check);
    };
    check();
  }));
  loads.push(ms);
  await fresh.close();
}
loads.sort((a, b) => a - b);
console.log(
  `navigation → first drawn heatmap, localhost, a fresh browser each time (${loads.length} loads): ` +
  `median ${quantile(loads, 0.5).toFixed(0)} ms, max ${loads[loads.length - 1].toFixed(0)} ms (goal < 1 s)`,
);

server.close();
process.exit(failed ? 1 : 0);
