// The Llama-layout model in the built app (dist/), as a learner meets it: chosen by the weights
// control and by a link, fetched from llama/ only then, its layer shown as the Llama block it is
// (RMSNorm, no biases, no position vector, RoPE in the scores, query heads sharing K/V heads), in
// English and Chinese, on a phone; generating in the page through attentionLab.generate and the
// Generate view (play, step, all at once; with the cache and without; kept in the link), each step
// equal to a recompute; streaming past the context with and without sinks; the twin trained with
// an output gate compared beside it, and chosen. With SHOTS=dir it
// saves screenshots there.
//
// node --test tests/e2e/llama.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT, nextFrames } from './browser.mjs';

const DIST = process.env.DIST ?? join(ROOT, 'dist');
const SHOTS = process.env.SHOTS;
const SENTENCE = 'The cat sat on the mat. The cat sat on the';
let server, context, page;
const errors = [];
const fetched = [];

before(async () => {
  server = await serve(DIST);
  context = await launch();
  page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await page.goto(`${server.url}?sentence=${encodeURIComponent(SENTENCE)}`);
  await page.waitForFunction(() => window.attentionLab?.state?.().tokens);
});

after(async () => {
  await context?.close();
  server?.close();
});

const state = () => page.evaluate(() => window.attentionLab.state());
const text = (testid) => page.locator(`[data-testid=${testid}]`).first().textContent();
const ready = (model) => page.waitForFunction(
  (model) => { const s = window.attentionLab.state(); return s.model === model && s.model_status === 'ready' && s.predictions; },
  model, { timeout: 60000 },
);

test('the weights control offers the Llama layout, fetched only when chosen', async () => {
  assert.ok(!fetched.some((p) => p.includes('/llama/')), 'nothing fetched before it is chosen');
  const choice = page.locator('[data-testid=model-choice] button', { hasText: 'Llama layout' });
  await choice.click();
  await ready('llama');
  assert.ok(fetched.some((p) => p.endsWith('/llama/model.safetensors')), fetched.join(' '));
  const s = await state();
  assert.deepEqual(s.mask, { kind: 'causal' }, 'it starts under the mask it was trained with');
  assert.equal(s.tokens.length, SENTENCE.length, 'one token per character');
  assert.match(await text('model-status'), /Llama-layout model of 3 layers × 4 query heads sharing 2 K\/V heads/);
  assert.match(await text('norm-fixed'), /RMSNorm/);
  // The address keeps the model (written a moment after the change).
  await page.waitForFunction(() => location.search.includes('model=llama'), null, { timeout: 5000 });
});

test('its layer is the Llama block: RMSNorm, no biases, RoPE, shared K/V heads', async () => {
  const q = await text('formula-q');
  assert.match(q, /RMSNorm\(X\) W_Q/);
  assert.doesNotMatch(q, /b_Q/, 'no biases');
  assert.equal(await page.locator('[data-testid^=model-head-]').count(), 12, 'every layer × head');
  const t = await page.evaluate(() => window.attentionLab.trace());
  assert.equal(t.position.kind, 'rope', JSON.stringify(t.position));
  // Query heads 1 and 2 read K/V head 1; 3 and 4 read K/V head 2.
  assert.deepEqual(t.heads[0].k, t.heads[1].k);
  assert.notDeepEqual(t.heads[1].k, t.heads[2].k);
  if (SHOTS) {
    await page.locator('[data-testid=model-status]').scrollIntoViewIfNeeded();
    await nextFrames(page);
    await page.screenshot({ path: join(SHOTS, 'llama-desktop.png'), fullPage: false });
  }
});

test('it generates in the page with the KV cache, every step equal to a recompute', async () => {
  const g = await page.evaluate(() => window.attentionLab.generate({ steps: 40, cache: true, sampling: 'greedy' }));
  assert.equal(g.ok, true, g.error);
  assert.equal(g.steps.length, 40);
  assert.equal(g.steps[39].cache_len, SENTENCE.length + 40);
  assert.ok(g.steps.every((s) => s.max_delta <= 1e-4), JSON.stringify(g.steps.map((s) => s.max_delta)));
  assert.equal(g.cache_bytes_per_token.this_model * 2, g.cache_bytes_per_token.mha, 'GQA halves the cache');
  const without = await page.evaluate(() => window.attentionLab.generate({ steps: 40, cache: false, sampling: 'greedy', check: false }));
  assert.equal(without.text, g.text, 'the same characters without the cache');
  // The Generate view: played a few steps, then the rest at once; each step's row over the
  // cache, what the cache holds, the speed measured with the cache and then without.
  await page.fill('[data-testid=generate-steps]', '60');
  await page.locator('[data-testid=generate-steps]').dispatchEvent('change');
  await page.click('[data-testid=generate-play]');
  await page.waitForFunction(() => /^([3-9]|\d\d) \//.test(document.querySelector('[data-testid=generate-at]')?.textContent ?? ''));
  await page.click('[data-testid=generate-play]'); // pause
  if (SHOTS) {
    await page.locator('[data-testid=generator]').scrollIntoViewIfNeeded();
    await nextFrames(page);
    await page.locator('[data-testid=generator]').screenshot({ path: join(SHOTS, 'llama-generate-midway.png') });
  }
  await page.click('[data-testid=generate]');
  await page.waitForFunction(() => document.querySelector('[data-testid=generate-at]')?.textContent === '60 / 60', null, { timeout: 60000 });
  assert.match(await text('generate-speed'), /with the cache: \d+ characters per second \(60 steps/);
  assert.match(await text('generate-memory'), /this model: 2 K\/V heads for 4 query heads/);
  assert.match(await text('generate-cache-line'), new RegExp(`${SENTENCE.length + 60} of 256 positions`));
  assert.match(await text('generate-check'), /largest difference so far is \d\.\de-\d+/);
  await page.waitForFunction(() => location.search.includes('gen=60'), null, { timeout: 5000 }); // the link keeps the step
  if (SHOTS) {
    await page.locator('[data-testid=generate-strips]').scrollIntoViewIfNeeded();
    await nextFrames(page);
    await page.locator('[data-testid=generator]').screenshot({ path: join(SHOTS, 'llama-generate.png') });
  }
  await page.uncheck('[data-testid=generate-cache]');
  await page.click('[data-testid=generate]');
  await page.waitForFunction(() => document.querySelector('[data-testid=generate-at]')?.textContent === '60 / 60', null, { timeout: 60000 });
  const speed = await text('generate-speed');
  const rate = (mode) => Number(new RegExp(`${mode}: (\\d+) characters per second`).exec(speed)?.[1]);
  assert.ok(rate('with the cache') > rate('without the cache'), speed);
  // A link brings back the model, the prompt and the step.
  const linked = await context.newPage();
  await linked.goto(page.url());
  await linked.waitForFunction(() => document.querySelector('[data-testid=generate-at]')?.textContent === '60 / 60', null, { timeout: 60000 });
  assert.equal(await linked.locator('[data-testid=generated]').textContent(), await page.locator('[data-testid=generated]').textContent());
  await linked.close();
  const bad = await page.evaluate(() => window.attentionLab.generate({ steps: 4, sampling: { temperature: 0 } }));
  assert.equal(bad.ok, false);
  assert.match(bad.error, /temperature must be above 0/);
});

test('it streams past its context, with and without sink tokens', async () => {
  await page.click('[data-testid=stream-run]');
  await page.waitForFunction(() => /by the recompute/.test(document.querySelector('[data-testid=stream-means]')?.textContent ?? ''), null, { timeout: 120000 });
  const means = await text('stream-means');
  const [withSinks, without] = [...means.matchAll(/(\d+\.\d+)/g)].map((m) => Number(m[1]));
  assert.ok(Math.abs(withSinks - without) < 0.02, means);
  assert.match(await text('stream-finding'), /no attention sink/);
  assert.equal(await page.locator('[data-testid=stream-shares] td').count(), 12);
  if (SHOTS) {
    await page.locator('[data-testid=stream]').scrollIntoViewIfNeeded();
    await nextFrames(page);
    await page.locator('[data-testid=stream]').screenshot({ path: join(SHOTS, 'llama-stream.png') });
  }
});

test('the twins: the Streaming section reads one text through both, as their cards say', async () => {
  assert.ok(!fetched.some((p) => p.includes('/llama-gated/')), 'the twin is fetched only when compared');
  await page.click('[data-testid=stream-twins-run]');
  await page.waitForSelector('[data-testid=stream-twins-table]', { timeout: 120000 });
  assert.ok(fetched.some((p) => p.endsWith('/llama-gated/model.safetensors')), fetched.join(' '));
  // The section's defaults (the sample text, a window of 64, 4 sink tokens) are the cards'.
  const cards = await Promise.all(['llama', 'llama-gated'].map((m) =>
    page.evaluate((m) => fetch(`${m}/sinks.json`).then((r) => r.json()), m)));
  const cells = await page.locator('[data-testid=stream-twins-table] td').allTextContents();
  assert.equal(cells.length, 10, cells.join(' | '));
  const number = (cell) => Number(cell.match(/[-+]?\d+\.\d+/)[0]);
  cards.forEach((card, i) => {
    assert.ok(Math.abs(number(cells[i]) - card.strongest_head.share * 100) < 0.06, `${cells[i]} vs ${card.strongest_head.share}`);
    assert.ok(Math.abs(number(cells[4 + i]) - card.with_sinks) < 0.0015, `${cells[4 + i]} vs ${card.with_sinks}`);
    assert.ok(Math.abs(number(cells[6 + i]) - card.without_sinks) < 0.0015, `${cells[6 + i]} vs ${card.without_sinks}`);
  });
  const verdict = await text('stream-twins-verdict');
  const sinks = cards.map((c) => c.has_sink);
  if (!sinks[0] && !sinks[1]) assert.match(verdict, /Neither twin formed a sink/);
  if (sinks[0] && !sinks[1]) assert.match(verdict, /The ungated twin formed a sink/);
  assert.match(await text('stream-twins-tried'), /windows of \d+ characters/);
  if (SHOTS) {
    await page.locator('[data-testid=stream-twins]').scrollIntoViewIfNeeded();
    await nextFrames(page);
    await page.locator('[data-testid=stream-twins]').screenshot({ path: join(SHOTS, 'twins.png') });
  }
  // The gated twin is a weights choice of its own, kept in the link; its gate cannot be turned off.
  await page.locator('[data-testid=model-choice] button', { hasText: 'Llama + gate' }).click();
  await ready('llama-gated');
  assert.match(await text('model-about'), /σ\(x·W_g\)/);
  await page.waitForFunction(() => location.search.includes('model=llama-gated'), null, { timeout: 5000 });
  const refused = await page.evaluate(() => window.attentionLab.set({ output_gate: false }));
  assert.equal(refused.ok, false);
  assert.match(refused.error, /output_gate/);
  await page.locator('[data-testid=model-choice] button', { hasText: 'Llama layout' }).click();
  await ready('llama');
});

test('in Chinese and on a phone', async () => {
  await page.evaluate(() => window.attentionLab.set({ lang: 'zh' }));
  await page.waitForFunction(() => window.attentionLab.state().lang === 'zh');
  await nextFrames(page);
  assert.match(await text('model-status'), /Llama 结构的模型/);
  assert.match(await text('norm-fixed'), /RMSNorm/);
  const phone = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    const p = await phone.newPage();
    await p.goto(`${server.url}?model=llama&lang=zh&sentence=${encodeURIComponent('猫坐在垫子上。猫坐在')}`);
    await p.waitForFunction(() => { const s = window.attentionLab?.state?.(); return s?.model_status === 'ready' && s.predictions; }, null, { timeout: 60000 });
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no sideways scrolling (${overflow} px)`);
    await p.locator('[data-testid^=model-head-]').first().scrollIntoViewIfNeeded();
    await nextFrames(p);
    if (SHOTS) await p.screenshot({ path: join(SHOTS, 'llama-phone-zh.png') });
    await p.click('[data-testid=generate]');
    await p.waitForFunction(() => document.querySelector('[data-testid=generate-at]')?.textContent === '40 / 40', null, { timeout: 60000 });
    const wide = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 1, `no sideways scrolling with the generator (${wide} px)`);
    if (SHOTS) {
      await p.locator('[data-testid=generate-strips]').scrollIntoViewIfNeeded();
      await nextFrames(p);
      await p.screenshot({ path: join(SHOTS, 'llama-generate-phone-zh.png') });
      await p.click('[data-testid=stream-run]');
      await p.waitForSelector('[data-testid=stream-chart]');
      await p.locator('[data-testid=stream-chart]').scrollIntoViewIfNeeded();
      await nextFrames(p);
      await p.screenshot({ path: join(SHOTS, 'llama-stream-phone-zh.png') });
    }
    await p.click('[data-testid=stream-twins-run]');
    await p.waitForSelector('[data-testid=stream-twins-table]', { timeout: 120000 });
    const twins = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(twins <= 1, `no sideways scrolling with the twins' table (${twins} px)`);
    assert.match(await p.locator('[data-testid=stream-twins-verdict]').textContent(), /孪生模型/);
    if (SHOTS) {
      await p.locator('[data-testid=stream-twins]').scrollIntoViewIfNeeded();
      await nextFrames(p);
      await p.screenshot({ path: join(SHOTS, 'twins-phone-zh.png') });
    }
  } finally {
    await phone.close();
  }
  assert.deepEqual(errors, []);
});
