// Linear attention against the softmax in the page (issue 42 §5): at 1024 and 4096 tokens × 4
// heads (d_model 64, causal), the time from an edit (the sentence set through
// window.attentionLab.set()) to its result drawn, and the page's longest task meanwhile, for the
// softmax and each kind of linear attention, alternating, `rounds` times each. Not a test: it
// prints numbers (benches/README.md keeps them).
//
//   trunk build --release && node tests/e2e/linear_bench.mjs [rounds]
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';

const rounds = Number(process.argv[2] ?? 3);
const sizes = [1024, 4096];
const kinds = [null, { kind: 'elu' }, { kind: 'delta' }, { kind: 'gated_delta' }];

const server = await serve(process.env.DIST ?? join(ROOT, 'dist'));
const browser = await launch();
const page = await browser.newPage();
await page.setViewportSize({ width: 1400, height: 1000 });
await page.goto(`${server.url}?sentence=the%20cat&n_heads=4&d_model=64&mask=causal`);
await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
await page.evaluate(() => {
  window.__long = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__long.push(entry.duration);
  }).observe({ type: 'longtask' });
});

const words = ['the', 'cat', 'sat', 'on', 'a', 'warm', 'mat', 'today', '猫', '坐'];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const n of sizes) {
  const times = new Map(kinds.map((k) => [JSON.stringify(k), []]));
  const longest = new Map(kinds.map((k) => [JSON.stringify(k), 0]));
  for (let round = 0; round < rounds; round++) {
    for (const linear of kinds) {
      // A different sentence each time, so that nothing is reused.
      const sentence = Array.from({ length: n }, (_, i) => words[(i + round) % words.length]).join(' ');
      await page.evaluate(() => { window.__long = []; });
      const ms = await page.evaluate(async ([sentence, linear, n]) => {
        const started = performance.now();
        const ok = window.attentionLab.set({ sentence, linear });
        if (!ok.ok) throw new Error(ok.error);
        for (;;) {
          await new Promise((r) => requestAnimationFrame(r));
          const s = window.attentionLab.state();
          if (s.tokens?.length === n && !s.pending) break;
        }
        // The frame that draws the result.
        await new Promise((r) => requestAnimationFrame(r));
        return performance.now() - started;
      }, [sentence, linear, n]);
      const key = JSON.stringify(linear);
      times.get(key).push(ms);
      const long = await page.evaluate(() => Math.max(0, ...window.__long));
      longest.set(key, Math.max(longest.get(key), long));
    }
  }
  for (const linear of kinds) {
    const key = JSON.stringify(linear);
    const name = linear ? linear.kind : 'softmax';
    const all = times.get(key).map((t) => t.toFixed(0)).join(', ');
    console.log(`${n} tokens × 4 heads, ${name}: edit → result drawn median ${median(times.get(key)).toFixed(0)} ms (${all}); longest task ${longest.get(key).toFixed(0)} ms`);
  }
}
await browser.close();
server.close();
