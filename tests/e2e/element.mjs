// <attention-lab> on a course page (issue 22 §4): three elements, one naming a JSON file of one's
// own attention with src=; each starts only near the viewport, takes the link's parameters as
// attributes (reflected as typed properties, changed live), survives being moved, and tells the
// page its state with `attention-lab-change`.
//
// node --test tests/e2e/element.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, nextFrames, ROOT } from './browser.mjs';

const DIST = process.env.DIST ?? join(ROOT, 'dist');
const SHOTS = process.env.SHOTS;
const HEADS = readFileSync(join(ROOT, 'tests', 'fixtures', 'imports', 'attention.json'), 'utf8');
const expected = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'imports', 'expected.json'), 'utf8'));

// The README's example, as written, with the script and the file served from here.
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const block = README.match(/<!-- checked: element[^>]*-->\s*```html\n([\s\S]*?)```/);
assert.ok(block, 'the README has the element example');
const example = block[1].replace('https://your.site/attention-lab/attention-lab.js', '/attention-lab.js');
const elements = example.split('<attention-lab ');
assert.equal(elements.length, 4, 'three elements');
// A long page: the third element starts far below the fold.
const withGap = `${elements.slice(0, 3).join('<attention-lab ')}<div class="gap"></div><attention-lab ${elements[3]}`;
const COURSE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Week 3: attention</title>
<style>body { font: 16px system-ui; max-width: 960px; margin: 0 auto; padding: 1rem; } .gap { height: 2400px; }</style>
</head><body>
<h1>Week 3: attention</h1>
${withGap}
<script>
  window.changes = { first: [], own: [], far: [] };
  window.errors = [];
  const ids = ['first', 'own', 'far'];
  document.querySelectorAll('attention-lab').forEach((el, i) => {
    el.id = ids[i];
    el.addEventListener('attention-lab-change', (e) => window.changes[el.id].push(e.detail));
    el.addEventListener('error', (e) => window.errors.push(e.detail));
  });
</script>
</body></html>`;

let server, context, page;
const pageErrors = [];

before(async () => {
  server = await serve(DIST, { '/course.html': COURSE, '/heads.json': HEADS });
  context = await launch();
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${server.url}course.html`);
});

after(async () => {
  await context?.close();
  server?.close();
});

const last = (id) => page.evaluate((id) => window.changes[id].at(-1), id);
const frameOf = (id) => page.evaluate((id) => !!document.getElementById(id).shadowRoot.querySelector('iframe'), id);

test('an element starts with its attributes and tells the page its state', async () => {
  await page.waitForFunction(() => window.changes.first.length > 0, null, { timeout: 60000 });
  const state = await last('first');
  assert.deepEqual(state.tokens, ['the', 'cat', 'sat']);
  assert.deepEqual(state.mask, { kind: 'causal' });
  assert.equal(state.lang, 'zh');
  assert.deepEqual(state.panels, ['weights', 'head-view']);
  assert.equal(state.source, 'computed');
  assert.equal(await page.evaluate(() => document.getElementById('first').state.tokens.length), 3);
});

test('attributes are reflected as properties and change the running lab', async () => {
  await page.evaluate(() => { document.getElementById('first').temperature = 2; });
  assert.equal(await page.evaluate(() => document.getElementById('first').getAttribute('temperature')), '2');
  await page.waitForFunction(() => window.changes.first.at(-1)?.temperature === 2);
  await page.evaluate(() => document.getElementById('first').setAttribute('mask', 'none'));
  await page.waitForFunction(() => window.changes.first.at(-1)?.mask?.kind === 'none');
  await page.evaluate(() => { document.getElementById('first').sentence = 'a b c d'; });
  await page.waitForFunction(() => window.changes.first.at(-1)?.tokens?.length === 4);
  // A value the lab refuses comes back as an `error` event, and nothing changes.
  await page.evaluate(() => document.getElementById('first').setAttribute('temperature', '-1'));
  await page.waitForFunction(() => window.errors.length > 0);
  assert.match(await page.evaluate(() => window.errors[0].error), /温度|temperature/);
  assert.equal((await last('first')).temperature, 2);
  // Properties are typed: a number attribute's is a number, a flag's a boolean.
  await page.evaluate(() => document.getElementById('first').setAttribute('temperature', '2'));
  const typed = await page.evaluate(() => {
    const el = document.getElementById('first');
    el.qk_norm = true;
    return { temperature: el.temperature, mask: el.mask, qk: el.qk_norm, attribute: el.getAttribute('qk_norm'), seed: el.seed };
  });
  assert.deepEqual(typed, { temperature: 2, mask: 'none', qk: true, attribute: '1', seed: null });
  await page.waitForFunction(() => window.changes.first.at(-1)?.qk_norm === true);
  // A mask's kind and its numbers go together: a sliding window of 1 key back, 1 sink.
  await page.evaluate(() => {
    const el = document.getElementById('first');
    el.radius = 1;
    el.sink_tokens = 1;
    el.mask = 'sliding';
  });
  await page.waitForFunction(() => {
    const mask = window.changes.first.at(-1)?.mask;
    return mask?.kind === 'sliding' && mask.radius === 1 && mask.sink_tokens === 1;
  });
});

test('a started element moved in the page keeps its lab, at its attributes', async () => {
  const frameWindow = () => document.getElementById('first').shadowRoot.querySelector('iframe').contentWindow;
  // A frame reloads wherever it moves: mark this one, to see the lab come back in the new one.
  await page.evaluate((f) => { eval(f)().movedFrom = 'here'; }, `(${frameWindow})`);
  await page.evaluate(() => {
    const el = document.getElementById('first');
    el.parentNode.insertBefore(el, document.getElementById('own').nextSibling);
  });
  await page.waitForFunction((f) => {
    const w = eval(f)();
    return w.movedFrom === undefined && w.attentionLab?.state?.().qk_norm === true;
  }, `(${frameWindow})`, { timeout: 60000 });
  const state = await page.evaluate((f) => eval(f)().attentionLab.state(), `(${frameWindow})`);
  assert.equal(state.temperature, 2);
  assert.equal(state.mask.kind, 'sliding');
  assert.equal(await page.evaluate(() => document.getElementById('first').shadowRoot.querySelectorAll('iframe').length), 1);
  // Its attributes still reach the lab.
  await page.evaluate(() => { document.getElementById('first').temperature = 3; });
  await page.waitForFunction(() => window.changes.first.at(-1)?.temperature === 3, null, { timeout: 30000 });
  assert.deepEqual(pageErrors, [], 'moving it threw nothing');
});

test('a removed attribute puts the running lab back to its default', async () => {
  // The sliding window of the tests above, removed with its numbers: the lab's default mask again.
  await page.evaluate(() => {
    const el = document.getElementById('first');
    for (const name of ['radius', 'sink_tokens', 'mask']) el.removeAttribute(name);
  });
  await page.waitForFunction(() => window.changes.first.at(-1)?.mask == null);
  // A flag set to null, and the temperature removed: off, and 1 again.
  await page.evaluate(() => {
    const el = document.getElementById('first');
    el.qk_norm = null;
    el.removeAttribute('temperature');
  });
  await page.waitForFunction(() => {
    const state = window.changes.first.at(-1);
    return !state?.qk_norm && (state?.temperature ?? 1) === 1;
  });
  // Linear attention on (it takes neither), then its attribute removed: the softmax again.
  await page.evaluate(() => { document.getElementById('first').linear = 'delta'; });
  await page.waitForFunction(() => window.changes.first.at(-1)?.linear?.kind === 'delta');
  await page.evaluate(() => document.getElementById('first').removeAttribute('linear'));
  await page.waitForFunction(() => window.changes.first.at(-1)?.linear == null);
  assert.equal((await last('first')).tokens.length, 4, 'what the element still sets stays');
});

test('src= shows one\'s own attention, with the file\'s numbers', async () => {
  await page.waitForFunction(() => window.changes.own.some((s) => s.source === 'imported'), null, { timeout: 60000 });
  const state = (await page.evaluate(() => window.changes.own.filter((s) => s.source === 'imported').at(-1)));
  assert.equal(state.file, 'heads.json');
  assert.deepEqual(state.tokens, expected.tokens);
  const weights = await page.evaluate(() => {
    const frame = document.getElementById('own').shadowRoot.querySelector('iframe');
    return frame.contentWindow.attentionLab.trace().layers.map((l) => l.map((h) => h.weights));
  });
  assert.deepEqual(weights, expected.attention);
  const drawn = await page.evaluate(() => {
    const doc = document.getElementById('own').shadowRoot.querySelector('iframe').contentDocument;
    return [...doc.querySelectorAll('[data-testid^="heatmap-imported-"]')].filter((c) => c.width > 0).length;
  });
  assert.ok(drawn >= 2, `the weights and the heads at a glance are drawn (${drawn})`);
  // "Open the full lab" names the file's address, and the full lab opens the same numbers.
  const full = await page.evaluate(() => document.getElementById('own').shadowRoot.querySelector('iframe')
    .contentDocument.querySelector('[data-testid=open-full]').href);
  assert.equal(new URL(full).searchParams.get('src'), new URL('heads.json', page.url()).href);
  assert.equal(new URL(full).searchParams.get('embed'), null);
  const lab = await page.context().newPage();
  try {
    await lab.goto(full);
    await lab.waitForFunction(() => window.attentionLab?.state?.().source === 'imported', null, { timeout: 60000 });
    const opened = await lab.evaluate(() => window.attentionLab.trace().layers.map((l) => l.map((h) => h.weights)));
    assert.deepEqual(opened, expected.attention);
    assert.match(await lab.textContent('[data-testid=import-link-note]'), /src=/);
  } finally {
    await lab.close();
  }
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'element-desktop.png') });
});

test('an element without a height fits the lab\'s content; one with a height keeps it', async () => {
  const sizes = () => page.evaluate(() => ['first', 'own'].map((id) => {
    const el = document.getElementById(id);
    const body = el.shadowRoot.querySelector('iframe').contentDocument.body;
    return { element: el.getBoundingClientRect().height, content: Math.ceil(body.getBoundingClientRect().height) };
  }));
  await page.waitForFunction(() => {
    const el = document.getElementById('first');
    const body = el.shadowRoot.querySelector('iframe')?.contentDocument?.body;
    return body && Math.abs(el.getBoundingClientRect().height - Math.ceil(body.getBoundingClientRect().height)) <= 1;
  }, null, { timeout: 30000 });
  const [first, own] = await sizes();
  assert.ok(first.element !== 560 && first.content > 200, `fitted: ${JSON.stringify(first)}`);
  assert.equal(own.element, 640, 'height="640" is kept');
  // It follows the content: more panels, a taller element.
  await page.evaluate(() => { document.getElementById('first').panels = 'weights,head-view,flash'; });
  await page.waitForFunction((before) => document.getElementById('first').getBoundingClientRect().height > before + 50, first.element, { timeout: 30000 });
});

test('an element far below starts only when it nears the viewport', async () => {
  assert.equal(await frameOf('far'), false, 'not started while far away');
  await page.locator('#far').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => window.changes.far.length > 0, null, { timeout: 60000 });
  const state = await last('far');
  assert.equal(state.temperature, 2);
  assert.deepEqual(state.tokens, ['注', '意', '力', '机', '制']);
});

test('custom-elements.json lists every attribute the element observes, and its events', async () => {
  const manifest = JSON.parse(readFileSync(join(DIST, 'custom-elements.json'), 'utf8'));
  const declaration = manifest.modules[0].declarations[0];
  assert.equal(declaration.tagName, 'attention-lab');
  const observed = await page.evaluate(() => customElements.get('attention-lab').observedAttributes);
  assert.deepEqual(declaration.attributes.map((a) => a.name).sort(), [...observed].sort());
  assert.deepEqual(declaration.events.map((e) => e.name), ['attention-lab-change', 'error']);
});

test('on a phone, the course page fits and the first lab draws', async () => {
  const phone = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    const p = await phone.newPage();
    await p.goto(`${server.url}course.html`);
    await p.waitForFunction(() => window.changes.first.length > 0 && window.changes.own.some((s) => s.source === 'imported'), null, { timeout: 60000 });
    await nextFrames(p);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${overflow}px wider than the phone`);
    if (SHOTS) {
      await p.locator('#own').scrollIntoViewIfNeeded();
      await p.waitForTimeout(500);
      await p.screenshot({ path: join(SHOTS, 'element-phone.png') });
    }
  } finally {
    await phone.close();
  }
});

test('a course page on another origin loads the element from a plain static host (no CORS headers)', async () => {
  // serve.mjs sends no Access-Control-Allow-Origin: a module script from it would be blocked.
  const lab = new URL(server.url);
  const course = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Elsewhere</title>
<script src="${lab.origin}/attention-lab.js" defer></script></head>
<body><attention-lab sentence="a b c" panels="weights"></attention-lab>
<script>
  window.changes = [];
  document.querySelector('attention-lab').addEventListener('attention-lab-change', (e) => window.changes.push(e.detail));
</script></body></html>`;
  const other = await serve(join(ROOT, 'tests', 'fixtures', 'imports'), { '/course.html': course });
  const p = await context.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(String(e)));
  try {
    assert.notEqual(new URL(other.url).origin, lab.origin);
    await p.goto(`${other.url}course.html`);
    await p.waitForFunction(() => window.changes.length > 0, null, { timeout: 60000 });
    assert.deepEqual((await p.evaluate(() => window.changes.at(-1))).tokens, ['a', 'b', 'c']);
    const box = await p.locator('attention-lab').boundingBox();
    assert.ok(box.width > 200 && box.height > 100, `the element has a size: ${JSON.stringify(box)}`);
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
    other.close();
  }
});

test('loaded as a module, or included twice, the element still starts', async () => {
  for (const scripts of [
    '<script type="module" src="/attention-lab.js"></script>',
    '<script src="/attention-lab.js"></script><script src="/attention-lab.js"></script>',
  ]) {
    const course = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title>${scripts}</head>
<body><attention-lab sentence="x y" panels="weights"></attention-lab>
<script>
  window.changes = [];
  document.querySelector('attention-lab').addEventListener('attention-lab-change', (e) => window.changes.push(e.detail));
</script></body></html>`;
    const other = await serve(DIST, { '/twice.html': course });
    const p = await context.newPage();
    const errors = [];
    p.on('pageerror', (e) => errors.push(String(e)));
    try {
      await p.goto(`${other.url}twice.html`);
      await p.waitForFunction(() => window.changes.length > 0, null, { timeout: 60000 });
      assert.deepEqual((await p.evaluate(() => window.changes.at(-1))).tokens, ['x', 'y'], scripts);
      assert.equal(await p.evaluate(() => window.AttentionLabElement === customElements.get('attention-lab')), true);
      assert.deepEqual(errors, [], scripts);
    } finally {
      await p.close();
      other.close();
    }
  }
});

test('no errors on the course page', () => {
  assert.deepEqual(pageErrors, []);
});
