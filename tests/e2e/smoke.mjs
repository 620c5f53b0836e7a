// Smoke test of the built app (dist/): it mounts, shows the tokens and a non-blank heatmap of
// attention weights whose rows sum to 1, and recomputes when the sentence changes. This is the
// only test that runs the wasm-opt'd release build, so it is the one that catches a broken
// wasm-opt. With SCREENSHOT=path it also saves a screenshot of the page.
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';
import { check, finish } from './check.mjs';

const server = await serve(join(ROOT, 'dist'));
const browser = await launch();
const errors = [];
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  // Offline use in a classroom: every request must stay on this server (no CDN, no remote font).
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });

  const first = await page.evaluate(() => window.attentionLab.trace());
  const chips = await page.locator('[data-testid=token-chip]').count();
  check('app mounts and shows the tokens', chips > 0 && chips === first.tokens.length,
    `chips=${chips} tokens=${first?.tokens?.length}`);
  const sums = first.heads[0].weights.map((row) => row.reduce((a, b) => a + b, 0));
  check('weights rows sum to 1', sums.every((s) => Math.abs(s - 1) < 1e-4), JSON.stringify(sums));

  // Views draw when on screen: bring the weights into view and let a frame pass.
  await page.locator('[data-testid=heatmap-weights]').scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const pixels = await page.evaluate(() => {
    const canvas = document.querySelector('[data-testid=heatmap-weights]');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    for (let i = 0; i < data.length; i += 4 * 97) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
    return { width: canvas.width, height: canvas.height, colours: colours.size };
  });
  check('heatmap is drawn and not blank', pixels.width > 50 && pixels.colours > 8, JSON.stringify(pixels));

  // Every kind of view draws something: embeddings, projections, scores, weights, the head view.
  const canvasColours = (selector) => page.evaluate((selector) => {
    const canvas = document.querySelector(selector);
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    let hash = 0;
    for (let i = 0; i < data.length; i += 4) {
      colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      hash = (hash * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2]) >>> 0;
    }
    return { colours: colours.size, hash };
  }, selector);
  const shown = async (selector) => {
    await page.locator(selector).scrollIntoViewIfNeeded();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    return canvasColours(selector);
  };
  for (const id of ['heatmap-x', 'heatmap-q', 'heatmap-scaled', 'heatmap-weights', 'head-view', 'heatmap-output', 'heatmap-projected']) {
    if (id === 'heatmap-output') continue; // only with LayerNorm on
    const { colours } = await shown(`[data-testid=${id}]`);
    check(`${id} is not blank`, colours > 8, `${colours} colours`);
  }

  // Typing a new temperature redraws the weights: the picture changes.
  const before = await shown('[data-testid=heatmap-weights]');
  await page.fill('[data-testid=temperature]', '0.1');
  await page.press('[data-testid=temperature]', 'Enter');
  await page.waitForFunction(() => window.attentionLab.state().temperature === 0.1);
  const after = await shown('[data-testid=heatmap-weights]');
  check('the weights heatmap changes with the temperature', after.hash !== before.hash && after.colours > 8,
    JSON.stringify({ before, after }));

  await page.fill('[data-testid=sentence]', '注意力机制让每个词都能看到整句话。');
  await page.waitForFunction((n) => window.attentionLab.trace().tokens.length !== n, first.tokens.length);
  const second = await page.evaluate(() => window.attentionLab.trace());
  check('editing the sentence recomputes', second.tokens.join('') === '注意力机制让每个词都能看到整句话。'
    && JSON.stringify(second.heads[0].weights) !== JSON.stringify(first.heads[0].weights),
    second.tokens.join(' '));

  // Exports: what a student saves for notes.
  const saved = async (testid) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
    const path = await download.path();
    const { readFile } = await import('node:fs/promises');
    return { name: download.suggestedFilename(), bytes: await readFile(path) };
  };
  await page.locator('[data-testid=heatmap-weights-csv]').scrollIntoViewIfNeeded();
  const csvFile = await saved('heatmap-weights-csv');
  const csvLines = csvFile.bytes.toString('utf8').trim().split('\n');
  const shownTrace = await page.evaluate(() => window.attentionLab.trace());
  check('a heatmap exports as CSV with its labels and numbers', csvFile.name === 'weights.csv'
    && csvLines.length === shownTrace.tokens.length + 1 && csvLines[1].startsWith(shownTrace.tokens[0] + ',')
    && Math.abs(Number(csvLines[1].split(',')[1]) - shownTrace.heads[0].weights[0][0]) < 1e-6, csvLines.slice(0, 2).join(' | '));
  const pngFile = await saved('heatmap-weights-png');
  check('a heatmap exports as PNG', pngFile.name === 'weights.png' && pngFile.bytes.subarray(1, 4).toString() === 'PNG', pngFile.name);
  await page.locator('[data-testid=head-view-png]').scrollIntoViewIfNeeded();
  const headViewPng = await saved('head-view-png');
  check('the head view exports as PNG', headViewPng.bytes.subarray(1, 4).toString() === 'PNG', headViewPng.name);
  await page.locator('[data-testid=flash-grid-png]').scrollIntoViewIfNeeded();
  const gridPng = await saved('flash-grid-png');
  const gridCsv = await page.locator('[data-testid=flash-grid-csv]').isVisible();
  check('the flash grid exports as PNG (its colours are states: no CSV)', gridPng.bytes.subarray(1, 4).toString() === 'PNG' && !gridCsv, gridPng.name);
  await page.locator('[data-testid=memory-chart-svg]').scrollIntoViewIfNeeded();
  const svgFile = await saved('memory-chart-svg');
  check('the chart exports as SVG', svgFile.bytes.toString('utf8').includes('<svg') && svgFile.bytes.toString('utf8').includes('flash'), svgFile.name);
  const chartPng = await saved('memory-chart-png');
  check('the chart exports as PNG', chartPng.bytes.subarray(1, 4).toString() === 'PNG', chartPng.name);
  await page.locator('[data-testid=share-download-trace]').scrollIntoViewIfNeeded();
  const traceFile = await saved('share-download-trace');
  const exported = JSON.parse(traceFile.bytes.toString('utf8'));
  check('the whole trace exports as JSON in the CLI\'s shape', exported.tokens.join(' ') === shownTrace.tokens.join(' ')
    && exported.heads.length === shownTrace.heads.length && 'flash' in exported && exported.backend === 'cpu', traceFile.name);
  await page.click('[data-testid=share-copy-link]');
  const link = await page.inputValue('[data-testid=share-text]');
  await page.click('[data-testid=share-copy-embed]');
  const embedCode = await page.inputValue('[data-testid=share-text]');
  check('copy link and copy embed code give the state as a link and an iframe',
    link.startsWith(server.url) && link.includes('sentence=') && embedCode.startsWith('<iframe src="')
      && embedCode.includes('embed=1') && embedCode.includes('panels=weights%2Chead-view'), `${link} | ${embedCode}`);

  // This Chromium runs without --enable-unsafe-webgpu: no adapter. Asking for the GPU must still
  // compute, on the CPU, and say why.
  await page.waitForFunction(() => window.attentionLab.state().gpu !== 'probing');
  const noGpu = await page.evaluate(() => {
    const before = window.attentionLab.state();
    const answer = window.attentionLab.set({ backend: 'gpu', temperature: 0.9 });
    return { before, answer };
  });
  await page.waitForFunction(() => window.attentionLab.state().temperature === 0.9);
  const fallback = await page.evaluate(() => ({ state: window.attentionLab.state(), trace: window.attentionLab.trace() }));
  check('without WebGPU the GPU choice falls back to the CPU and says why',
    noGpu.before.gpu === 'unavailable' && noGpu.answer.ok && fallback.state.backend === 'cpu'
      && fallback.state.fallback_reason === 'no-webgpu' && fallback.trace.temperature === 0.9
      && fallback.trace.heads[0].weights.every((row) => Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4),
    JSON.stringify({ before: noGpu.before.gpu, answer: noGpu.answer, state: fallback.state.fallback_reason, backend: fallback.state.backend }));
  await page.evaluate(() => window.attentionLab.set({ backend: 'auto' }));

  if (process.env.SCREENSHOT) {
    // A fresh page from a link, in a tall window: views draw only on screen, and this one shows
    // the first four steps at once.
    await page.setViewportSize({ width: 1400, height: 2000 });
    await page.goto(`${server.url}?mask=causal`);
    await page.waitForSelector('[data-testid=token-chip]');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.waitForTimeout(300);
    const cell = await page.locator('[data-testid=heatmap-weights]').boundingBox();
    await page.mouse.move(cell.x + cell.width * 0.62, cell.y + cell.height * 0.62);
    await page.waitForTimeout(200);
    await page.screenshot({ path: process.env.SCREENSHOT });
  }
  check('no errors in the console', errors.length === 0, errors.join(' | '));
  const remote = requests.filter((url) => !url.startsWith(server.url) && !url.startsWith('data:') && !url.startsWith('blob:'));
  check('everything the page loads comes from dist/', requests.length > 2 && remote.length === 0, remote.join(' '));
} catch (error) {
  check('smoke test ran to the end', false, String(error));
} finally {
  await browser.close();
  server.close();
}
finish('browser smoke test of dist/');
