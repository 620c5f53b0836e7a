// The typed-character measure both typing benchmarks share (typing_bench.mjs, own_model_bench.mjs):
// a character typed at the end of the lab's sentence box after the previous frame was painted, timed
// to the next painted frame; and the floor it is compared with, a bare text box styled as the lab's.

/** The nearest-rank quantile of sorted numbers (p95 of 20 is the 19th, not the largest). */
export const quantile = (sorted, q) => sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))];
/** In the page: types `count` characters at the end of the sentence box, each after the previous
 * frame was painted, and returns each one's time to the next painted frame. The lab and the bare
 * text boxes are measured by this same function, in one call each (a round trip to the test
 * driver between characters loaded the browser while the lab's were measured, and not while the
 * bare box's were). */
export const typeCharacters = async (count) => {
  const box = document.querySelector('[data-testid=sentence]');
  const out = [];
  for (let i = 0; i < count; i++) {
    out.push(await new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => {
      const start = performance.now();
      box.value += 'y';
      box.dispatchEvent(new InputEvent('input', { bubbles: true, data: 'y', inputType: 'insertText' }));
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve(performance.now() - start);
        channel.port2.postMessage(0);
      });
    }, 0))));
  }
  return out;
};

/** In the page: types `count` characters as a person does, one every `gapMs` milliseconds
 * (a fast typist's keys come 100–250 ms apart, a slow one's 300–500), and returns each one's time
 * from its input event to the first task after the next painted frame, as `typeCharacters`. */
export const typeCharactersPaced = async ([count, gapMs]) => {
  const box = document.querySelector('[data-testid=sentence]');
  const out = [];
  for (let i = 0; i < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    out.push(await new Promise((resolve) => {
      const start = performance.now();
      box.value += 'y';
      box.dispatchEvent(new InputEvent('input', { bubbles: true, data: 'y', inputType: 'insertText' }));
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve(performance.now() - start);
        channel.port2.postMessage(0);
      });
    }));
  }
  return out;
};

/** A page (made by `newPage`) holding only a text box with the lab's sentence box's width, height,
 * padding and font, read from `lab`: the same text laid out the same way, nothing else to draw. */
export async function styledBareBox(lab, newPage) {
  const style = await lab.evaluate(() => {
    const c = getComputedStyle(document.querySelector('[data-testid=sentence]'));
    return `box-sizing: border-box; width: ${c.width}; height: ${c.height}; padding: ${c.padding}; font: ${c.font}; border: ${c.border}`;
  });
  const bare = await newPage();
  await bare.setContent(`<!DOCTYPE html><meta charset="utf-8"><textarea data-testid="sentence" rows="3" style="${style.replaceAll('"', "'")}"></textarea>`);
  return bare;
}
