// The page with a user's model of GPT-2 small's shape (124 M parameters, made by
// tools/hf/make_fixtures.py --gpt2-small DIR; HF_BENCH_FOLDER=DIR): the folder picked, how long
// it takes to open, a 64-token forward pass (the page's forward_ms), and generation with the KV
// cache (attentionLab.generate's chars_per_second, here tokens per second), with the page's
// memory. Not part of the test command: the folder is 475 MB and made by hand.
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
  await page.waitForFunction((t) => window.attentionLab.state().sentence === t && window.attentionLab.state().forward_ms > 0, text, { timeout: 600000 });
  const s = await page.evaluate(() => window.attentionLab.state());
  console.log(`  (the edit drawn after ${Date.now() - started} ms)`);
  console.log(`forward pass, ${s.tokens.length} tokens, every layer traced: ${s.forward_ms.toFixed(0)} ms`);
}
const generated = await page.evaluate(() => window.attentionLab.generate({ steps: 16, cache: true, sampling: 'greedy' }));
console.log(`generation with the KV cache: prefill ${generated.prefill_ms.toFixed(0)} ms, ${generated.chars_per_second.toFixed(1)} tokens/s`);
const memory = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
console.log(`JS heap (wasm memory apart): ${memory && (memory / 1e6).toFixed(0)} MB`);
const wasm = await page.evaluate(() => {
  const entries = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm'));
  return entries.map((e) => `${e.name.split('/').pop()} ${e.transferSize}`);
});
console.log(wasm.join('\n'));
await context.close();
server.close();
