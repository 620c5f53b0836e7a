// Long inputs as a user pastes them: the page computes in its Web Worker while the text box keeps
// taking keystrokes, never draws a result that a newer edit has made stale, and shows 4096
// tokens as an overview of blocks with a zoomed region that the mouse and keyboard move.
//
// node --test tests/e2e/long.mjs   (after trunk build --release)
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
  await page.setViewportSize({ width: 1400, height: 1000 });
});

after(async () => {
  await browser?.close();
  server?.close();
});

const sentence = (n) => {
  const words = ['the', 'cat', 'sat', 'on', 'a', 'warm', 'mat', 'today', '猫', '坐'];
  return Array.from({ length: n }, (_, i) => words[i % words.length]).join(' ');
};

async function open() {
  await page.goto(`${server.url}?lang=en&d_model=64&n_heads=4&n_kv_heads=4`);
  await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
}

/** Sets the sentence and waits until the page shows its trace. */
async function show(text) {
  const set = await page.evaluate((text) => window.attentionLab.set({ sentence: text }), text);
  assert.equal(set.ok, true, JSON.stringify(set));
  await waitShown(text.split(' ').length);
}

const waitShown = (tokens) =>
  page.waitForFunction(
    (tokens) => window.attentionLab.state().tokens?.length === tokens
      && !document.querySelector('[data-testid=computing]').textContent,
    tokens,
    { timeout: 90000 },
  );

/** Whether the page's main column is marked long, and whether `selector`'s element is rendered
 * (not inside a step skipped by `content-visibility: auto`). */
const long = () => page.evaluate(() => document.querySelector('main.main').classList.contains('long'));
const rendered = (selector) => page.evaluate((s) => document.querySelector(s).checkVisibility({ contentVisibilityAuto: true }), selector);

/** Scrolls `locator` into view and waits until `canvas` in it is drawn. A long input's step
 * comes out of `content-visibility: auto` a frame after it nears the screen, at its real height
 * (it was a placeholder): what was inside it has moved, so it is scrolled to a second time; then
 * its views, which draw only on screen, see that they are. */
async function reveal(locator, canvas) {
  await locator.scrollIntoViewIfNeeded();
  await nextFrames(page);
  await locator.scrollIntoViewIfNeeded();
  await page.waitForFunction((s) => document.querySelector(s)?.width > 0, canvas, { timeout: 10000 });
  await nextFrames(page);
}

test('typing during a long computation: every keystroke lands, no stale result is drawn', async () => {
  await open();
  // A short sentence: every step is rendered, near the screen or not.
  assert.equal(await long(), false);
  assert.equal(await rendered('#section-flash > :first-child'), true);
  await show(sentence(4000));
  // Every token count the page shows from now on, frame by frame.
  await page.evaluate(() => {
    window.__shown = new Set();
    const watch = () => {
      window.__shown.add(window.attentionLab.state().tokens?.length);
      window.__watch = requestAnimationFrame(watch);
    };
    watch();
  });
  // Shown, the note says what was computed; it keeps its place while the next is computed, so
  // the views below it never move.
  assert.match(await page.textContent('[data-testid=computed]'), /^Computed 4000 tokens × 4 heads in the background \(\d+ ms\)/);
  const top = () => page.evaluate(() => document.querySelector('#section-tokens').getBoundingClientRect().top);
  const idleTop = await top();
  await page.focus('[data-testid=sentence]');
  await page.keyboard.press('End');
  await page.keyboard.type(' a b c d e', { delay: 25 });
  // The text box took every keystroke at once; the page says it is computing in the background.
  assert.ok((await page.inputValue('[data-testid=sentence]')).endsWith('坐 a b c d e'));
  const note = await page.textContent('[data-testid=computing]');
  assert.match(note, /Computing 4005 tokens × 4 heads/);
  assert.equal(await page.textContent('[data-testid=computed]'), '');
  assert.equal(await top(), idleTop, 'the views moved when the computing note came');
  await waitShown(4005);
  assert.equal(await top(), idleTop, 'the views moved when the result came');
  assert.match(await page.textContent('[data-testid=computed]'), /^Computed 4005 tokens × 4 heads/);
  const shown = await page.evaluate(() => { cancelAnimationFrame(window.__watch); return [...window.__shown]; });
  // Only the first and the last sentence were ever drawn: 4001 … 4004 tokens were stale.
  assert.deepEqual(shown.sort(), [4000, 4005], `token counts drawn: ${shown}`);
  const state = await page.evaluate(() => window.attentionLab.state());
  assert.equal(state.tokens.at(-1), 'e');
  // The chips: the first 512 and how many follow, in a list of the height it has when full (laid
  // out apart from the page, with `contain: strict`), which scrolls to its last chip.
  const chips = await page.evaluate(async () => {
    const list = document.querySelector('[data-testid=tokens]');
    const box = list.getBoundingClientRect();
    list.scrollTop = list.scrollHeight;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const more = list.querySelector('[data-testid=more-tokens]');
    const last = more.getBoundingClientRect();
    return {
      full: list.classList.contains('full'), height: box.height, max: parseFloat(getComputedStyle(list).maxHeight),
      chips: list.querySelectorAll('[data-testid=token-chip]').length, more: more.textContent,
      moreInside: last.top >= box.top - 1 && last.bottom <= box.bottom + 1,
    };
  });
  assert.equal(chips.full, true);
  assert.equal(chips.height, chips.max, `the chips' list is ${chips.height} px high, not its full ${chips.max}`);
  assert.equal(chips.chips, 512);
  assert.match(chips.more, /3493/);
  assert.ok(chips.moreInside, 'the last chip could not be scrolled into the list');
});

test('4096 tokens are shown as an overview, with a zoom moved by mouse and keyboard', async () => {
  await open();
  await show(sentence(4096));
  // A long input's steps far from the screen are not rendered until they come near: at the top
  // of the page, the tile player's step (the last) is skipped; scrolled to, it is drawn below.
  assert.equal(await long(), true);
  await page.evaluate(() => window.scrollTo(0, 0));
  await nextFrames(page);
  assert.equal(await rendered('#section-flash > :first-child'), false);
  assert.equal(await rendered('#section-tokens > :first-child'), true);
  const weights = page.locator('[data-stage=weights]');
  await reveal(weights, '[data-testid=heatmap-weights]');
  const overview = weights.locator('[data-testid=overview-weights]');
  assert.match(await overview.textContent(), /All 4096 × 4096 cells at once, in blocks of 16 × 16/);
  assert.match(await weights.locator('[data-testid=heatmap-weights-legend-note]').textContent(), /the largest of 16 × 16 cells/);
  await weights.locator('[data-testid=reduction] [data-value=mean]').click();
  await nextFrames(page);
  assert.match(await weights.locator('[data-testid=heatmap-weights-legend-note]').textContent(), /the mean of 16 × 16 cells/);
  // A click on a block zooms there: the block at about (60 %, 25 %) of 256 × 256.
  const title = () => page.textContent('[data-testid=zoom-title-weights]');
  assert.match(await title(), /queries 0–31 × keys 0–31/);
  const grid = weights.locator('[data-testid=heatmap-weights]');
  const box = await grid.boundingBox();
  await grid.click({ position: { x: box.width * 0.6 + 0.5, y: box.height * 0.25 + 0.5 } });
  await nextFrames(page);
  const [, q0, k0] = (await title()).match(/queries (\d+)–\d+ × keys (\d+)–\d+/).map(Number);
  assert.ok(Math.abs(q0 + 16 - 0.25 * 4096) <= 24 && Math.abs(k0 + 16 - 0.6 * 4096) <= 24, await title());
  // The tooltip explains the block under the pointer.
  assert.match(await page.textContent('[data-testid=tooltip]'), /queries \d+–\d+ × keys \d+–\d+.*mean/s);
  // The keyboard: arrows move through the blocks, and the zoom follows.
  await grid.focus();
  await page.keyboard.press('ArrowRight');
  await nextFrames(page);
  const moved = (await title()).match(/keys (\d+)–/)[1];
  assert.equal(Number(moved), k0 + 16, await title());
  // The buttons move it by half a region.
  await weights.locator('[data-testid=zoom-move-weights-1]').click();
  await nextFrames(page);
  assert.match(await title(), new RegExp(`queries ${q0 + 16}–`));
  // A zoomed cell is a real cell: its tokens and weight, recomputed.
  const zoom = weights.locator('[data-testid=zoom-weights]');
  const zoomBox = await zoom.boundingBox();
  await zoom.hover({ position: { x: zoomBox.width * 0.5, y: zoomBox.height * 0.5 } });
  await nextFrames(page);
  const tip = await page.textContent('[data-testid=tooltip]');
  assert.match(tip, /w = exp\(s_\d+,\d+ − max_\d+\)/, tip);
  // Views that need every cell say so instead of freezing.
  assert.match(await page.textContent('[data-testid=head-view-note]'), /at most 512 tokens \(4096 here\)/);
  // The tile player replays the query block under the zoom (queries q0 + 16 …, blocks of 64).
  const flash = page.locator('[data-testid=flash-view]');
  await reveal(flash, '[data-testid=flash-grid]');
  assert.equal(await rendered('#section-flash > :first-child'), true);
  const blockNote = () => flash.locator('[data-testid=flash-block]').textContent();
  const zoomBlock = Math.floor((q0 + 16) / 64);
  assert.match(await blockNote(), new RegExp(`query block ${zoomBlock} \\(of blocks 0–63, numbered from 0 as the tiles are; queries ${zoomBlock * 64}–${zoomBlock * 64 + 63}\\)`));
  // Counted as in the whole run: the blocks before it done, out of 64 × 64 tiles.
  assert.match(await flash.locator('[data-testid=flash-tiles]').textContent(), new RegExp(`^${zoomBlock * 64} / 4096`));
  await flash.locator('[data-testid=flash-start]').click();
  await flash.locator('[data-testid=flash-forward]').click();
  await nextFrames(page);
  assert.match(await flash.locator('[data-testid=flash-phase]').textContent(), new RegExp(`Tile \\(${zoomBlock}, 0\\): the scores of queries ${zoomBlock * 64}–`));
  await flash.locator('[data-testid=flash-block-next]').click();
  await nextFrames(page);
  assert.match(await blockNote(), new RegExp(`query block ${zoomBlock + 1} \\(of blocks 0–63`));
  assert.match(await flash.locator('[data-testid=flash-frame]').textContent(), /^step 1 of/);
  // A click on a tile of the grid (row 10 of 64, column 3) replays its block from that tile.
  const tiles = flash.locator('[data-testid=flash-grid]');
  const tilesBox = await tiles.boundingBox();
  await tiles.click({ position: { x: tilesBox.width * (3.5 / 64), y: tilesBox.height * (10.5 / 64) } });
  await nextFrames(page);
  assert.match(await blockNote(), /query block 10 \(of blocks 0–63, numbered from 0 as the tiles are; queries 640–703\)/);
  assert.match(await flash.locator('[data-testid=flash-phase]').textContent(), /Tile \(10, 3\)/);
  // trace() gives what the CLI gives untraced: the outputs.
  const trace = await page.evaluate(() => window.attentionLab.trace());
  assert.equal(trace.output.length, 4096);
  assert.equal(trace.heads, undefined);
});
