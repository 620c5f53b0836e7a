// Accessibility, measured (issue 39 §4): axe-core (pinned in .ci/tools.sh) with the WCAG 2.0,
// 2.1 and 2.2 A and AA rules, in Chromium, over every state a review went through: the lab in
// English and Chinese, light and dark; each model; every Learn chapter; an embed; the element on a
// course page; an opened file; the phone; generation and streaming after a run. Zero violations,
// asserted per rule id so that a failure names the rule and the nodes.
//
// node --test tests/e2e/a11y.mjs   (after trunk build --release)
// A11Y_ONLY=substring runs the states whose name contains it.
import { after, before, test as nodeTest } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AsyncLocalStorage } from 'node:async_hooks';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, nextFrames, ROOT } from './browser.mjs';

const DIST = process.env.DIST ?? join(ROOT, 'dist');
const AXE = readFileSync(join(ROOT, '.tools', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const CHAPTERS = ['tokens', 'qkv', 'scaling', 'softmax', 'masks', 'positions', 'windows', 'taming',
  'multihead', 'gqa', 'cross', 'layernorm', 'stability', 'complexity', 'flash', 'kv-cache',
  'streaming', 'circuits', 'variants', 'delta-rule', 'hybrids', 'exercises'];
const HEADS = readFileSync(join(ROOT, 'tests', 'fixtures', 'imports', 'attention.json'), 'utf8');
const COURSE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Week 3: attention</title><script type="module" src="/attention-lab.js"></script></head>
<body><main><h1>Week 3: attention</h1>
<attention-lab sentence="The cat sat on the mat." panels="weights,head-view" height="640"></attention-lab>
</main></body></html>`;

let server, context;

before(async () => {
  server = await serve(DIST, { '/course.html': COURSE, '/heads.json': HEADS });
  context = await launch();
});

after(async () => {
  server?.close();
  if (!context) return;
  // A browser that does not close within half a minute is said and left.
  let timer;
  const closed = await Promise.race([
    context.close().then(() => true, () => true),
    new Promise((r) => { timer = setTimeout(() => r(false), 30000); }),
  ]);
  clearTimeout(timer);
  if (!closed) console.error('a11y: the browser did not close within 30 s');
});

/** Closes `page`, waiting at most ten seconds (a test's own assertion is never lost to a close
 * that hangs: it then fails as itself, not as a hang, and is not tried again). */
const closePage = (page) => Promise.race([
  page.close().catch(() => {}),
  new Promise((r) => setTimeout(r, 10000)),
]);

// Each try has three minutes. A page that stops answering is said, named, with what the test was
// doing and where (a hang once used up the whole step's twenty minutes and said nothing), and
// the test is tried once more on a fresh page; a second hang fails it, and the others still run.
// (What axe finds is asserted either way: a retry never passes a violation.)
const LIMIT_MS = Number(process.env.A11Y_LIMIT_MS ?? 180000);
let doing = '';
let current = null;
// Which try is running: a try abandoned after a hang that still runs says nothing any more.
const tries = new AsyncLocalStorage();
let running = 0;
const now = (what, page = current) => {
  if (tries.getStore() !== running) return;
  doing = what;
  current = page;
};
async function bounded(name, fn) {
  running += 1;
  const mine = running;
  doing = 'starting';
  current = null;
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => {
      const where = current && !current.isClosed() ? current.url() : 'no page';
      current?.close().catch(() => {});
      const error = new Error(`${name}: no answer after ${LIMIT_MS / 1000} s, while ${doing} (${where})`);
      error.hung = true;
      reject(error);
    }, LIMIT_MS);
  });
  try {
    await Promise.race([tries.run(mine, fn), limit]);
  } finally {
    clearTimeout(timer);
  }
}
function test(name, fn) {
  nodeTest(name, { timeout: 2 * LIMIT_MS + 30000 }, async () => {
    try {
      await bounded(name, fn);
    } catch (error) {
      if (!error.hung) throw error;
      console.error(`a11y: ${error.message}; trying once more`);
      await bounded(name, fn);
    }
  });
}

/** Scrolls through the page once (views draw when they come into view), each step waiting two
 * frames or a quarter second when the page is given none, at most 100 screens. */
const scrollThrough = (page, back = true) => page.evaluate(async (back) => {
  for (let y = 0, n = 0; y < document.body.scrollHeight && n < 100; y += innerHeight, n++) {
    window.scrollTo(0, y);
    await new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 250); });
  }
  if (back) window.scrollTo(0, 0);
}, back);

/** axe's violations on `page`, as { rule: [node summaries] }. */
async function violations(page) {
  await page.evaluate(AXE);
  const result = await page.evaluate((tags) => window.axe.run(document, {
    runOnly: { type: 'tag', values: tags },
    resultTypes: ['violations'],
  }), TAGS);
  const out = {};
  for (const v of result.violations) {
    out[v.id] = v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(0, 2).join(' ')}`.slice(0, 300));
  }
  return out;
}

const ready = (page) => page.waitForFunction(() => document.querySelector('[data-testid=token-chip], [data-testid=chapter], [data-testid=heatmap-weights]'), null, { timeout: 60000 });

/** Opens a page in `options` (viewport, colour scheme), brings it to a state with `setUp`, and
 * asserts axe finds nothing. */
async function check(name, setUp, options = {}) {
  const page = await context.newPage();
  try {
    now('opening the page', page);
    if (options.viewport) await page.setViewportSize(options.viewport);
    await page.emulateMedia({ colorScheme: options.dark ? 'dark' : 'light' });
    now('bringing the page to its state');
    await setUp(page);
    now('scrolling through the page');
    await scrollThrough(page);
    await nextFrames(page);
    now('running axe');
    const found = await violations(page);
    if (process.env.A11Y_REPORT) console.log(name, JSON.stringify(found, null, 1));
    assert.deepEqual(Object.keys(found), [], `${name}: ${JSON.stringify(found, null, 1)}`);
  } finally {
    await closePage(page);
  }
}

const states = [];
const state = (name, setUp, options) => states.push({ name, setUp, options });
const at = (query) => async (page) => { await page.goto(`${server.url}?${query}`); await ready(page); };

state('lab, English, light', at('lang=en'));
state('lab, Chinese, light', at('lang=zh'));
state('lab, English, dark', at('lang=en'), { dark: true });
state('lab, Chinese, dark', at('lang=zh'), { dark: true });
state('GPT-2 model', at('lang=en&model=gpt2'));
state('Llama model', at('lang=en&model=llama'));
state('Llama model, Chinese, dark', at('lang=zh&model=llama'), { dark: true });
// Each chapter with its question answered, so that its experiment is on the page too.
const chapter = (query) => async (page) => {
  await at(query)(page);
  if (await page.locator('[data-testid=choice-0]').count()) await page.click('[data-testid=choice-0]');
  await nextFrames(page);
};
for (const name of CHAPTERS) state(`Learn: ${name}`, chapter(`lang=en&lesson=${name}`));
state('Learn: streaming, Llama, Chinese', chapter('lang=zh&model=llama&lesson=streaming'));
state('Learn: kv-cache, Llama, dark', chapter('lang=en&model=llama&lesson=kv-cache'), { dark: true });
state('embed', at('lang=en&embed=1&panels=weights,head-view&sentence=the%20cat%20sat'));
state('phone', at('lang=en'), { viewport: { width: 390, height: 844 } });
state('phone, Llama, dark', at('lang=en&model=llama'), { viewport: { width: 390, height: 844 }, dark: true });
state('an opened file', async (page) => {
  await at('lang=en')(page);
  await page.click('[data-testid=import-open]');
  await page.setInputFiles('[data-testid=import-file]', join(ROOT, 'tests', 'fixtures', 'imports', 'attention.json'));
  await page.waitForFunction(() => window.attentionLab.state().source === 'imported');
});
state('generation after a run', async (page) => {
  await at('lang=en&model=llama&sentence=the%20cat%20sat')(page);
  await page.locator('[data-testid=generate]').scrollIntoViewIfNeeded();
  await page.click('[data-testid=generate]');
  await page.waitForFunction(() => document.querySelector('[data-testid=generate-scrub]'), null, { timeout: 60000 });
});
// The Llama twins compared (the table, the verdict, what was tried), in the hybrids chapter in
// Chinese on a dark phone, and in the lab's Streaming section.
const twins = (query) => async (page) => {
  await chapter(query)(page);
  await page.locator('[data-testid=stream-twins-run]').scrollIntoViewIfNeeded();
  await page.click('[data-testid=stream-twins-run]');
  await page.waitForSelector('[data-testid=stream-twins-table]', { timeout: 120000 });
};
state('the twins compared, hybrids chapter, Chinese, dark phone', twins('lang=zh&lesson=hybrids'), { viewport: { width: 390, height: 844 }, dark: true });
state('the twins compared, Llama + gate', twins('lang=en&model=llama-gated'));
state('streaming after a run', async (page) => {
  await at('lang=zh&model=llama&sentence=the%20cat%20sat')(page);
  await page.locator('[data-testid=stream-run]').scrollIntoViewIfNeeded();
  await page.click('[data-testid=stream-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=stream-shares]'), null, { timeout: 120000 });
});
// Why a head attends: "Why here?" open (by the keyboard) with its row, heads knocked out.
const why = (query) => async (page) => {
  await at(query)(page);
  if (query.includes('model=')) {
    await page.waitForFunction(() => window.attentionLab.state().model_status === 'ready', null, { timeout: 60000 });
  }
  const weights = page.locator('[data-testid=heatmap-weights]').first();
  await weights.scrollIntoViewIfNeeded();
  await nextFrames(page);
  await weights.focus();
  await nextFrames(page);
  await page.keyboard.press('ArrowDown');
  await page.waitForSelector('[data-testid=why-here]');
  await page.click('[data-testid=why-row] summary');
};
state('why here, knocked out, Llama', why('lang=en&model=llama&layer=3&ablate=L1H1'));
state('why here, knocked out, GPT-2, Chinese, dark', why('lang=zh&model=gpt2&layer=2&ablate=L1H2m'), { dark: true });
state('why here, phone', why('lang=en&model=llama&layer=2'), { viewport: { width: 390, height: 844 } });
state('why here, random weights', why('lang=en'));
// The circuit view with a head chosen and its table open, and embedded alone.
const circuit = (query) => async (page) => {
  // (An embed of the circuit alone has no chips or weights to wait for.)
  await page.goto(`${server.url}?${query}`);
  await page.waitForFunction(() => window.attentionLab?.state?.()?.model_status === 'ready', null, { timeout: 60000 });
  await page.locator('[data-testid=circuit-node-1-3]').scrollIntoViewIfNeeded();
  await page.click('[data-testid=circuit-node-1-3]');
  await page.click('[data-testid=circuit-table] summary');
  await page.waitForSelector('[data-testid=circuit-chosen]');
};
state('circuit, GPT-2, Chinese, dark', circuit('lang=zh&model=gpt2&ablate=L1H2'), { dark: true });
state('circuit, phone', circuit('lang=en&model=llama'), { viewport: { width: 390, height: 844 } });
state('circuit, embedded', circuit('lang=en&model=gpt2&embed=1&panels=circuit'));
// A user's own model (a Hugging Face folder made by transformers, tests/fixtures/hf/qwen2),
// opened through attentionLab.load, and a folder refused under the picker.
const ownModel = (lang, refused) => async (page) => {
  await at(`lang=${lang}&sentence=The%20cat%20sat%20on%20the%20mat`)(page);
  const dir = join(ROOT, 'tests', 'fixtures', 'hf', 'qwen2');
  const files = {};
  for (const file of ['config.json', 'tokenizer.json', 'model.safetensors']) {
    files[file] = readFileSync(join(dir, file)).toString('base64');
  }
  const result = await page.evaluate(async (files) => {
    const decoded = {};
    for (const [file, b64] of Object.entries(files)) {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      decoded[file] = file.endsWith('.json') ? new TextDecoder().decode(bytes) : bytes;
    }
    return window.attentionLab.load({ model: { files: decoded, name: 'qwen2' } });
  }, files);
  assert.deepEqual(result, { ok: true });
  await page.waitForFunction(() => window.attentionLab.state().model_status === 'ready' && !window.attentionLab.state().pending);
  if (refused) {
    await page.evaluate(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['{}'], 'config.json'));
      document.querySelector('.lab').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    });
    await page.waitForSelector('[data-testid=own-model-failed]', { state: 'attached' });
    // On a phone the controls are a sheet: open it, so that what it says is checked.
    if (await page.locator('[data-testid=controls-open]').isVisible()) await page.click('[data-testid=controls-open]');
    await page.locator('[data-testid=own-model-failed]').scrollIntoViewIfNeeded();
  }
  await nextFrames(page);
};
state('your own model, Chinese', ownModel('zh', false));
// Generated in the model's worker: the check line says how many steps were checked.
const ownGenerated = (lang) => async (page) => {
  await ownModel(lang, false)(page);
  await page.locator('[data-testid=generator]').scrollIntoViewIfNeeded();
  await page.click('[data-testid=generate]');
  await page.waitForFunction(() => /\d+ \/ \d+/.test(document.querySelector('[data-testid=generate-at]')?.textContent ?? '')
    && document.querySelector('[data-testid=generate-check]')?.textContent, null, { timeout: 60000 });
};
state('your own model, generated in its worker, Chinese, dark', ownGenerated('zh'), { dark: true });
state('your own model, a folder refused, phone', ownModel('en', true), { viewport: { width: 390, height: 844 } });
// Streamed in the model's worker: its progress, then the chart, the means and the share table.
state('your own model, streamed in its worker, Chinese, phone', async (page) => {
  await ownModel('zh', false)(page);
  await page.locator('[data-testid=stream-run]').scrollIntoViewIfNeeded();
  await page.click('[data-testid=stream-run]');
  await page.waitForSelector('[data-testid=stream-shares]', { timeout: 120000 });
  await page.locator('[data-testid=stream-means]').scrollIntoViewIfNeeded();
}, { viewport: { width: 390, height: 844 } });
state('the element on a course page', async (page) => {
  await page.goto(`${server.url}course.html`);
  await page.waitForFunction(() => {
    const el = document.querySelector('attention-lab');
    return el?.shadowRoot?.querySelector('iframe') || el?.querySelector('iframe');
  }, null, { timeout: 60000 });
});

// English left on the Chinese page: three or more English words in a row in text a reader sees
// (the sentence's own tokens, formulas, code and the names of models and methods aside).
const ALLOWED = [/Attention Lab/g, /Flash ?Attention(-\d)?/g, /\bGPT-2\b/g, /Llama/g, /StreamingLLM/g, /Hugging Face/g,
  /Pre-LN|Post-LN/g, /LayerNorm|RMSNorm|QK-norm|softmax|SwiGLU|GELU/gi, /RoPE|ALiBi|GQA|MQA|MHA|MLA|KV/g,
  /Mistral|Qwen|DeepSeek|BLOOM|MPT|gpt-oss|GPT-J|GPT-NeoX|BERT|Performer|Linear Transformer|Longformer|BigBird/g,
  /Online Softmax/gi, /WebGPU|SwiftShader|CPU|GPU|PNG|CSV|SVG|JSON|NaN|wasm/g, /Attention Is All You Need/g,
  /Pre-norm|Post-norm/gi, /The cat sat on the mat[^。]*/g];
async function englishOnChinesePage(page) {
  return page.evaluate((allowed) => {
    const skip = 'script, style, textarea, input, code, pre, .tokens, .chip, .formula, canvas, .generated, .examples, .lesson-table td, .strip-label, .hover-line, option';
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || el.closest(skip) || !el.getClientRects().length) continue;
      let text = node.textContent;
      for (const [source, flags] of allowed) text = text.replace(new RegExp(source, flags), ' ');
      const run = text.match(/\b[A-Za-z']{2,}(?:[\s,;:()-]+[A-Za-z']{2,}){2,}/);
      if (run) found.push(`${run[0]}  ←  ${node.textContent.trim().slice(0, 80)}`);
    }
    // What a screen reader says of an element: its aria-label and title.
    for (const el of document.querySelectorAll('[aria-label], [title]')) {
      if (el.closest(skip.replace('canvas, ', '')) || !el.getClientRects().length) continue;
      for (const said of [el.getAttribute('aria-label'), el.getAttribute('title')]) {
        if (!said) continue;
        let text = said;
        for (const [source, flags] of allowed) text = text.replace(new RegExp(source, flags), ' ');
        const run = text.match(/\b[A-Za-z']{2,}(?:[\s,;:()-]+[A-Za-z']{2,}){2,}/);
        if (run) found.push(`${run[0]}  ←  [${el.dataset.testid ?? el.tagName}] ${said.slice(0, 80)}`);
      }
    }
    return [...new Set(found)];
  }, ALLOWED.map((r) => [r.source, r.flags]));
}

test('the English detector finds the English page English (so that its silence means something)', async () => {
  const page = await context.newPage();
  now('running', page);
  try {
    await at('lang=en&model=llama')(page);
    assert.ok((await englishOnChinesePage(page)).length > 10);
  } finally {
    await closePage(page);
  }
});

for (const [name, query, switched] of [['lab', 'lang=zh'], ['Llama model', 'lang=zh&model=llama'], ['GPT-2 model', 'lang=zh&model=gpt2'],
  ['heads knocked out', 'lang=zh&model=llama&ablate=L1H1,L2H2m'],
  ['Learn: streaming', 'lang=zh&model=llama&lesson=streaming'],
  ...CHAPTERS.map((c) => [`Learn: ${c}`, `lang=zh&lesson=${c}`]),
  ['Llama model, switched from English', 'lang=en&model=llama', true]]) {
  test(`no English sentence on the Chinese page: ${name}`, async () => {
    const page = await context.newPage();
    now('running', page);
    try {
      await at(query)(page);
      // A chapter's experiment shows once its question is answered.
      if (await page.locator('[data-testid=choice-0]').count()) await page.click('[data-testid=choice-0]');
      if (switched) {
        // Drawn in English first (every view scrolled past), then switched to Chinese.
        await scrollThrough(page);
        await page.click('[data-testid=lang-toggle]');
        await nextFrames(page);
      }
      await scrollThrough(page, false);
      assert.deepEqual(await englishOnChinesePage(page), []);
    } finally {
      await closePage(page);
    }
  });
}

test('the streaming panel says a refusal in Chinese and clears the results it no longer matches', async () => {
  const page = await context.newPage();
  now('running', page);
  try {
    await at('lang=zh&model=llama&sentence=the%20cat%20sat')(page);
    await page.locator('[data-testid=stream-run]').scrollIntoViewIfNeeded();
    await page.click('[data-testid=stream-run]');
    await page.waitForSelector('[data-testid=stream-means]', { timeout: 60000 });
    // Changed settings: the results say they are of the earlier ones.
    const set = async (testid, value) => {
      await page.fill(`[data-testid=${testid}]`, value);
      await page.dispatchEvent(`[data-testid=${testid}]`, 'change');
    };
    await set('stream-window', '32');
    await page.waitForSelector('[data-testid=stream-stale]');
    // A refused reading: sinks not below the window. The message is Chinese; the old results go.
    await set('stream-sinks', '16');
    await set('stream-window', '8');
    await page.click('[data-testid=stream-run]');
    const error = await page.textContent('[data-testid=stream-error]');
    assert.match(error, /汇聚词元/);
    assert.doesNotMatch(error, /stream_eval|must be/);
    assert.equal(await page.locator('[data-testid=stream-means]').count(), 0, 'no results under the refusal');
  } finally {
    await closePage(page);
  }
});

test('every button is at least 24 × 24 CSS pixels (WCAG 2.2 target size)', async () => {
  const page = await context.newPage();
  now('running', page);
  try {
    await at('lang=en&model=llama')(page);
    const small = await page.evaluate(() => [...document.querySelectorAll('button, .button, [role=button]')]
      .filter((b) => b.getClientRects().length && !b.closest('.chapter-list'))
      .map((b) => ({ b, r: b.getBoundingClientRect() }))
      .filter(({ r }) => r.height < 23.5 || r.width < 23.5)
      .map(({ b, r }) => `${b.dataset.testid ?? b.className} ${r.width.toFixed(1)}×${r.height.toFixed(1)}`));
    assert.deepEqual(small, []);
  } finally {
    await closePage(page);
  }
});

test('on a phone a Learn chapter starts on the first screen, and the Controls button leaves the page\'s end clear', async () => {
  const page = await context.newPage();
  now('running', page);
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await at('lang=en&lesson=softmax')(page);
    const top = await page.evaluate(() => document.querySelector('[data-testid=chapter-title]').getBoundingClientRect().top);
    assert.ok(top < 844 - 100, `the chapter's title at ${top}px`);
    // Scrolled to the end, the last of the page sits above the floating button.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await nextFrames(page);
    const { fab, last } = await page.evaluate(() => {
      const fab = document.querySelector('[data-testid=controls-open]').getBoundingClientRect();
      const main = document.querySelector('main').getBoundingClientRect();
      return { fab: fab.top, last: main.bottom };
    });
    assert.ok(last <= fab, `the page ends at ${last}px, under the button at ${fab}px`);
  } finally {
    await closePage(page);
  }
});

test('the generator\'s strip labels sit on their rows, on a phone and a desktop', async () => {
  for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 900 }]) {
    const page = await context.newPage();
    now('running', page);
    try {
      await page.setViewportSize(viewport);
      await at('lang=zh&model=llama&sentence=the%20cat')(page);
      await page.click('[data-testid=generate]');
      await page.waitForSelector('[data-testid=generate-scrub]', { timeout: 60000 });
      const drift = await page.evaluate(() => {
        const labels = [...document.querySelectorAll('.strip-labels > .strip-label')];
        const canvas = document.querySelector('[data-testid=generate-strips]').getBoundingClientRect();
        return labels.map((l, i) => Math.abs(l.getBoundingClientRect().top - canvas.top - (i * canvas.height) / labels.length));
      });
      assert.ok(drift.length > 0 && Math.max(...drift) < 1, `${viewport.width}px: ${drift}`);
    } finally {
      await closePage(page);
    }
  }
});

test('a user\'s model generated in its worker is said in Chinese, the steps checked counted', async () => {
  const page = await context.newPage();
  now('running', page);
  try {
    await ownGenerated('zh')(page);
    await page.waitForFunction(() => document.querySelector('[data-testid=generate-at]')?.textContent === '40 / 40', null, { timeout: 60000 });
    assert.match(await page.textContent('[data-testid=generate-check]'), /^只在每次要求的生成结束时校验（40 步中校验了 1 步）/);
    assert.deepEqual(await englishOnChinesePage(page), []);
  } finally {
    await closePage(page);
  }
});

test('a model that fails to load is said in Chinese, its technical reason apart as code', async () => {
  const page = await context.newPage();
  now('running', page);
  try {
    await page.route('**/llama/model.safetensors', (route) => route.fulfill({ status: 404, body: 'not found' }));
    await page.goto(`${server.url}?lang=zh&model=llama`);
    await page.waitForSelector('[data-testid=model-failed-why]', { timeout: 60000 });
    const status = await page.textContent('[data-testid=model-status]');
    assert.match(status, /训练好的模型无法加载/);
    assert.deepEqual(await englishOnChinesePage(page), []);
  } finally {
    await closePage(page);
  }
});

const only = process.env.A11Y_ONLY;
for (const { name, setUp, options } of states) {
  if (only && !name.includes(only)) continue;
  test(name, () => check(name, setUp, options));
}
