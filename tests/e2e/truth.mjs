// What a review found the lab showing falsely (issue 23), each checked where it is drawn: the
// built dist/ in headless Chromium, at desktop and phone size, in both languages. Each test
// opens the page the way the review did and asserts what a learner sees.
//
// node --test tests/e2e/truth.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT, nextFrames } from './browser.mjs';

let server;
let browser;
const errors = [];

before(async () => {
  server = await serve(join(ROOT, 'dist'));
  browser = await launch({ viewport: { width: 1400, height: 1000 } });
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** A fresh page on `query`, waiting for the token chips (or the chapter, or the embed). */
async function open(query, { context = browser, ready = '[data-testid=token-chip]' } = {}) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}?${query}`);
  await page.waitForSelector(ready, { timeout: 30000 });
  await nextFrames(page);
  return page;
}

/** The average brightness (0–255) of the drawn pixels of a canvas or an image (transparent ones
 * left out); -1 where nothing is drawn. */
function inkOf(page, selector) {
  return page.evaluate(async (selector) => {
    let canvas = document.querySelector(selector);
    if (canvas instanceof HTMLImageElement) {
      // A picture (the row labels): drawn into a canvas of its own once it has loaded.
      const image = canvas;
      if (!image.currentSrc) return -1;
      await image.decode();
      canvas = document.createElement('canvas');
      [canvas.width, canvas.height] = [image.naturalWidth, image.naturalHeight];
      canvas.getContext('2d').drawImage(image, 0, 0);
    }
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let sum = 0;
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 128) {
        sum += (data[i] + data[i + 1] + data[i + 2]) / 3;
        count++;
      }
    }
    return count ? sum / count : -1;
  }, selector);
}

/** Reads `measure()` until `good` holds of it (a picture that is encoded and decoded a moment
 * after its view was drawn), at most 5 s; returns the last reading. */
async function settled(measure, good) {
  const end = Date.now() + 5000;
  for (;;) {
    const value = await measure();
    if (good(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the trained model has loaded and run. */
async function trained(page) {
  await page.waitForSelector('[data-testid=predictions] li', { timeout: 30000 });
  await nextFrames(page);
}

// Softmax chapter: "T = 0.30000001192092896". No f32 may reach the screen widened to f64.
test('numbers reach the screen as typed, never as an f32 widened to f64', async () => {
  const noise = /\d\.\d*(0{6,}|9{6,})\d/;
  for (const t of ['0.3', '0.2', '0.07']) {
    const page = await open(`lesson=softmax&temperature=${t}`);
    await page.click('[data-testid=reveal]');
    await page.waitForSelector('[data-testid=lesson-result]');
    const text = await page.evaluate(() => document.body.innerText);
    assert.ok(!noise.test(text), `T = ${t}: ${text.match(noise)?.[0]}`);
    assert.ok(text.includes(`T = ${t}`), `T = ${t} is said as typed`);
    await page.click('[data-testid=mode-lab]');
    await page.waitForSelector('[data-testid=heatmap-weights]', { state: 'attached' });
    const lab = await page.evaluate(() => document.body.innerText);
    assert.ok(!noise.test(lab), `lab at T = ${t}: ${lab.match(noise)?.[0]}`);
    await page.close();
  }
});

// Theme: opened light and switched to dark, every heatmap's labels stayed dark on dark.
test('heatmap labels and colour bars follow the theme, chosen or from the system', async () => {
  const page = await open('theme=light');
  const labels = '[data-stage=x] img.heatmap-rows';
  const legend = '[data-testid=heatmap-x-legend]';
  await page.locator('[data-testid=heatmap-x]').scrollIntoViewIfNeeded();
  await nextFrames(page);
  const dim = (ink) => ink >= 0 && ink < 110;
  const bright = (ink) => ink > 150;
  const light = { labels: await settled(() => inkOf(page, labels), dim), legend: await inkOf(page, legend) };
  assert.ok(dim(light.labels), `dark ink on light: ${light.labels}`);
  await page.click('[data-testid=theme-toggle]'); // dark
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  await nextFrames(page);
  await nextFrames(page);
  const dark = { labels: await settled(() => inkOf(page, labels), bright), legend: await inkOf(page, legend) };
  assert.ok(dark.labels > 150, `light ink on dark: ${dark.labels}`);
  assert.ok(dark.legend > light.legend, `the colour bar's numbers too: ${JSON.stringify({ light, dark })}`);
  await page.close();

  // "auto" follows the system when it switches while the page is open.
  const context = await launch({ viewport: { width: 1400, height: 1000 }, colorScheme: 'light' });
  const auto = await open('', { context });
  await auto.locator('[data-testid=heatmap-x]').scrollIntoViewIfNeeded();
  await nextFrames(auto);
  const before = await settled(() => inkOf(auto, labels), dim);
  await auto.emulateMedia({ colorScheme: 'dark' });
  await nextFrames(auto);
  await nextFrames(auto);
  const after = await settled(() => inkOf(auto, labels), bright);
  assert.ok(before < 110 && after > 150, `auto: ${before} → ${after}`);
  await context.close();
});

// The temperature slider stuck under the arrow keys (1 → 0.99, then no more; 0.1 → nothing).
test('every arrow key moves the temperature slider', async () => {
  const page = await open('');
  const slider = page.locator('[data-testid=temperature-slider]');
  const t = () => page.evaluate(() => window.attentionLab.state().temperature);
  for (const [start, key, sign] of [['1', 'ArrowLeft', -1], ['0.1', 'ArrowRight', 1]]) {
    await page.fill('[data-testid=temperature]', start);
    await page.press('[data-testid=temperature]', 'Enter');
    let last = Number(start);
    for (let i = 0; i < 4; i++) {
      await slider.press(key);
      await page.waitForFunction((last) => window.attentionLab.state().temperature !== last, last, { timeout: 3000 });
      const now = await t();
      assert.ok(Math.sign(now - last) === sign, `${key} from ${last}: ${now}`);
      last = now;
    }
  }
  await page.close();
});

// A long input survived typing but not its own link.
test('a link restores a long input, and says when it is long', async () => {
  const page = await open('n_heads=2');
  const words = Array.from({ length: 3000 }, (_, i) => `w${i % 50}`).join(' ');
  await page.evaluate((sentence) => window.attentionLab.set({ sentence }), words);
  await page.waitForFunction(() => window.attentionLab.state().sentence.length > 10000);
  await page.click('[data-testid=share-copy-link]');
  const link = await page.inputValue('[data-testid=share-text]');
  assert.ok(link.length > 8192);
  assert.match(await page.textContent('[data-testid=share-warning]'), /KB long/);
  const reopened = await browser.newPage();
  // (the link itself is too long to print if this fails)
  const response = await reopened.goto(link).catch((e) => ({ status: () => e.message.slice(0, 80) }));
  assert.equal(response.status(), 200);
  await reopened.waitForSelector('[data-testid=token-count]');
  await reopened.waitForFunction(() => window.attentionLab.state().sentence.length > 10000, null, { timeout: 30000 });
  assert.equal(await reopened.locator('[data-testid=link-notices]').count(), 0);
  assert.match(await reopened.textContent('[data-testid=token-count]'), /3000/);
  await reopened.close();
  await page.close();
});

// head=99, layer=7 and view=nope were used without a word.
test('a link names the head, layer and view the lab does not have', async () => {
  const page = await open('head=99&layer=7&view=nope');
  const notices = await page.textContent('[data-testid=link-notices]');
  assert.match(notices, /head 99/);
  assert.match(notices, /layer 7/);
  assert.match(notices, /nope/);
  const state = await page.evaluate(() => window.attentionLab.state());
  assert.equal(state.layer, 1, 'random weights have one layer');
  assert.equal(state.head, 1);
  await page.close();
});

// Chapters: √d_k's table, stability's overflow and underflow, the complexity chart, the
// exercises that handed out their answers, the gradient of Pre-LN and Post-LN.
test('the chapters say what their numbers show', async () => {
  const page = await open('lesson=scaling&lang=zh&d_k=512');
  await page.click('[data-testid=reveal]');
  const heads = await page.locator('[data-testid=scaling-heads] tbody tr').allTextContents();
  assert.ok(heads.length >= 2);
  for (const row of await page.locator('[data-testid=scaling-heads] tbody tr').all()) {
    const cells = (await row.locator('td').allTextContents()).map(Number);
    assert.ok(cells[5] > 512 * 0.5 && cells[5] < 512 * 2, `standardised var(q̃·k̃) ≈ d_k: ${cells}`);
    assert.ok(cells[6] > 0.5 && cells[6] < 2, `÷ √d_k ≈ 1: ${cells}`);
  }
  assert.match(await page.textContent('[data-testid=scaling-heads-result]'), /2 \/ \(16 \+ 512\)/);

  await page.evaluate(() => window.attentionLab.set({ lesson: 'stability', lang: 'en' }));
  await page.click('[data-testid=reveal]');
  // Query 0 under a causal mask sees one key; raise k past where its row breaks.
  await page.evaluate(() => window.attentionLab.set({ mask: { kind: 'causal' } }));
  const result = await page.textContent('[data-testid=lesson-result]');
  assert.match(result, /by (overflow|underflow)/);
  // A shift of +20 makes any row overflow in f16 at k = 1.
  await page.locator('[data-testid=lesson-shift]').fill('20');
  await nextFrames(page);
  assert.match(await page.textContent('[data-testid=stability-now]'), /naive f16 overflow/);
  await page.locator('[data-testid=lesson-shift]').fill('-20');
  await nextFrames(page);
  assert.match(await page.textContent('[data-testid=stability-now]'), /naive f16 underflow/);

  await page.evaluate(() => window.attentionLab.set({ lesson: 'exercises' }));
  await page.waitForSelector('[data-testid=exercise-0]');
  assert.equal(await page.locator('[data-testid=exercise-steps-0]').count(), 0, 'answers hidden at first');
  assert.ok(await page.locator('[data-testid=exercise-compare-0]').isDisabled(), 'compare needs an answer');
  await page.fill('[data-testid=exercise-answer-0]', 'O(n² d) time, O(n²) memory');
  await page.click('[data-testid=exercise-compare-0]');
  assert.ok((await page.locator('[data-testid=exercise-steps-0] li').count()) >= 3);
  assert.equal(await page.locator('[data-testid=exercise-steps-1]').count(), 0);

  await page.evaluate(() => window.attentionLab.set({ lesson: 'layernorm' }));
  await page.click('[data-testid=reveal]');
  assert.match(await page.textContent('[data-testid=gradient-result]'), /Pre-LN the gradient reaching the input is \d/);
  assert.ok((await page.locator('[data-testid=chart-gradient]').boundingBox()).height > 200);

  await page.evaluate(() => window.attentionLab.set({ lesson: 'complexity' }));
  await page.click('[data-testid=reveal]');
  await page.click('[data-testid=lesson-measure]');
  await page.waitForSelector('[data-testid=lesson-flash-cpu]:not(:empty)', { timeout: 120000 });
  assert.match(await page.textContent('[data-testid=lesson-flash-cpu]'), /memory traffic on a GPU/);
  await page.close();
});

// The trained model: captions, the context window past 128 characters, Continue, head roles.
test('the trained model is described as what it is, past its context too', async () => {
  const page = await open('model=trained');
  await trained(page);
  assert.match(await page.textContent('[data-testid=caption-embeddings]'), /wte/);
  assert.match(await page.textContent('[data-testid=caption-positions]'), /learns a vector for each position/);
  // Head roles are shares of one whole: each row sums to 1.
  for (const row of await page.locator('[data-testid=head-roles] tbody tr').all()) {
    const shares = (await row.locator('td').allTextContents()).slice(2, 7).map(Number);
    const sum = shares.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 0.03, `${shares} sums to ${sum}`);
  }
  // Past 128 characters the model reads the last 128, says so, and its views stay.
  await page.evaluate(() => window.attentionLab.set({ sentence: 'The cat sat on the mat. '.repeat(8) }));
  await page.waitForSelector('[data-testid=context-window]');
  assert.match(await page.textContent('[data-testid=context-window]'), /last 128.*from character 64/);
  assert.equal(await page.locator('[data-testid=token-chip]').count(), 128);
  assert.ok((await page.locator('[data-testid=predictions] li').count()) === 5);
  assert.ok(await page.locator('[data-testid=continue]').isEnabled());
  await page.click('[data-testid=continue]');
  await page.waitForFunction(() => window.attentionLab.state().sentence.length === 193);
  assert.match(await page.textContent('[data-testid=context-window]'), /of your 193/);
  // Back to random weights: nothing says GPT-2 any more.
  await page.click('[data-testid=model-choice] button[data-value=random]');
  await page.waitForSelector('[data-testid=weights-untrained]');
  assert.equal(await page.locator('[data-testid=model-status]').count(), 0);
  assert.match(await page.textContent('[data-testid=caption-embeddings]'), /random/);
  await page.close();
});

// One's own X and weights: labels allowed, captions true, a link that says what it drops.
test('one’s own X, tokens and weights are labelled and described as given', async () => {
  const page = await open('');
  const ok = await page.evaluate(() => window.attentionLab.set({
    x: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]],
    tokens: ['I', 'like', 'tea'],
    n_heads: 1,
    d_k: 2,
    d_v: 2,
    weights: {
      w_q: [[1, 0], [0, 1], [0, 0], [0, 0]],
      w_k: [[1, 0], [0, 1], [0, 0], [0, 0]],
      w_v: [[1, 0], [0, 1], [0, 0], [0, 0]],
      w_o: [[1, 0, 0, 0], [0, 1, 0, 0]],
    },
  }));
  assert.deepEqual(ok, { ok: true });
  await page.waitForFunction(() => window.attentionLab.trace().tokens.join(' ') === 'I like tea');
  assert.match(await page.textContent('[data-testid=caption-x]'), /Your own vectors/);
  assert.match(await page.textContent('[data-testid=weights-untrained]'), /your own weights/);
  assert.equal(await page.locator('[data-testid=reroll]').count(), 0);
  await page.click('[data-testid=share-copy-link]');
  assert.match(await page.textContent('[data-testid=share-warning]'), /tokens, x, weights/);
  await page.click('[data-testid=weights-reset]');
  await page.waitForSelector('[data-testid=reroll]');
  await page.close();
});

// Presentation mode was only in Learn.
test('a section of the lab can be presented, and ← → move between sections', async () => {
  const page = await open('model=trained');
  await trained(page);
  await page.click('[data-testid=present-next]');
  await page.waitForSelector('[data-testid=present-bar]');
  const visible = () => page.evaluate(() => [...document.querySelectorAll('.main .step')]
    .filter((s) => s.offsetParent !== null).map((s) => s.dataset.view));
  assert.deepEqual(await visible(), ['next']);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.attentionLab.state().view === 'generate');
  assert.deepEqual(await visible(), ['generate']);
  assert.match(await page.textContent('[data-testid=present-where]'), /Section 2 of 12/);
  await page.keyboard.press('Escape');
  await nextFrames(page);
  assert.ok((await visible()).length >= 9);
  await page.close();
});

// An embedded chapter told its reader to move d_k in controls it did not have.
test('an embedded chapter carries its controls, or says it has none', async () => {
  const page = await open('embed=1&lesson=scaling&panels=sentence,controls', { ready: '[data-testid=chapter]' });
  assert.ok(await page.locator('[data-testid=embed-chapter-side] [data-testid=d-k]').isVisible());
  assert.equal(await page.locator('[data-testid=embed-no-controls]').count(), 0);
  await page.close();
  const bare = await open('embed=1&lesson=scaling', { ready: '[data-testid=chapter]' });
  assert.match(await bare.textContent('[data-testid=embed-no-controls]'), /without its controls/);
  await bare.close();
});

// Smaller: the head view's PNG at 1×; the table mixing notations; ASCII full stops in Chinese;
// an English sentence on the Chinese page; "K/V 1" unexplained.
test('the smaller things: exports, tables, Chinese text, K/V', async () => {
  const page = await open('lang=zh&n_heads=4&n_kv_heads=2&temperature=0.1');
  assert.match(await page.evaluate(() => window.attentionLab.state().sentence), /[\u4e00-\u9fff]/, 'a Chinese sentence');
  const text = await page.evaluate(() => document.body.innerText);
  assert.doesNotMatch(text, /[\u4e00-\u9fff][.,]/, 'no ASCII full stop after Chinese');
  assert.match(await page.textContent('[data-testid=kv-reads]'), /K\/V 头/);
  await page.locator('[data-testid=head-view-png]').scrollIntoViewIfNeeded();
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=head-view-png]')]);
  const png = await readFile(await download.path());
  const width = png.readUInt32BE(16);
  const shown = (await page.locator('[data-testid=head-view]').boundingBox()).width;
  assert.ok(width >= 2 * shown - 2, `exported ${width} px for ${shown} on screen`);
  await page.click('[data-testid=heatmap-weights-table-toggle]');
  const cells = await page.locator('[data-testid=heatmap-weights-table] td').allTextContents();
  const scientific = cells.filter((c) => /e-?\d/.test(c)).length;
  assert.ok(scientific === 0 || scientific === cells.length, `one notation: ${cells.slice(0, 12)}`);
  await page.close();
});

// Above 512 tokens the head-view panel was empty, its reason printed at its bottom.
test('a panel that waits for a shorter input says why, in itself', async () => {
  const page = await open('n_heads=2');
  await page.evaluate(() => window.attentionLab.set({ sentence: Array.from({ length: 600 }, (_, i) => `w${i % 37}`).join(' ') }));
  await page.waitForSelector('[data-testid=head-view-note]', { timeout: 60000 });
  await page.locator('[data-testid=head-view-note]').scrollIntoViewIfNeeded();
  const note = await page.locator('[data-testid=head-view-note]').boundingBox();
  const caption = await page.locator('#section-softmax figure:has([data-testid=head-view-note]) figcaption').boundingBox();
  assert.ok(note.y - (caption.y + caption.height) < 40, `right under the title: ${note.y} / ${caption.y + caption.height}`);
  await page.close();
});

test('on a phone nothing overflows, the trained model included', async () => {
  const context = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await open('model=trained', { context });
  await trained(page);
  for (let y = 0; y < 30000; y += 700) {
    await page.evaluate((y) => window.scrollTo(0, y), y);
    await nextFrames(page);
  }
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  assert.deepEqual(widths, { scroll: 390, inner: 390 });
  await context.close();
});

test('no page error along the way', () => {
  assert.deepEqual(errors, []);
});
