// The notebook widget in a real JupyterLab (issue 22 §3): JupyterLab started on 127.0.0.1 from
// the project's .venv, a notebook whose cell calls attention_lab.show(...), opened and run in
// headless Chromium; the widget's frame draws the lab on the cell's numbers.
//
// node --test tests/e2e/jupyter.mjs   (after the README's set-up: .venv with the package and JupyterLab)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, ROOT } from './browser.mjs';

const SHOTS = process.env.SHOTS;
const dir = mkdtempSync(join(tmpdir(), 'attention-lab-jupyter-'));
const TOKEN = 'attention-lab-test';
let lab, context, url;

const CELL = `import numpy as np
import attention_lab

tokens = ["the", "cat", "sat", "on", "the", "mat"]
scores = np.random.default_rng(0).normal(size=(2, 4, 6, 6))
attention = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
attention_lab.show(attention, tokens, panels="weights,all-heads")`;

function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// A model the lab runs itself: a Hugging Face folder's files sent through the widget's state.
const MODEL_CELL = `import attention_lab
attention_lab.show(model=${JSON.stringify(join(ROOT, 'tests', 'fixtures', 'hf', 'qwen2'))}, text="The cat sat on the mat.")`;

function notebook(name, source) {
  writeFileSync(join(dir, name), JSON.stringify({
    cells: [{ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source }],
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  }));
}

/** Opens notebook `name` in JupyterLab, runs its cell once the kernel is idle, and resolves to
 * the widget's frame (with its page, to close). */
async function runCell(name) {
  const page = await context.newPage();
  await page.goto(`${url}lab/tree/${name}?token=${TOKEN}`);
  // Once the kernel is idle (the status bar says so), run the cell; a run sent while the kernel
  // was still connecting is lost, so it is sent again if no output comes.
  await page.waitForSelector('.jp-Notebook .jp-Cell', { timeout: 120000 });
  await page.waitForFunction(() => /\|\s*Idle/.test(document.querySelector('.jp-StatusBar-Widget, #jp-main-statusbar')?.textContent ?? ''),
    null, { timeout: 120000 });
  let handle = null;
  for (let attempt = 0; attempt < 3 && !handle; attempt++) {
    await page.locator('.jp-Notebook .jp-Cell .jp-InputArea-editor').first().click();
    await page.keyboard.press('Shift+Enter');
    handle = await page.waitForSelector('.jp-OutputArea iframe', { timeout: 40000 }).catch(() => null);
  }
  assert.ok(handle, 'the widget appeared under the cell');
  return { page, handle, frame: await handle.contentFrame() };
}

before(async () => {
  notebook('attention.ipynb', CELL);
  notebook('model.ipynb', MODEL_CELL);
  const port = await freePort();
  url = `http://127.0.0.1:${port}/`;
  lab = spawn(join(ROOT, '.venv', 'bin', 'jupyter'), [
    'lab', '--no-browser', '--allow-root', '--ip=127.0.0.1', `--port=${port}`, `--IdentityProvider.token=${TOKEN}`,
    '--ServerApp.disable_check_xsrf=True', `--notebook-dir=${dir}`, '--LabApp.news_url=',
  ], { cwd: dir, env: { ...process.env, JUPYTER_CONFIG_DIR: join(dir, '.jupyter'), JUPYTER_RUNTIME_DIR: join(dir, '.runtime') }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`JupyterLab did not start:\n${log}`)), 90000);
    const listen = (chunk) => {
      log += chunk;
      if (log.includes(`127.0.0.1:${port}`) && log.includes('http')) { clearTimeout(timer); resolve(); }
    };
    lab.stdout.on('data', listen);
    lab.stderr.on('data', listen);
    lab.on('exit', (code) => reject(new Error(`JupyterLab exited (${code}):\n${log}`)));
  });
  context = await launch();
});

after(async () => {
  await context?.close();
  lab?.kill('SIGTERM');
});

test('a cell that calls show() draws the lab in JupyterLab', async () => {
  const { page, handle, frame } = await runCell('attention.ipynb');
  await frame.waitForFunction(() => window.attentionLabReady, null, { timeout: 60000 });
  const t = await frame.evaluate(() => window.attentionLab.trace());
  assert.deepEqual(t.tokens, ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  assert.equal(t.layers.length, 2);
  assert.equal(t.layers[0].length, 4);
  const drawn = await frame.evaluate(() => [...document.querySelectorAll('[data-testid^="heatmap-imported-"]')].filter((c) => c.width > 0).length);
  assert.ok(drawn >= 1, `heatmaps drawn: ${drawn}`);
  if (SHOTS) {
    await handle.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'jupyterlab.png') });
  }
});

test('a cell that calls show(model=folder) runs the model in JupyterLab\'s widget', async () => {
  const { page, frame } = await runCell('model.ipynb');
  await frame.waitForFunction(() => window.attentionLabReady, null, { timeout: 60000 });
  assert.deepEqual(await frame.evaluate(() => window.attentionLabReady.opened), { ok: true });
  await frame.waitForFunction(() => !window.attentionLab.state().pending, null, { timeout: 60000 });
  const s = await frame.evaluate(() => window.attentionLab.state());
  assert.equal(s.source, 'model');
  assert.deepEqual(s.model, { path: 'qwen2' });
  assert.equal(s.sentence, 'The cat sat on the mat.');
  assert.ok(s.predictions.length > 0);
  await page.close();
});
