// The page with a user's model of GPT-2 small's shape (124 M parameters, made by
// tools/hf/make_fixtures.py --gpt2-small DIR; HF_BENCH_FOLDER=DIR): the folder picked, how long
// it takes to open, a 64-token forward pass (in the model's worker: the worker's own time and the
// page's, from the edit to the pass put together), a typed character's frame while the model
// computes against a bare text box's, and generation with the KV cache (attentionLab.generate's
// chars_per_second, here tokens per second), with the memory of the page's and the worker's
// modules, and for a folder with rotary positions its streaming in the worker. Not part of the
// test command: the folder is 475 MB and made by hand.
//
// HF_BENCH_FOLDER=/tmp/gpt2-small node tests/e2e/own_model_bench.mjs   (after trunk build --release)
// HF_BENCH_FOLDER=/tmp/llama-1b BENCH_TYPING_ONLY=1 node tests/e2e/own_model_bench.mjs
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';
import { quantile, styledBareBox, typeCharacters, typeCharactersPaced } from './typing.mjs';

const DIST = process.env.DIST ?? join(ROOT, 'dist');
const FOLDER = process.env.HF_BENCH_FOLDER;
if (!FOLDER) {
  console.log('set HF_BENCH_FOLDER to a folder made by tools/hf/make_fixtures.py --gpt2-small DIR');
  process.exit(0);
}
const server = await serve(DIST);
const context = await launch();
const page = await context.newPage();
await page.goto(server.url);
await page.waitForFunction(() => window.attentionLab?.state?.().tokens);
const opened = Date.now();
await page.setInputFiles('[data-testid=own-model-folder]', FOLDER);
await page.waitForFunction(() => window.attentionLab.state().source === 'model', null, { timeout: 600000 });
console.log(`opened in ${((Date.now() - opened) / 1000).toFixed(1)} s`);
// 64 tokens of the byte-level tokenizer: "The cat sat on the mat. " reads 8 tokens.
const sentence = 'The cat sat on the mat. '.repeat(8).trim();
const variants = [sentence, sentence.replace('cat', 'dog'), sentence.replace('mat', 'rug')];
for (const text of variants) {
  const started = Date.now();
  await page.evaluate((t) => window.attentionLab.set({ sentence: t }), text);
  await page.waitForFunction((t) => {
    const s = window.attentionLab.state();
    return s.sentence === t && !s.pending && s.forward_ms > 0 && s.tokens.join('').length > 0;
  }, text, { timeout: 600000 });
  const s = await page.evaluate(() => window.attentionLab.state());
  console.log(`forward pass, ${s.tokens.length} tokens, every layer traced: ${s.forward_worker_ms?.toFixed(0)} ms in the worker (model_in_worker ${s.model_in_worker}), ${s.forward_ms.toFixed(0)} ms with putting it together in the page; the edit drawn after ${Date.now() - started} ms; wasm memory: the page's ${(s.wasm_memory_bytes / 1e6).toFixed(0)} MB, the worker's ${(s.model_worker_memory_bytes / 1e6).toFixed(0)} MB`);
}

// A typed character's frame, measured as tests/e2e/typing_bench.mjs measures it: 40 characters
// typed at the end of the sentence box, each after the previous frame was painted, from the
// input event to the first task after the next frame; against a bare text box styled as the
// lab's (width, height, padding, font), holding the same text, focused, in turns, three rounds.
// While the lab types, the model's worker computes the pass of each new sentence and the passes
// land (each put together and drawn on the page's thread) between characters.
const bare = await styledBareBox(page, () => context.newPage());
const typedText = await page.evaluate(() => window.attentionLab.state().sentence);
await bare.evaluate((t) => { document.querySelector('textarea').value = t; }, typedText);
const round = async (p) => {
  await p.bringToFront();
  await p.focus('[data-testid=sentence]');
  await p.keyboard.press('End');
  await p.waitForTimeout(300);
  const times = await p.evaluate(typeCharacters, 40);
  await p.evaluate(() => document.activeElement?.blur());
  return times;
};
const labTimes = [];
const boxTimes = [];
for (let r = 0; r < 3; r++) {
  labTimes.push(...(await round(page)));
  boxTimes.push(...(await round(bare)));
  // The lab's sentence back to its start, its pass computed, before the next round.
  await page.evaluate((t) => window.attentionLab.set({ sentence: t }), typedText);
  await page.waitForFunction((t) => { const s = window.attentionLab.state(); return s.sentence === t && !s.pending; }, typedText, { timeout: 600000 });
  await bare.evaluate((t) => { document.querySelector('textarea').value = t; }, typedText);
}
const [lab, box] = [labTimes, boxTimes].map((t) => {
  const sorted = t.slice().sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
});
console.log(`typed character → next painted frame, 120 characters while the model computes: lab median ${lab.median.toFixed(1)} ms, p95 ${lab.p95.toFixed(1)} ms; a bare text box styled as the lab's ${box.median.toFixed(1)} / ${box.p95.toFixed(1)} ms (the lab's median ${(lab.median / box.median).toFixed(2)}×, p95 ${(lab.p95 / box.p95).toFixed(2)}×)`);

// The same at a person's pace: 20 characters one every 200 ms (a fast typist) and 20 one every
// 400 ms (a slow one), in turns with the bare box. The worker waits while edits come within its
// hold of each other (crates/attention-worker/src/model.rs, HOLD_MS) and drops a pass of an
// older sentence between two blocks; at 400 ms it computes between the characters.
for (const gap of [200, 400]) {
  const pacedLab = [];
  const pacedBox = [];
  for (const [p, out] of [[page, pacedLab], [bare, pacedBox]]) {
    await p.bringToFront();
    await p.focus('[data-testid=sentence]');
    await p.keyboard.press('End');
    out.push(...(await p.evaluate(typeCharactersPaced, [20, gap])));
    await p.evaluate(() => document.activeElement?.blur());
    if (p === page) {
      await page.evaluate((t) => window.attentionLab.set({ sentence: t }), typedText);
      await page.waitForFunction((t) => { const s = window.attentionLab.state(); return s.sentence === t && !s.pending; }, typedText, { timeout: 600000 });
    } else {
      await bare.evaluate((t) => { document.querySelector('textarea').value = t; }, typedText);
    }
  }
  const [l, b] = [pacedLab, pacedBox].map((t) => {
    const sorted = t.slice().sort((x, y) => x - y);
    return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
  });
  console.log(`typed character at one every ${gap} ms: lab median ${l.median.toFixed(1)} ms, p95 ${l.p95.toFixed(1)} ms; bare box ${b.median.toFixed(1)} / ${b.p95.toFixed(1)} ms (${(l.median / b.median).toFixed(2)}×, ${(l.p95 / b.p95).toFixed(2)}×)`);
}
// From the last character typed to its pass drawn.
{
  await page.bringToFront();
  await page.focus('[data-testid=sentence]');
  await page.keyboard.press('End');
  await page.evaluate(typeCharacters, 10);
  const typed = await page.evaluate(() => document.querySelector('[data-testid=sentence]').value);
  const started = Date.now();
  await page.waitForFunction((t) => { const s = window.attentionLab.state(); return s.sentence === t && !s.pending; }, typed, { timeout: 600000 });
  console.log(`the last of 10 characters typed → its pass drawn: ${Date.now() - started} ms`);
  await page.evaluate(() => document.activeElement?.blur());
}
await bare.close();
await page.bringToFront();
const generated = await page.evaluate(() => window.attentionLab.generate({ steps: 16, cache: true, sampling: 'greedy' }));
console.log(`generation with the KV cache: prefill ${generated.prefill_ms.toFixed(0)} ms, ${generated.chars_per_second.toFixed(1)} tokens/s`);
// BENCH_TYPING_ONLY=1: no composition and no streaming (a 1 B folder's take hours).
if (process.env.BENCH_TYPING_ONLY) {
  const s = await page.evaluate(() => window.attentionLab.state());
  console.log(`wasm memory: the page's module ${(s.wasm_memory_bytes / 1e6).toFixed(0)} MB, the model worker's ${(s.model_worker_memory_bytes / 1e6).toFixed(0)} MB`);
  await context.close();
  server.close();
  process.exit(0);
}
// How the heads compose (asked for: too costly unasked), computed in the model's worker: how
// long, and the page's frames meanwhile.
if (await page.locator('[data-testid=circuit-compute]').count()) {
  await page.locator('[data-testid=circuit-compute]').scrollIntoViewIfNeeded();
  const composed = await page.evaluate(async () => {
    const gaps = [];
    let last = performance.now();
    let on = true;
    const tick = (t) => { gaps.push(t - last); last = t; if (on) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    const started = performance.now();
    document.querySelector('[data-testid=circuit-compute]').click();
    while (!document.querySelector('[data-testid=circuit]') && performance.now() - started < 1200000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const drawn = performance.now() - started;
    on = false;
    const sorted = gaps.slice(1).sort((a, b) => a - b);
    return { drawn, median: sorted[Math.floor(sorted.length / 2)], longest: sorted[sorted.length - 1] };
  });
  console.log(`how the heads compose, in the model's worker: drawn after ${(composed.drawn / 1000).toFixed(1)} s; the page's frames meanwhile median ${composed.median.toFixed(1)} ms, longest ${composed.longest.toFixed(0)} ms`);
}
// Streaming (a folder with rotary positions): the page's passage cut to STREAM_CHARS characters
// (default 400), window 32, 4 sinks, read in the model's worker; how fast each phase reads, and
// the page's frames meanwhile (every animation frame's interval).
const streams = await page.locator('[data-testid=stream-run]').count();
if (streams) {
  const chars = Number(process.env.STREAM_CHARS ?? 400);
  await page.locator('[data-testid=stream-text]').fill(await page.locator('[data-testid=stream-text]').inputValue().then((t) => t.slice(0, chars)));
  await page.locator('[data-testid=stream-text]').dispatchEvent('change');
  for (const [field, value] of [['stream-window', '32'], ['stream-sinks', '4']]) {
    await page.fill(`[data-testid=${field}]`, value);
    await page.locator(`[data-testid=${field}]`).dispatchEvent('change');
  }
  const timeline = await page.evaluate(async () => {
    const marks = [];
    const frames = [];
    let last = performance.now();
    let running = true;
    const tick = (t) => { frames.push(t - last); last = t; if (running) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    const started = performance.now();
    document.querySelector('[data-testid=stream-run]').click();
    let seen = '';
    while (performance.now() - started < 600000) {
      await new Promise((r) => setTimeout(r, 50));
      const progress = document.querySelector('[data-testid=stream-progress]')?.textContent ?? '';
      const means = document.querySelector('[data-testid=stream-means]')?.textContent ?? '';
      if (progress !== seen) { seen = progress; marks.push([performance.now() - started, progress]); }
      if (/by the recompute/.test(means)) { marks.push([performance.now() - started, means]); break; }
    }
    running = false;
    return { marks, frames };
  });
  const phase = (re) => timeline.marks.filter(([, text]) => re.test(text) && /\d+ of \d+/.test(text));
  const rate = (list) => {
    if (list.length < 2) return 'too fast to time';
    const [[t0, a], [t1, b]] = [list[0], list[list.length - 1]];
    const n = (text) => Number(/(\d+) of/.exec(text)?.[1] ?? 0);
    return `${((n(b) - n(a)) / ((t1 - t0) / 1000)).toFixed(1)} a second`;
  };
  const sorted = timeline.frames.slice(1).sort((x, y) => x - y);
  const end = timeline.marks[timeline.marks.length - 1];
  console.log(`streaming ${chars} characters in the worker: with sinks ${rate(phase(/with its sink tokens/))} tokens, without ${rate(phase(/without the sink/))}, share ${rate(phase(/first token/))}, recompute ${rate(phase(/recompute/))} positions; all read after ${(end[0] / 1000).toFixed(1)} s (${end[1]}); the page's frames meanwhile median ${quantile(sorted, 0.5).toFixed(1)} ms, p95 ${quantile(sorted, 0.95).toFixed(1)} ms, longest ${sorted[sorted.length - 1].toFixed(0)} ms`);
}
const memory = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
console.log(`JS heap (wasm memory apart): ${memory && (memory / 1e6).toFixed(0)} MB`);
const modules = await page.evaluate(() => window.attentionLab.state());
console.log(`wasm memory: the page's module ${(modules.wasm_memory_bytes / 1e6).toFixed(0)} MB, the model worker's ${(modules.model_worker_memory_bytes / 1e6).toFixed(0)} MB; the folders' files the worker keeps (JS memory) ${(modules.model_worker_kept_bytes / 1e6).toFixed(0)} MB`);
const wasm = await page.evaluate(() => {
  const entries = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm'));
  return entries.map((e) => `${e.name.split('/').pop()} ${e.transferSize}`);
});
console.log(wasm.join('\n'));
await context.close();
server.close();
