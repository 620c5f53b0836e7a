// Issue 24's kernel measure in the browser: one head, n = 1024, d_k = 64, no mask,
// QKᵀ + softmax + ·V, in headless Chromium, through the same core functions
// (attention_core::kernel) that `cargo bench --bench attention -- kernel` times natively:
// on the page's thread (the app's module, simd128: attentionLab.kernelBench), and in a Web Worker
// of each of the worker's two builds (simd128, and relaxed SIMD with fused multiply-add:
// attentionLab.workerKernelBench). Prints GFLOP/s (2·n²·d per product), medians of `runs`; then
// the two passes a worker makes over each head of a 4096-token input, in milliseconds.
//
//   trunk build --release && node tests/e2e/kernel_bench.mjs [runs]
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';

const runs = Number(process.argv[2] ?? 20);
const server = await serve(process.env.DIST ?? join(ROOT, 'dist'));
const browser = await launch();
const page = await browser.newPage();
await page.goto(server.url);
await page.waitForFunction(() => window.attentionLab?.workerKernelBench);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const where = [
  ['page (simd128)', (o) => window.attentionLab.kernelBench(o)],
  ['worker simd128', (o) => window.attentionLab.workerKernelBench({ ...o, build: 'simd128' })],
  ['worker relaxed SIMD', (o) => window.attentionLab.workerKernelBench({ ...o, build: 'relaxed-simd' })],
];
console.log(`the page chose the worker build: ${await page.evaluate(() => window.attentionLab.workerBuild())}`);
let failed = false;
for (const [name, bench] of where) {
  for (const block of [16, 64]) {
    const r = await page.evaluate(({ fn, options }) => eval(fn)(options), { fn: bench.toString(), options: { n: 1024, d: 64, block, runs } });
    if (!r.ok) {
      console.log(`kernel, ${name}: ${r.error}`);
      failed = true;
      break;
    }
    const gflops = (ms) => (r.flops / (ms * 1e6)).toFixed(1);
    const line = (label, ms) => console.log(`kernel, ${name}, ${label} ${r.n}x${r.d}: median ${median(ms).toFixed(1)} ms = ${gflops(median(ms))} GFLOP/s (best ${gflops(Math.min(...ms))})`);
    if (block === 16) line('standard', r.standard_ms);
    line(`flash tiles ${block}`, r.flash_ms);
  }
}
console.log('goal: standard ≥ 14 GFLOP/s with simd128, ≥ 20 with relaxed SIMD');
// What a page's worker computes for each head of a long input (4096 tokens, d_k 16, the page's
// automatic 64 × 64 tiles, no mask as the page starts): the overview pass (the output and the
// block summaries of the n² matrices) and FlashAttention's, in each build (medians of 5).
const longRuns = Math.min(runs, 5);
for (const [name, bench] of where.slice(1)) {
  for (const mask of ['none', 'causal']) {
    const r = await page.evaluate(({ fn, options }) => eval(fn)(options), { fn: bench.toString(), options: { n: 4096, d: 16, block: 64, runs: longRuns, mask, overview: true } });
    if (!r.ok) {
      console.log(`long head, ${name}: ${r.error}`);
      failed = true;
      continue;
    }
    console.log(`long head 4096 × d_k 16, mask ${mask}, ${name}: overview pass ${median(r.overview_ms).toFixed(1)} ms, FlashAttention (tiles 64) ${median(r.flash_ms).toFixed(1)} ms`);
  }
}
await browser.close();
server.close();
process.exit(failed ? 1 : 0);
