// Learn as a teacher and a student use it: a link opens a chapter, an embed shows only the
// chapter, presentation mode hides the controls and moves with the arrow keys, the learner's
// answers survive a reload (local storage), and the chapter fits a phone.
//
// node --test tests/e2e/learn.mjs   (after trunk build --release)
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
  browser = await launch();
  page = await browser.newPage();
});

after(async () => {
  await browser?.close();
  server?.close();
});

async function open(query) {
  await page.goto(`${server.url}?${query}`);
  await page.waitForSelector('[data-testid=chapter]', { timeout: 30000 });
  await nextFrames(page);
}

const chapter = () => page.getAttribute('[data-testid=chapter]', 'data-chapter');

test('a link opens the chapter, and the address follows the chapter', async () => {
  await open('lesson=softmax&lang=en');
  assert.equal(await chapter(), 'softmax');
  assert.equal(await page.textContent('[data-testid=chapter-title]'), 'Softmax and temperature');
  await page.click('[data-testid=chapter-next]');
  await nextFrames(page);
  assert.equal(await chapter(), 'masks');
  await page.waitForFunction(() => location.search.includes('lesson=masks'), null, { timeout: 5000 });
  // Lab and Learn switch in the masthead; Learn comes back to the chapter left.
  await page.click('[data-testid=mode-lab]');
  await nextFrames(page);
  assert.equal(await page.locator('[data-testid=learn]').count(), 0);
  await page.click('[data-testid=mode-learn]');
  await nextFrames(page);
  assert.equal(await chapter(), 'masks');
});

test('presentation mode: the chapter fills the screen, arrows move, Esc ends', async () => {
  await open('lesson=scaling&lang=en');
  await page.click('[data-testid=present]');
  await nextFrames(page);
  assert.equal(await page.locator('.sidebar').isVisible(), false, 'controls hidden');
  assert.equal(await page.locator('.chapter-list').isVisible(), false);
  const size = await page.$eval('[data-testid=chapter]', (e) => parseFloat(getComputedStyle(e).fontSize));
  assert.ok(size >= 20, `large type: ${size}px`);
  // The controls wait behind a button.
  await page.click('[data-testid=controls-open]');
  await nextFrames(page);
  assert.equal(await page.locator('[data-testid=controls-sheet]').isVisible(), true, 'controls when asked for');
  await page.click('[data-testid=controls-open]');
  await nextFrames(page);
  assert.equal(await page.locator('.sidebar').isVisible(), false);
  await page.locator('[data-testid=chapter-title]').click();
  await page.keyboard.press('ArrowRight');
  await nextFrames(page);
  assert.equal(await chapter(), 'softmax');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await nextFrames(page);
  assert.equal(await chapter(), 'qkv');
  await page.keyboard.press('Escape');
  await nextFrames(page);
  assert.equal(await page.locator('.sidebar').isVisible(), true);
  // Out of presentation the arrows belong to the page again.
  await page.keyboard.press('ArrowRight');
  await nextFrames(page);
  assert.equal(await chapter(), 'qkv');
});

test('answers stay in this browser across a reload', async () => {
  await open('lesson=gqa&lang=en');
  await page.click('[data-testid=lesson-reset]');
  await page.click('[data-testid=choice-2]');
  await nextFrames(page);
  assert.match(await page.textContent('[data-testid=verdict]'), /^Right\./);
  await page.reload();
  await page.waitForSelector('[data-testid=chapter]');
  await nextFrames(page);
  assert.match(await page.textContent('[data-testid=verdict]'), /^Right\./);
  assert.equal(await page.locator('[data-testid=experiment-open]').count(), 1);
  assert.match(await page.textContent('[data-testid=lesson-score]'), /^1 of 21/);
  const stored = await page.evaluate(() => localStorage.getItem('attention-lab.learn.v1'));
  assert.deepEqual(JSON.parse(stored).answers, { gqa: 2 });
});

test('an embedded chapter shows the chapter alone', async () => {
  await open('embed=1&lesson=layernorm&lang=zh');
  assert.equal(await chapter(), 'layernorm');
  assert.equal(await page.locator('[data-testid=embed]').count(), 1);
  assert.equal(await page.locator('.chapter-list').count(), 0, 'no chapter list in an embed');
  assert.equal(await page.locator('[data-testid=present]').count(), 0);
  assert.match(await page.textContent('[data-testid=chapter-title]'), /层归一化/);
});

test('the complexity chapter measures in the page and fits a slope near 2', async () => {
  await open('lesson=complexity&lang=en');
  await page.click('[data-testid=reveal]');
  await page.click('[data-testid=lesson-measure]');
  await page.waitForFunction(
    () => document.querySelector('[data-testid=lesson-slope]')?.textContent.includes('standard'),
    null,
    { timeout: 60000 },
  );
  const text = await page.textContent('[data-testid=lesson-slope]');
  const slope = Number(text.match(/standard (\d+\.\d+)/)[1]);
  assert.ok(slope > 1.5 && slope < 2.6, text);
});

test('a chapter fits a phone', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open('lesson=variants&lang=en');
  await page.click('[data-testid=reveal]');
  await nextFrames(page);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 392, `page width ${wide}`);
});

test('the delta-rule chapter: a state of fixed size asked for what was written, and the sentence in chunks', async () => {
  await open('lesson=delta-rule&lang=en');
  assert.equal(await chapter(), 'delta-rule');
  assert.equal(await page.textContent('[data-testid=chapter-title]'), 'Linear attention grown up: the delta rule');
  await page.click('[data-testid=choice-1]');
  await page.waitForSelector('[data-testid=delta-recall-chart]');
  const result = await page.textContent('[data-testid=lesson-result]');
  const m = /d_k = (\d+) dimensions: after \1 pairs .* the mean recall error is (\d\.\d+) for plain linear attention, (\d\.\d+) for the delta rule .* with an error of (\S+)\.$/.exec(result);
  assert.ok(m, result);
  assert.ok(Number(m[3]) < Number(m[2]), 'the delta rule recalls better than the sum');
  assert.ok(Number(m[4]) < 1e-4, 'the newest pair comes back exactly');
  const past = await page.textContent('[data-testid=delta-past-capacity]');
  const [delta, gated] = /error of (\d\.\d+) without the decay and (\d\.\d+) with/.exec(past).slice(1).map(Number);
  assert.ok(gated < delta, past);
  const chunks = await page.textContent('[data-testid=delta-chunks]');
  const diffs = chunks.match(/\d\.\de-\d+/g).map(Number);
  assert.equal(diffs.length, 4, chunks);
  assert.ok(diffs.every((d) => d < 1e-5), chunks);
  // The Linear attention section sits beside it, and the chapter reads in Chinese too.
  assert.equal(await page.locator('[data-testid=linear-section]').count(), 1);
  await open('lesson=delta-rule&lang=zh');
  assert.equal(await page.textContent('[data-testid=chapter-title]'), '线性注意力的进化：delta 规则');
});

test('the hybrids chapter: memory for four mixes of layers, and the Llama twins side by side', async () => {
  await open('lesson=hybrids&lang=en&d_model=64&n_heads=4&n_kv_heads=2');
  assert.equal(await chapter(), 'hybrids');
  assert.equal(await page.textContent('[data-testid=chapter-title]'), 'Hybrids and gates');
  await page.click('[data-testid=choice-1]');
  await page.waitForSelector('[data-testid=hybrids-memory-chart]');
  // Four layers of 4 heads (2 K/V heads) of d_k = 16: three states of 4 · 16 · 16 floats against
  // 3 · 2 · 32 floats a token saved: 12,288 bytes paid for by 768 a token, below from token 17 on.
  const result = await page.textContent('[data-testid=lesson-result]');
  const m = /from (\d+) tokens on \(the marked line\); at 65,536 tokens it holds ([\d,]+) bytes against ([\d,]+)\./.exec(result);
  assert.ok(m, result);
  assert.equal(Number(m[1]), 17);
  const [hybrid, softmax] = [m[2], m[3]].map((s) => Number(s.replaceAll(',', '')));
  assert.equal(softmax, 65536 * 4 * 2 * 32 * 4);
  assert.equal(hybrid, 3 * 4 * 16 * 16 * 4 + 65536 * 2 * 32 * 4);
  // The twins, fetched only when compared: the three signs of a sink, and what they say.
  await page.click('[data-testid=stream-twins-run]');
  await page.waitForSelector('[data-testid=stream-twins-table]', { timeout: 120000 });
  assert.equal(await page.locator('[data-testid=stream-twins-table] td').count(), 10);
  assert.match(await page.textContent('[data-testid=stream-twins-verdict]'), /sink/);
  // The variants chapter points here, and the chapter reads in Chinese too.
  await open('lesson=variants&lang=en');
  await page.click('[data-testid=choice-1]');
  await page.click('[data-testid=variants-hybrids]');
  assert.equal(await chapter(), 'hybrids');
  await open('lesson=hybrids&lang=zh');
  assert.equal(await page.textContent('[data-testid=chapter-title]'), '混合模型与门');
});
