// The measure of issue 40's speed goals in the browser: "Why here?" on one cell and on a whole
// row at 128 characters, through attentionLab.explain (the components entering the layer, the
// terms, the JSON), and the circuit view's composition of every head pair with every head's shares
// on the sentence through attentionLab.composition(), in the built app's wasm on the page's
// thread, for both trained models; the median of 30 runs after 5 to warm up (10 after 2 for
// composition). Prints a table; asserts nothing about time.
//
// node tests/e2e/circuits_bench.mjs   (after trunk build --release)
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';

const server = await serve(process.env.DIST ?? join(ROOT, 'dist'));
const context = await launch();
const page = await context.newPage();
const text = 'The cat sat on the mat because it was tired. 猫坐在垫子上，因为它累了。';
const sentence = [...text.repeat(4)].slice(0, 128).join('');
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
console.log('| model | explain one cell at 128 (ms) | explain one row at 128 (ms) | composition, all pairs + every head on the sentence, at 128 (ms) |');
console.log('|---|---|---|---|');
for (const model of ['gpt2', 'llama']) {
  await page.goto(`${server.url}?model=${model}&sentence=${encodeURIComponent(sentence)}`);
  await page.waitForFunction(() => { const s = window.attentionLab?.state?.(); return s && s.model_status === 'ready' && s.predictions; }, null, { timeout: 60000 });
  const times = await page.evaluate(async () => {
    const run = (options) => {
      const out = [];
      for (let i = 0; i < 35; i++) {
        const r = window.attentionLab.explain(options);
        if (!r.ok) throw new Error(r.error);
        if (i >= 5) out.push(r.ms);
      }
      return out;
    };
    const composition = [];
    for (let i = 0; i < 12; i++) {
      const r = await window.attentionLab.composition();
      if (!r.ok) throw new Error(r.error);
      if (i >= 2) composition.push(r.ms);
    }
    return {
      cell: run({ layer: 3, head: 1, query: 127, key: 64 }),
      row: run({ layer: 3, head: 1, query: 127, explain_row: true }),
      composition,
    };
  });
  const cell = (xs) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
  console.log(`| ${model} | ${cell(times.cell)} | ${cell(times.row)} | ${cell(times.composition)} |`);
}
await context.close();
server.close();
