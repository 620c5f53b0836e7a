# The two commands of this project. Each first installs whatever is missing (.ci/tools.sh).
#   make serve   the app at http://127.0.0.1:8080 (release build, rebuilt on change)
#   make test    every check and test; what CI runs
#   make bench   the benchmarks: the core natively (criterion), the page in headless Chromium
#   make wheel   the notebook package as a wheel with the built lab inside (python/dist/)
SHELL := /bin/bash
export PATH := $(CURDIR)/.tools/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export TRUNK_SKIP_VERSION_CHECK := true
export CHROMEDRIVER ?= /usr/bin/chromedriver
export WASM_BINDGEN_TEST_WEBDRIVER_JSON ?= $(CURDIR)/.ci/webdriver.json
export WASM_BINDGEN_TEST_TIMEOUT ?= 300
# Native wgpu wants a private runtime directory (else it warns on every adapter it opens).
export XDG_RUNTIME_DIR ?= /tmp/attention-lab-runtime
PORT ?= 8080

.PHONY: serve test bench tools wheel

tools:
	@bash .ci/tools.sh

serve: tools
	trunk serve --release --address 127.0.0.1 --port $(PORT)

test: tools
	@install -d -m 0700 $(XDG_RUNTIME_DIR)
	@bash .ci/test.sh

bench: tools
	cargo bench --bench attention
	trunk build --release
	node tests/e2e/bench.mjs
	node tests/e2e/typing_bench.mjs
	node tests/e2e/kernel_bench.mjs
	cargo build --release --bin attention-trace
	.venv/bin/python benches/numpy_cli.py

# `pip install python/dist/attention_lab-*.whl` then needs no Rust: the lab's build is inside.
wheel: tools
	trunk build --release
	.venv/bin/python python/build_wheel.py
