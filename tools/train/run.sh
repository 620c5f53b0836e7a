#!/usr/bin/env bash
# Trains one of the lab's models from scratch and writes it where the lab reads it: assets/gpt2/
# (GPT-2; `--arch llama`: assets/llama/; `--arch hybrid`: assets/hybrid/) with model.safetensors, config.json, vocab.json,
# metrics.json and MODEL_CARD.md, and the fixtures the Rust forward pass is tested against
# (tests/fixtures/gpt2.json, llama.json). Run by hand, never in CI: about 50 minutes (GPT-2) and
# 90 minutes (Llama) on the project's 2-core CPU machine. Extra arguments go to train.py.
set -euo pipefail
cd "$(dirname "$0")"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q -r requirements.txt
.venv/bin/python train.py "$@"
case " $* " in
  *" --out "*) ;;  # a trial run elsewhere: write its card by hand (model_card.py FOLDER)
  *" --output-gate "*) .venv/bin/python model_card.py ../../assets/llama-gated ;;
  *" --arch llama "*) .venv/bin/python model_card.py ../../assets/llama ;;
  *" --arch hybrid "*) .venv/bin/python model_card.py ../../assets/hybrid ;;
  *) .venv/bin/python model_card.py ;;
esac
