// The hybrid model (Qwen3-Next's layout) in the built app (dist/), as a learner meets it: chosen
// by the weights control and by a link, fetched from hybrid/ only then; its layers labelled by
// kind, its linear heads showing their hidden matrix A, a linear layer's own state and numbers;
// its memory (fixed states against a growing cache); generating in the page with the mixed
// cache, every step equal to a recompute; streaming refused with the reason; in English and
// Chinese, on a phone. With SHOTS=dir it saves screenshots there.
//
// node --test tests/e2e/hybrid.mjs   (after trunk build --release)
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

test('the weights control offers the hybrid, fetched only when chosen, its layers labelled by kind', async () => {
  assert.ok(!fetched.some((p) => p.includes('/hybrid/')), 'nothing fetched before it is chosen');
  await page.locator('[data-testid=model-choice] button', { hasText: 'hybrid' }).click();
  await ready('hybrid');
  assert.ok(fetched.some((p) => p.endsWith('/hybrid/model.safetensors')), fetched.join(' '));
  const s = await state();
  assert.deepEqual(s.mask, { kind: 'causal' }, 'it starts under the mask it was trained with');
  assert.equal(s.tokens.length, SENTENCE.length, 'one token per character');
  assert.match(await text('model-status'), /hybrid in Qwen3-Next's layout: 4 layers, 3 of them linear attention and 1 full attention, 4 heads \(2 K\/V heads in the full layers\)/);
  assert.deepEqual(await page.locator('[data-testid^=layer-tab-]').allTextContents(), ['1 linear', '2 linear', '3 linear', '4 full']);
  assert.equal(await page.locator('[data-testid^=model-head-]').count(), 16, 'every layer × head');
  assert.equal(await page.locator('[data-testid=model-head-0-0] .role-tag').textContent(), 'linear · A');
  await page.waitForFunction(() => location.search.includes('model=hybrid'), null, { timeout: 5000 });
  // The trace: linear layers carry A, β, α and states; the full one a sigmoid gate.
  await page.click('[data-testid=layer-tab-0]');
  await nextFrames(page);
  const t = await page.evaluate(() => window.attentionLab.trace());
  assert.equal(t.heads[0].beta.length, SENTENCE.length);
  assert.equal(t.heads[0].alpha.length, SENTENCE.length);
  assert.equal(t.heads[0].matrix.length, SENTENCE.length);
  assert.match(await text('linear-layer-note'), /^Layer 1 is linear attention \(Gated DeltaNet\)/);
  assert.match(await text('linear-title'), /layer 1's own state/);
  // Its linear heads have no roles (A is not a share of attention), and the page says so
  // rather than showing zeros; what the roles are averaged over comes from the full layer.
  assert.match(await page.locator('[data-testid=roles-0-0] [data-testid=role-label]').textContent(), /^linear layer: A is not a share of attention/);
  assert.doesNotMatch(await text('roles-help'), /over the 0 queries/);
  assert.match(await text('model-view-help'), /Its linear layers show each head's hidden matrix A/);
  assert.match(await page.locator('[data-testid=roles-3-0] [data-testid=role-label]').textContent(), /\w/);
  assert.equal(await page.locator('[data-testid=model-head-0-0]').getAttribute('title'), 'linear layer: A is not a share of attention, so it has no roles');
  // The head output is A · V through Gated DeltaNet's gate; no score card shows A as q·k, and
  // the skip link to the weights goes to A.
  assert.equal(await text('formula-head-output'), 'γ ⊙ (A · V) / rms ⊙ SiLU(x · W_z)');
  assert.equal(await page.locator('[data-testid=formula-dot]').count(), 0);
  assert.equal(await page.locator('[data-testid=skip-weights]').getAttribute('href'), '#section-linear');
  const check = await text('linear-check');
  for (const d of check.match(/\d\.\de-\d+/g)) assert.ok(Number(d) < 1e-5, check);
  // Its memory as shipped: per linear layer 4 heads × 32 × 32 numbers and the convolution's
  // 3 rows of q, k, v (3 × 384); the full layer 2 K/V heads × 32 × 2 numbers per token.
  assert.match(await text('hybrid-memory-text'), /^3 linear layers: states of 62,976 bytes in all, whatever the length\. 1 full layer: 512 bytes more per token each.* From 42 tokens on/);
  if (SHOTS) {
    await page.locator('[data-testid=model-view]').scrollIntoViewIfNeeded();
    await nextFrames(page);
    await page.screenshot({ path: join(SHOTS, 'hybrid-model-heads.png') });
    await page.locator('[data-testid=linear-section]').scrollIntoViewIfNeeded();
    await nextFrames(page);
    await page.screenshot({ path: join(SHOTS, 'hybrid-model-linear.png') });
  }
  await page.click('[data-testid=layer-tab-3]');
  await nextFrames(page);
  assert.equal(await page.locator('[data-testid=linear-layer-note]').count(), 0);
  assert.equal(await text('formula-head-output'), '(weights · V) ⊙ σ(x · W_g)');
  assert.equal(await page.locator('[data-testid=skip-weights]').getAttribute('href'), '#section-softmax');
  const full = await page.evaluate(() => window.attentionLab.trace());
  assert.equal(full.heads[0].gate.length, SENTENCE.length, 'the full layer\'s output gate');
  const row = full.heads[0].weights[SENTENCE.length - 1];
  assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4, 'softmax rows sum to 1');
});

test('it generates in the page with its mixed cache, every step equal to a recompute', async () => {
  const g = await page.evaluate(() => window.attentionLab.generate({ steps: 40, cache: true, sampling: 'greedy' }));
  assert.equal(g.ok, true, g.error);
  assert.equal(g.steps.length, 40);
  assert.ok(g.steps.every((s) => s.max_delta <= 1e-4), JSON.stringify(g.steps.map((s) => s.max_delta)));
  const without = await page.evaluate(() => window.attentionLab.generate({ steps: 40, cache: false, sampling: 'greedy', check: false }));
  assert.equal(without.text, g.text, 'the same characters without the cache');
  // Its speed in this page (measured and printed, not asserted: a timed test would flake).
  const timed = await page.evaluate(() => window.attentionLab.generate({ steps: 200, cache: true, sampling: 'greedy', check: false }));
  assert.equal(timed.ok, true, timed.error);
  console.log(`hybrid generation in the page: ${timed.chars_per_second.toFixed(0)} characters per second (200 steps, cache, no check)`);
  await page.click('[data-testid=generate]');
  await page.waitForFunction(() => /^40 \/ 40$/.test(document.querySelector('[data-testid=generate-at]')?.textContent ?? ''), null, { timeout: 60000 });
  assert.match(await text('generate-check'), /largest difference so far is \d\.\de-\d+/);
  if (SHOTS) {
    await page.locator('[data-testid=generator]').scrollIntoViewIfNeeded();
    await nextFrames(page);
    await page.locator('[data-testid=generator]').screenshot({ path: join(SHOTS, 'hybrid-generate.png') });
  }
});

test('streaming says why a hybrid does not stream', async () => {
  assert.match(await text('stream-unavailable'), /linear layers keep a fixed-size state/);
  assert.equal(await page.locator('[data-testid=stream-run]').count(), 0);
});

test('in Chinese, by a link, on a phone', async () => {
  await page.evaluate(() => window.attentionLab.set({ lang: 'zh' }));
  await page.waitForFunction(() => window.attentionLab.state().lang === 'zh');
  await nextFrames(page);
  assert.match(await text('model-status'), /Qwen3-Next 结构的混合模型：4 层，其中 3 层是线性注意力/);
  assert.match(await text('stream-unavailable'), /混合模型的线性层/);
  const phone = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    const p = await phone.newPage();
    await p.goto(`${server.url}?model=hybrid&lang=zh&sentence=${encodeURIComponent('猫坐在垫子上。猫坐在')}`);
    await p.waitForFunction(() => { const s = window.attentionLab?.state?.(); return s?.model === 'hybrid' && s?.model_status === 'ready' && s.predictions; }, null, { timeout: 60000 });
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no sideways scrolling (${overflow} px)`);
    assert.deepEqual(await p.locator('[data-testid^=layer-tab-]').allTextContents(), ['1 线性', '2 线性', '3 线性', '4 全注意力']);
    if (SHOTS) {
      await nextFrames(p);
      await p.screenshot({ path: join(SHOTS, 'hybrid-phone-zh.png') });
      await p.locator('[data-testid^=model-head-]').first().scrollIntoViewIfNeeded();
      await nextFrames(p);
      await p.screenshot({ path: join(SHOTS, 'hybrid-heads-phone-zh.png') });
    }
  } finally {
    await phone.close();
  }
  assert.deepEqual(errors, []);
});

// An embed or a chapter of seeded linear heads: the weights card is A, and the views that
// replay a softmax over q and k say why they are not there instead of replaying one.
test('an embed of linear heads shows A as A, and no softmax replayed', async () => {
  const embed = await context.newPage();
  await embed.goto(`${server.url}?embed=1&sentence=the%20cat%20sat&mask=causal&linear=delta&panels=weights,head-view,flash,head-output`);
  await embed.waitForSelector('[data-testid=formula-weights]', { timeout: 30000 });
  assert.equal(await embed.locator('[data-testid=formula-weights]').textContent(), 'o = A·V, A lower-triangular');
  assert.match(await embed.locator('[data-testid=caption-weights]').textContent(), /no softmax/);
  assert.equal(await embed.locator('[data-testid=formula-head-output]').textContent(), 'A · V');
  assert.equal(await embed.locator('[data-testid=softmax-only]').count(), 2, 'the head view and the player');
  assert.equal(await embed.locator('[data-testid=head-view]').count(), 0);
  assert.equal(await embed.locator('[data-testid=why-hint]').count(), 0, 'no "why" to open under A');
  await embed.close();
});
