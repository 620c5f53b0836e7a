// The page with a user's model of GPT-2 small's shape (124 M parameters, made by
// tools/hf/make_fixtures.py --gpt2-small DIR; HF_BENCH_FOLDER=DIR): the folder picked, how long
// it takes to open, a 64-token forward pass (in the model's worker: the worker's own time and the
// page's, from the edit to the pass put together), a typed character's frame while the model
// computes against a bare text box's, and generation with the KV cache (attentionLab.generate's
// chars_per_second, here tokens per second), with the memory of the page's and the worker's
// modules. Not part of the test command: the folder is 475 MB and made by hand.
//
// HF_BENCH_FOLDER=/tmp/gpt2-small node tests/e2e/own_model_bench.mjs   (after trunk build --release)
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';

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
  console.log(`forward pass, ${s.tokens.length} tokens, every layer traced: ${s.forward_worker_ms?.toFixed(0)} ms in the worker (model_in_worker ${s.model_in_worker}), ${s.forward_ms.toFixed(0)} ms from the edit to the pass put together; the edit drawn after ${Date.now() - started} ms`);
}

// A typed character's frame: from the key's event to the first task after the next frame (the
// frame that shows it), 24 characters 120 ms apart, in the lab's sentence box while the model
// computes and in a bare text box on a blank page. Median and 90th percentile.
const FRAMES = `window.__frames = [];
  document.addEventListener('keydown', (event) => {
    requestAnimationFrame(() => setTimeout(() => window.__frames.push(performance.now() - event.timeStamp), 0));
  }, true);`;
async function typed(target, selector) {
  await target.evaluate(FRAMES);
  await target.click(selector);
  await target.keyboard.press('End');
  for (const c of ' and the dog ran away now') {
    await target.keyboard.type(c);
    await target.waitForTimeout(120);
  }
  await target.waitForTimeout(500);
  const frames = (await target.evaluate(() => window.__frames)).sort((a, b) => a - b);
  const at = (q) => frames[Math.min(frames.length - 1, Math.floor(q * frames.length))];
  return { median: at(0.5), p90: at(0.9), n: frames.length };
}
const lab = await typed(page, '[data-testid=sentence]');
const worked = await page.evaluate(() => window.attentionLab.state());
const bare = await context.newPage();
await bare.setContent('<textarea id="box" rows="3" cols="60">The cat sat on the mat.</textarea>');
const box = await typed(bare, '#box');
console.log(`typed character's frame: lab ${lab.median.toFixed(1)} ms median, ${lab.p90.toFixed(1)} ms p90; bare text box ${box.median.toFixed(1)} / ${box.p90.toFixed(1)} ms (ratio of medians ${(lab.median / box.median).toFixed(2)}); ${worked.tokens.length} tokens at the end`);
await bare.close();
const generated = await page.evaluate(() => window.attentionLab.generate({ steps: 16, cache: true, sampling: 'greedy' }));
console.log(`generation with the KV cache: prefill ${generated.prefill_ms.toFixed(0)} ms, ${generated.chars_per_second.toFixed(1)} tokens/s`);
const memory = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
console.log(`JS heap (wasm memory apart): ${memory && (memory / 1e6).toFixed(0)} MB`);
const modules = await page.evaluate(() => window.attentionLab.state());
console.log(`wasm memory: the page's module ${(modules.wasm_memory_bytes / 1e6).toFixed(0)} MB, the model worker's ${(modules.model_worker_memory_bytes / 1e6).toFixed(0)} MB`);
const wasm = await page.evaluate(() => {
  const entries = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm'));
  return entries.map((e) => `${e.name.split('/').pop()} ${e.transferSize}`);
});
console.log(wasm.join('\n'));
await context.close();
server.close();
