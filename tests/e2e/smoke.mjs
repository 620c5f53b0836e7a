// Smoke test of the built app (dist/): it mounts, shows the tokens and a non-blank heatmap of
// attention weights whose rows sum to 1, and recomputes when the sentence changes. This is the
// only test that runs the wasm-opt'd release build, so it is the one that catches a broken
// wasm-opt. With SCREENSHOT=path it also saves a screenshot of the page.
//
// node --test tests/e2e/smoke.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT, nextFrames } from './browser.mjs';

let server;
let browser;
let page;
const errors = [];
const requests = [];

before(async () => {
  server = await serve(join(ROOT, 'dist'));
  browser = await launch();
  page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  // Offline use in a classroom: every request must stay on this server (no CDN, no remote font).
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Colours and a hash of a canvas's pixels, once it is on screen and drawn. */
async function shown(selector) {
  await page.locator(selector).scrollIntoViewIfNeeded();
  await nextFrames(page);
  return page.evaluate((selector) => {
    const canvas = document.querySelector(selector);
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    let hash = 0;
    for (let i = 0; i < data.length; i += 4) {
      colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      hash = (hash * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2]) >>> 0;
    }
    // The width on screen: a heatmap's canvas holds one pixel per cell, stretched by CSS.
    return { width: canvas.getBoundingClientRect().width, colours: colours.size, hash };
  }, selector);
}

/** Clicks `testid` and returns the download's file name and bytes. */
async function saved(testid) {
  await page.locator(`[data-testid=${testid}]`).scrollIntoViewIfNeeded();
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
  return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
}

test('the app mounts and shows the tokens; weight rows sum to 1', async () => {
  const trace = await page.evaluate(() => window.attentionLab.trace());
  const chips = await page.locator('[data-testid=token-chip]').count();
  assert.ok(chips > 0);
  assert.equal(chips, trace.tokens.length);
  for (const row of trace.heads[0].weights) {
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4, JSON.stringify(row));
  }
});

test('every kind of view draws something', async () => {
  for (const id of ['heatmap-x', 'heatmap-q', 'heatmap-scaled', 'heatmap-weights', 'head-view', 'heatmap-projected']) {
    const { width, colours } = await shown(`[data-testid=${id}]`);
    assert.ok(width > 50 && colours > 8, `${id}: ${colours} colours, ${width} px`);
  }
});

test('the weights heatmap changes with the temperature', async () => {
  const before = await shown('[data-testid=heatmap-weights]');
  await page.fill('[data-testid=temperature]', '0.1');
  await page.press('[data-testid=temperature]', 'Enter');
  await page.waitForFunction(() => window.attentionLab.state().temperature === 0.1);
  const after = await shown('[data-testid=heatmap-weights]');
  assert.notEqual(after.hash, before.hash);
  assert.ok(after.colours > 8);
});

test('editing the sentence recomputes', async () => {
  const first = await page.evaluate(() => window.attentionLab.trace());
  await page.fill('[data-testid=sentence]', '注意力机制让每个词都能看到整句话。');
  await page.waitForFunction((n) => window.attentionLab.trace().tokens.length !== n, first.tokens.length);
  const second = await page.evaluate(() => window.attentionLab.trace());
  assert.equal(second.tokens.join(''), '注意力机制让每个词都能看到整句话。');
  assert.notDeepEqual(second.heads[0].weights, first.heads[0].weights);
});

/** A PNG's size in pixels, from its header. */
function pngSize(bytes) {
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('a heatmap exports as CSV with its labels and numbers, and as PNG for slides', async () => {
  const csv = await saved('heatmap-weights-csv');
  const lines = csv.bytes.toString('utf8').trim().split('\n');
  const trace = await page.evaluate(() => window.attentionLab.trace());
  // The file says what it is: the matrix, the head, the sentence.
  assert.match(csv.name, /^weights-head1-.+\.csv$/);
  assert.ok(csv.name.includes(trace.tokens[0]), csv.name);
  assert.equal(lines.length, trace.tokens.length + 1);
  assert.ok(lines[1].startsWith(trace.tokens[0] + ','), lines[1]);
  assert.ok(Math.abs(Number(lines[1].split(',')[1]) - trace.heads[0].weights[0][0]) < 1e-6, lines[1]);
  const png = await saved('heatmap-weights-png');
  assert.match(png.name, /^weights-head1-.+\.png$/);
  assert.equal(png.bytes.subarray(1, 4).toString(), 'PNG');
  // At least twice the pixels of the heatmap on screen, and a title line on top.
  const sheet = await page.locator('[data-testid=heatmap-weights]').evaluate((c) => c.closest('.heatmap-sheet').getBoundingClientRect().width);
  const titled = pngSize(png.bytes);
  assert.ok(titled.width >= 2 * sheet, `${titled.width} px for a ${sheet} px heatmap`);
  await page.uncheck('[data-testid=export-titles]');
  const plain = pngSize((await saved('heatmap-weights-png')).bytes);
  assert.ok(titled.height - plain.height >= 2 * 20, `title line: ${titled.height} against ${plain.height}`);
  await page.check('[data-testid=export-titles]');
});

test('the head view, the flash grid (no CSV: its colours are states) and the chart export', async () => {
  const headView = await saved('head-view-png');
  assert.equal(headView.bytes.subarray(1, 4).toString(), 'PNG');
  const grid = await saved('flash-grid-png');
  assert.equal(grid.bytes.subarray(1, 4).toString(), 'PNG');
  assert.equal(await page.locator('[data-testid=flash-grid-csv]').isVisible(), false);
  const svg = await saved('memory-chart-svg');
  assert.ok(svg.bytes.toString('utf8').includes('<svg') && svg.bytes.toString('utf8').includes('flash'));
  const chart = await saved('memory-chart-png');
  assert.equal(chart.bytes.subarray(1, 4).toString(), 'PNG');
});

test('the whole trace exports as JSON in the CLI\'s shape', async () => {
  const file = await saved('share-download-trace');
  const exported = JSON.parse(file.bytes.toString('utf8'));
  const shownTrace = await page.evaluate(() => window.attentionLab.trace());
  assert.equal(exported.tokens.join(' '), shownTrace.tokens.join(' '));
  assert.equal(exported.heads.length, shownTrace.heads.length);
  assert.ok('flash' in exported);
  assert.equal(exported.backend, 'cpu');
});

test('copy link and copy embed code give the state as a link and an iframe of the section in view', async () => {
  await page.locator('[data-view=softmax]').scrollIntoViewIfNeeded();
  await page.evaluate(() => document.querySelector('[data-view=softmax]').scrollIntoView());
  await page.waitForFunction(() => window.attentionLab.state().view === 'softmax');
  // Clicked where it is (scrolling up to it would put the top of the page in view).
  await page.evaluate(() => document.querySelector('[data-testid=share-copy-link]').click());
  const link = await page.inputValue('[data-testid=share-text]');
  await page.evaluate(() => document.querySelector('[data-testid=share-copy-embed]').click());
  const embedCode = await page.inputValue('[data-testid=share-text]');
  assert.ok(link.startsWith(server.url) && link.includes('sentence=') && link.includes('view=softmax'), link);
  assert.ok(embedCode.startsWith('<iframe src="') && embedCode.includes('embed=1'), embedCode);
  assert.ok(embedCode.includes('panels=weights%2Chead-view'), embedCode);
});

test('without WebGPU the GPU choice falls back to the CPU and says why', async () => {
  // This Chromium runs without --enable-unsafe-webgpu: no adapter.
  await page.waitForFunction(() => window.attentionLab.state().gpu !== 'probing');
  const before = await page.evaluate(() => window.attentionLab.state());
  const answer = await page.evaluate(() => window.attentionLab.set({ backend: 'gpu', temperature: 0.9 }));
  await page.waitForFunction(() => window.attentionLab.state().temperature === 0.9);
  const { state, trace } = await page.evaluate(() => ({ state: window.attentionLab.state(), trace: window.attentionLab.trace() }));
  assert.equal(before.gpu, 'unavailable');
  assert.deepEqual(answer, { ok: true });
  assert.equal(state.backend, 'cpu');
  assert.equal(state.fallback_reason, 'no-webgpu');
  assert.equal(trace.temperature, 0.9);
  for (const row of trace.heads[0].weights) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4);
  await page.evaluate(() => window.attentionLab.set({ backend: 'auto' }));
});

test('the trained model is fetched only when chosen, and runs in the page', async () => {
  assert.deepEqual(requests.filter((url) => url.includes('/gpt2/') || url.includes('/llama/') || url.includes('/hybrid/')), [], 'the default view never waits for a model');
  await page.evaluate(() => window.attentionLab.set({ model: 'trained', sentence: 'xq7kb@ xq7kb', temperature: 1 }));
  await page.waitForFunction(() => window.attentionLab.state().model_status === 'ready' && window.attentionLab.state().predictions, null, { timeout: 30000 });
  const state = await page.evaluate(() => window.attentionLab.state());
  // An induction head at work: after "xq7kb@ xq7kb" comes "@" again.
  assert.equal(state.predictions[0].token, '@', JSON.stringify(state.predictions));
  assert.ok(requests.some((url) => url.endsWith('/gpt2/model.safetensors')));
  const overview = await shown('[data-testid=heatmap-model-1-0]');
  assert.ok(overview.colours > 4, `${overview.colours} colours`);
  const labels = await page.locator('[data-testid=role-label]').allInnerTexts();
  assert.ok(labels.some((l) => l.startsWith('induction head')), labels.join(' | '));
  await page.evaluate(() => window.attentionLab.set({ model: 'random', sentence: 'The cat sat on the mat because it was tired.' }));
});

test('the kernel harness times the core and refuses sizes it does not take', async () => {
  const r = await page.evaluate(() => window.attentionLab.kernelBench({ n: 64, d: 8, block: 16, runs: 2 }));
  assert.equal(r.ok, true);
  assert.equal(r.flops, 4 * 64 * 64 * 8);
  assert.equal(r.standard_ms.length, 2);
  assert.equal(r.flash_ms.length, 2);
  assert.ok([...r.standard_ms, ...r.flash_ms].every((ms) => Number.isFinite(ms) && ms >= 0), JSON.stringify(r));
  for (const bad of [{ n: 0 }, { n: 5000 }, { d: 300 }, { runs: 0 }, { block: 0 }]) {
    const refused = await page.evaluate((o) => window.attentionLab.kernelBench(o), bad);
    assert.equal(refused.ok, false, JSON.stringify(bad));
    assert.ok(refused.error.length > 0);
  }
});

// The page's probe for relaxed SIMD (src/ui/browser/worker.rs): one function returning
// f32x4.relaxed_madd of its three arguments.
const PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0, 10,
  13, 1, 11, 0, 32, 0, 32, 1, 32, 2, 253, 133, 2, 11];
// Ragged on purpose: 203 rows and 24 columns leave remainders for the kernels' 4 × 8 blocks.
const KERNEL_CASE = { n: 203, d: 24, block: 16, runs: 1 };
const largest = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

test("both worker builds give the page's numbers, and the page runs the relaxed-SIMD one here", async () => {
  // Chromium has shipped relaxed SIMD since 114: the probe validates, so the page chooses it.
  assert.equal(await page.evaluate((p) => WebAssembly.validate(new Uint8Array(p)), PROBE), true);
  assert.equal(await page.evaluate(() => window.attentionLab.workerBuild()), 'relaxed-simd');
  const own = await page.evaluate((o) => window.attentionLab.kernelBench(o), KERNEL_CASE);
  const simd = await page.evaluate((o) => window.attentionLab.workerKernelBench({ ...o, build: 'simd128' }), KERNEL_CASE);
  const relaxed = await page.evaluate((o) => window.attentionLab.workerKernelBench({ ...o, build: 'relaxed-simd' }), KERNEL_CASE);
  for (const r of [own, simd, relaxed]) {
    assert.equal(r.ok, true, JSON.stringify(r).slice(0, 200));
    assert.equal(r.sample.length, Math.min(4096, 203 * 24));
  }
  assert.equal(own.kernels, 'wasm simd128');
  assert.equal(simd.kernels, 'wasm simd128');
  assert.equal(simd.build, 'simd128');
  assert.equal(relaxed.kernels, 'wasm relaxed SIMD (fused multiply-add)');
  assert.equal(relaxed.build, 'relaxed-simd');
  // The page's module and the simd128 worker run the same code: the same numbers, bit for bit.
  assert.deepEqual(simd.sample, own.sample);
  // Fused multiply-adds round once instead of twice: equal to f32 precision, not bit for bit.
  const diff = largest(relaxed.sample, simd.sample);
  assert.ok(diff < 1e-5, `relaxed SIMD differs by ${diff}`);
  assert.ok(own.sample.some((x) => x !== 0));
  const unknown = await page.evaluate(() => window.attentionLab.workerKernelBench({ build: 'avx512' }));
  assert.equal(unknown.ok, false);
});

test('where relaxed SIMD does not validate, the page runs the simd128 worker, with the same numbers', async () => {
  const other = await browser.newPage();
  const seen = [];
  other.on('request', (r) => seen.push(r.url()));
  // A browser without relaxed SIMD: the probe does not validate (everything else does).
  await other.addInitScript((probe) => {
    const validate = WebAssembly.validate;
    WebAssembly.validate = (bytes) => {
      const view = new Uint8Array(bytes.buffer ?? bytes);
      if (view.length === probe.length && view.every((b, i) => b === probe[i])) return false;
      return validate(bytes);
    };
  }, PROBE);
  await other.goto(server.url);
  await other.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
  assert.equal(await other.evaluate(() => window.attentionLab.workerBuild()), 'simd128');
  const refused = await other.evaluate(() => window.attentionLab.workerKernelBench({ build: 'relaxed-simd' }));
  assert.equal(refused.ok, false);
  assert.match(refused.error, /relaxed SIMD/);
  const chosen = await other.evaluate((o) => window.attentionLab.workerKernelBench(o), KERNEL_CASE);
  assert.equal(chosen.build, 'simd128');
  const own = await page.evaluate((o) => window.attentionLab.kernelBench(o), KERNEL_CASE);
  assert.deepEqual(chosen.sample, own.sample);
  // A long sentence goes to the page's workers: this page fetched only the simd128 module.
  const words = Array.from({ length: 700 }, (_, i) => `w${i % 50}`).join(' ');
  assert.equal((await other.evaluate((s) => window.attentionLab.set({ sentence: s }), words)).ok, true);
  await other.waitForFunction(
    () => window.attentionLab.state().tokens?.length === 700
      && !document.querySelector('[data-testid=computing]').textContent,
    null, { timeout: 90000 },
  );
  assert.ok(seen.some((u) => u.endsWith('/attention-worker_bg.wasm')), seen.join('\n'));
  assert.ok(!seen.some((u) => u.includes('attention-worker-relaxed')), seen.join('\n'));
  await other.close();
});

test('a screenshot when asked (SCREENSHOT=path)', { skip: !process.env.SCREENSHOT }, async () => {
  // A fresh page from a link, in a tall window: views draw only on screen, and this one shows
  // the first four steps at once.
  await page.setViewportSize({ width: 1400, height: 2000 });
  await page.goto(`${server.url}?mask=causal`);
  await page.waitForSelector('[data-testid=token-chip]');
  await nextFrames(page);
  await page.waitForTimeout(300);
  const cell = await page.locator('[data-testid=heatmap-weights]').boundingBox();
  await page.mouse.move(cell.x + cell.width * 0.62, cell.y + cell.height * 0.62);
  await page.waitForTimeout(200);
  await page.screenshot({ path: process.env.SCREENSHOT });
});

test('no errors in the console; everything the page loads comes from dist/', () => {
  assert.deepEqual(errors, []);
  const remote = requests.filter((url) => !url.startsWith(server.url) && !url.startsWith('data:') && !url.startsWith('blob:'));
  assert.ok(requests.length > 2);
  assert.deepEqual(remote, []);
});
