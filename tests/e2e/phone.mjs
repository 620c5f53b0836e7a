// The lab on a phone (390 × 844, touch): nothing wider than the screen, a tap explains the cell
// under the finger, and the controls open as a sheet over the lower half, next to what they change.
//
// node --test tests/e2e/phone.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT, nextFrames } from './browser.mjs';

let server;
let browser;
let page;

before(async () => {
  server = await serve(join(ROOT, 'dist'));
  browser = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Scrolls `selector` into view and waits until it has drawn and the layout has settled. */
async function bring(selector) {
  for (let i = 0; i < 3; i++) {
    await page.locator(selector).scrollIntoViewIfNeeded();
    await nextFrames(page);
  }
  return page.locator(selector).boundingBox();
}

test('nothing is wider than the screen', async () => {
  for (let y = 0; y < 20000; y += 600) {
    await page.evaluate((y) => window.scrollTo(0, y), y);
    await nextFrames(page);
  }
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  assert.deepEqual(widths, { scroll: 390, inner: 390 });
});

test('a tap explains the cell under the finger', async () => {
  const box = await bring('[data-testid=heatmap-weights]');
  const trace = await page.evaluate(() => window.attentionLab.trace());
  const n = trace.tokens.length;
  const [row, col] = [4, 8];
  await page.touchscreen.tap(box.x + (col + 0.5) * box.width / n, box.y + (row + 0.5) * box.height / n);
  await page.waitForSelector('[data-testid=tooltip]');
  const tip = await page.locator('[data-testid=tooltip]').innerText();
  assert.ok(tip.includes(`query ${row}`) && tip.includes(`key ${col}`), tip);
  const value = trace.heads[0].weights[row][col];
  assert.ok(tip.startsWith(value.toFixed(3)) || value < 0.001, `${tip} / ${value}`);
  const rect = await page.locator('[data-testid=tooltip]').boundingBox();
  assert.ok(rect.x >= 0 && rect.x + rect.width <= 390 && rect.y >= 0 && rect.y + rect.height <= 844, JSON.stringify(rect));
});

test('the controls open as a sheet next to the weights they change', async () => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await nextFrames(page);
  await bring('[data-testid=heatmap-weights]');
  // Scrolled down to the weights, the button has tucked itself below the screen (it would
  // cover a line of them); a short scroll back up brings it back, next to them.
  await page.waitForFunction(() => document.querySelector('[data-testid=controls-open]').getBoundingClientRect().top >= 844);
  await page.evaluate(() => window.scrollBy(0, -60));
  await page.waitForFunction(() => document.querySelector('[data-testid=controls-open]').getBoundingClientRect().bottom <= 844);
  const button = await page.locator('[data-testid=controls-open]').boundingBox();
  assert.ok(button && button.y + button.height <= 844, 'the button is on screen');
  await page.locator('[data-testid=controls-open]').tap();
  const sheet = await page.locator('[data-testid=controls-sheet]').boundingBox();
  assert.ok(sheet && sheet.y >= 844 * 0.4, `a sheet over the lower half: ${JSON.stringify(sheet)}`);
  const before = await page.evaluate(() => window.attentionLab.trace().heads[0].weights);
  await page.locator('[data-testid=temperature]').scrollIntoViewIfNeeded();
  await page.fill('[data-testid=temperature]', '0.2');
  await page.press('[data-testid=temperature]', 'Enter');
  await page.waitForFunction(() => window.attentionLab.state().temperature === 0.2);
  const after = await page.evaluate(() => window.attentionLab.trace().heads[0].weights);
  assert.notDeepEqual(after, before);
  await page.locator('[data-testid=controls-close]').tap();
  assert.equal(await page.locator('[data-testid=controls-sheet]').isVisible(), false);
});
