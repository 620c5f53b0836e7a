// The notebook package (python/, issue 22 §3), as a notebook runs it: the page save_html writes,
// opened from file:// with no server, draws the file's numbers; and the widget's module, rendered
// by a host that does what anywidget does (render({model, el})), shows the lab in its frame; and
// show(model=folder) sends a model's files, which the lab in the frame opens and runs.
// (A real JupyterLab run is still to come.)
//
// node --test tests/e2e/notebook.mjs   (after the README's set-up: .venv with the package)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, nextFrames, ROOT } from './browser.mjs';
import { serve } from './serve.mjs';

const PYTHON = join(ROOT, '.venv', 'bin', 'python');
const FIXTURES = join(ROOT, 'tests', 'fixtures', 'imports');
const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8'));
const SHOTS = process.env.SHOTS;
const dir = mkdtempSync(join(tmpdir(), 'attention-lab-notebook-'));
let context;
const errors = [];

/** Runs Python with the package installed, as a notebook cell would. */
function python(code) {
  return execFileSync(PYTHON, ['-c', code], { cwd: dir, encoding: 'utf8' });
}

before(async () => {
  context = await launch();
});

after(async () => {
  await context?.close();
});

const weightsOf = (t) => t.layers.map((l) => l.map((h) => h.weights));

test('save_html writes one file that opens from disk and shows the numbers', async () => {
  python(`
import json, numpy as np, attention_lab
e = json.load(open(${JSON.stringify(join(FIXTURES, 'expected.json'))}))
attention_lab.save_html("attention.html", np.array(e["attention"], dtype=np.float32), e["tokens"],
                        panels="weights,all-heads,head-roles", lang="zh")
attention_lab.save_html("qk.html", q=np.array(e["q"], dtype=np.float32), k=np.array(e["k"], dtype=np.float32),
                        tokens=e["tokens"], panels=["weights", "head-view"], mask="causal")
`);
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`file://${join(dir, 'attention.html')}`);
  await page.waitForFunction(() => window.attentionLabReady, null, { timeout: 60000 });
  assert.deepEqual(await page.evaluate(() => window.attentionLabReady.loaded), { ok: true });
  const t = await page.evaluate(() => window.attentionLab.trace());
  assert.deepEqual(weightsOf(t), expected.attention);
  const state = await page.evaluate(() => window.attentionLab.state());
  assert.equal(state.source, 'imported');
  assert.equal(state.lang, 'zh');
  await nextFrames(page);
  const drawn = await page.evaluate(() => [...document.querySelectorAll('[data-testid^="heatmap-imported-"]')].filter((c) => c.width > 0).length);
  assert.ok(drawn >= 2, `heatmaps drawn: ${drawn}`);
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'notebook-file.png') });

  await page.goto(`file://${join(dir, 'qk.html')}`);
  await page.waitForFunction(() => window.attentionLabReady, null, { timeout: 60000 });
  const qk = await page.evaluate(() => window.attentionLab.trace());
  assert.equal(qk.kind, 'q_k');
  assert.equal(qk.heads[0].weights[0][1], 0, 'the causal mask asked for applies');
  await page.close();
});

test('the widget\'s module renders the lab in a frame, as anywidget calls it, and cleans up', async () => {
  python(`
import base64, json, shutil, pathlib, numpy as np, attention_lab
e = json.load(open(${JSON.stringify(join(FIXTURES, 'expected.json'))}))
w = attention_lab.show(np.array(e["attention"], dtype=np.float32), e["tokens"], panels="weights", temperature=2)
shutil.copy(pathlib.Path(attention_lab.__file__).parent / "widget.js", "widget.js")
flipped = attention_lab.show(np.array(e["attention"], dtype=np.float32)[:, ::-1].copy(), e["tokens"])
json.dump({"data": base64.b64encode(w.data).decode(), "flipped": base64.b64encode(flipped.data).decode(),
           "link": w.link, "params": w.params, "height": w.height, "shell": w.shell}, open("model.json", "w"))
`);
  // A host that does what anywidget does: binary traits arrive as DataViews, changes are events.
  // (The model's values are fetched: the page the widget shows holds script tags of its own.)
  const host = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><div id="out"></div>
<script type="module">
  import widget from './widget.js';
  const values = await (await fetch('./model.json')).json();
  const view = (text) => new DataView(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)).buffer);
  values.data = view(values.data);
  const listeners = new Map();
  const model = {
    get: (name) => values[name],
    on: (event, f) => listeners.set(event, [...(listeners.get(event) ?? []), f]),
    off: (event, f) => listeners.set(event, (listeners.get(event) ?? []).filter((g) => g !== f)),
  };
  window.widgetHost = {
    cleanup: widget.render({ model, el: document.getElementById('out') }),
    set(name, value) {
      values[name] = name === 'data' ? view(value) : value;
      for (const f of listeners.get('change:' + name) ?? []) f();
    },
    listening: () => [...listeners.values()].reduce((n, l) => n + l.length, 0),
    flipped: values.flipped,
  };
</script></body></html>`;
  writeFileSync(join(dir, 'host.html'), host);
  // Modules load over http (file:// refuses them); the widget's own frame needs nothing served.
  const server = await serve(dir);
  try {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${server.url}host.html`);
    const frame = await (await page.waitForSelector('#out iframe')).contentFrame();
    await frame.waitForFunction(() => window.attentionLabReady, null, { timeout: 60000 });
    assert.deepEqual(await frame.evaluate(() => window.attentionLabReady.loaded), { ok: true });
    const t = await frame.evaluate(() => window.attentionLab.trace());
    assert.deepEqual(weightsOf(t), expected.attention, 'the .npz bytes read by the lab give the same numbers');
    assert.equal((await frame.evaluate(() => window.attentionLab.state())).source, 'imported');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'notebook-widget.png') });
    // New data from the cell reaches the same frame.
    await frame.evaluate(() => { window.attentionLabReady = null; });
    await page.evaluate(() => window.widgetHost.set('data', window.widgetHost.flipped));
    await frame.waitForFunction(() => window.attentionLabReady, null, { timeout: 60000 });
    const flipped = weightsOf(await frame.evaluate(() => window.attentionLab.trace()));
    assert.deepEqual(flipped, expected.attention.map((layer) => [...layer].reverse()));
    // render's cleanup: the frame and every listener gone.
    assert.ok(await page.evaluate(() => typeof window.widgetHost.cleanup === 'function'));
    await page.evaluate(() => window.widgetHost.cleanup());
    assert.equal(await page.evaluate(() => document.querySelectorAll('#out iframe').length), 0);
    assert.equal(await page.evaluate(() => window.widgetHost.listening()), 0);
    await page.close();
  } finally {
    server.close();
  }
});

test('show(model=folder): the widget sends the folder\'s files, the lab in its frame runs the model, and a sentence typed there is computed again with no Python', async () => {
  const folder = join(ROOT, 'tests', 'fixtures', 'hf', 'qwen2');
  const want = JSON.parse(readFileSync(join(folder, 'expected.json'), 'utf8')).cases[2];
  python(`
import base64, json, shutil, pathlib, attention_lab
w = attention_lab.show(model=${JSON.stringify(folder)}, text="The cat sat.")
shutil.copy(pathlib.Path(attention_lab.__file__).parent / "widget.js", "widget.js")
files = {name: base64.b64encode(data).decode() for name, data in w.model["files"].items()}
json.dump({"model": {"name": w.model["name"], "files": files}, "data": "", "link": w.link,
           "params": w.params, "height": w.height, "shell": w.shell}, open("model-widget.json", "w"))
`);
  // As anywidget hands them over: the model's files (binary buffers inside a dict) as DataViews.
  writeFileSync(join(dir, 'model-host.html'), `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><div id="out"></div>
<script type="module">
  import widget from './widget.js';
  const values = await (await fetch('./model-widget.json')).json();
  const view = (text) => new DataView(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)).buffer);
  values.data = view(values.data);
  for (const name of Object.keys(values.model.files)) values.model.files[name] = view(values.model.files[name]);
  const model = { get: (name) => values[name], on() {}, off() {} };
  widget.render({ model, el: document.getElementById('out') });
</script></body></html>`);
  const server = await serve(dir);
  try {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${server.url}model-host.html`);
    const frame = await (await page.waitForSelector('#out iframe')).contentFrame();
    await frame.waitForFunction(() => window.attentionLabReady, null, { timeout: 60000 });
    const ready = await frame.evaluate(() => window.attentionLabReady);
    assert.deepEqual(ready.opened, { ok: true });
    let s = await frame.evaluate(() => window.attentionLab.state());
    assert.equal(s.source, 'model');
    assert.deepEqual(s.model, { path: 'qwen2' });
    assert.equal(s.sentence, 'The cat sat.');
    // Typed in the widget's own sentence box: the page computes it again, in its WebAssembly.
    await frame.fill('[data-testid=sentence]', want.text);
    await frame.waitForFunction((n) => {
      const s = window.attentionLab.state();
      return s.tokens.length === n && !s.pending;
    }, want.ids.length, { timeout: 60000 });
    s = await frame.evaluate(() => window.attentionLab.state());
    const last = want.logits[want.logits.length - 1];
    const top = Math.max(...last);
    const p = 1 / last.reduce((sum, x) => sum + Math.exp(x - top), 0);
    assert.ok(Math.abs(s.predictions[0].p - p) < 1e-4, `${s.predictions[0].p} vs transformers' ${p}`);
    await nextFrames(frame);
    assert.ok(await frame.locator('[data-testid^=model-head-]').count() >= 8, 'every layer × head at a glance');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'notebook-model.png') });
    await page.close();
  } finally {
    server.close();
  }
});

test('the README\'s example runs as written and its file shows its numbers', async () => {
  const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = README.match(/<!-- checked: python[^>]*-->\s*```python\n([\s\S]*?)```/);
  assert.ok(block, 'the README has the notebook example');
  python(block[1]);
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`file://${join(dir, 'attention.html')}`);
  await page.waitForFunction(() => window.attentionLabReady, null, { timeout: 60000 });
  const t = await page.evaluate(() => window.attentionLab.trace());
  assert.deepEqual(t.tokens, ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  const weights = weightsOf(t);
  assert.deepEqual([weights.length, weights[0].length, weights[0][0].length, weights[0][0][0].length], [2, 4, 6, 6]);
  for (const row of weights.flat(2)) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5);
  await page.close();
});

test('no errors', () => {
  assert.deepEqual(errors, []);
});
