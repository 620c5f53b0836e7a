// The lab embedded in a course page: a host page with two iframes drives them with postMessage
// and listens for their state. One frame's `origin` parameter names the host, the other names
// another site: only the first may be driven, and only it tells the host its state.
//
// node --test tests/e2e/embed.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT } from './browser.mjs';


// The host page makes its frames itself, naming its own origin as the allowed one.
const HOST_PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>A course page</title></head>
<body>
  <h1>Week 3: attention</h1>
  <script>
    window.received = [];
    const frame = (id, query, height) => {
      const iframe = document.createElement('iframe');
      iframe.id = id;
      iframe.title = 'Attention Lab';
      iframe.width = 900;
      iframe.height = height;
      iframe.src = '/?' + query;
      document.body.appendChild(iframe);
      return iframe;
    };
    const allowed = frame('allowed', 'embed=1&panels=weights,head-view&sentence=the%20cat%20sat&origin=' + encodeURIComponent(location.origin), 600);
    const foreign = frame('foreign', 'embed=1&panels=weights&origin=' + encodeURIComponent('https://elsewhere.example'), 400);
    window.addEventListener('message', (event) => {
      if (event.data && typeof event.data.type === 'string' && event.data.type.startsWith('attention-lab:')) {
        window.received.push({ data: event.data, from: event.source === allowed.contentWindow ? 'allowed' : 'foreign' });
      }
    });
  </script>
</body></html>`;

let server;
let browser;
let page;
const errors = [];

before(async () => {
  browser = await launch();
  server = await serve(join(ROOT, 'dist'), { '/host.html': HOST_PAGE });
  page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}host.html`);
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('the embedded lab announces its state when ready', async () => {
  await page.waitForFunction(() => window.received.some((m) => m.data.type === 'attention-lab:state'), null, { timeout: 30000 });
  const ready = await page.evaluate(() => window.received.find((m) => m.data.type === 'attention-lab:state'));
  assert.equal(ready.from, 'allowed');
  assert.deepEqual(ready.data.state.tokens, ['the', 'cat', 'sat']);
});

test('the embed shows only its panels, with a link to the full lab', async () => {
  const frame = page.frameLocator('#allowed');
  assert.equal(await frame.locator('[data-testid=controls]').count(), 0);
  assert.equal(await frame.locator('[data-testid=heatmap-weights]').count(), 1);
  const full = await frame.locator('[data-testid=open-full]').getAttribute('href');
  assert.ok(full.includes('sentence=the%20cat%20sat') && !full.includes('embed='), full);
});

test('a postMessage from the host changes the state, and the lab says so', async () => {
  await page.evaluate(() => {
    const message = { type: 'attention-lab:set', params: { temperature: 0.3, mask: { kind: 'causal' } } };
    document.getElementById('allowed').contentWindow.postMessage(message, '*');
    document.getElementById('foreign').contentWindow.postMessage(message, '*');
  });
  await page.waitForFunction(() => window.received.some((m) => m.data.type === 'attention-lab:state' && m.data.state.temperature === 0.3), null, { timeout: 15000 });
  const changed = await page.evaluate(() => window.received.filter((m) => m.data.type === 'attention-lab:state').at(-1));
  assert.equal(changed.from, 'allowed');
  assert.equal(changed.data.state.mask.kind, 'causal');
  assert.equal(changed.data.state.backend, 'cpu');
});

test('a frame restricted to another origin ignores the host and tells it nothing', async () => {
  await page.waitForTimeout(500);
  const foreign = await page.evaluate(() => ({
    state: document.getElementById('foreign').contentWindow.attentionLab.state(),
    heard: window.received.filter((m) => m.from === 'foreign').length,
  }));
  assert.equal(foreign.state.temperature, undefined);
  assert.equal(foreign.heard, 0);
});

test('an impossible request is refused with a message to the host', async () => {
  await page.evaluate(() => document.getElementById('allowed').contentWindow.postMessage({ type: 'attention-lab:set', params: { n_heads: 3, n_kv_heads: 2 } }, '*'));
  await page.waitForFunction(() => window.received.some((m) => m.data.type === 'attention-lab:error'), null, { timeout: 15000 });
  const refused = await page.evaluate(() => window.received.find((m) => m.data.type === 'attention-lab:error'));
  assert.match(refused.data.error, /K\/V heads/);
});

test('no errors in the pages', () => {
  assert.deepEqual(errors, []);
});
