// Keyboard only: with Tab, typing and arrow keys a user reaches the sentence box, changes the
// temperature, and reads a cell's value through the live region; every stop shows its focus.
// Also: with reduced motion asked for, the FlashAttention player does not run fast.
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';
import { check, finish } from './check.mjs';

const server = await serve(join(ROOT, 'dist'));
const browser = await launch();
try {
  const page = await browser.newPage();
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=token-chip]', { timeout: 30000 });

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
  const tabTo = async (testid, limit = 120) => {
    for (let presses = 1; presses <= limit; presses++) {
      await page.keyboard.press('Tab');
      if ((await focused())?.testid === testid) return presses;
    }
    return -1;
  };

  const toSentence = await tabTo('sentence');
  const sentenceFocus = await focused();
  check('Tab reaches the sentence box, with a visible focus', toSentence > 0 && sentenceFocus.outline, JSON.stringify({ toSentence, sentenceFocus }));
  await page.keyboard.press('Control+A');
  await page.keyboard.type('the cat sat on the mat');
  await page.waitForFunction(() => window.attentionLab.state().tokens.length === 6);
  check('typing changes the sentence', true);

  const toTemperature = await tabTo('temperature');
  const temperatureFocus = await focused();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('0.4');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.attentionLab.state().temperature === 0.4, null, { timeout: 5000 }).catch(() => {});
  const temperature = await page.evaluate(() => window.attentionLab.state().temperature);
  check('Tab reaches the temperature and typing a value sets it', toTemperature > 0 && temperatureFocus.outline && temperature === 0.4,
    JSON.stringify({ toTemperature, temperatureFocus, temperature }));

  // On to a heatmap: the first one after the controls is the token embeddings, then positions,
  // then X. Arrow keys move the cell cursor, and the live region speaks.
  const toHeatmap = await tabTo('heatmap-x');
  const heatmapFocus = await focused();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(200);
  const spoken = await page.locator('[data-testid=live-region]').innerText();
  const expected = await page.evaluate(() => {
    const x = window.attentionLab.trace().x;
    const v = x[1][1];
    return { value: Math.abs(v) >= 1000 || Math.abs(v) < 0.001 ? null : v.toFixed(3), token: window.attentionLab.state().tokens[1] };
  });
  check('arrow keys on a heatmap announce the token, the dimension and the value', toHeatmap > 0 && heatmapFocus.outline
    && spoken.includes(`“${expected.token}”`) && spoken.includes('dimension 1') && (expected.value === null || spoken.endsWith(expected.value)),
    JSON.stringify({ toHeatmap, heatmapFocus, spoken, expected }));

  const calm = await page.evaluate(() => ({
    disabled: document.querySelector('[data-testid=flash-speed]').disabled,
    selected: document.querySelector('[data-testid=flash-speed]').value,
  }));
  check('with reduced motion the flash player keeps to its slowest speed', calm.disabled && calm.selected === '0', JSON.stringify(calm));
} catch (error) {
  check('the keyboard test ran to the end', false, String(error));
} finally {
  await browser.close();
  server.close();
}
finish('keyboard-only end-to-end');
