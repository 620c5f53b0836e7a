// "Open your own attention" (issue 22 §2): files written by NumPy and safetensors
// (tests/reference/imports.py) opened with the file picker, by dropping them on the page, by
// pasting JSON and through attentionLab.load; the numbers shown (trace(), the cell under the
// pointer) are the file's; Q and K give a PyTorch-style SelfAttention's own weights; every bad
// file gets its message and the page keeps what it showed; Chinese and a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, nextFrames, ROOT } from './browser.mjs';
import { serve } from './serve.mjs';

const DIST = process.env.DIST ?? join(ROOT, 'dist');
const FIXTURES = join(ROOT, 'tests', 'fixtures', 'imports');
const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8'));
const SHOTS = process.env.SHOTS;
let server, context, page;
const errors = [];

before(async () => {
  server = await serve(DIST);
  context = await launch();
  page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.waitForFunction(() => window.attentionLab?.state?.().tokens);
  await page.click('[data-testid=import-open]');
});

after(async () => {
  await context?.close();
  server?.close();
});

const state = () => page.evaluate(() => window.attentionLab.state());
const trace = () => page.evaluate(() => window.attentionLab.trace());

/** The largest |a − b| over two nested lists of numbers. */
function maxDiff(a, b) {
  if (Array.isArray(a)) {
    assert.equal(a.length, b.length, 'shapes differ');
    return Math.max(0, ...a.map((x, i) => maxDiff(x, b[i])));
  }
  return Math.abs(a - b);
}

/** Every layer's heads' weights: [layers][heads][queries][keys]. */
const weightsOf = (t) => t.layers.map((l) => l.map((h) => h.weights));

/** Opens `file` with the file picker (from the lab's own numbers, so that a change shows). */
async function pick(file, tokens = '') {
  await page.evaluate(() => window.attentionLab.load(null));
  await page.fill('[data-testid=import-tokens]', tokens);
  await page.setInputFiles('[data-testid=import-file]', join(FIXTURES, file));
  await page.waitForFunction(() => window.attentionLab.state().source === 'imported');
  await nextFrames(page);
}

test('every format opens from the file picker and trace() gives the file\'s numbers', async () => {
  for (const [file, want, tokens] of [
    ['attention.json', expected.attention],
    ['attention.npz', expected.attention],
    ['attention_compressed.npz', expected.attention],
    // One layer's heads, [heads, queries, keys], its tokens typed beside it.
    ['attention.npy', [expected.attention[1]], 'the cat sat 猫 mat'],
    ['attention_f32.safetensors', expected.attention],
    ['attention_f16.safetensors', expected.attention_f16],
    ['attention_bf16.safetensors', expected.attention_bf16],
  ]) {
    await pick(file, tokens);
    const t = await trace();
    assert.equal(t.source, 'imported', file);
    assert.equal(t.kind, 'attention', file);
    assert.deepEqual(t.tokens, expected.tokens, file);
    assert.equal(maxDiff(weightsOf(t), want), 0, `${file}: the numbers are the file's`);
    const s = await state();
    assert.equal(s.file, file);
    assert.deepEqual([s.n_layers, s.imported_heads], [want.length, 3]);
  }
  await page.fill('[data-testid=import-tokens]', '');
  // Two layers × three heads at a glance, and the roles of all six.
  assert.equal(await page.locator('[data-testid^="imported-head-"][data-testid$="-2"]').count(), 2);
  assert.equal(await page.locator('tr[data-testid^="imported-roles-"]').count(), 6);
});

test('the cell under the pointer reads the file\'s weight, and choosing a head shows it', async () => {
  await pick('attention.json');
  await page.click('[data-testid=imported-head-1-2]');
  assert.match(await page.locator('[data-testid=imported-head-title]').textContent(), /2.*3/);
  assert.equal((await state()).layer, 2);
  assert.equal((await state()).head, 3);
  const grid = page.locator('[data-testid=heatmap-imported-weights]');
  await grid.scrollIntoViewIfNeeded();
  await nextFrames(page);
  const box = await grid.boundingBox();
  // Row 4 ("mat"), column 1 ("cat") of a 5 × 5 grid.
  await page.mouse.move(box.x + box.width * 1.5 / 5, box.y + box.height * 4.5 / 5);
  await nextFrames(page);
  const text = await page.locator('[data-testid=imported-cell]').textContent();
  const want = expected.attention[1][2][4][1];
  assert.match(text, /mat.*cat/);
  const shown = Number(text.split(/[:：]\s*/).pop());
  assert.ok(Math.abs(shown - want) < 5e-4, `${text} ≠ ${want}`);
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'import-desktop.png') });
});

test('Q and K give a PyTorch-style SelfAttention\'s own weights; V gives outputs FlashAttention matches', async () => {
  for (const file of ['qkv.json', 'qkv.npz', 'qkv.safetensors']) {
    await pick(file);
    const t = await trace();
    assert.equal(t.kind, 'q_k', file);
    assert.ok(maxDiff(weightsOf(t), expected.qk_weights) < 1e-6, file);
    if (t.layers[0][0].output) {
      assert.ok(t.flash.max_abs_diff < 1e-5, `${file}: ${t.flash.max_abs_diff}`);
      assert.ok(await page.locator('[data-testid=imported-flash]').isVisible());
    }
  }
  // The lab's mask and temperature apply to Q and K: causal, T = 2.
  await pick('qkv.npz');
  assert.deepEqual(await page.evaluate(() => window.attentionLab.set({ mask: { kind: 'causal' }, temperature: 2 })), { ok: true });
  const t = await trace();
  assert.equal(t.heads[0].weights[0][1], 0, 'causal: the first token sees only itself');
  assert.equal(t.heads[0].weights[0][0], 1);
  for (const part of ['q', 'k', 'v', 'scores', 'output']) {
    const canvas = page.locator(`[data-testid=heatmap-imported-${part}]`);
    await canvas.scrollIntoViewIfNeeded();
    await nextFrames(page);
    assert.ok((await canvas.evaluate((c) => c.width)) > 0, `${part} is drawn`);
  }
  // FlashAttention's tile player replays the chosen head's tiles under the same mask.
  const player = page.locator('[data-testid=imported-flash-player]');
  await player.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => /\d+\D+\d+/.test(document.querySelector('[data-testid=imported-flash-player] [data-testid=flash-frame]')?.textContent ?? ''));
  await player.locator('[data-testid=flash-end]').click();
  await nextFrames(page);
  const frames = (await player.locator('[data-testid=flash-frame]').textContent()).match(/\d+/g).map(Number);
  assert.ok(frames[1] > 4 && frames[0] === frames[1], `the player is at its last frame: ${frames}`);
  assert.match(await player.locator('[data-testid=flash-phase]').textContent(), /l/);
  await player.locator('[data-testid=flash-start]').click();
  await player.locator('[data-testid=flash-forward]').click();
  await player.locator('[data-testid=flash-forward]').click();
  await nextFrames(page);
  assert.equal((await player.locator('[data-testid=flash-frame]').textContent()).match(/\d+/)[0], '3');
  for (const id of ['flash-q', 'flash-k', 'flash-v']) {
    assert.ok((await player.locator(`canvas[data-testid=${id}]`).evaluate((c) => c.width)) > 0, `${id} is drawn`);
  }
  if (SHOTS) await player.screenshot({ path: join(SHOTS, 'import-flash-player.png') });
  await page.evaluate(() => window.attentionLab.set({ mask: { kind: 'none' }, temperature: 1 }));
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'import-qk.png'), fullPage: true });
  // Positions set to RoPE: the file's Q and K are read as before RoPE, turned, and the summary
  // says so; back to absolute, the weights are the file's own again.
  assert.equal(await page.locator('[data-testid=import-rope]').count(), 0);
  const plain = await trace();
  assert.deepEqual(await page.evaluate(() => window.attentionLab.set({ position: { kind: 'rope', base: 10000, pairing: 'half' } })), { ok: true });
  await page.waitForSelector('[data-testid=import-rope]');
  assert.match(await page.locator('[data-testid=import-rope]').textContent(), /read as before RoPE and turned here \(base 10000, dimension p with p \+ d\/2/);
  assert.ok(maxDiff(weightsOf(await trace()), weightsOf(plain)) > 1e-3, 'turned by RoPE, the weights change');
  await page.evaluate(() => window.attentionLab.set({ position: { kind: 'absolute' } }));
  await page.waitForFunction(() => !document.querySelector('[data-testid=import-rope]'));
  assert.equal(maxDiff(weightsOf(await trace()), weightsOf(plain)), 0);
});

test('a file dropped anywhere on the page opens, and pasted JSON opens', async () => {
  const bytes = [...readFileSync(join(FIXTURES, 'cross.json'))];
  await page.evaluate((bytes) => {
    const file = new File([new Uint8Array(bytes)], 'cross.json', { type: 'application/json' });
    const transfer = new DataTransfer();
    transfer.items.add(file);
    const target = document.querySelector('.main');
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, bytes);
  await page.waitForFunction(() => window.attentionLab.state().file === 'cross.json');
  const t = await trace();
  assert.deepEqual(t.source_tokens, expected.key_tokens);
  assert.equal(maxDiff(weightsOf(t)[0], expected.cross), 0);
  assert.equal(await page.locator('[data-testid=drop-overlay]').count(), 0, 'the overlay leaves after the drop');

  await page.fill('[data-testid=import-paste]', JSON.stringify({ attention: [[1, 0], [0.25, 0.75]], tokens: ['a', 'b'] }));
  await page.click('[data-testid=import-paste-open]');
  await page.waitForFunction(() => window.attentionLab.state().tokens.join() === 'a,b');
  assert.deepEqual((await trace()).heads[0].weights, [[1, 0], [0.25, 0.75]]);
});

test('attentionLab.load takes an object, or bytes with a format; load(null) goes back', async () => {
  const npz = [...readFileSync(join(FIXTURES, 'attention.npz'))];
  const result = await page.evaluate((bytes) => window.attentionLab.load({ format: 'npz', bytes: new Uint8Array(bytes).buffer }), npz);
  assert.deepEqual(result, { ok: true });
  assert.equal(maxDiff(weightsOf(await trace()), expected.attention), 0);
  const npy = [...readFileSync(join(FIXTURES, 'attention.npy'))];
  assert.deepEqual(await page.evaluate((bytes) => window.attentionLab.load({ format: 'npy', bytes: new Uint8Array(bytes), tokens: ['a', 'b', 'c', 'd', 'e'] }), npy), { ok: true });
  assert.deepEqual((await state()).tokens, ['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual(await page.evaluate(() => window.attentionLab.load({ q: [[1, 0], [0, 1]], k: [[1, 0], [0, 1]], tokens: ['x', 'y'] })), { ok: true });
  assert.equal((await trace()).kind, 'q_k');
  assert.deepEqual(await page.evaluate(() => window.attentionLab.load(null)), { ok: true });
  const s = await state();
  assert.equal(s.source, 'computed');
  assert.ok(await page.locator('[data-testid=heatmap-weights]').count() > 0, 'the pipeline is back');
});

test('the downloaded trace of a file opens again with the same numbers', async () => {
  await pick('qkv.npz');
  // A copied link says it does not carry the file.
  await page.evaluate(() => document.querySelector('[data-testid=share-copy-link]').click());
  assert.match(await page.textContent('[data-testid=share-warning-imported]'), /never a file/);
  const shown = await trace();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('[data-testid=share-download-trace]'),
  ]);
  const path = await download.path();
  const saved = JSON.parse(readFileSync(path, 'utf8'));
  assert.equal(saved.source, 'imported');
  assert.ok(saved.q && saved.k && saved.v, 'the file\'s own tensors ride along');
  await page.evaluate(() => window.attentionLab.load(null));
  await page.setInputFiles('[data-testid=import-file]', path);
  await page.waitForFunction(() => window.attentionLab.state().source === 'imported');
  assert.equal(maxDiff(weightsOf(await trace()), weightsOf(shown)), 0);
});

test('every bad file gets its message and the page keeps what it showed', async () => {
  await pick('attention.json');
  const kept = JSON.stringify(await trace());
  const cases = [
    ['nan.json', '{"attention": [[1, NaN]], "tokens": ["a"]}', /not valid JSON|NaN|finite/i],
    ['rank.json', '{"attention": [[[[[[1]]]]]], "tokens": ["a"]}', /6 dimensions/],
    ['tokens.json', '{"attention": [[1, 0], [0, 1]], "tokens": ["a"]}', /tokens/],
    ['both.json', '{"attention": [[1]], "q": [[1]], "k": [[1]], "tokens": ["a"]}', /both/],
    ['cut.npz', readFileSync(join(FIXTURES, 'attention.npz')).subarray(0, 300), /npz|ends early/],
    ['cut.safetensors', readFileSync(join(FIXTURES, 'attention_f32.safetensors')).subarray(0, 200), /ends early|offsets|header/i],
    ['what.bin', Buffer.from([1, 2, 3]), /neither its name nor its first bytes/],
  ];
  for (const [name, content, message] of cases) {
    await page.setInputFiles('[data-testid=import-file]', { name, mimeType: 'application/octet-stream', buffer: Buffer.from(content) });
    await page.waitForFunction((n) => document.querySelector('[data-testid=import-error]')?.textContent.includes(n), name);
    const text = await page.locator('[data-testid=import-error]').textContent();
    assert.match(text, message, `${name}: ${text}`);
    assert.equal(JSON.stringify(await trace()), kept, `${name}: the page keeps what it showed`);
  }
  const refused = await page.evaluate(() => window.attentionLab.load({ attention: [[0.5, 0.5]], tokens: ['a', 'b', 'c'] }));
  assert.equal(refused.ok, false);
  assert.match(refused.error, /tokens/);
  assert.equal(JSON.stringify(await trace()), kept);
  // Rows that do not sum to 1 are a notice, not a refusal.
  assert.deepEqual(await page.evaluate(() => window.attentionLab.load({ attention: [[0.5, 0.25], [0.1, 0.2]], tokens: ['a', 'b'] })), { ok: true });
  assert.match(await page.locator('[data-testid=import-notices]').textContent(), /do not sum to 1/);
});

test('in Chinese, and on a phone', async () => {
  await page.evaluate(() => window.attentionLab.set({ lang: 'zh' }));
  await pick('attention.npz');
  assert.match(await page.locator('[data-testid=import-summary-text]').textContent(), /2 层 × 3 个头/);
  await page.setInputFiles('[data-testid=import-file]', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"attention": [[1, 0]], "tokens": ["a", "b", "c"]}') });
  await page.waitForSelector('[data-testid=import-error]');
  assert.match(await page.locator('[data-testid=import-error]').textContent(), /无法打开 bad\.json/);
  await page.evaluate(() => window.attentionLab.set({ lang: 'en' }));

  const phone = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    const p = await phone.newPage();
    await p.goto(server.url);
    await p.waitForFunction(() => window.attentionLab?.state?.().tokens);
    const npz = [...readFileSync(join(FIXTURES, 'attention.npz'))];
    await p.evaluate((bytes) => window.attentionLab.load({ format: 'npz', bytes: new Uint8Array(bytes).buffer }), npz);
    await p.locator('[data-testid=imported-view]').scrollIntoViewIfNeeded();
    await nextFrames(p);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the phone`);
    if (SHOTS) await p.screenshot({ path: join(SHOTS, 'import-phone.png'), fullPage: false });
  } finally {
    await phone.close();
  }
});

test('a long file\'s heads at a glance show every key: each thumbnail fits its box, on a desktop and a phone', async () => {
  // 1024 tokens × 8 heads, each query's weight spread over the keys before it (the review found
  // 40 % of the keys cut off at 1024, each thumbnail at least 2 px a cell in a box of 80).
  const n = 1024;
  const heads = 8;
  const load = () => page.evaluate(({ n, heads }) => {
    const weights = new Float32Array(heads * n * n);
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) weights[(h * n + i) * n + j] = 1 / (i + 1);
    }
    const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (1, ${heads}, ${n}, ${n}), }`;
    const header = dict + ' '.repeat(63 - ((10 + dict.length) % 64)) + '\n';
    const bytes = new Uint8Array(10 + header.length + weights.byteLength);
    bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
    for (let i = 0; i < header.length; i++) bytes[10 + i] = header.charCodeAt(i);
    bytes.set(new Uint8Array(weights.buffer), 10 + header.length);
    return window.attentionLab.load({ format: 'npy', bytes: bytes.buffer, tokens: Array.from({ length: n }, (_, i) => `t${i}`) });
  }, { n, heads });
  assert.deepEqual(await load(), { ok: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.locator('[data-testid=imported-grid]').scrollIntoViewIfNeeded();
    await nextFrames(page);
    const boxes = await page.evaluate(() => [...document.querySelectorAll('[data-testid=imported-grid] .small-multiple')].map((button) => {
      const canvas = button.querySelector('canvas.heatmap-cells');
      const inner = button.querySelector('.heatmap-scroll').getBoundingClientRect();
      const drawn = canvas.getBoundingClientRect();
      return { drawn: drawn.width, height: drawn.height, box: inner.width, cells: canvas.width };
    }));
    assert.equal(boxes.length, heads);
    for (const b of boxes) {
      assert.ok(b.cells > 0, 'drawn');
      assert.ok(b.drawn <= b.box + 0.5, `${width}px: a thumbnail ${b.drawn.toFixed(1)} px wide in a box of ${b.box.toFixed(1)}: keys cut off`);
      assert.ok(Math.abs(b.drawn - b.height) < 1.5, `${width}px: square, not stretched (${b.drawn} × ${b.height})`);
    }
    if (SHOTS) await page.locator('[data-testid=imported-grid]').screenshot({ path: join(SHOTS, `import-long-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  // The chosen head past 512 tokens: an overview of blocks (256 a side at most) with the zoomed
  // region outlined, and that region at full resolution with its tokens, as for the lab's own.
  const overview = page.locator('[data-testid=imported-overview-weights]');
  await overview.scrollIntoViewIfNeeded();
  await nextFrames(page);
  assert.equal(await page.locator('[data-testid=heatmap-imported-weights]').count(), 1);
  assert.match(await overview.locator('.overview-head .help').textContent(), /1024/);
  assert.match(await page.locator('[data-testid=imported-zoom-title-weights]').textContent(), /0.*31.*0.*31/);
  await page.click('[data-testid=imported-zoom-move-weights-1]');
  await nextFrames(page);
  assert.match(await page.locator('[data-testid=imported-zoom-title-weights]').textContent(), /16.*47/);
  const zoom = page.locator('canvas.heatmap-cells[data-testid=zoom-imported-weights]');
  await zoom.scrollIntoViewIfNeeded();
  const box = await zoom.boundingBox();
  // The region's cell at row 1, column 1 of the zoom is query t17, key t1 of the head.
  const cellSide = box.width / 32;
  await page.mouse.move(box.x + cellSide * 1.5, box.y + cellSide * 1.5);
  await page.waitForFunction(() => /t17.*t1\b/.test(document.querySelector('[data-testid=imported-cell]')?.textContent ?? ''));
  assert.match(await page.locator('[data-testid=imported-cell]').textContent(), /: 0\.056/);
  if (SHOTS) await overview.screenshot({ path: join(SHOTS, 'import-long-overview.png') });
  await page.evaluate(() => window.attentionLab.load(null));
});

test('an encoder\'s attention: roles over every query, special tokens hidden with rows renormalised, the mean over heads or layers', async () => {
  // A BERT-like file, 2 layers × 2 heads: one head looks at the next token, one at [CLS], one
  // one token back, one evenly.
  const tokens = ['[CLS]', 'the', 'cat', 'sat', ',', 'the', 'mat', '[SEP]'];
  const n = tokens.length;
  const row = (f) => Array.from({ length: n }, (_, i) => { const r = Array.from({ length: n }, (_, j) => f(i, j)); const s = r.reduce((a, b) => a + b, 0); return r.map((w) => w / s); });
  const next = row((i, j) => (j === Math.min(i + 1, n - 1) ? 1 : 0));
  const cls = row((i, j) => (j === 0 ? 6 : 4 / (n - 1)));
  const previous = row((i, j) => (j === Math.max(i - 1, 0) ? 1 : 0));
  const even = row(() => 1);
  const attention = [[next, cls], [previous, even]];
  assert.deepEqual(await page.evaluate((data) => window.attentionLab.load(data), { attention, tokens, name: 'bert.json' }), { ok: true });
  await page.locator('[data-testid=imported-roles]').scrollIntoViewIfNeeded();
  await nextFrames(page);
  const cell = (l, h, role) => page.locator(`[data-testid=imported-roles-${l}-${h}] [data-testid=role-${role}]`).textContent();
  assert.equal(await cell(0, 0, 'next'), '1.00', 'the next-token head');
  assert.equal(await cell(1, 0, 'previous'), '1.00', 'the previous-token head');
  assert.equal(await cell(0, 1, 'special'), (await page.evaluate(() => window.attentionLab.trace().roles[0][1].special.mean)).toFixed(2));
  // Each role over every query that can show it: the count under its name.
  assert.match(await page.locator('th[data-testid=role-next]').textContent(), /7 queries/);
  assert.match(await page.locator('th[data-testid=role-previous]').textContent(), /7 queries/);
  assert.match(await page.locator('[data-testid=imported-head-0-0]').getAttribute('aria-label'), /next/);
  const t = await trace();
  assert.equal(t.rows_are.kind, 'weights');
  assert.equal(t.roles[0][0].next.queries, n - 1);
  if (SHOTS) await page.locator('[data-testid=imported-view]').screenshot({ path: join(SHOTS, 'import-encoder-roles.png') });

  // Hide the special tokens: their rows and columns go, each row sums to 1 again, and it is said.
  const hide = page.locator('[data-testid=import-hide-special]');
  assert.match(await page.locator('[data-testid=import-view-controls]').textContent(), /\[CLS\] \[SEP\]/);
  await hide.check();
  await page.waitForFunction(() => window.attentionLab.state().tokens.length === 6);
  const hidden = await trace();
  assert.deepEqual(hidden.tokens, tokens.slice(1, -1));
  // Every row sums to 1 again, or to 0 where all of its weight was on special tokens (the
  // next-token head's "mat", whose next token was [SEP]).
  for (const head of hidden.layers.flat()) {
    for (const r of head.weights) {
      const sum = r.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-5 || sum === 0, `${sum}`);
    }
  }
  assert.ok(hidden.layers[0][0].weights[5].every((w) => w === 0));
  // The [CLS] head's "the" row: what was left of it, renormalised.
  const left = cls[1].slice(1, -1);
  const sum = left.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(hidden.layers[0][1].weights[0][0] - left[0] / sum) < 1e-6);
  assert.ok(hidden.notices.some((m) => /special tokens hidden \(\[CLS\] \[SEP\]\)/.test(m)), hidden.notices.join(' | '));
  await hide.uncheck();
  await page.waitForFunction(() => window.attentionLab.state().tokens.length === 8);

  // The mean over each layer's heads, then over the layers.
  await page.selectOption('[data-testid=import-mean]', 'heads');
  await page.waitForFunction(() => window.attentionLab.trace().mean === 'heads');
  let mean = await trace();
  assert.equal(mean.n_heads, 1);
  assert.ok(Math.abs(mean.layers[1][0].weights[3][2] - (previous[3][2] + even[3][2]) / 2) < 1e-6);
  assert.match(await page.locator('[data-testid=imported-head-title]').textContent(), /Layer 1 · mean of 2 heads/);
  await page.selectOption('[data-testid=import-mean]', 'layers');
  await page.waitForFunction(() => window.attentionLab.trace().mean === 'layers');
  mean = await trace();
  assert.equal(mean.n_layers, 1);
  assert.ok(Math.abs(mean.layers[0][1].weights[2][0] - (cls[2][0] + even[2][0]) / 2) < 1e-6);
  await page.selectOption('[data-testid=import-mean]', 'each');
  // Asked through load() too.
  await page.evaluate((data) => window.attentionLab.load(data), { attention, tokens, hide_special: true, mean: 'heads' });
  await page.waitForFunction(() => window.attentionLab.trace().mean === 'heads' && window.attentionLab.state().tokens.length === 6);
  assert.ok(await page.locator('[data-testid=import-hide-special]').isChecked());

  // Logits are not weights: no roles, no entropy, and the page says where.
  const logits = [[[2, -1, 0.5], [0.1, 3, -2], [1, 1, 1]]];
  await page.evaluate((data) => window.attentionLab.load(data), { attention: logits, tokens: ['a', 'b', 'c'] });
  await page.waitForFunction(() => window.attentionLab.state().tokens.join() === 'a,b,c');
  await nextFrames(page);
  assert.equal(await page.locator('[data-testid=imported-roles]').count(), 0, 'no roles table');
  assert.match(await page.locator('[data-testid=imported-roles-help]').textContent(), /not attention weights: layer 1, head 1, row 1 holds -1/);
  assert.equal((await trace()).roles[0][0].entropy_bits, null);

  // A batch: one layer of outputs.attentions, [batch 2, heads 1, 2, 2]; batch: 1 reads the second.
  const batch = [[[[1, 0], [0.5, 0.5]]], [[[1, 0], [0.2, 0.8]]]];
  await page.evaluate((data) => window.attentionLab.load(data), { attention: batch, tokens: ['a', 'b'], batch: 1 });
  await page.waitForFunction(() => window.attentionLab.trace().layers.length === 1 && window.attentionLab.trace().heads[0].weights[1][0] < 0.3);
  const read = await trace();
  assert.ok(read.notices.some((m) => /batch of 2 examples: example 1 is shown/.test(m)), read.notices.join(' | '));
  // Without batch: two layers, and the notice names both readings.
  await page.evaluate((data) => window.attentionLab.load(data), { attention: batch, tokens: ['a', 'b'] });
  await page.waitForFunction(() => window.attentionLab.trace().layers.length === 2);
  assert.match(await page.locator('[data-testid=imported-view]').textContent(), /\[batch, heads, queries, keys\]/);
  // A batch out of range is refused, naming the count; the page keeps what it showed.
  const refused = await page.evaluate((data) => window.attentionLab.load(data), { attention: batch, tokens: ['a', 'b'], batch: 5 });
  assert.equal(refused.ok, false);
  assert.match(refused.error, /batch 5, but it has 2 examples \(0 to 1\)/);
  assert.equal((await trace()).layers.length, 2);

  // In Chinese, at phone size.
  await page.evaluate((data) => window.attentionLab.load(data), { attention, tokens });
  await page.evaluate(() => window.attentionLab.set({ lang: 'zh' }));
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('[data-testid=imported-roles]').scrollIntoViewIfNeeded();
  await nextFrames(page);
  assert.match(await page.locator('[data-testid=imported-roles-help]').textContent(), /能显现这种角色的查询/);
  assert.match(await page.locator('[data-testid=import-view-controls]').textContent(), /隐藏特殊词元/);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page is ${overflow}px wider than the phone`);
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'import-encoder-phone-zh.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.evaluate(() => window.attentionLab.set({ lang: 'en' }));
  await page.evaluate(() => window.attentionLab.load(null));
});

test('no errors in the console', () => {
  assert.deepEqual(errors, []);
});
