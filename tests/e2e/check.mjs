// A tiny test reporter shared by the end-to-end scripts: `check` lines, then the runners'
// usual summary line.
let passed = 0;
let failed = 0;

export function check(name, ok, detail = '') {
  if (ok) {
    passed++;
    console.log(`test ${name} ... ok`);
  } else {
    failed++;
    console.log(`test ${name} ... FAILED ${detail}`);
  }
}

export function finish(what) {
  console.log(`\ntest result: ${failed ? 'FAILED' : 'ok'}. ${passed} passed; ${failed} failed (${what})`);
  process.exit(failed ? 1 : 0);
}
