// Your own model in the built app (dist/): Hugging Face folders made by transformers
// (tests/fixtures/hf, tools/hf/make_fixtures.py) opened through attentionLab.load({model:
// {files}}), the "Open a model folder…" picker and by dropping their files on the page; the
// page's ids, its greedy generation and its next-token predictions are transformers'; every
// view draws; a bad folder is refused with the file named and the model in use kept; Chinese and
// a phone. With SHOTS=dir it saves screenshots there.
//
// node --test tests/e2e/own_model.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT, nextFrames } from './browser.mjs';
import { typeCharacters } from './typing.mjs';

const DIST = process.env.DIST ?? join(ROOT, 'dist');
const FIXTURES = join(ROOT, 'tests', 'fixtures', 'hf');
const SHOTS = process.env.SHOTS;
// The command line, built by the test command before these tests (its stream_eval is the
// reference for the page's streaming of a folder).
const CLI = join(ROOT, 'target', 'release', 'attention-trace');
assert.ok(existsSync(CLI), `${CLI} is missing: cargo build --release --bin attention-trace first`);
let server, context, page;
const errors = [];

before(async () => {
  server = await serve(DIST);
  context = await launch();
  page = await context.newPage();
  // Counts the model worker's forward passes: asked for by the page, and answered.
  await page.addInitScript(() => {
    window.__forwards = { posted: 0, answered: 0 };
    const Base = window.Worker;
    window.Worker = class extends Base {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => { if (Array.isArray(e.data) && e.data[1] === 'forward') window.__forwards.answered++; });
      }
      postMessage(message, ...rest) {
        if (Array.isArray(message) && message[1] === 'forward') window.__forwards.posted++;
        return super.postMessage(message, ...rest);
      }
    };
  });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.waitForFunction(() => window.attentionLab?.state?.().tokens);
});

after(async () => {
  await context?.close();
  server?.close();
});

const state = () => page.evaluate(() => window.attentionLab.state());
/** Until the model is loaded and its worker's forward pass on the sentence is on view. */
const settled = () => page.waitForFunction(() => {
  const s = window.attentionLab.state();
  return s.model_status === 'ready' && !s.pending;
});
const expected = (name) => JSON.parse(readFileSync(join(FIXTURES, name, 'expected.json'), 'utf8'));

/** The probability transformers gives the likeliest token after a case's last position. */
function likeliest(want) {
  const last = want.logits[want.logits.length - 1];
  const top = Math.max(...last);
  return 1 / last.reduce((sum, x) => sum + Math.exp(x - top), 0);
}

/** A fixture folder's files (expected.json aside) as {name: base64}. */
function folder(name) {
  const files = {};
  for (const file of readdirSync(join(FIXTURES, name))) {
    if (file !== 'expected.json') files[file] = readFileSync(join(FIXTURES, name, file)).toString('base64');
  }
  return files;
}

/** attentionLab.load({model: {files, name}}), the JSON files as strings, the weights as
 * Uint8Arrays (or Blobs with `blobs`); resolves to what load resolves to. */
function load(name, files, { blobs = false, on = page } = {}) {
  return on.evaluate(async ({ name, files, blobs }) => {
    const decoded = {};
    for (const [file, b64] of Object.entries(files)) {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      if (file.endsWith('.json')) decoded[file] = new TextDecoder().decode(bytes);
      else decoded[file] = blobs ? new Blob([bytes]) : bytes;
    }
    return window.attentionLab.load({ model: { files: decoded, name } });
  }, { name, files, blobs });
}

test('a folder opened through attentionLab.load runs with its own tokenizer, and its greedy generation is transformers\'', async () => {
  for (const name of ['gpt2', 'qwen3', 'gemma2', 'llama']) {
    const result = await load(name, folder(name), { blobs: name === 'llama' });
    assert.deepEqual(result, { ok: true }, name);
    const want = expected(name).cases[2];
    await page.evaluate((t) => window.attentionLab.set({ sentence: t }), want.text);
    await settled();
    const s = await state();
    assert.equal(s.source, 'model', name);
    assert.deepEqual(s.model, { path: name });
    assert.equal(s.tokens.length, want.ids.length, `${name}: the model's own tokens`);
    // The forward pass ran in the model's worker and was put together in the page: its
    // likeliest next token's probability is transformers'.
    assert.equal(s.model_in_worker, true, name);
    assert.ok(s.forward_worker_ms > 0, name);
    const p = likeliest(want);
    assert.ok(Math.abs(s.predictions[0].p - p) < 1e-4, `${name}: ${s.predictions[0].p} vs ${p}`);
    // generate() answers a promise that the model's worker fulfils: the page's thread returns
    // at once and is free while the worker generates (it is not settled after the microtasks).
    const { generated, early } = await page.evaluate(async () => {
      let settled = false;
      const promise = window.attentionLab.generate({ steps: 8, cache: true, sampling: 'greedy' });
      promise.then(() => { settled = true; });
      for (let i = 0; i < 4; i++) await Promise.resolve();
      const early = settled;
      return { generated: await promise, early };
    });
    assert.equal(early, false, `${name}: generated in the model's worker, not on the page's thread`);
    assert.equal(generated.ok, true, JSON.stringify(generated).slice(0, 300));
    // Its text is the tokenizer's decoding, as the command line's (the worker holds pieces only).
    const cli = JSON.parse(execFileSync(CLI, {
      input: JSON.stringify({ model: { path: join(FIXTURES, name) }, sentence: want.text, generate: { steps: 8, cache: true, sampling: 'greedy' } }),
    }).toString());
    assert.equal(generated.text, cli.generate?.text ?? cli.text, `${name}: the text as the CLI decodes it`);
    assert.deepEqual(generated.steps.map((st) => st.token_id), want.generated, `${name}: generate = transformers' generate`);
    assert.ok(generated.max_delta <= 1e-4);
    assert.equal(generated.prompt_tokens, want.ids.length);
    // The worker takes a whole generation a few steps a turn (a forward pass asked for meanwhile
    // runs between them) and one after another: two asked for at once are both answered, alike.
    const both = await page.evaluate(() => Promise.all([1, 2].map(() => window.attentionLab.generate({ steps: 8, cache: true, sampling: 'greedy' }))));
    for (const g of both) {
      assert.equal(g.ok, true, JSON.stringify(g).slice(0, 300));
      assert.deepEqual(g.steps.map((st) => st.token_id), want.generated, `${name}: each of two at once`);
    }
    // The Generate view generates in the model's worker, a step asked for at a time: the same
    // tokens, and only the last step of the run is checked against a recompute there.
    await page.locator('[data-testid=generator]').scrollIntoViewIfNeeded();
    await page.fill('[data-testid=generate-steps]', '8');
    await page.locator('[data-testid=generate-steps]').dispatchEvent('change');
    await page.click('[data-testid=generate]');
    await page.waitForFunction(() => document.querySelector('[data-testid=generate-at]')?.textContent === '8 / 8', null, { timeout: 60000 });
    const shown = await page.locator('[data-testid=generated] .generated-char').allTextContents();
    const visible = (t) => ({ ' ': '␣', '\n': '⏎', '\t': '⇥' })[t] ?? t;
    assert.deepEqual(shown, generated.steps.map((st) => visible(st.token)), `${name}: the view's tokens are generate()'s`);
    const checked = await page.locator('[data-testid=generate-check]').textContent();
    assert.match(checked, /^Checked at the end of each run asked for \(1 of 8 steps\).*the largest difference is (\d\.\de-\d+)\.$/, name);
    assert.ok(Number(/is (\S+)\.$/.exec(checked)[1]) <= 1e-4, checked);
    // "One step" twice in a row, the first step still on its way from the worker: two steps.
    await page.click('[data-testid=generate-restart]');
    await page.click('[data-testid=generate-step]');
    await page.click('[data-testid=generate-step]');
    await page.waitForFunction(() => document.querySelector('[data-testid=generate-at]')?.textContent === '2 / 2', null, { timeout: 60000 });
    // trace(): the chosen layer's heads, on the model's own tokens.
    const trace = await page.evaluate(() => window.attentionLab.trace());
    assert.equal(trace.heads.length, 4, 'every fixture has 4 query heads');
    assert.deepEqual(trace.tokens, s.tokens);
  }
  // Back to a folder opened before the last: its worker builds it again from the files it kept,
  // and its passes leave the page's thread again, with transformers' numbers.
  // (Counted by the worker's answers: two tiny passes can take the same worker time, which its
  // clock gives in steps of 0.1 ms, so a changed time is no proof.)
  const want = expected('gpt2').cases[1];
  const answered = await page.evaluate(() => window.__forwards.answered);
  await page.evaluate((t) => window.attentionLab.set({ model: { path: 'gpt2' }, sentence: t }), want.text);
  await settled();
  await page.waitForFunction((b) => window.__forwards.answered > b, answered, { timeout: 30000 });
  const back = await state();
  assert.deepEqual(back.model, { path: 'gpt2' });
  assert.equal(back.model_in_worker, true, 'the folder gone back to runs in its worker again');
  const p = likeliest(want);
  assert.ok(Math.abs(back.predictions[0].p - p) < 1e-4, `gpt2 again: ${back.predictions[0].p} vs ${p}`);
  assert.deepEqual(errors, []);
});

test('while a sentence is typed, the model\'s worker waits for a pause and computes the newest sentence only', async () => {
  await page.evaluate(() => window.attentionLab.set({ sentence: 'The cat' }));
  await settled();
  // A model opened asks its worker for the sentence's pass once (not again when the worker
  // says it has read the model), and that pass is answered.
  const opened = await page.evaluate(() => ({ ...window.__forwards }));
  assert.deepEqual(await load('llama', folder('llama')), { ok: true });
  await settled();
  const before = await page.evaluate(() => ({ ...window.__forwards }));
  assert.deepEqual([before.posted - opened.posted, before.answered - opened.answered], [1, 1], 'one pass for a model opened');
  await page.focus('[data-testid=sentence]');
  await page.keyboard.press('End');
  await page.evaluate(typeCharacters, 12);
  const typed = await page.evaluate(() => document.querySelector('[data-testid=sentence]').value);
  assert.equal(typed, 'The cat' + 'y'.repeat(12));
  await page.waitForFunction((t) => { const s = window.attentionLab.state(); return s.sentence === t && !s.pending; }, typed);
  const after = await page.evaluate(() => ({ ...window.__forwards }));
  const posted = after.posted - before.posted;
  const answered = after.answered - before.answered;
  // Each character's sentence is sent at once, replacing the one before; the worker computes the
  // first (nothing came before it) and, once the typing pauses, the last.
  console.log(`# passes asked for ${posted}, answered ${answered}`);
  assert.ok(posted >= 10, `passes asked for: ${posted}`);
  // (Three if one frame of this machine took longer than the worker's hold.)
  assert.ok(answered >= 1 && answered <= 3, `passes answered: ${answered} of ${posted}`);
  const s = await state();
  assert.equal(s.sentence, typed);
  assert.ok(s.tokens.length > 2 && s.forward_worker_ms > 0);
  await page.evaluate(() => document.activeElement?.blur());
  assert.deepEqual(errors, []);
});

test('every view draws on the model: its status, every head at a glance, the layer, what comes next', async () => {
  assert.deepEqual(await load('qwen2', folder('qwen2')), { ok: true });
  await page.evaluate(() => window.attentionLab.set({ sentence: 'The cat sat on the mat. 注意力' }));
  await settled();
  await nextFrames(page);
  const status = await page.locator('[data-testid=model-status]').textContent();
  assert.match(status, /qwen2: a qwen2 model of 2 layers × 4 query heads \(2 K\/V heads\), 32 wide/);
  assert.equal(await page.locator('[data-testid=model-choice] button[aria-pressed=true]').textContent(), 'your model');
  assert.equal(await page.locator('[data-testid^=model-head-]').count(), 8, 'every layer × head');
  assert.ok(await page.locator('[data-testid=predictions] li').count() >= 1);
  assert.match(await page.locator('[data-testid=norm-fixed]').textContent(), /ε = 10⁻⁶/, 'the model\'s own ε');
  assert.match(status, /MB in memory, in f32\./);
  // Streaming: the folder's model (rotary positions) reads the page's text in its worker, its
  // progress shown, and the view's numbers are the command line's stream_eval on the folder.
  await page.locator('[data-testid=stream]').scrollIntoViewIfNeeded();
  for (const [field, value] of [['stream-window', '8'], ['stream-sinks', '2']]) {
    await page.fill(`[data-testid=${field}]`, value);
    await page.locator(`[data-testid=${field}]`).dispatchEvent('change');
  }
  await page.click('[data-testid=stream-run]');
  const seen = await page.waitForFunction(() => document.querySelector('[data-testid=stream-progress]')?.textContent, null, { timeout: 60000 });
  assert.match(await seen.jsonValue(), /(sink tokens|first token|recompute): \d+ of \d+ (tokens|positions)/);
  await page.waitForFunction(() => /by the recompute/.test(document.querySelector('[data-testid=stream-means]')?.textContent ?? ''), null, { timeout: 120000 });
  const means = (await page.locator('[data-testid=stream-means]').textContent()).match(/-?\d+\.\d{3}/g).map(Number);
  const text = await page.locator('[data-testid=stream-text]').inputValue();
  const cli = JSON.parse(execFileSync(CLI, {
    input: JSON.stringify({ model: { path: join(FIXTURES, 'qwen2') }, stream_eval: { text, window: 8, sink_tokens: 2 } }),
  }).toString());
  const wanted = [cli.with_sinks.mean, cli.without_sinks.mean, cli.recompute.mean];
  means.forEach((m, i) => assert.ok(Math.abs(m - wanted[i]) <= 0.0015, `${means} vs ${wanted}`));
  const cells = (await page.locator('[data-testid=stream-shares] td').allTextContents()).map((c) => Number(c.replace('%', '')));
  const shares = cli.first_token_share.flat().map((x) => x * 100);
  assert.equal(cells.length, shares.length);
  cells.forEach((c, i) => assert.ok(Math.abs(c - shares[i]) <= 0.051, `${cells} vs ${shares}`));
  assert.match(await page.locator('[data-testid=stream-finding]').textContent(), /^Keeping the first 2 tokens changes your model's mean loss by [+-]\d\.\d{3} nats/);
  assert.equal(await page.locator('[data-testid=stream-ended]').count(), 0);
  // Another folder is another model: the reading of the one before is gone, and no message
  // says it stopped; then the Qwen2 folder again for what follows.
  assert.deepEqual(await load('llama', folder('llama')), { ok: true });
  await settled();
  assert.equal(await page.locator('[data-testid=stream-means]').count(), 0, 'no reading of the folder before');
  assert.equal(await page.locator('[data-testid=stream-ended]').count(), 0);
  assert.deepEqual(await load('qwen2', folder('qwen2')), { ok: true });
  await settled();
  // A head knocked out: the comparison pass with every head on is the worker's, and the line
  // compares the shown prediction (before) with the knocked-out one.
  const before = (await state()).predictions[0].p;
  await page.locator('[data-testid=knock-0-0]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=ablation-change]')?.textContent.includes('→'));
  const line = await page.locator('[data-testid=ablation-change]').textContent();
  assert.ok(line.split('→')[0].includes(`${(before * 100).toFixed(1)}%`), `${line} (before: ${before})`);
  assert.equal((await state()).model_in_worker, true);
  await page.locator('[data-testid=knock-0-0]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=ablation-change]')?.textContent === 'All heads are on.');
  await settled();
  if (SHOTS) {
    await page.locator('[data-testid=model-status]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'own-model-en.png') });
    await page.locator('[data-testid=model-view]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'own-model-heads-en.png') });
  }
  // bf16 weights stay bf16 in memory: the status says so, and the model's bytes are fewer than
  // its parameters' in f32.
  assert.deepEqual(await load('llama-bf16', folder('llama-bf16')), { ok: true });
  await settled();
  assert.match(await page.locator('[data-testid=model-status]').textContent(), /MB in memory: its embeddings and MLPs stay in bf16/);
  assert.ok((await state()).model_bytes > 0);
  assert.deepEqual(await load('qwen2', folder('qwen2')), { ok: true });
  await settled();
  // The shipped model and back: "your model" goes back to the folder opened last, no picker.
  await page.locator('[data-testid=model-choice] button', { hasText: 'GPT-2 layout' }).click();
  await page.waitForFunction(() => window.attentionLab.state().model === 'trained');
  await page.locator('[data-testid=model-choice] button', { hasText: 'your model' }).click();
  await page.waitForFunction(() => window.attentionLab.state().model?.path === 'qwen2');
  assert.equal((await state()).source, 'model');
  assert.deepEqual(errors, []);
});

test('a bad folder is refused naming the file, and the model in use stays', async () => {
  assert.deepEqual(await load('gpt2', folder('gpt2')), { ok: true });
  const before = await state();
  const files = folder('llama');
  delete files['model-00003-of-00004.safetensors'];
  let result = await load('broken', files);
  assert.equal(result.ok, false);
  assert.match(result.error, /^model-00003-of-00004\.safetensors: missing/);
  const noTokenizer = folder('gpt2');
  delete noTokenizer['tokenizer.json'];
  result = await load('broken', noTokenizer);
  assert.match(result.error, /^tokenizer\.json: missing/);
  const config = JSON.parse(Buffer.from(folder('gpt2')['config.json'], 'base64').toString());
  config.model_type = 'bert';
  result = await load('broken', { ...folder('gpt2'), 'config.json': Buffer.from(JSON.stringify(config)).toString('base64') });
  assert.match(result.error, /model_type "bert"/);
  result = await page.evaluate(() => window.attentionLab.load({ model: { files: { 'config.json': 42 } } }));
  assert.match(result.error, /config\.json: expected a string, an ArrayBuffer, a Uint8Array or a Blob/);
  // An oversized model is refused from its header alone (the Blob holds nothing else).
  result = await page.evaluate(() => {
    const header = new TextEncoder().encode(JSON.stringify({ 'wte.weight': { dtype: 'BF16', shape: [50000, 40000], data_offsets: [0, 4000000000] } }));
    const len = new Uint8Array(8);
    new DataView(len.buffer).setUint32(0, header.length, true);
    return window.attentionLab.load({ model: { files: { 'config.json': '{}', 'model.safetensors': new Blob([len, header]) } } });
  });
  assert.match(result.error, /2000000000 parameters; the lab opens at most 1000000000/);
  const after = await state();
  assert.deepEqual(after.model, before.model, 'the model in use is kept');
  assert.deepEqual(after.tokens, before.tokens);
  assert.deepEqual(errors, []);
});

test('the folder picker and dropped files open a model; a refused folder says why under the picker', async () => {
  await page.setInputFiles('[data-testid=own-model-folder]', join(FIXTURES, 'mistral'));
  await page.waitForFunction(() => window.attentionLab.state().model?.path === 'mistral');
  assert.equal((await state()).source, 'model');
  // Dropped files: the folder's files themselves.
  await page.evaluate(async (files) => {
    const transfer = new DataTransfer();
    for (const [file, b64] of Object.entries(files)) {
      transfer.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], file));
    }
    document.querySelector('.lab').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, folder('gpt2'));
  await page.waitForFunction(() => window.attentionLab.state().model?.path === 'my-model');
  const partial = folder('gpt2');
  delete partial['model.safetensors'];
  await page.evaluate(async (files) => {
    const transfer = new DataTransfer();
    for (const [file, b64] of Object.entries(files)) {
      transfer.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], file));
    }
    document.querySelector('.lab').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, partial);
  await page.waitForSelector('[data-testid=own-model-failed]');
  assert.match(await page.locator('[data-testid=own-model-failed]').textContent(), /model\.safetensors: missing/);
  assert.equal((await state()).model?.path, 'my-model', 'the model in use is kept');
  // A model opened afterwards (here through the API) clears the old refusal.
  assert.deepEqual(await load('qwen3', folder('qwen3')), { ok: true });
  await page.waitForSelector('[data-testid=own-model-failed]', { state: 'detached' });
  assert.deepEqual(errors, []);
});

/// Builds, in the page, a Llama-layout folder of zero weights of the given sizes (the Llama
/// fixture's tokenizer, its 659 ids) and opens it: `{ loaded, kept }`, the load's answer and the
/// byte length of the caller's buffer after it.
async function loadZeroLlama({ tokenizer, name, layers, heads, headDim, hidden, ff }) {
  const vocab = 659;
  const shapes = [['model.embed_tokens.weight', [vocab, hidden]], ['model.norm.weight', [hidden]]];
  for (let i = 0; i < layers; i++) {
    const p = `model.layers.${i}.`;
    shapes.push([p + 'input_layernorm.weight', [hidden]], [p + 'post_attention_layernorm.weight', [hidden]],
      [p + 'self_attn.q_proj.weight', [heads * headDim, hidden]], [p + 'self_attn.k_proj.weight', [headDim, hidden]],
      [p + 'self_attn.v_proj.weight', [headDim, hidden]], [p + 'self_attn.o_proj.weight', [hidden, heads * headDim]],
      [p + 'mlp.gate_proj.weight', [ff, hidden]], [p + 'mlp.up_proj.weight', [ff, hidden]], [p + 'mlp.down_proj.weight', [hidden, ff]]);
  }
  const header = {};
  let offset = 0;
  for (const [tensor, shape] of shapes) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[tensor] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const buffer = new ArrayBuffer(8 + json.length + offset);
  new DataView(buffer).setBigUint64(0, BigInt(json.length), true);
  new Uint8Array(buffer, 8, json.length).set(json);
  const config = {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: hidden, num_hidden_layers: layers,
    num_attention_heads: heads, num_key_value_heads: 1, head_dim: headDim, intermediate_size: ff,
    max_position_embeddings: 128, vocab_size: vocab, rms_norm_eps: 1e-6, rope_theta: 10000, hidden_act: 'silu',
    tie_word_embeddings: true,
  };
  const loaded = await window.attentionLab.load({ model: { name, files: {
    'config.json': JSON.stringify(config), 'tokenizer.json': tokenizer, 'model.safetensors': buffer,
  } } });
  return { loaded, kept: buffer.byteLength };
}

test('in Chinese and on a phone', async () => {
  assert.deepEqual(await load('qwen3', folder('qwen3')), { ok: true });
  await page.evaluate(() => window.attentionLab.set({ sentence: '注意力机制让每个词看见其他的词。', lang: 'zh' }));
  await page.waitForFunction(() => window.attentionLab.state().model_status === 'ready' && !window.attentionLab.state().pending);
  await nextFrames(page);
  assert.match(await page.locator('[data-testid=model-status]').textContent(), /qwen3：qwen3 架构，2 层 × 4 个查询头/);
  assert.match(await page.locator('[data-testid=own-model]').textContent(), /打开模型文件夹/);
  if (SHOTS) {
    await page.locator('[data-testid=model-status]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'own-model-zh.png') });
  }
  const phone = await context.browser().newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const p = await phone.newPage();
  await p.goto(server.url);
  await p.waitForFunction(() => window.attentionLab?.state?.().tokens);
  const files = folder('qwen2');
  const ok = await p.evaluate(async (files) => {
    const decoded = {};
    for (const [file, b64] of Object.entries(files)) {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      decoded[file] = file.endsWith('.json') ? new TextDecoder().decode(bytes) : bytes;
    }
    return window.attentionLab.load({ model: { files: decoded, name: 'qwen2' } });
  }, files);
  assert.deepEqual(ok, { ok: true });
  await p.waitForFunction(() => window.attentionLab.state().model_status === 'ready' && !window.attentionLab.state().pending);
  await nextFrames(p);
  const width = await p.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `nothing wider than the phone (${width})`);
  // A model of 24 layers: its layer tabs wrap instead of widening the page (a page wider than
  // the phone took the floating Controls button off the screen).
  const tokenizer = readFileSync(join(FIXTURES, 'llama', 'tokenizer.json'), 'utf8');
  const deep = await p.evaluate(loadZeroLlama, { tokenizer, name: 'deep', layers: 24, heads: 2, headDim: 8, hidden: 16, ff: 16 });
  assert.deepEqual(deep.loaded, { ok: true });
  await p.waitForFunction(() => window.attentionLab.state().model_status === 'ready' && !window.attentionLab.state().pending);
  await nextFrames(p);
  assert.equal(await p.locator('[data-testid=layer-selector] button').count(), 24);
  const deepWidth = await p.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(deepWidth <= 390, `24 layer tabs within the phone (${deepWidth})`);
  const fab = await p.locator('[data-testid=controls-open]').boundingBox();
  assert.ok(fab && fab.y + fab.height <= 844, `the Controls button on the screen: ${JSON.stringify(fab)}`);
  if (SHOTS) {
    await p.locator('[data-testid=model-view]').scrollIntoViewIfNeeded();
    await p.screenshot({ path: join(SHOTS, 'own-model-phone.png') });
    await p.evaluate(() => window.attentionLab.set({ lang: 'zh' }));
    await nextFrames(p);
    await p.screenshot({ path: join(SHOTS, 'own-model-phone-zh.png') });
  }
  await phone.close();
  assert.deepEqual(errors, []);
});

test('a link and the element name a folder by its address (model_src=, model-src): the lab fetches and runs it, and a link made then carries the address', async () => {
  // The folders on another origin, as the Hub serves them (with CORS).
  const models = await serve(FIXTURES, {}, { cors: true });
  const p = await context.newPage();
  const pageErrors = [];
  p.on('pageerror', (e) => pageErrors.push(String(e)));
  const opened = () => p.waitForFunction(() => {
    const s = window.attentionLab?.state?.();
    return s && s.source === 'model' && s.model_status === 'ready' && !s.pending;
  }, null, { timeout: 60000 });
  try {
    // A sharded folder: the index and its four shards fetched one by one.
    const address = `${models.url}llama`;
    await p.goto(`${server.url}?model_src=${encodeURIComponent(address)}&sentence=${encodeURIComponent('The cat sat.')}`);
    await opened();
    let s = await p.evaluate(() => window.attentionLab.state());
    assert.deepEqual(s.model, { path: 'llama' });
    assert.equal(s.model_in_worker, true);
    // The address bar (a moment after the change) carries the address, never the numbers.
    await p.waitForFunction((a) => new URL(location.href).searchParams.get('model_src') === a, address);
    // A folder that is not there: refused under the picker, naming the file and the status.
    await p.goto(`${server.url}?model_src=${encodeURIComponent(models.url + 'nothing-here')}`);
    await p.waitForSelector('[data-testid=own-model-failed]');
    assert.match(await p.locator('[data-testid=own-model-failed]').textContent(), /config\.json: missing at .*nothing-here\/config\.json \(404\)/);
    // The element's model-src (relative to the course page): the lab in its frame fetches it.
    const course = await serve(join(ROOT, 'dist'), {
      '/course.html': `<!doctype html><script src="attention-lab.js"></script>
<attention-lab model-src="${models.url}qwen3" sentence="Attention is all you need." height="600"></attention-lab>`,
    });
    try {
      await p.goto(`${course.url}course.html`);
      await p.evaluate(() => document.querySelector('attention-lab').scrollIntoView());
      await p.waitForFunction(() => {
        const s = document.querySelector('attention-lab').state;
        return s && s.source === 'model' && s.model?.path === 'qwen3' && !s.pending;
      }, null, { timeout: 60000 });
    } finally {
      course.close();
    }
    assert.deepEqual(pageErrors, []);
  } finally {
    await p.close();
    models.close();
  }
});

test('a text longer than a folder\'s model reads is cut to its last tokens, said in tokens, in both languages', async () => {
  // The page's memory sets the cap only for large models (GPT-2 small's shape: 567 tokens of its
  // 1 024; tests/hf_models.rs, benches/README.md): a zero model of 2 layers reads its context.
  const tokenizer = readFileSync(join(FIXTURES, 'llama', 'tokenizer.json'), 'utf8');
  const built = await page.evaluate(loadZeroLlama, { tokenizer, name: 'short', layers: 2, heads: 2, headDim: 8, hidden: 16, ff: 16 });
  assert.deepEqual(built.loaded, { ok: true });
  const text = 'The cat sat on the mat. '.repeat(30).trim();
  await page.evaluate((text) => window.attentionLab.set({ sentence: text, lang: 'en' }), text);
  await page.waitForFunction((text) => {
    const s = window.attentionLab.state();
    return s.model_status === 'ready' && !s.pending && s.sentence === text && s.tokens.length > 20;
  }, text);
  const s = await page.evaluate(() => window.attentionLab.state());
  assert.equal(s.tokens.length, 128, 'the context of 128 tokens');
  const note = page.locator('[data-testid=context-window]').first();
  assert.match(await note.textContent(), /^The model reads at most 128 tokens here \(its context window\): of your \d+, it reads the last 128, from token \d+ on/);
  await page.evaluate(() => window.attentionLab.set({ lang: 'zh' }));
  await nextFrames(page);
  assert.match(await note.textContent(), /^模型在这里最多读 128 个词元（它的上下文窗口）：你的 \d+ 个词元中/);
  await page.evaluate(() => window.attentionLab.set({ lang: 'en' }));
  assert.deepEqual(errors, []);
});

test('a model with many heads asks before working out how they compose, and the button computes it; the caller\'s buffer stays theirs', async () => {
  // Built in the page: Llama's layout, 4 layers of 64 heads of 32 (one K/V head), hidden 64, zero
  // weights: 24 576 pairs of heads, 4.8 billion multiply-adds (over the 2 billion computed unasked).
  const tokenizer = readFileSync(join(FIXTURES, 'llama', 'tokenizer.json'), 'utf8');
  const result = await page.evaluate(loadZeroLlama, { tokenizer, name: 'many-heads', layers: 4, heads: 64, headDim: 32, hidden: 64, ff: 64 });
  assert.deepEqual(result.loaded, { ok: true });
  // The page copied the caller's buffer before handing its own to the worker.
  assert.ok(result.kept > 4_000_000, `the caller's buffer: ${result.kept} bytes`);
  await settled();
  // Its 64 heads a layer wrap in the grid: thumbnails stay wide enough to read and click, the
  // Knock out buttons do not overlap, and each layer starts a row of its own.
  await page.waitForSelector('[data-testid=model-head-3-63]');
  const grid = await page.evaluate(() => {
    const box = (selector) => document.querySelector(selector).getBoundingClientRect();
    const cell = (l, h) => document.querySelector(`[data-testid=model-head-${l}-${h}]`).closest('.small-multiple-cell').getBoundingClientRect();
    return {
      width: cell(0, 0).width,
      left: box('.model-grid').left,
      layer1: cell(1, 0).left,
      below: cell(1, 0).top >= cell(0, 63).bottom,
      knocks: [box('[data-testid=knock-0-0]'), box('[data-testid=knock-0-1]')].map((r) => [r.left, r.right]),
    };
  });
  assert.ok(grid.width >= 70, `a thumbnail ${grid.width}px wide`);
  assert.ok(Math.abs(grid.layer1 - grid.left) < 1 && grid.below, `layer 2 starts a row: ${JSON.stringify(grid)}`);
  assert.ok(grid.knocks[0][1] <= grid.knocks[1][0], `the buttons side by side: ${JSON.stringify(grid.knocks)}`);
  const costly = page.locator('[data-testid=circuit-costly]');
  await costly.waitFor();
  await page.evaluate(() => window.attentionLab.set({ lang: 'en' }));
  await nextFrames(page);
  const said = await costly.locator('p').textContent();
  assert.match(said, /256 heads.*24,576 pairs.*about 5 billion multiply-adds\. The model's worker computes them while the page keeps responding/, said);
  await page.evaluate(() => window.attentionLab.set({ lang: 'zh' }));
  await nextFrames(page);
  const zh = await costly.locator('p').textContent();
  assert.match(zh, /256 个头.*24,576 对.*约 48 亿次乘加。模型的后台线程会去算/, zh);
  assert.equal(await page.locator('[data-testid=circuit]').count(), 0, 'no graph until asked');
  // Asked: the model's worker computes it, saying how far it is, while the page's own loop
  // goes on (it reads the progress line between frames); then the drawing.
  const computed = await page.evaluate(async () => {
    const gaps = [];
    let last = performance.now();
    let on = true;
    const tick = (t) => { gaps.push(t - last); last = t; if (on) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    document.querySelector('[data-testid=circuit-compute]').click();
    // attentionLab.composition() asked meanwhile joins the worker's composition under way.
    const asked = window.attentionLab.composition();
    const seen = [];
    const started = performance.now();
    while (!document.querySelector('[data-testid=circuit]') && performance.now() - started < 120000) {
      const line = document.querySelector('[data-testid=circuit-composing] p')?.textContent;
      if (line && !seen.includes(line)) seen.push(line);
      await new Promise((r) => setTimeout(r, 10));
    }
    const api = await asked;
    on = false;
    return {
      seen, longest: Math.max(...gaps.slice(1)), ms: performance.now() - started,
      api: { ok: api.ok, error: api.error, heads: api.heads?.length, rows: api.q?.length, sentence: api.sentence?.k?.length, ms: api.ms },
    };
  });
  assert.deepEqual({ ...computed.api, ms: undefined }, { ok: true, error: undefined, heads: 256, rows: 256, sentence: 256, ms: undefined },
    'attentionLab.composition() answered from the worker, while the frames went on');
  console.log(`# attentionLab.composition() in the worker: ${computed.api.ms.toFixed(0)} ms`);
  console.log(`# composition in the worker: ${computed.ms.toFixed(0)} ms, ${computed.seen.length} progress lines, longest frame ${computed.longest.toFixed(0)} ms`);
  // 256 heads' matrices, then 24 576 pairs; the page's frames never wait for it (computing it
  // on the page's thread took seconds).
  const done = computed.seen.map((line) => Number(/已完成 (\d+) \/ 24832 步/.exec(line)?.[1] ?? -1));
  assert.ok(done.some((d) => d > 256), `the worker says how far it is: ${computed.seen.slice(-2)}`);
  assert.ok(computed.longest < 1000, `a frame of ${computed.longest} ms`);
  await page.locator('[data-testid=circuit]').waitFor({ timeout: 120000 });
  assert.equal(await costly.count(), 0);
  // Asked again, then another model chosen before it ends: refused, never this model's scores
  // measured on the other model's pass.
  const switched = await page.evaluate(async () => {
    const asked = window.attentionLab.composition();
    window.attentionLab.set({ model: 'trained' });
    return asked;
  });
  assert.equal(switched.ok, false, JSON.stringify(switched).slice(0, 200));
  assert.match(switched.error, /another model was chosen before it ended/);
  assert.deepEqual(errors, []);
});

test('a Qwen3-Next hybrid folder: its layers labelled by kind, a linear layer shown as linear attention with its own numbers', async () => {
  // In English at a desktop's width (the tests before may leave Chinese or a phone).
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.evaluate(() => window.attentionLab.set({ lang: 'en' }));
  assert.deepEqual(await load('qwen3_next', folder('qwen3_next')), { ok: true });
  const want = expected('qwen3_next').cases[0];
  await page.evaluate((t) => window.attentionLab.set({ sentence: t }), want.text);
  await settled();
  await nextFrames(page);
  const s = await state();
  assert.equal(s.model_in_worker, true);
  // The worker's pass (put together in the page) gives transformers' next token.
  const p = likeliest(want);
  assert.ok(Math.abs(s.predictions[0].p - p) < 1e-4, `${s.predictions[0].p} vs ${p}`);
  // Generation with the mixed cache (states for three layers, keys and values for one).
  const generated = await page.evaluate(() => window.attentionLab.generate({ steps: 8, cache: true, sampling: 'greedy' }));
  assert.equal(generated.ok, true, JSON.stringify(generated).slice(0, 300));
  assert.deepEqual(generated.steps.map((st) => st.token_id), want.generated, 'generate = transformers\' generate');
  assert.deepEqual(await page.locator('[data-testid^=layer-tab-]').allTextContents(), ['1 linear', '2 linear', '3 linear', '4 full']);
  // Layer 1 is Gated DeltaNet: no score or softmax steps, its own A, β, α and state.
  await page.click('[data-testid=layer-tab-0]');
  await nextFrames(page);
  assert.match(await page.locator('[data-testid=linear-layer-note]').textContent(), /^Layer 1 is linear attention \(Gated DeltaNet\)/);
  assert.equal(await page.locator('[data-testid=heatmap-masked]').count(), 0, 'no mask step');
  assert.equal(await page.locator('[data-testid=linear-kind]').count(), 0, 'its own kind: nothing to choose');
  assert.equal(await page.locator('[data-testid=linear-softmax]').count(), 0);
  assert.match(await page.locator('[data-testid=linear-title]').textContent(), /layer 1's own state/);
  assert.match(await page.locator('[data-testid=flash-diff]').textContent(), /^The chunked form/);
  assert.equal(await page.locator('[data-testid=model-head-0-0] .role-tag').textContent(), 'linear · A');
  const check = await page.locator('[data-testid=linear-check]').textContent();
  for (const d of check.match(/\d\.\de-\d+/g)) assert.ok(Number(d) < 1e-5, check);
  // Its memory: the states of a fixed size against a cache that grows (the CLI's numbers).
  const memory = await page.locator('[data-testid=hybrid-memory-text]').textContent();
  assert.match(memory, /^3 linear layers: states of 19,200 bytes in all, whatever the length\. 1 full layer: 256 bytes more per token each.* From 26 tokens on/);
  assert.ok(await page.locator('[data-testid=hybrid-memory-chart]').isVisible());
  if (SHOTS) {
    await page.locator('[data-testid=linear-layer-note]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'hybrid-layer-en.png') });
    await page.locator('[data-testid=linear-section]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'hybrid-linear-en.png') });
    await page.locator('[data-testid=model-view]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'hybrid-heads-en.png') });
  }
  // Layer 4 is softmax attention again: its steps are back.
  await page.click('[data-testid=layer-tab-3]');
  await nextFrames(page);
  assert.equal(await page.locator('[data-testid=linear-layer-note]').count(), 0);
  assert.equal(await page.locator('[data-testid=heatmap-masked]').count(), 1);
  assert.match(await page.locator('[data-testid=flash-diff]').textContent(), /^FlashAttention/);
  assert.deepEqual(errors, []);
});

test('"Compute on: GPU": a folder\'s model computes each layer\'s attention on the WebGPU its worker finds, with transformers\' numbers; a layer the shaders do not compute, and a browser without WebGPU, say why', async () => {
  // A browser with SwiftShader's WebGPU (the page's `page` has none).
  const gpuContext = await launch({ webgpu: true });
  const on = await gpuContext.newPage();
  const gpuErrors = [];
  on.on('console', (m) => { if (m.type() === 'error') gpuErrors.push(m.text()); });
  on.on('pageerror', (e) => gpuErrors.push(String(e)));
  try {
    await on.goto(server.url);
    await on.waitForFunction(() => window.attentionLab?.state?.().tokens);
    const stateOn = () => on.evaluate(() => window.attentionLab.state());
    /** Until the pass on view answers the request with `backend` (the GPU's first pass opens it). */
    const settledOn = (backend) => on.waitForFunction((b) => {
      const s = window.attentionLab.state();
      return s.model_status === 'ready' && !s.pending && s.backend === b;
    }, backend, { timeout: 60000 });
    // Qwen2 (projection biases), Gemma 2 (soft-caps, sandwich norms), GPT-2 (biases, LayerNorm).
    for (const name of ['qwen2', 'gemma2', 'gpt2']) {
      assert.deepEqual(await load(name, folder(name), { on }), { ok: true }, name);
      const want = expected(name).cases[2];
      await on.evaluate((t) => window.attentionLab.set({ sentence: t, backend: 'gpu' }), want.text);
      await settledOn('gpu');
      const s = await stateOn();
      assert.equal(s.model_in_worker, true, name);
      assert.equal(s.fallback_reason, null, `${name}: ${s.fallback_message}`);
      assert.ok(s.adapter, `${name}: the GPU named`);
      // The badge names the GPU and how long the pass took: the worker's computing and putting
      // it together here (not the page's copy of a layer, nor the worker's waits).
      const badge = await on.locator('[data-testid=backend-badge]').textContent();
      assert.ok(badge.startsWith(`GPU · ${s.adapter} · `), badge);
      const shownMs = Number(/· ([\d.]+) ms$/.exec(badge)?.[1]);
      assert.ok(shownMs >= Math.floor(s.forward_worker_ms) && shownMs < s.forward_worker_ms + 100, `${badge} against ${s.forward_worker_ms} ms in the worker`);
      // The worker's pass, its attention from the GPU, put together in the page: transformers'.
      const p = likeliest(want);
      assert.ok(Math.abs(s.predictions[0].p - p) < 1e-4, `${name} on the GPU: ${s.predictions[0].p} vs ${p}`);
      const onGpu = await on.evaluate(() => window.attentionLab.trace());
      // Back to the CPU: the same weights within the GPU's rounding.
      await on.evaluate(() => window.attentionLab.set({ backend: 'cpu' }));
      await settledOn('cpu');
      const cpu = await stateOn();
      assert.equal(cpu.fallback_reason, null);
      const onCpu = await on.evaluate(() => window.attentionLab.trace());
      let largest = 0;
      onGpu.heads.forEach((h, i) => h.weights.forEach((row, q) => row.forEach((w, k) => {
        largest = Math.max(largest, Math.abs(w - onCpu.heads[i].weights[q][k]));
      })));
      assert.ok(largest < 1e-4, `${name}: the GPU's weights differ from the CPU's by ${largest}`);
    }
    // A hybrid: its full-attention layer on the GPU, its linear layers (a short convolution
    // first, which the shaders do not compute) on the CPU, saying so.
    assert.deepEqual(await load('qwen3_next', folder('qwen3_next'), { on }), { ok: true });
    const want = expected('qwen3_next').cases[0];
    await on.evaluate((t) => window.attentionLab.set({ lang: 'en', sentence: t, backend: 'gpu' }), want.text);
    await on.waitForFunction(() => {
      const s = window.attentionLab.state();
      return s.model_status === 'ready' && !s.pending && s.fallback_reason !== 'probing';
    }, null, { timeout: 60000 });
    await on.click('[data-testid=layer-tab-3]');
    await settledOn('gpu');
    await on.click('[data-testid=layer-tab-0]');
    await settledOn('cpu');
    const linear = await stateOn();
    assert.equal(linear.fallback_reason, 'unsupported');
    assert.match(linear.fallback_message, /short convolution before linear attention/);
    const p = likeliest(want);
    assert.ok(Math.abs(linear.predictions[0].p - p) < 1e-4, `hybrid on the GPU: ${linear.predictions[0].p} vs ${p}`);
    assert.deepEqual(gpuErrors, []);
  } finally {
    await gpuContext.close();
  }
  // Where the browser has no WebGPU, the worker finds none either: the CPU computes, saying why.
  assert.deepEqual(await load('qwen3', folder('qwen3')), { ok: true });
  const want = expected('qwen3').cases[2];
  await page.evaluate((t) => window.attentionLab.set({ sentence: t, backend: 'gpu' }), want.text);
  await page.waitForFunction(() => {
    const s = window.attentionLab.state();
    return s.model_status === 'ready' && !s.pending && s.fallback_reason === 'no-webgpu';
  }, null, { timeout: 60000 });
  const s = await state();
  assert.equal(s.backend, 'cpu');
  const p = likeliest(want);
  assert.ok(Math.abs(s.predictions[0].p - p) < 1e-4, `${s.predictions[0].p} vs ${p}`);
  await page.evaluate(() => window.attentionLab.set({ backend: 'auto' }));
  await settled();
  assert.equal((await state()).fallback_reason, null);
  assert.deepEqual(errors, []);
});

test('generate() and composition() asked while the model\'s worker is still starting wait for it, and are answered there', async () => {
  // A page of its own, so that the model's worker starts with this folder: each worker's
  // messages posted, and whether it has said anything yet.
  const fresh = await context.newPage();
  await fresh.addInitScript(() => {
    window.__workers = [];
    const Base = window.Worker;
    window.Worker = class extends Base {
      constructor(...args) {
        super(...args);
        const seen = { started: false, posted: [] };
        window.__workers.push(seen);
        this.addEventListener('message', () => { seen.started = true; });
        this.__seen = seen;
      }
      postMessage(message, ...rest) {
        if (Array.isArray(message) && typeof message[1] === 'string') this.__seen.posted.push(message[1]);
        return super.postMessage(message, ...rest);
      }
    };
  });
  const pageErrors = [];
  fresh.on('pageerror', (e) => pageErrors.push(String(e)));
  await fresh.goto(server.url);
  await fresh.waitForFunction(() => window.attentionLab?.state?.().tokens);
  const want = expected('gpt2').cases[2];
  await fresh.evaluate((t) => window.attentionLab.set({ sentence: t }), want.text);
  const files = folder('gpt2');
  const answer = await fresh.evaluate(async ({ files }) => {
    const decoded = {};
    for (const [file, b64] of Object.entries(files)) {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      decoded[file] = file.endsWith('.json') ? new TextDecoder().decode(bytes) : bytes;
    }
    const before = window.__workers.length;
    const loaded = await window.attentionLab.load({ model: { files: decoded, name: 'gpt2' } });
    // The model's worker is the one started by the load; asked before it has said anything.
    const worker = window.__workers[window.__workers.length - 1];
    const starting = window.__workers.length > before && !worker.started;
    // Each answer, or what it was waiting for after a minute.
    const within = (promise, what) => Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve({ ok: false, error: `${what}: no answer in 60 s; posted ${worker.posted}` }), 60000))]);
    const [generated, composed] = await Promise.all([
      within(window.attentionLab.generate({ steps: 8, cache: true, sampling: 'greedy' }), 'generate'),
      within(window.attentionLab.composition(), 'composition'),
    ]);
    return { loaded, starting, generated, composed, posted: worker.posted };
  }, { files });
  assert.deepEqual(answer.loaded, { ok: true });
  assert.equal(answer.starting, true, 'asked while the worker was starting');
  assert.equal(answer.generated.ok, true, JSON.stringify(answer.generated).slice(0, 300));
  assert.deepEqual(answer.generated.steps.map((st) => st.token_id), want.generated, 'generate = transformers\' generate');
  assert.equal(answer.composed.ok, true, JSON.stringify(answer.composed).slice(0, 300));
  assert.equal(answer.composed.heads.length, 2 * 4);
  // Both went to the worker once it listened, after the model's message.
  for (const kind of ['model', 'generate_json', 'compose']) assert.ok(answer.posted.includes(kind), `${kind} in ${answer.posted}`);
  assert.ok(answer.posted.indexOf('model') < answer.posted.indexOf('generate_json'));
  // What the worker keeps to build the folder again is stated (JavaScript's memory, beside it).
  const bytes = Object.values(files).reduce((sum, b64) => sum + Buffer.from(b64, 'base64').length, 0);
  assert.equal((await fresh.evaluate(() => window.attentionLab.state())).model_worker_kept_bytes, bytes);
  assert.deepEqual(pageErrors, []);
  await fresh.close();
});

test('a folder gone back to whose files the worker did not keep: generate() and composition() asked meanwhile wait for its answer and are computed on the page', async () => {
  // A page whose model worker is asked to build again a folder it never had (as a folder over
  // the files it keeps would be): it answers "not kept" and holds no model. That answer, and
  // all the worker says after it, in order, are held back until generate() and composition()
  // have been asked, so that they are asked in that moment.
  const fresh = await context.newPage();
  await fresh.addInitScript(() => {
    window.__hold = null;
    const Base = window.Worker;
    window.Worker = class extends Base {
      set onmessage(on) {
        const held = [];
        let holding = false;
        super.onmessage = on && ((event) => {
          if (!window.__hold && Array.isArray(event.data) && event.data[1] === 'not_kept') {
            holding = true;
            window.__hold = () => {
              holding = false;
              for (const e of held.splice(0)) on(e);
            };
          }
          if (holding) held.push(event);
          else on(event);
        });
      }
      get onmessage() { return super.onmessage; }
      postMessage(message, ...rest) {
        if (Array.isArray(message) && message[1] === 'reopen') message = [message[0], 'reopen', '(never given)'];
        return super.postMessage(message, ...rest);
      }
    };
  });
  const pageErrors = [];
  fresh.on('pageerror', (e) => pageErrors.push(String(e)));
  await fresh.goto(server.url);
  await fresh.waitForFunction(() => window.attentionLab?.state?.().tokens);
  const ready = () => fresh.waitForFunction(() => {
    const s = window.attentionLab.state();
    return s.model_status === 'ready' && !s.pending;
  });
  const want = expected('gpt2').cases[2];
  for (const name of ['gpt2', 'qwen2']) {
    assert.deepEqual(await load(name, folder(name), { on: fresh }), { ok: true }, name);
    await ready();
  }
  await fresh.evaluate((t) => window.attentionLab.set({ model: { path: 'gpt2' }, sentence: t }), want.text);
  await fresh.waitForFunction(() => window.__hold !== null);
  const answer = await fresh.evaluate(async () => {
    const generated = window.attentionLab.generate({ steps: 8, cache: true, sampling: 'greedy' });
    const composed = window.attentionLab.composition();
    // The worker's "not kept", after both were asked.
    await new Promise((resolve) => setTimeout(resolve, 200));
    window.__hold();
    return { generated: await generated, composed: await composed };
  });
  assert.equal(answer.generated.ok, true, JSON.stringify(answer.generated).slice(0, 300));
  assert.deepEqual(answer.generated.steps.map((st) => st.token_id), want.generated, 'generate = transformers\' generate');
  assert.equal(answer.composed.ok, true, JSON.stringify(answer.composed).slice(0, 300));
  assert.equal(answer.composed.heads.length, 2 * 4);
  await ready();
  const s = await fresh.evaluate(() => window.attentionLab.state());
  assert.equal(s.model_in_worker, false, 'the page computes the folder its worker kept no files of');
  assert.ok(Math.abs(s.predictions[0].p - likeliest(want)) < 1e-4);
  // "Compute on: GPU" then says why the page's CPU computes it (not the lab's own models' reason).
  await fresh.evaluate(() => window.attentionLab.set({ backend: 'gpu' }));
  await fresh.waitForFunction(() => window.attentionLab.state().fallback_reason === 'model-on-page');
  assert.match((await fresh.evaluate(() => window.attentionLab.state())).fallback_message, /its worker is not running/);
  assert.deepEqual(pageErrors, []);
  await fresh.close();
});
