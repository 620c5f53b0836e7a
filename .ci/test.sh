#!/usr/bin/env bash
# Every check and test of the project, in order. Runs them all even when one fails, then repeats
# the test runners' summary lines and exits non-zero if anything failed. Called by `make test`,
# which puts the pinned tools on PATH first.
set -uo pipefail
cd "$(dirname "$0")/.."
# A fresh build keeps no incremental state: it only costs disk (10 GB per target here) and time.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

summary=$(mktemp)
failed=()

step() {
  local name=$1
  shift
  printf '\n==> %s: %s (at %d s)\n' "$name" "$*" "$SECONDS"
  local log start
  log=$(mktemp)
  start=$SECONDS
  # The runners' summary lines: cargo's `test result:`, node:test's `ℹ pass` / `ℹ fail`, pytest's.
  local lines='^test result:|^ℹ (tests|pass|fail) |^[0-9]+ (passed|failed)'
  if "$@" 2>&1 | tee "$log"; then
    grep -E "$lines" "$log" | sed "s/^/[$name] /" >>"$summary"
    grep -qE "$lines" "$log" || echo "[$name] ok" >>"$summary"
    echo "[$name] took $((SECONDS - start)) s" >>"$summary"
  else
    grep -E "$lines" "$log" | sed "s/^/[$name] /" >>"$summary"
    echo "[$name] FAILED after $((SECONDS - start)) s" >>"$summary"
    failed+=("$name")
  fi
  rm -f "$log"
}

step fmt cargo fmt --all --check
step clippy-native cargo clippy --locked --all-targets -- -D warnings
step clippy-wasm32 cargo clippy --locked --all-targets --target wasm32-unknown-unknown -- -D warnings
step clippy-wasm32-relaxed cargo clippy --locked -p attention-worker --bins --target wasm32-unknown-unknown --features relaxed-simd -- -D warnings
step test-native cargo test --locked
step test-wasm32 cargo test --locked --target wasm32-unknown-unknown
# Every binary as a user builds it: release, natively, one at a time (so no other package's
# features are unified in) and without dev-dependencies (cargo test unifies theirs, which once hid
# a CLI that did not compile); then the README's commands, exactly as written.
# A binary with required features (the relaxed-SIMD worker) is built with them.
bins=$(cargo metadata --no-deps --format-version 1 --locked | node -e '
  const meta = JSON.parse(require("fs").readFileSync(0, "utf8"));
  for (const p of meta.packages) for (const t of p.targets) if (t.kind.includes("bin"))
    console.log(t.name, (t["required-features"] ?? []).map((f) => `${p.name}/${f}`).join(","));')
while read -r bin features; do
  step "build-$bin" cargo build --release --locked --bin "$bin" ${features:+--features "$features"}
done <<<"$bins"
step readme bash .ci/readme.sh
step trunk-build trunk build --release
if [ -f dist/index.html ]; then
  # The notebook package, as the README installs it: the lab's build copied in, then pip.
  step python-package bash -c '.venv/bin/python python/build_static.py && .venv/bin/pip install --quiet --disable-pip-version-check ./python'
  step pytest .venv/bin/python -m pytest -q python/tests
  # `make wheel`'s package, as a user installs it elsewhere: the lab's build inside.
  step wheel .venv/bin/python python/build_wheel.py
  for script in smoke embed keyboard phone learn long truth shaping import element notebook jupyter llama hybrid circuits own_model a11y; do
    # A page that stops answering fails its own step (and names it) instead of the whole run.
    step "e2e-$script" timeout --kill-after=30 1200 node --test --test-reporter=spec "tests/e2e/$script.mjs"
  done
fi

printf '\n==> summary\n'
cat "$summary"
rm -f "$summary"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all checks passed"
