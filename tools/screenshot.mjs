// The README's screenshot, taken from the built site as a reader sees it: the trained GPT-2-layout
// model on "The cat sat on the mat. The cat sat on the", 1400 × 1900 CSS pixels.
//
//   trunk build --release && node tools/screenshot.mjs        # writes assets/screenshot.png
//
// Run it whenever the page's look changes; the README's alt text says what the picture shows.
import { join } from 'node:path';
import { launch, nextFrames, ROOT } from '../tests/e2e/browser.mjs';
import { serve } from '../tests/e2e/serve.mjs';

const QUERY = '?model=trained&sentence=The%20cat%20sat%20on%20the%20mat.%20The%20cat%20sat%20on%20the';
const out = process.argv[2] ?? join(ROOT, 'assets', 'screenshot.png');
const server = await serve(join(ROOT, 'dist'));
const context = await launch({ viewport: { width: 1400, height: 1900 }, locale: 'en-US' });
try {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}index.html${QUERY}`);
  await page.waitForFunction(() => window.attentionLab?.state?.().model_status === 'ready', null, { timeout: 60000 });
  // The heads at a glance draw as they come into view, and the badge settles.
  await page.waitForTimeout(2500);
  await nextFrames(page);
  if (errors.length) throw new Error(errors.join('\n'));
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await context.close();
  server.close();
}
