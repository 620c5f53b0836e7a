// Smoke test of the built app (dist/): it mounts, shows the tokens and a non-blank heatmap of
// attention weights whose rows sum to 1, and recomputes when the sentence changes. This is the
// only test that runs the wasm-opt'd release build, so it is the one that catches a broken
// wasm-opt. With SCREENSHOT=path it also saves a screenshot of the page.
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) {
    passed++;
    console.log(`test ${name} ... ok`);
  } else {
    failed++;
    console.log(`test ${name} ... FAILED ${detail}`);
  }
}

const server = await serve(join(ROOT, 'dist'));
const browser = await launch();
const errors = [];
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });

  const first = await page.evaluate(() => window.attentionLab.trace());
  const chips = await page.locator('[data-testid=token-chip]').count();
  check('app mounts and shows the tokens', chips > 0 && chips === first.tokens.length,
    `chips=${chips} tokens=${first?.tokens?.length}`);
  const sums = first.heads[0].weights.map((row) => row.reduce((a, b) => a + b, 0));
  check('weights rows sum to 1', sums.every((s) => Math.abs(s - 1) < 1e-4), JSON.stringify(sums));

  const pixels = await page.evaluate(() => {
    const canvas = document.querySelector('[data-testid=weights-heatmap]');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    for (let i = 0; i < data.length; i += 4 * 97) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
    return { width: canvas.width, height: canvas.height, colours: colours.size };
  });
  check('heatmap is drawn and not blank', pixels.width > 50 && pixels.colours > 8, JSON.stringify(pixels));

  await page.fill('[data-testid=sentence]', '注意力机制让每个词都能看到整句话。');
  await page.waitForFunction((n) => window.attentionLab.trace().tokens.length !== n, first.tokens.length);
  const second = await page.evaluate(() => window.attentionLab.trace());
  check('editing the sentence recomputes', second.tokens.join('') === '注意力机制让每个词都能看到整句话。'
    && JSON.stringify(second.heads[0].weights) !== JSON.stringify(first.heads[0].weights),
    second.tokens.join(' '));

  if (process.env.SCREENSHOT) {
    await page.fill('[data-testid=sentence]', 'The cat sat on the mat because it was tired.');
    await page.waitForTimeout(300);
    await page.screenshot({ path: process.env.SCREENSHOT, fullPage: true });
  }
  check('no errors in the console', errors.length === 0, errors.join(' | '));
} catch (error) {
  check('smoke test ran to the end', false, String(error));
} finally {
  await browser.close();
  server.close();
}
console.log(`\ntest result: ${failed ? 'FAILED' : 'ok'}. ${passed} passed; ${failed} failed (browser smoke test of dist/)`);
process.exit(failed ? 1 : 0);
