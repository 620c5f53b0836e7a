// Launches Debian's Chromium through playwright-core (installed into .tools by `make`).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(ROOT, '.tools', 'package.json'));
const { chromium } = require('playwright-core');

/** A headless Chromium; `webgpu` adds the flag that exposes SwiftShader's WebGPU adapter; other
 * options go to the browser context (a phone: `{ viewport, hasTouch: true, isMobile: true }`). */
export async function launch({ webgpu = false, ...context } = {}) {
  const args = [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ];
  if (webgpu) args.push('--enable-unsafe-webgpu');
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'attention-lab-')), {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args,
    viewport: { width: 1280, height: 900 },
    ...context,
  });
}

/** Waits for the page to render two frames (views draw when they come into view), or half a
 * second where the renderer gives it none (a stalled frame once hung a whole CI run). */
export function nextFrames(page) {
  return page.evaluate(() => new Promise((r) => {
    requestAnimationFrame(() => requestAnimationFrame(r));
    setTimeout(r, 500);
  }));
}
