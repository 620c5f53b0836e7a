// The score options as a learner uses them (issue 20): the Positions and Score shaping controls,
// the views that show each option on the learner's numbers, links that keep every setting, bad
// values refused with the rest kept, the three new chapters, both languages, a phone, and the
// GPU computing all of it (SwiftShader) equal to the CPU.
//
// node --test tests/e2e/shaping.mjs   (after trunk build --release)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { launch, ROOT, nextFrames } from './browser.mjs';

let server;
let browser;
const errors = [];
const SENTENCE = 'sentence=the%20cat%20sat%20on%20the%20mat%20because%20it%20was%20tired&mask=causal';

before(async () => {
  server = await serve(join(ROOT, 'dist'));
  browser = await launch({ viewport: { width: 1400, height: 1000 } });
});

after(async () => {
  await browser?.close();
  server?.close();
  assert.deepEqual(errors, [], 'no page errors');
});

async function open(query, { context = browser, ready = '[data-testid=token-chip]' } = {}) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}?${query}`);
  await page.waitForSelector(ready, { timeout: 30000 });
  await nextFrames(page);
  return page;
}

const state = (page) => page.evaluate(() => window.attentionLab.state());
const text = (page, selector) => page.locator(selector).first().innerText();

/** Scrolls a heatmap into view and counts the distinct colours drawn on its canvas. */
async function colours(page, testId) {
  const selector = `[data-testid=${testId}]`;
  await page.locator(selector).scrollIntoViewIfNeeded();
  await nextFrames(page);
  await page.waitForTimeout(200);
  return page.$eval(selector, (canvas) => {
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
    return seen.size;
  });
}

test('no options, no shaping section; the controls turn RoPE on and the offset moves nothing', async () => {
  const page = await open(SENTENCE);
  assert.equal(await page.locator('#section-shaping').count(), 0);
  await page.click('[data-testid=position-kind] [data-value=rope]');
  await page.waitForSelector('#section-shaping');
  assert.match(await text(page, '[data-testid=position-help]'), /Rotary/);
  assert.equal(await page.inputValue('[data-testid=rope-base]'), '10000');
  assert.ok((await colours(page, 'heatmap-rope-q-turned')) > 4);
  assert.ok((await colours(page, 'heatmap-rope-angles')) > 4);
  // A new temperature redraws; it must not rebuild the section (its canvases stay the same nodes).
  await page.evaluate(() => { window.kept = document.querySelector('[data-testid=heatmap-rope-q]'); });
  await page.evaluate(() => window.attentionLab.set({ temperature: 0.5 }));
  await page.waitForFunction(() => window.attentionLab.state().temperature === 0.5);
  await nextFrames(page);
  assert.ok(await page.evaluate(() => window.kept.isConnected), 'the RoPE heatmap was rebuilt by a temperature change');
  await page.fill('[data-testid=position-offset]', '250');
  await page.press('[data-testid=position-offset]', 'Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=offset-note]').innerText.includes('Offset 250'));
  const note = await text(page, '[data-testid=offset-note]');
  const delta = Number(note.match(/is ([0-9.e+-]+):/)[1]);
  assert.ok(delta < 1e-4, note);
  const s = await state(page);
  assert.deepEqual(s.position, { kind: 'rope', base: 10000, pairing: 'half', offset: 250 });
  // The interleaved pairing, and a link that keeps every setting.
  await page.click('[data-testid=rope-pairing] [data-value=interleaved]');
  await page.waitForFunction(() => window.attentionLab.state().position.pairing === 'interleaved');
  await page.evaluate(() => document.querySelector('[data-testid=share-copy-link]').click());
  const link = await page.inputValue('[data-testid=share-text]');
  for (const part of ['position=rope', 'pairing=interleaved', 'offset=250']) assert.ok(link.includes(part), link);
  await page.evaluate(() => document.querySelector('[data-testid=share-copy-embed]').click());
  const embed = await page.inputValue('[data-testid=share-text]');
  for (const part of ['embed=1', 'position=rope', 'pairing=interleaved', 'offset=250']) assert.ok(embed.includes(part), embed);
  const again = await open(link.slice(link.indexOf('?') + 1));
  assert.deepEqual((await state(again)).position, { kind: 'rope', base: 10000, pairing: 'interleaved', offset: 250 });
  await again.close();
  await page.close();
});

test('ALiBi shows each head’s bias and the paper’s slopes; absolute positions do move with the offset', async () => {
  const page = await open(`${SENTENCE}&n_heads=6&position=alibi&offset=40`);
  await page.waitForSelector('[data-testid=alibi-slopes]');
  const slopes = await page.locator('[data-testid=alibi-slopes] tbody tr td:nth-child(2)').allInnerTexts();
  assert.deepEqual(slopes, ['1/4', '1/16', '1/64', '1/256', '1/2', '1/8']);
  assert.match(await text(page, '[data-testid=offset-note]'), /change against offset 0 is 0:/);
  assert.ok((await colours(page, 'heatmap-alibi-bias')) > 4);
  await page.click('[data-testid=position-kind] [data-value=absolute]');
  await page.waitForFunction(() => document.querySelector('[data-testid=offset-note]')?.innerText.includes('X itself changes'));
  await page.close();
});

test('soft-cap, QK-norm and sink logits: their views, and bad values refused with the view kept', async () => {
  const page = await open(SENTENCE);
  await page.check('[data-testid=softcap-on]');
  await page.waitForSelector('[data-testid=softcap-chart]');
  assert.match(await text(page, '[data-testid=softcap-row]'), /Query 9/);
  await page.check('[data-testid=qk-norm]');
  await page.waitForSelector('[data-testid=qk-norm-bound]');
  const bound = await text(page, '[data-testid=qk-norm-bound]');
  const [, limit, largest] = bound.match(/= ([0-9.]+)\. This head's largest is ([0-9.]+)/);
  assert.ok(parseFloat(largest) <= parseFloat(limit), bound);
  await page.check('[data-testid=sinks-on]');
  await page.fill('[data-testid=sink-logit-0]', '8');
  await page.press('[data-testid=sink-logit-0]', 'Enter');
  await page.waitForFunction(() => window.attentionLab.state().sink_logits?.[0] === 8);
  const trace = await page.evaluate(() => window.attentionLab.trace());
  const sums = trace.heads[0].weights.map((row) => row.reduce((a, b) => a + b, 0));
  assert.ok(sums.every((s) => s < 0.5), `a sink logit of 8 takes most of each row: ${sums}`);
  const sinkColours = await colours(page, 'heatmap-sink-weights');
  // The sink column near 1 (yellow), the keys near 0 (dark): at least those two.
  assert.ok(sinkColours >= 2, `${sinkColours} colours in the sink's heatmap`);
  // A cap ≤ 0: the core's message, and the last good views stay.
  await page.fill('[data-testid=softcap]', '-1');
  await page.press('[data-testid=softcap]', 'Enter');
  await page.waitForSelector('[data-testid=error]');
  assert.match(await text(page, '[data-testid=error]'), /soft-cap/i);
  assert.equal(await page.locator('[data-testid=heatmap-weights]').count(), 1);
  assert.equal(await page.locator('[data-testid=token-chip]').count(), 10);
  await page.close();
});

test('the trained model keeps its positions and says so', async () => {
  const page = await open('model=trained&sentence=hello%20there', { ready: '[data-testid=positions-fixed]' });
  assert.match(await text(page, '[data-testid=positions-fixed]'), /wpe/);
  assert.equal(await page.locator('[data-testid=position-kind]').count(), 0);
  await page.close();
});

test('in Chinese and on a phone', async () => {
  const phone = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    const page = await open(`${SENTENCE}&lang=zh&position=rope&softcap=2&sink_logits=0,2`, { context: phone });
    assert.match(await text(page, '[data-testid=positions-control]'), /位置/);
    await page.locator('#section-shaping').scrollIntoViewIfNeeded();
    assert.match(await text(page, '#section-shaping'), /RoPE：q 和 k 按位置旋转/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the phone`);
    await page.close();
  } finally {
    await phone.close();
  }
});

test('the three chapters: question first, then the experiment on the learner’s sentence', async () => {
  const page = await open(`${SENTENCE}&lesson=positions`, { ready: '[data-testid=chapter]' });
  await page.click('[data-testid=choice-1]');
  await page.waitForSelector('[data-testid=positions-table]');
  const rows = await page.locator('[data-testid=positions-table] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.kind, tr.children[1].innerText]));
  assert.deepEqual(rows.map((r) => r[0]), ['absolute', 'none', 'rope', 'alibi']);
  assert.ok(Number(rows[0][1]) > 0.01, `absolute positions move: ${rows[0][1]}`);
  assert.ok(Number(rows[2][1]) < 1e-4, `RoPE does not: ${rows[2][1]}`);
  assert.match(await text(page, '[data-testid=lesson-result]'), /\[0, 2, 4, 6, 1, 3, 5, 7\]/);
  await page.click('[data-testid=chapter-next]');
  assert.equal(await page.getAttribute('[data-testid=chapter]', 'data-chapter'), 'windows');
  await page.click('[data-testid=reveal]');
  await page.waitForSelector('[data-testid=windows-table]');
  assert.match(await text(page, '[data-testid=lesson-result]'), /Causal: 55 cells/);
  await page.goto(`${server.url}?${SENTENCE}&lesson=taming`);
  await page.waitForSelector('[data-testid=chapter]');
  await page.click('[data-testid=reveal]');
  await page.waitForSelector('[data-testid=qk-norm-table]');
  const heads = await page.locator('[data-testid=qk-norm-table] tbody tr').count();
  assert.equal(heads, 2);
  await page.close();
});

test('the GPU computes every option, equal to the CPU', async () => {
  const gpu = await launch({ webgpu: true, viewport: { width: 1400, height: 1000 } });
  try {
    const page = await open(SENTENCE, { context: gpu });
    await page.waitForFunction(() => window.attentionLab.state().gpu !== 'probing', null, { timeout: 30000 });
    const settings = {
      position: { kind: 'rope', pairing: 'interleaved', offset: 30 },
      softcap: 2, qk_norm: true, sink_logits: [0, 3],
      mask: { kind: 'sliding', radius: 3, sink_tokens: 1 },
    };
    const run = (backend) => page.evaluate(async ({ settings, backend }) => {
      window.attentionLab.set({ ...settings, backend });
      for (let i = 0; i < 300; i++) {
        const s = window.attentionLab.state();
        if (!s.pending && s.position?.kind === 'rope' && (s.backend === backend || s.fallback_reason)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      return { state: window.attentionLab.state(), trace: window.attentionLab.trace() };
    }, { settings, backend });
    const onGpu = await run('gpu');
    assert.equal(onGpu.state.gpu, 'ready');
    assert.equal(onGpu.state.backend, 'gpu', JSON.stringify(onGpu.state.fallback_message));
    assert.equal(onGpu.state.fallback_reason, null);
    const onCpu = await run('cpu');
    assert.equal(onCpu.state.backend, 'cpu');
    let diff = 0;
    onGpu.trace.heads.forEach((head, h) => head.weights.forEach((row, i) => row.forEach((w, j) => {
      diff = Math.max(diff, Math.abs(w - onCpu.trace.heads[h].weights[i][j]));
    })));
    assert.ok(diff < 1e-4, `GPU and CPU weights differ by ${diff}`);
    await page.close();
  } finally {
    await gpu.close();
  }
});

test('a long input with every option is computed in the workers, flash equal to standard', async () => {
  const words = ['the', 'cat', 'sat', 'on', 'a', 'warm', 'mat', 'today', '猫', '坐'];
  const long = Array.from({ length: 1500 }, (_, i) => words[i % words.length]).join(' ');
  const page = await open('lang=en&d_model=64&n_heads=4&n_kv_heads=2');
  const set = await page.evaluate((sentence) => window.attentionLab.set({
    sentence, position: { kind: 'alibi', offset: 9 }, softcap: 4, qk_norm: true, sink_logits: [0, 1, 2, 3],
    mask: { kind: 'sliding', radius: 64, sink_tokens: 4 },
  }), long);
  assert.deepEqual(set, { ok: true });
  await page.waitForFunction(
    () => window.attentionLab.state().tokens?.length === 1500 && !document.querySelector('[data-testid=computing]').textContent,
    null, { timeout: 120000 },
  );
  assert.equal(await page.locator('[data-testid=error]').count(), 0);
  const flash = await text(page, '[data-testid=flash-diff]');
  const diff = Number(flash.trim().split(' ').pop());
  assert.ok(diff < 1e-4, flash);
  // The shaping views wait for a shorter input, and say so.
  assert.match(await text(page, '[data-testid=shaping-waiting]'), /1500/);
  await page.close();
});

test('the Attention control makes the whole page linear attention: its steps and A, the section beside a causal softmax, chunks, the state slider, links, set() and its refusals under the control', async () => {
  const page = await open(`lang=en&${SENTENCE}&n_heads=2`);
  // Softmax attention: the Linear attention section only invites to switch.
  assert.equal(await page.locator('[data-testid=linear-invite]').count(), 1);
  assert.equal(await page.locator('[data-testid=linear-matrix]').count(), 0);
  assert.equal(await page.locator('[data-testid=attention-kind] button[data-value=softmax]').getAttribute('aria-pressed'), 'true');
  await page.click('[data-testid=attention-kind] button[data-value=gated_delta]');
  const section = page.locator('[data-testid=linear-section]');
  await page.locator('[data-testid=linear-matrix]').waitFor();
  assert.equal(await page.locator('[data-testid=linear-invite]').count(), 0);
  // The page itself computes it: the trace's heads are linear, the score steps are gone.
  let t = await page.evaluate(() => window.attentionLab.trace());
  assert.equal(t.heads[0].beta.length, 10);
  assert.equal(t.heads[0].alpha.length, 10);
  assert.match(await text(page, '[data-testid=linear-layer-note]'), /^The heads compute linear attention \(gated delta\)/);
  assert.equal(await page.locator('[data-testid=heatmap-masked]').count(), 0, 'no mask step');
  assert.match(await text(page, '[data-testid=flash-diff]'), /^The chunked form/);
  await page.waitForFunction(() => location.search.includes('linear=gated_delta'), null, { timeout: 5000 });
  await section.scrollIntoViewIfNeeded();
  const check = () => text(page, '[data-testid=linear-check]');
  let line = await check();
  const diffs = [...line.matchAll(/(\d\.\de[-+]\d+)/g)].map((m) => Number(m[1]));
  assert.equal(diffs.length, 2, line);
  assert.ok(diffs.every((d) => d < 1e-5), line);
  assert.match(line, /^Chunks of 64 tokens/);
  // A beside a causal softmax of the same q and k: its rows sum to 1 and see no later key.
  assert.equal(await page.locator('[data-testid=heatmap-linear-softmax]').count(), 1);
  // elu + 1, chosen in the section, is the page's kind too: every row of A sums to 1.
  await page.click('[data-testid=linear-kind] button[data-value=elu]');
  await page.waitForFunction(() => /Row sums of A run from 1 to 1\./.test(document.querySelector('[data-testid=linear-check]')?.textContent));
  assert.equal(await page.locator('[data-testid=attention-kind] button[data-value=elu]').getAttribute('aria-pressed'), 'true');
  assert.deepEqual((await state(page)).linear, { kind: 'elu' });
  // Chunks of 3 tokens, from the control panel: the numbers stay, and the link keeps it.
  await page.fill('[data-testid=attention-chunk]', '3');
  await page.locator('[data-testid=attention-chunk]').dispatchEvent('change');
  await page.waitForFunction(() => /^Chunks of 3 tokens/.test(document.querySelector('[data-testid=linear-check]').textContent));
  line = await check();
  assert.ok([...line.matchAll(/(\d\.\de[-+]\d+)/g)].every((m) => Number(m[1]) < 1e-5), line);
  await page.waitForFunction(() => /linear=elu/.test(location.search) && /chunk=3(&|$)/.test(location.search), null, { timeout: 5000 });
  // The slider by keyboard names the token whose state is drawn.
  const slider = page.locator('[data-testid=linear-after]');
  await slider.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  assert.equal(await slider.getAttribute('aria-valuetext'), 'after token 1 “cat”');
  await page.keyboard.press('End');
  assert.equal(await slider.getAttribute('aria-valuetext'), 'after token 9 “tired”');
  assert.equal(await page.locator('[data-testid=heatmap-linear-matrix]').count(), 1);
  // A chunk past 256: refused under the control, the last numbers kept.
  await page.fill('[data-testid=attention-chunk]', '300');
  await page.locator('[data-testid=attention-chunk]').dispatchEvent('change');
  await page.locator('[data-testid=attention-kind-error]').waitFor();
  assert.match(await text(page, '[data-testid=attention-kind-error]'), /chunk/);
  await page.fill('[data-testid=attention-chunk]', '4');
  await page.locator('[data-testid=attention-chunk]').dispatchEvent('change');
  await page.waitForFunction(() => !document.querySelector('[data-testid=attention-kind-error]'));
  // The output gate: each head's trace carries its gate.
  await page.check('[data-testid=output-gate]');
  await page.waitForFunction(() => window.attentionLab.trace()?.heads?.[0]?.gate?.length === 10);
  // set(): a sliding mask cannot go with linear attention, and says which setting is in the way.
  const refused = await page.evaluate(() => window.attentionLab.set({ mask: { kind: 'sliding', radius: 2 } }));
  assert.equal(refused.ok, false);
  assert.match(refused.error, /^mask: linear attention \(elu\) is causal by construction/);
  // A link opens the same page; null goes back to the softmax.
  await page.waitForFunction(() => /chunk=4(&|$)/.test(location.search) && /output_gate=1/.test(location.search), null, { timeout: 5000 });
  const link = await page.evaluate(() => location.search);
  const again = await open(link.slice(1));
  assert.deepEqual((await state(again)).linear, { kind: 'elu', chunk: 4 });
  assert.equal((await state(again)).output_gate, true);
  await again.locator('[data-testid=linear-matrix]').waitFor();
  await again.close();
  const back = await page.evaluate(() => window.attentionLab.set({ linear: null, output_gate: null }));
  assert.equal(back.ok, true, back.error);
  await page.waitForFunction(() => !document.querySelector('[data-testid=linear-matrix]'));
  // The section's invitation switches the page back to linear attention.
  await page.click('[data-testid=linear-invite-kind] button[data-value=delta]');
  await page.locator('[data-testid=linear-matrix]').waitFor();
  assert.deepEqual((await state(page)).linear, { kind: 'delta' });
  await page.evaluate(() => window.attentionLab.set({ linear: null }));
  await page.waitForFunction(() => !document.querySelector('[data-testid=linear-matrix]'));
  t = await page.evaluate(() => window.attentionLab.trace());
  assert.equal(t.heads[0].beta, undefined);
  assert.equal(await page.locator('[data-testid=heatmap-masked]').count(), 1);
  // A temperature refused with linear attention, under the control, in Chinese too.
  await page.evaluate(() => window.attentionLab.set({ temperature: 2, lang: 'zh' }));
  await page.click('[data-testid=attention-kind] button[data-value=delta]');
  await page.locator('[data-testid=attention-kind-error]').waitFor();
  assert.match(await text(page, '[data-testid=attention-kind-error]'), /temperature/);
  // 600 tokens: the page keeps an overview of each head's A (computed a row at a time, never
  // held whole); chunked and token by token still agree, and the section says why it waits.
  await page.evaluate(() => window.attentionLab.set({ temperature: 1, lang: 'en' }));
  await page.locator('[data-testid=linear-matrix]').waitFor();
  const long = Array.from({ length: 600 }, () => 'cat').join(' ');
  await page.evaluate((sentence) => window.attentionLab.set({ sentence }), long);
  await page.waitForFunction(() => window.attentionLab.state().tokens?.length === 600 && !window.attentionLab.state().pending, null, { timeout: 120000 });
  await page.locator('[data-testid=linear-unavailable]').waitFor();
  assert.equal(await page.locator('[data-testid=error]').count(), 0);
  const chunked = await text(page, '[data-testid=flash-diff]');
  assert.match(chunked, /^The chunked form/);
  assert.ok(Number(chunked.trim().split(' ').pop()) < 1e-4, chunked);
  await page.close();
});
