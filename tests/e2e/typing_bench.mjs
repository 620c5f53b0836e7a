// Typing into a long sentence (issues 14 and 24): for 256, 1024, 2048 and 4096 tokens, the time
// from a typed character to the next painted frame, against the same in a bare text box styled as
// the lab's (the floor: the browser's own cost of that text), the main thread's long tasks while
// typing, the time from an edit (a character, then the temperature) to its result drawn (and the
// longest task meanwhile), and the page's memory (JavaScript heap, the app's and the worker's
// WebAssembly memory, and the renderer process's resident size, which holds both). Not a test: it
// prints numbers (benches/README.md keeps them).
//
//   trunk build --release && node tests/e2e/typing_bench.mjs [characters a round] [rounds]
//
// Each character is typed as a user types it (a key press in the sentence box, after the previous
// frame was painted); "to the next painted frame" ends in the first requestAnimationFrame
// callback after the input event has been handled, plus one more task (the frame's paint). The
// lab and the bare box take turns, a round of 40 characters each, three rounds a size; the
// median and the nearest-rank p95 are over all of a size's characters.
import { join } from 'node:path';
import { execSync } from 'node:child_process';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';
import { quantile, styledBareBox, typeCharacters } from './typing.mjs';

const characters = Number(process.argv[2] ?? 40);
const rounds = Number(process.argv[3] ?? 3);
const sizes = [256, 1024, 2048, 4096];

const server = await serve(process.env.DIST ?? join(ROOT, 'dist'));
const browser = await launch();
const page = await browser.newPage();
// The app's WebAssembly memory, from Trunk's start event.
await page.addInitScript(() => addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail.wasm; }));
/** The largest resident size of Chromium's renderer processes, in MiB (the page and its worker). */
const rendererMiB = () => {
  const lines = execSync('ps -eo rss=,args=', { encoding: 'utf8' }).split('\n').filter((l) => l.includes('--type=renderer'));
  return Math.max(0, ...lines.map((l) => Number(l.trim().split(/\s+/)[0]) / 1024));
};
await page.setViewportSize({ width: 1400, height: 1000 });
await page.goto(server.url);
await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
const cdp = await page.context().newCDPSession(page);
await cdp.send('Performance.enable');

// The floor: a text box alone on a page of its own, with the lab's text box's width, height,
// padding and font (read from the lab's page), holding the same sentence: the same text laid out
// the same way, with nothing else to draw.
const bare = await styledBareBox(page, async () => {
  const p = await browser.newPage();
  await p.setViewportSize({ width: 1400, height: 1000 });
  await p.goto(`${server.url}?`);
  return p;
});
/** Types one round of characters into `p`'s text box, focused with the caret at the end (in the
 * lab after its last computation has finished and a pause: the first characters of a round are
 * the first after a pause). */
const round = async (p, lab) => {
  await p.bringToFront();
  await p.focus('[data-testid=sentence]');
  await p.keyboard.press('End');
  if (lab) await p.waitForFunction(() => !document.querySelector('[data-testid=computing]').textContent, null, { timeout: 90000 });
  await p.waitForTimeout(300);
  const times = await p.evaluate(typeCharacters, characters);
  // Unfocused, so that its caret does not blink while the other page is measured.
  await p.evaluate(() => document.activeElement?.blur());
  return times;
};
const sentenceOf = (n) => {
  const words = ['the', 'cat', 'sat', 'on', 'a', 'warm', 'mat', 'today', '猫', '坐'];
  return Array.from({ length: n - 1 }, (_, i) => words[i % words.length]).join(' ') + ' x';
};
const ms = (x) => x.toFixed(0);
for (const n of sizes) {
  const set = await page.evaluate((sentence) => window.attentionLab.set({ sentence, d_model: 64, n_heads: 4, n_kv_heads: 4, temperature: 1 }), sentenceOf(n));
  await page.waitForTimeout(n >= 2048 ? 3000 : 1000);
  const tokens = await page.evaluate(() => window.attentionLab.state().tokens?.length ?? 0);
  await bare.evaluate((sentence) => { document.querySelector('textarea').value = sentence; }, sentenceOf(n));
  await page.evaluate(() => {
    window.__long = [];
    window.__observer?.disconnect();
    window.__observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__long.push(e.duration);
    });
    window.__observer.observe({ type: 'longtask', buffered: false });
  });
  // The lab and the bare box in turns, so that both are measured in the same minutes (this
  // machine's speed drifts by a third from one minute to another).
  const times = [];
  const floor = [];
  for (let r = 0; r < rounds; r++) {
    times.push(...(await round(page, true)));
    floor.push(...(await round(bare, false)));
  }
  await page.bringToFront();
  await page.focus('[data-testid=sentence]');
  const long = await page.evaluate(() => window.__long.slice());
  // One more character after a pause: the time until its result is drawn (the note gone), and
  // the memory meanwhile.
  await page.waitForFunction(() => !document.querySelector('[data-testid=computing]').textContent, null, { timeout: 90000 });
  const results = [];
  // The page's long tasks from each edit until its result is drawn (a long result lands in
  // slices: issue 24 wants none over 50 ms), the temperature's below included.
  await page.evaluate(() => { window.__long = []; });
  for (let run = 0; run < 3; run++) {
    results.push(await page.evaluate(() => new Promise((resolve) => {
      const box = document.querySelector('[data-testid=sentence]');
      const start = performance.now();
      box.value += 'z';
      box.dispatchEvent(new InputEvent('input', { bubbles: true, data: 'z', inputType: 'insertText' }));
      const check = () => {
        const note = document.querySelector('[data-testid=computing]').textContent;
        if (!note && window.attentionLab.state().tokens?.at(-1) === box.value.split(' ').at(-1)) {
          resolve(performance.now() - start);
        } else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    })));
  }
  // The temperature, as the issue first measured it: the same computation without the text box's
  // layout in the edit's frame. Its note appears in the edit's own task and goes when the result
  // is drawn.
  const temperatures = [];
  for (const temperature of [0.7, 1.3, 1]) {
    await page.waitForTimeout(300);
    temperatures.push(await page.evaluate((temperature) => new Promise((resolve) => {
      const start = performance.now();
      window.attentionLab.set({ temperature });
      let seen = false;
      const check = () => {
        const note = document.querySelector('[data-testid=computing]').textContent;
        seen ||= !!note;
        if (seen && !note) resolve(performance.now() - start);
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    }), temperature));
  }
  await page.waitForTimeout(100);
  const landing = await page.evaluate(() => window.__long.slice());
  const wasmMiB = await page.evaluate(() => (window.__wasm?.memory?.buffer.byteLength ?? 0) / 1048576);
  const rss = rendererMiB();
  const heap = (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  const sorted = times.slice().sort((a, b) => a - b);
  const floorSorted = floor.slice().sort((a, b) => a - b);
  const [median, p95] = [quantile(sorted, 0.5), quantile(sorted, 0.95)];
  const [floorMedian, floorP95] = [quantile(floorSorted, 0.5), quantile(floorSorted, 0.95)];
  const state = await page.evaluate(() => ({ error: document.querySelector('[data-testid=error]')?.textContent ?? null }));
  console.log(
    `${n} tokens (${tokens} shown${set.ok ? '' : ', refused: ' + set.error}${state.error ? '; page says: ' + state.error.slice(0, 80) : ''}): ` +
    `typed character → next painted frame median ${ms(median)} ms, p95 ${ms(p95)} ms ` +
    `(a bare text box styled as the lab's, in turns with it: median ${ms(floorMedian)} ms, p95 ${ms(floorP95)} ms; ` +
    `the lab's p95 = ${(p95 / floorP95).toFixed(2)}×, median ${(median / floorMedian).toFixed(2)}×); ` +
    `long tasks while typing: ${long.length} (longest ${long.length ? Math.max(...long).toFixed(0) : 0} ms); ` +
    `edit → result drawn: a character ${results.map(ms).join(' / ')} ms, the temperature ${temperatures.map(ms).join(' / ')} ms, longest task meanwhile ${landing.length ? Math.max(...landing).toFixed(0) : '< 50'} ms; ` +
    `memory: JS heap ${(heap / 1048576).toFixed(0)} MiB, app wasm ${wasmMiB.toFixed(0)} MiB, renderer process ${rss.toFixed(0)} MiB`,
  );
}
await browser.close();
server.close();
