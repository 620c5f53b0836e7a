#!/usr/bin/env bash
# Every check and test of the project, in order. Runs them all even when one fails, then repeats
# the test runners' summary lines and exits non-zero if anything failed. Called by `make test`,
# which puts the pinned tools on PATH first.
set -uo pipefail
cd "$(dirname "$0")/.."

summary=$(mktemp)
failed=()

step() {
  local name=$1
  shift
  printf '\n==> %s: %s\n' "$name" "$*"
  local log
  log=$(mktemp)
  if "$@" 2>&1 | tee "$log"; then
    grep -E '^test result:' "$log" | sed "s/^/[$name] /" >>"$summary"
    grep -qE '^test result:' "$log" || echo "[$name] ok" >>"$summary"
  else
    grep -E '^test result:' "$log" | sed "s/^/[$name] /" >>"$summary"
    echo "[$name] FAILED" >>"$summary"
    failed+=("$name")
  fi
  rm -f "$log"
}

step fmt cargo fmt --all --check
step clippy-native cargo clippy --locked --all-targets -- -D warnings
step clippy-wasm32 cargo clippy --locked --all-targets --target wasm32-unknown-unknown -- -D warnings
step test-native cargo test --locked
step test-wasm32 cargo test --locked --target wasm32-unknown-unknown
step trunk-build trunk build --release
if [ -f dist/index.html ]; then
  step smoke node tests/e2e/smoke.mjs
  step e2e-embed node tests/e2e/embed.mjs
  step e2e-keyboard node tests/e2e/keyboard.mjs
fi

printf '\n==> summary\n'
cat "$summary"
rm -f "$summary"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all checks passed"
