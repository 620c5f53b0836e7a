#!/usr/bin/env bash
# Trains the lab's model from scratch and writes it where the lab reads it: assets/model/
# (model.safetensors, config.json, vocab.json, metrics.json, MODEL_CARD.md) and the fixtures the
# Rust forward pass is tested against (tests/fixtures/model.json). Run by hand, never in CI:
# about 50 minutes on the project's 2-core CPU machine. Extra arguments go to train.py.
set -euo pipefail
cd "$(dirname "$0")"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q -r requirements.txt
.venv/bin/python train.py "$@"
.venv/bin/python model_card.py
