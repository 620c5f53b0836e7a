// CPU versus GPU time per recompute in the browser, for seq_len 16 … 1024 (d_model 64, 4 heads),
// to choose where "auto" switches to the GPU.
//
//   trunk build --release && node tests/e2e/gpu_bench.mjs
//
// Chromium runs with --enable-unsafe-webgpu. Without a GPU that gives SwiftShader, a software
// WebGPU about 200x slower than wasm on the CPU: its numbers show the cost of the GPU path's
// round trip, never a speed-up. On a machine with a GPU the same command measures the real thing.
// Each time is from a temperature change until the new trace is shown (for the GPU: submitted,
// computed, read back, and the flash steps replayed), median of a few changes.
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';

const lengths = (process.argv[2] ?? '16,32,64,128,256,512,1024').split(',').map(Number);
const server = await serve(process.env.DIST ?? join(ROOT, 'dist'));
const browser = await launch({ webgpu: true });
const page = await browser.newPage();
await page.goto(server.url);
await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
await page.waitForFunction(() => window.attentionLab.state().gpu !== 'probing', null, { timeout: 30000 });
const gpu = await page.evaluate(() => window.attentionLab.state());
console.log(`GPU: ${gpu.gpu}${gpu.gpu === 'ready' ? '' : ` (${gpu.fallback_message ?? ''})`}`);

const rows = [];
for (const n of lengths) {
  const row = { seq_len: n };
  for (const backend of ['cpu', 'gpu']) {
    if (backend === 'gpu' && gpu.gpu !== 'ready') continue;
    row[backend] = await page.evaluate(async ({ n, backend }) => {
      const words = ['the', 'cat', 'sat', 'on', 'a', 'warm', 'mat', 'today'];
      const sentence = Array.from({ length: n }, (_, i) => words[i % words.length]).join(' ');
      const api = window.attentionLab;
      const settle = async (temperature) => {
        for (;;) {
          const s = api.state();
          if (s.temperature === temperature && !s.pending) return s;
          await new Promise((r) => setTimeout(r, 1));
        }
      };
      api.set({ sentence, d_model: 64, n_heads: 4, n_kv_heads: 4, backend, temperature: 1 });
      await settle(1);
      const times = [];
      const repeats = n >= 512 ? 3 : 7;
      for (let i = 0; i < repeats; i++) {
        const temperature = 0.5 + i / 10;
        const start = performance.now();
        api.set({ temperature });
        const s = await settle(temperature);
        times.push(performance.now() - start);
        if (s.backend !== backend) return { error: `computed on ${s.backend}: ${s.fallback_message}` };
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)];
    }, { n, backend });
  }
  rows.push(row);
  const cell = (v) => (typeof v === 'number' ? `${v.toFixed(1)} ms` : v?.error ?? '—');
  console.log(`seq_len ${String(n).padStart(4)}: CPU ${cell(row.cpu).padStart(10)}   GPU ${cell(row.gpu).padStart(10)}`);
}
await browser.close();
server.close();
