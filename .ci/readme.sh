#!/usr/bin/env bash
# Runs every command block of README.md marked `<!-- checked: trace -->` exactly as written (a
# user copies them), and checks that each prints a trace: JSON with tokens and heads, or, for
# `"trace": false`, tokens and an output; for a trained model, tokens and layers; for a
# lesson, its chapter's experiment; for `generate`, its steps (each within 10⁻⁴ of a recompute);
# for `stream_eval`, its losses; for `--schema`, the request's JSON Schema. A README command that no longer works fails the test
# command, so the README cannot drift from the code.
set -euo pipefail
cd "$(dirname "$0")/.."

blocks=$(mktemp -d)
trap 'rm -rf "$blocks"' EXIT
# The fenced block after each marker, one file per block.
awk -v dir="$blocks" '
  /<!-- checked: trace -->/ { want = 1; next }
  want && /^```/ && !inside { inside = 1; n++; file = sprintf("%s/%02d.sh", dir, n); next }
  inside && /^```/ { inside = 0; want = 0; next }
  inside { print > file }
' README.md
count=$(find "$blocks" -name '*.sh' | wc -l)
if [ "$count" -eq 0 ]; then
  echo "README.md has no block marked <!-- checked: trace -->"
  exit 1
fi
failed=0
for block in "$blocks"/*.sh; do
  echo "--- README block $(basename "$block"):"
  cat "$block"
  if ! output=$(bash -euo pipefail "$block"); then
    echo "FAILED: the block exited with an error"
    failed=1
    continue
  fi
  if ! printf '%s' "$output" | node -e '
      const text = require("fs").readFileSync(0, "utf8");
      const trace = JSON.parse(text);
      const generated = Array.isArray(trace.steps) && trace.steps.length > 0 && typeof trace.text === "string"
        && trace.steps.every((s) => s.max_delta === null || s.max_delta <= 1e-4);
      const streamed = trace.with_sinks && Array.isArray(trace.with_sinks.losses) && Number.isFinite(trace.with_sinks.mean);
      const schema = typeof trace.$schema === "string" && trace.properties && Object.keys(trace.properties).length > 0;
      const ok = (Array.isArray(trace.tokens) && [trace.heads, trace.output, trace.layers].some(Array.isArray))
        || (typeof trace.lesson === "string" && trace.experiment && trace.experiment.chapter === trace.lesson)
        || generated || streamed || schema;
      if (!ok) { console.error("not a trace: " + text.slice(0, 200)); process.exit(1); }
      if (schema) { console.log(`ok: the JSON Schema of a request, ${Object.keys(trace.properties).length} fields`); process.exit(0); }
      console.log(generated ? `ok: ${trace.steps.length} characters generated, ${JSON.stringify(trace.text)}`
        : streamed ? `ok: a stream of ${trace.length} characters, mean loss ${trace.with_sinks.mean.toFixed(3)} with sinks, ${trace.without_sinks.mean.toFixed(3)} without`
        : trace.lesson ? `ok: the ${trace.lesson} experiment` : `ok: a trace of ${trace.tokens.length} tokens`);'; then
    failed=1
  fi
done
if [ "$failed" -ne 0 ]; then
  exit 1
fi
echo "test result: ok. $count README blocks ran and printed a trace"
