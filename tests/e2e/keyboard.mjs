// Keyboard only: with Tab, typing and arrow keys a user reaches the sentence box, changes the
// temperature, and reads a cell's value through the live region; every stop shows its focus.
// Also: with reduced motion asked for, the FlashAttention player does not run fast.
//
// node --test tests/e2e/keyboard.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';

let server;
let browser;
let page;

before(async () => {
  server = await serve(join(ROOT, 'dist'));
  browser = await launch();
  page = await browser.newPage();
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
});

after(async () => {
  await browser?.close();
  server?.close();
});

const focused = () => page.evaluate(() => {
  const el = document.activeElement;
  const style = el ? getComputedStyle(el) : null;
  return el && {
    testid: el.getAttribute('data-testid'),
    tag: el.tagName,
    outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
  };
});

/** Presses Tab until the focused element has `testid`; returns the number of presses. */
async function tabTo(testid, limit = 120) {
  for (let presses = 1; presses <= limit; presses++) {
    await page.keyboard.press('Tab');
    if ((await focused())?.testid === testid) return presses;
  }
  return -1;
}

test('skip links take the keyboard to the weights in a few presses', async () => {
  await page.keyboard.press('Tab');
  assert.equal((await focused())?.testid, 'skip-controls', 'the first stop is a skip link');
  const presses = await tabTo('skip-weights', 5);
  assert.ok(presses > 0, 'the weights skip link is next');
  await page.keyboard.press('Enter');
  const toWeights = await tabTo('heatmap-weights', 8);
  assert.ok(toWeights > 0, `the weights heatmap within 8 presses (${toWeights})`);
  // Back to the top for the rest of the session.
  await page.evaluate(() => { document.activeElement.blur(); window.scrollTo(0, 0); });
  await page.goto(page.url());
  await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
});

test('Tab reaches the sentence box, with a visible focus, and typing changes it', async () => {
  const presses = await tabTo('sentence');
  assert.ok(presses > 0, 'reached');
  assert.ok((await focused()).outline, 'focus visible');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('the cat sat on the mat');
  await page.waitForFunction(() => window.attentionLab.state().tokens.length === 6);
});

test('Tab reaches the temperature and typing a value sets it', async () => {
  const presses = await tabTo('temperature');
  assert.ok(presses > 0, 'reached');
  assert.ok((await focused()).outline, 'focus visible');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('0.4');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.attentionLab.state().temperature === 0.4, null, { timeout: 5000 });
});

test('arrow keys on a heatmap announce the token, the dimension and the value', async () => {
  // The first heatmaps after the controls are the token embeddings, then positions, then X.
  const presses = await tabTo('heatmap-x');
  assert.ok(presses > 0, 'reached');
  assert.ok((await focused()).outline, 'focus visible');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(200);
  const spoken = await page.locator('[data-testid=live-region]').innerText();
  const expected = await page.evaluate(() => {
    const v = window.attentionLab.trace().x[1][1];
    return { value: Math.abs(v) >= 1000 || Math.abs(v) < 0.001 ? null : v.toFixed(3), token: window.attentionLab.state().tokens[1] };
  });
  assert.ok(spoken.includes(`“${expected.token}”`) && spoken.includes('dimension 1'), spoken);
  if (expected.value !== null) assert.ok(spoken.endsWith(expected.value), `${spoken} / ${expected.value}`);
});

test('with reduced motion the flash player keeps to its slowest speed', async () => {
  const calm = await page.evaluate(() => ({
    disabled: document.querySelector('[data-testid=flash-speed]').disabled,
    selected: document.querySelector('[data-testid=flash-speed]').value,
  }));
  assert.deepEqual(calm, { disabled: true, selected: '0' });
});

test('the head view: arrow keys pick a query and say its strongest keys, with numbers', async () => {
  const presses = await tabTo('head-view', 400);
  assert.ok(presses > 0, 'reached');
  assert.ok((await focused()).outline, 'focus visible');
  const label = await page.getAttribute('[data-testid=head-view]', 'aria-label');
  assert.match(label, /Each query's strongest key: 0 “\w+” → \d “\w+” \d\.\d\d/);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const said = await page.textContent('[data-testid=head-view-focus]');
  const weights = await page.evaluate(() => {
    const t = window.attentionLab.trace();
    const head = window.attentionLab.state().head ?? 0;
    return t.heads[head].weights[1];
  });
  const best = Math.max(...weights);
  assert.match(said, /^Query 1 “\w+” looks most at keys /);
  assert.ok(said.includes(best.toFixed(2)), `${said} names the strongest weight ${best}`);
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('[data-testid=head-view-focus]'), /^Key 1 /);
});

test('a chart opens as a table by keyboard', async () => {
  await page.goto(`${page.url().split('?')[0]}?lang=en&lesson=softmax`);
  await page.waitForSelector('[data-testid=choice-1]', { timeout: 30000 });
  await page.click('[data-testid=choice-1]');
  await page.waitForSelector('[data-testid$=-as-table]', { timeout: 30000 });
  const toggle = await page.$$eval('[data-testid$=-as-table]', (all) => all.map((b) => b.dataset.testid));
  assert.ok(toggle.length > 0, 'the chapter has a chart');
  const presses = await tabTo(toggle[0], 400);
  assert.ok(presses > 0, 'reached');
  assert.ok((await focused()).outline, 'focus visible');
  await page.keyboard.press('Enter');
  const table = `[data-testid=${toggle[0].replace(/-as-table$/, '-table')}]`;
  await page.waitForSelector(table);
  assert.ok(await page.locator(`${table} tbody tr`).count() >= 2);
});

test('the custom mask: Space on a cell switches it and says so', async () => {
  await page.goto(`${page.url().split('?')[0]}?lang=en&sentence=a%20b%20c&mask=custom&cells=100.110.111`);
  await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });
  const presses = await tabTo('mask-editor', 400);
  assert.ok(presses > 0, 'reached');
  assert.ok((await focused()).outline, 'focus visible');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => /Query \d may (now|no longer) see key \d/.test(document.querySelector('[data-testid=mask-toggled]')?.textContent ?? ''));
});

test('generation: the strips by keyboard, and one step a second under reduced motion', async () => {
  await page.goto(`${page.url().split('?')[0]}?lang=en&model=llama&sentence=the%20cat`);
  await page.waitForSelector('[data-testid=generate-play]', { timeout: 60000 });
  await page.fill('[data-testid=generate-steps]', '40');
  await page.dispatchEvent('[data-testid=generate-steps]', 'change');
  await page.click('[data-testid=generate-play]');
  await page.waitForTimeout(2500);
  const played = await page.evaluate(() => document.querySelector('[data-testid=generated]')?.textContent.length ?? 0);
  await page.click('[data-testid=generate-play]');
  // At 120 ms a step, 2.5 s would play about 20; calmly, at most 4 (one a second, and the first).
  const steps = await page.evaluate(() => Number(document.querySelector('[data-testid=generate-at]').textContent.split('/')[1]));
  assert.ok(steps >= 1 && steps <= 4, `${steps} steps in 2.5 s (${played} characters shown)`);
  const presses = await tabTo('generate-strips', 400);
  assert.ok(presses > 0, 'reached');
  assert.ok((await focused()).outline, 'focus visible');
  assert.match(await page.getAttribute('[data-testid=generate-strips]', 'aria-label'), /Each query head's strongest cached character: L1 q1 → \d+ “.*” \d\.\d\d/);
  await page.keyboard.press('ArrowLeft');
  assert.match(await page.textContent('[data-testid=generate-hover]'), /^Layer 1, query head 1 .* weight \d\.\d{3}$/);
});
