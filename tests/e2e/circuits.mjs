// Why a head attends, in the built app (dist/), as a learner meets it on the Llama model: a
// weight chosen with the keyboard or the mouse opens "Why here?", whose total is the score and
// whose terms are the writers of the residual stream; a head knocked out (kept in the link,
// zero or mean) changes the predictions, and the page says how; "Who wrote this prediction?"
// shows the writers of the top character's logit; the circuit view (GPT-2) draws how the heads
// compose, names the strongest pairs, and says where a chosen head's scores came from. In
// English and Chinese, on a phone. With SHOTS=dir it saves screenshots there.
//
// node --test tests/e2e/circuits.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT, nextFrames } from './browser.mjs';

const DIST = process.env.DIST ?? join(ROOT, 'dist');
const SHOTS = process.env.SHOTS;
const SENTENCE = 'The cat sat on the mat. The cat sat on the';
let server, context;
const errors = [];

before(async () => {
  server = await serve(DIST);
  context = await launch();
});

after(async () => {
  await context?.close();
  server?.close();
  assert.deepEqual(errors, [], 'no console errors');
});

async function open(query, options = {}, ready = true) {
  const page = await context.newPage();
  if (options.viewport) await page.setViewportSize(options.viewport);
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}?model=llama&sentence=${encodeURIComponent(SENTENCE)}&${query}`);
  if (ready) await page.waitForFunction(() => { const s = window.attentionLab?.state?.(); return s && s.model_status === 'ready' && s.predictions; }, null, { timeout: 60000 });
  return page;
}

const text = (page, testid) => page.locator(`[data-testid=${testid}]`).first().textContent();
const numbers = (line) => [...line.matchAll(/-?\d+(?:\.\d+)?(?:e-?\d+)?/g)].map((m) => Number(m[0]));

test('a weight chosen with the keyboard opens Why here?, whose terms sum to the score', async () => {
  const page = await open('lang=en&layer=3&head=2');
  assert.match(await text(page, 'why-hint'), /Click a weight/);
  const weights = page.locator('[data-testid=heatmap-weights]').first();
  await weights.scrollIntoViewIfNeeded();
  await weights.focus();
  await nextFrames(page);
  // Focus puts the cursor on (0, 0); Down moves it to query 1, which opens the panel there.
  await page.keyboard.press('ArrowDown');
  await page.waitForSelector('[data-testid=why-here]');
  assert.match(await text(page, 'why-cell'), /^Query 1 “h” → key 0 “T”/);
  const [score, sum] = numbers(await text(page, 'why-total'));
  assert.equal(score, sum, 'the terms sum to the score, as shown');
  // The score shown is the trace's own.
  const trace = await page.evaluate(() => window.attentionLab.trace());
  const own = trace.layers ? trace.layers[2].heads[1].scores[1][0] : trace.heads[1].scores[1][0];
  assert.ok(Math.abs(own - score) < 5e-3 * Math.max(1, Math.abs(own)), `${own} vs ${score}`);
  // The terms name the writers: earlier layers' heads and MLPs, the token, the constants.
  const top = await text(page, 'why-top');
  assert.match(top, /The query reads what .* wrote at position 1, the key what .* wrote at position 0/);
  assert.equal(await page.locator('[data-testid=why-top] li').count(), 5);
  // Right: the next key; beyond the query the mask hides it, and the panel says so.
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('[data-testid=why-cell]')?.textContent.startsWith('Query 1 “h” → key 2'));
  assert.match(await text(page, 'why-masked'), /mask hides this key/);
  // The row, as a table: one line per key.
  await page.click('[data-testid=why-row] summary');
  assert.equal(await page.locator('[data-testid=why-row] tbody tr').count(), SENTENCE.length);
  assert.match(await text(page, 'why-row-summary'), /%/);
  // The terms as a table too.
  const why = page.locator('[data-testid=why-here]');
  if (SHOTS) await why.screenshot({ path: join(SHOTS, 'why-en.png') });
  await page.click('[data-testid=why-close]');
  assert.equal(await page.locator('[data-testid=why-here]').count(), 0);
  await page.close();
});

test('a weight clicked opens Why here? on that cell', async () => {
  const page = await open('lang=en&layer=2&head=1');
  const weights = page.locator('[data-testid=heatmap-weights]').first();
  await weights.scrollIntoViewIfNeeded();
  await nextFrames(page);
  const box = await weights.boundingBox();
  await weights.click({ position: { x: box.width * 0.05, y: box.height * 0.98 } });
  await page.waitForSelector('[data-testid=why-here]');
  assert.match(await text(page, 'why-cell'), /^Query \d+ “.” → key \d+ “.”/);
  await page.close();
});

test('a head knocked out changes the predictions, says how, and is kept in the link', async () => {
  const page = await open('lang=en');
  const before = (await page.evaluate(() => window.attentionLab.state())).predictions;
  assert.equal(await text(page, 'ablation-change'), 'All heads are on.');
  const knock = page.locator('[data-testid=knock-0-0]');
  await knock.scrollIntoViewIfNeeded();
  assert.equal(await knock.getAttribute('aria-pressed'), 'false');
  assert.equal(await knock.getAttribute('aria-label'), 'Knock out layer 1 head 1');
  await knock.click();
  await page.waitForFunction(() => document.querySelector('[data-testid=ablation-change]')?.textContent.includes('→'));
  assert.equal(await knock.getAttribute('aria-pressed'), 'true');
  assert.equal(await knock.getAttribute('aria-label'), 'Knock out layer 1 head 1', 'the name keeps the visible text');
  assert.match(await text(page, 'ablation-change'), /^With L1·H1 off: the next token “.” \d+\.\d% → “.” \d+\.\d%; mean loss on the sentence \d\.\d{3} → \d\.\d{3} nats\.$/);
  const s = await page.evaluate(() => window.attentionLab.state());
  assert.deepEqual(s.ablate, [{ layer: 1, head: 1, how: 'zero' }]);
  assert.notDeepEqual(s.predictions, before, 'the predictions are the ablated model\'s');
  await page.waitForFunction(() => location.search.includes('ablate=L1H1'), null, { timeout: 5000 });
  // By its mean instead.
  await page.check('[data-testid=ablate-mean]');
  await page.waitForFunction(() => location.search.includes('ablate=L1H1m'), null, { timeout: 5000 });
  assert.match(await text(page, 'ablation-change'), /L1·H1 \(μ\)/);
  if (SHOTS) await page.locator('[data-testid=model-view]').screenshot({ path: join(SHOTS, 'knock-en.png') });
  // All back on: the predictions are the whole model's again.
  await page.click('[data-testid=ablate-restore]');
  await page.waitForFunction(() => !window.attentionLab.state().ablate);
  assert.deepEqual((await page.evaluate(() => window.attentionLab.state())).predictions, before);
  await page.close();
});

test('a link with heads knocked out opens with them off; a bad list is named', async () => {
  const page = await open('lang=en&ablate=L2H3m,L1H4');
  assert.equal(await page.locator('[data-testid=knock-1-2]').getAttribute('aria-pressed'), 'true');
  assert.equal(await page.locator('[data-testid=knock-0-3]').getAttribute('aria-pressed'), 'true');
  await page.waitForFunction(() => document.querySelector('[data-testid=ablation-change]')?.textContent.includes('L2·H3 (μ), L1·H4'));
  await page.close();
  const bad = await open('lang=en&ablate=L9H1', {}, false);
  await bad.waitForFunction(() => document.body.textContent.includes('Layer 9 is not in the model'), null, { timeout: 10000 });
  await bad.close();
});

test('Who wrote this prediction? shows the writers of the top character\'s logit', async () => {
  const page = await open('lang=en');
  const who = page.locator('[data-testid=who-wrote]');
  await who.scrollIntoViewIfNeeded();
  assert.equal(await page.locator('[data-testid=who-bars] li').count(), 8);
  const top = (await page.evaluate(() => window.attentionLab.state())).predictions[0].token;
  const shown = top === ' ' ? '␣' : top === '\n' ? '⏎' : top;
  assert.ok((await who.textContent()).includes(`The logit of “${shown}”`));
  if (SHOTS) await page.locator('[data-testid=next-token]').screenshot({ path: join(SHOTS, 'who-en.png') });
  await page.close();
});

test('in Chinese, and on a phone', async () => {
  for (const [lang, viewport, name] of [['zh', undefined, 'zh'], ['en', { width: 390, height: 844 }, 'phone'], ['zh', { width: 390, height: 844 }, 'zh-phone']]) {
    const page = await open(`lang=${lang}&layer=3&head=1&ablate=L1H3`, { viewport });
    const weights = page.locator('[data-testid=heatmap-weights]').first();
    await weights.scrollIntoViewIfNeeded();
    await nextFrames(page);
    await weights.focus();
    await nextFrames(page);
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector('[data-testid=why-here]');
    if (lang === 'zh') {
      assert.match(await text(page, 'why-here'), /为什么看这里？/);
      assert.match(await text(page, 'why-cell'), /^查询 1「h」→ 键/);
      assert.match(await text(page, 'ablation-change'), /关掉 L1·H3 之后/);
    }
    const why = page.locator('[data-testid=why-here]');
    const box = await why.boundingBox();
    const width = await page.evaluate(() => document.documentElement.clientWidth);
    assert.ok(box.x >= 0 && box.x + box.width <= width + 1, `${name}: the panel fits the screen (${box.x} + ${box.width} of ${width})`);
    if (SHOTS) await why.screenshot({ path: join(SHOTS, `why-${name}.png`) });
    await page.close();
  }
});

test('the circuits chapter asks first, then measures the learner\'s string and opens its score in Why here?', async () => {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}?lesson=circuits&lang=en`);
  await page.waitForSelector('[data-testid=chapter]');
  assert.match(await text(page, 'chapter-title'), /Why does a head attend\? Circuits/);
  await page.click('[data-testid=choice-1]');
  assert.match(await text(page, 'verdict'), /^Right\./);
  // Random weights: the chapter asks for a trained model, and offers one with a string typed twice.
  await page.click('[data-testid=lesson-use-gpt2]');
  await page.waitForFunction(() => document.querySelector('ul[data-testid=lesson-result]'), null, { timeout: 60000 });
  const findings = await page.locator('ul[data-testid=lesson-result] li').allTextContents();
  assert.equal(findings.length, 6);
  assert.match(findings[1], /^L1·H2 looks most at the previous character \(0\.94/);
  assert.match(findings[3], /^Not quite the textbook circuit/);
  assert.match(findings[5], /0\.654 → 0\.004/);
  await page.click('[data-testid=lesson-take-apart]');
  await page.waitForSelector('[data-testid=why-here]');
  assert.match(await text(page, 'why-cell'), /^Query 11 “b” → key 5 “@”/);
  if (SHOTS) await page.locator('[data-testid=chapter]').screenshot({ path: join(SHOTS, 'chapter-en.png') });
  // A text with nothing repeated: said, with the way out.
  await page.evaluate(() => window.attentionLab.set({ sentence: 'abc' }));
  await page.waitForFunction(() => document.querySelector('[data-testid=lesson-result]')?.textContent.includes('Type a string twice'));
  await page.close();
});

test('the circuit view draws how the heads compose, names the strongest, and a head chosen shows its composition on the sentence', async () => {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}?model=gpt2&lang=en&layer=1&head=1&sentence=${encodeURIComponent('xq7kb@ xq7kb')}`);
  await page.waitForFunction(() => window.attentionLab?.state?.()?.model_status === 'ready');
  const circuit = page.locator('[data-testid=circuit]');
  await circuit.scrollIntoViewIfNeeded();
  // Three layers of four heads; arrows only for pairs above the random baseline.
  assert.equal(await page.locator('.circuit-node').count(), 12);
  const arrows = await page.locator('.circuit-svg path[data-kind]').count();
  assert.ok(arrows > 10 && arrows < 144, `${arrows} arrows`);
  const strongest = await page.locator('[data-testid=circuit-strongest] li').allTextContents();
  assert.equal(strongest[1], 'Strongest K-composition: L1·H2 → L2·H4, 0.153 (1.7× random).');
  // The table, the drawing's text alternative: every earlier × later pair.
  await page.click('[data-testid=circuit-table] summary');
  assert.equal(await page.locator('[data-testid=circuit-table] tbody tr').count(), 48);
  // A first-layer head reads only the embeddings.
  assert.match(await text(page, 'circuit-chosen-summary'), /^L1·H1 is in the first layer/);
  // Chosen with the keyboard: the induction head's keys read mostly layer 1's MLP, then L1·H2.
  const node = page.locator('[data-testid=circuit-node-1-3]');
  await node.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=circuit-chosen-summary]')?.textContent.includes('L2·H4'));
  assert.equal(await node.getAttribute('aria-pressed'), 'true');
  assert.match(await node.getAttribute('aria-label'), /^L2·H4 induction: layer 2, head 4; induction head: 0\.\d\d of its weight on what followed/, 'the name starts with the visible text');
  assert.equal(await text(page, 'circuit-chosen-summary'),
    "On this sentence, what L2·H4's keys read came most from L1's MLP (80.9%); of the earlier heads, from L1·H2 (5.1%). Of the heads, L1·H2 wrote the most of what its queries read (2.8%). From the weights alone, L1·H2 → L2·H4 K-composition is 0.153 (random: 0.088).");
  const s = await page.evaluate(() => window.attentionLab.state());
  assert.deepEqual([s.layer, s.head], [2, 4], 'the chosen head is the page\'s');
  // Only its arrows; then no K at all.
  await page.check('[data-testid=circuit-only-chosen]');
  for (const path of await page.locator('.circuit-svg path[data-kind]').all()) {
    const [from, to] = [await path.getAttribute('data-from'), await path.getAttribute('data-to')];
    assert.ok(from === '7' || to === '7', `${from} → ${to} touches L2·H4`);
  }
  await page.uncheck('[data-testid=circuit-kind-k]');
  assert.equal(await page.locator('.circuit-svg path[data-kind=k]').count(), 0);
  if (SHOTS) await circuit.screenshot({ path: join(SHOTS, 'circuit-en.png') });
  await page.close();
});

test('the circuit view in Chinese, on a phone, embedded alone, with a head knocked out', async () => {
  for (const [query, viewport, name] of [
    ['lang=zh&ablate=L1H2', undefined, 'zh'],
    ['lang=zh', { width: 390, height: 844 }, 'zh-phone'],
    ['lang=en', { width: 390, height: 844 }, 'phone'],
    ['lang=en&embed=1&panels=circuit', { width: 800, height: 700 }, 'embed'],
  ]) {
    const page = await context.newPage();
    if (viewport) await page.setViewportSize(viewport);
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${server.url}?model=gpt2&layer=2&head=4&sentence=${encodeURIComponent('xq7kb@ xq7kb')}&${query}`);
    await page.waitForFunction(() => window.attentionLab?.state?.()?.model_status === 'ready');
    const circuit = page.locator('[data-testid=circuit]');
    await circuit.scrollIntoViewIfNeeded();
    await page.waitForSelector('[data-testid=circuit-chosen]');
    if (query.includes('zh')) {
      assert.match(await text(page, 'circuit'), /头与头怎样组合/);
      assert.match(await text(page, 'circuit-chosen-summary'), /^在这句话上，L2·H4 的键读到的东西大多来自 ?第 1 层的 MLP/);
    }
    if (query.includes('ablate')) {
      assert.ok(await page.locator('[data-testid=circuit-node-0-1]').evaluate((e) => e.classList.contains('knocked')));
    }
    // Every head fits the screen, and no two overlap.
    const width = await page.evaluate(() => document.documentElement.clientWidth);
    const boxes = [];
    for (const n of await page.locator('.circuit-node').all()) boxes.push(await n.boundingBox());
    for (const b of boxes) assert.ok(b.x >= 0 && b.x + b.width <= width + 1, `${name}: a head at ${b.x}+${b.width} of ${width}`);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        assert.ok(apart, `${name}: heads ${i} and ${j} overlap`);
      }
    }
    if (SHOTS) await circuit.screenshot({ path: join(SHOTS, `circuit-${name}.png`) });
    await page.close();
  }
});

test('attentionLab.composition() gives the drawing\'s numbers, and refuses random weights', async () => {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}?model=gpt2&lang=en&sentence=${encodeURIComponent('xq7kb@ xq7kb')}`);
  await page.waitForFunction(() => window.attentionLab?.state?.()?.model_status === 'ready');
  const c = await page.evaluate(() => window.attentionLab.composition());
  assert.equal(c.ok, true);
  assert.equal(c.heads.length, 12);
  // L1.H2 → L2.H4 is the strongest K-composition, as the drawing names it.
  const k = c.k.flatMap((row, a) => row.map((s, b) => [s ?? -1, a, b])).sort((x, y) => y[0] - x[0])[0];
  assert.deepEqual([c.heads[k[1]], c.heads[k[2]]], ['L1.H2', 'L2.H4']);
  assert.equal(k[0].toFixed(3), '0.153');
  // On the sentence: the induction head's keys read 5.1% from L1.H2 (the chosen head's panel).
  assert.equal((100 * c.sentence.k[1][7]).toFixed(1), '5.1');
  assert.ok(c.ms >= 0);
  await page.goto(`${server.url}?lang=en`);
  // Once the trace is computed, the refusal says why.
  // composition() answers a promise: asked until the trace is there to refuse.
  await page.evaluate(async () => {
    for (let i = 0; i < 600; i++) {
      if (/random weights/.test((await window.attentionLab?.composition?.())?.error ?? '')) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  const refused = await page.evaluate(() => window.attentionLab.composition());
  assert.equal(refused.ok, false);
  assert.match(refused.error, /^composition: random weights have one layer, so no head reads another's output/);
  await page.close();
});

test('random weights: a head knocked out under every head at a glance changes the output as the CLI\'s ablate does, and comes back', async () => {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}?lang=en&sentence=${encodeURIComponent('the cat sat on the mat')}`);
  await page.waitForSelector('[data-testid=knock-0-1]');
  const output = () => page.evaluate(() => { const t = window.attentionLab.trace(); return JSON.stringify(t.output ?? t.layers?.[0]?.output); });
  const before = await output();
  const knock = page.locator('[data-testid=knock-0-1]');
  await knock.scrollIntoViewIfNeeded();
  await knock.click();
  await page.waitForFunction(() => location.search.includes('ablate=L1H2'), null, { timeout: 5000 });
  assert.equal(await knock.getAttribute('aria-pressed'), 'true');
  assert.match(await text(page, 'random-ablation'), /^L1·H2 knocked out: the concatenation, W_O and the output below are computed without them\./);
  await page.waitForFunction((b) => { const t = window.attentionLab.trace(); return JSON.stringify(t.output ?? t.layers?.[0]?.output) !== b; }, before);
  // Head 2's columns of the concatenation are zero.
  const t = await page.evaluate(() => window.attentionLab.trace());
  const dv = t.d_v;
  assert.ok(t.concat.every((row) => row.slice(dv, 2 * dv).every((v) => v === 0)), 'head 2 writes nothing');
  await page.click('[data-testid=ablate-restore]');
  await page.waitForFunction(() => !window.attentionLab.state().ablate);
  assert.equal(await output(), before, 'all heads back on: the output is the whole one again');
  await page.close();
});
