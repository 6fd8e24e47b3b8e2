# attnviz: a thin driver over CMake. Every target does its own setup, idempotently,
# so on a fresh Debian 12 machine `make run` and `make test` are all it takes.
#   make run       build the web app (optimised) and serve it at http://127.0.0.1:$(PORT)/
#   make test      build every tree and run every test; last line "N passed, N failed"
#   make check     the fast loop: native unit tests + the browser tests of what changed
#   make desktop   the same app in a native window
#   make bench     engine vs onnxruntime-web, tfjs-backend-wasm and PyTorch; writes bench/results/
#   make fuzz      fuzz the state decoder (ASan+UBSan) until stopped, or SECONDS=N
#   make embed     build/embed/attnviz-embed.js, the embeddable app in one file (docs/ui.md)
#   make python    the notebook package, build/python/attnviz-<version>-py3-none-any.whl (docs/python.md)
#   make native / wasm / site / cli   just build
#   make clean     remove build/ (keeps nothing; the next build fetches again)

PORT ?= 8000
JOBS ?= $(shell nproc)
export NODE_PATH := /usr/share/nodejs
export BUILD_TYPE ?= Release
STAMP := build/stamps
# The trees and suites: one graph, one jobserver for every build (scripts/trees.mk).
TREES := $(MAKE) --no-print-directory -j$(JOBS) -f scripts/trees.mk

.PHONY: all run test check desktop native wasm site embed python cli setup setup-web setup-test clean bench \
        fuzz help native-asan native-tsan fuzz-build
all: native wasm

help:
	@sed -n '2,13p' Makefile | sed 's/^# \{0,1\}//'

# --- setup (idempotent; stamps only skip work, each script checks for itself too)
$(STAMP)/system-build:
	scripts/setup-system.sh build
	@mkdir -p $(STAMP) && touch $@
$(STAMP)/system-web:
	scripts/setup-system.sh build web
	@mkdir -p $(STAMP) && touch $@
$(STAMP)/system-test:
	scripts/setup-system.sh build web test
	@mkdir -p $(STAMP) && touch $@
$(STAMP)/imgui: $(STAMP)/system-build
	scripts/fetch-deps.sh imgui
	@touch $@
$(STAMP)/sdl2-src: $(STAMP)/system-web
	scripts/fetch-deps.sh sdl2-src
	@touch $@
$(STAMP)/npm: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@mkdir -p $(STAMP) && touch $@

setup: $(STAMP)/imgui $(STAMP)/sdl2-src
setup-web: $(STAMP)/system-web $(STAMP)/imgui $(STAMP)/sdl2-src
setup-test: $(STAMP)/system-test $(STAMP)/imgui $(STAMP)/sdl2-src $(STAMP)/npm

# --- builds (build/native; build/wasm and build/wasm-mt, whose attnviz-mt files
# join build/wasm/site: the page picks one of the two builds)
native: $(STAMP)/imgui
	+$(TREES) b-native
wasm: setup-web
	+$(TREES) b-wasm b-wasm-mt site
site: setup-web
	+$(TREES) site
embed: setup-web
	+$(TREES) embed
python: embed
	scripts/setup-system.sh python
	scripts/build-python.sh
cli: native
native-asan: $(STAMP)/imgui
	+$(TREES) b-asan
native-tsan:
	+$(TREES) b-tsan
fuzz-build: setup-test
	+$(TREES) b-fuzz

# --- the two commands. `make run` builds only the two apps (no test programs).
run: site
	node web/serve.mjs build/wasm/site --port $(PORT)

test: setup-test
	scripts/test-all.sh

# --- the fast loop (docs/build.md): incremental native build and unit tests, and
# the browser tests of what changed since HEAD (E2E=name,... to choose them).
check: setup-test
	scripts/check.sh

desktop: native
	build/native/attnviz

# --- beyond the two commands (each script documents itself)
bench: setup-test
	+$(TREES) b-native b-wasm b-wasm-mt site
	scripts/bench.sh

fuzz: setup-test
	scripts/fuzz.sh $(if $(SECONDS),--seconds $(SECONDS),)

clean:
	rm -rf build
