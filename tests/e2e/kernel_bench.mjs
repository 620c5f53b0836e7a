// Issue 24's kernel measure in the browser: one head, n = 1024, d_k = 64, no mask,
// QKᵀ + softmax + ·V, on the page's thread in headless Chromium (the app's wasm, simd128),
// through attentionLab.kernelBench: the same core functions (attention_core::kernel) that
// `cargo bench --bench attention -- kernel` times natively. Prints GFLOP/s (2·n²·d per product).
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
await page.waitForFunction(() => window.attentionLab?.kernelBench);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let failed = false;
for (const block of [16, 64]) {
  const r = await page.evaluate(({ runs, block }) => window.attentionLab.kernelBench({ n: 1024, d: 64, block, runs }), { runs, block });
  if (!r.ok) {
    console.log(`kernel: ${r.error}`);
    failed = true;
    continue;
  }
  const gflops = (ms) => (r.flops / (ms * 1e6)).toFixed(1);
  if (block === 16) {
    const best = Math.min(...r.standard_ms);
    console.log(`kernel in wasm (simd128), standard ${r.n}x${r.d}: median ${median(r.standard_ms).toFixed(1)} ms = ${gflops(median(r.standard_ms))} GFLOP/s (best ${gflops(best)}); goal ≥ 14 with simd128, ≥ 20 with relaxed SIMD`);
  }
  console.log(`kernel in wasm (simd128), flash ${r.n}x${r.d} tiles ${block}: median ${median(r.flash_ms).toFixed(1)} ms = ${gflops(median(r.flash_ms))} GFLOP/s (best ${gflops(Math.min(...r.flash_ms))})`);
}
await browser.close();
server.close();
process.exit(failed ? 1 : 0);
