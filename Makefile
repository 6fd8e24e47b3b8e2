# attnviz: a thin driver over CMake. Every target does its own setup, idempotently,
# so on a fresh Debian 12 machine `make run` and `make test` are all it takes.
#   make run       build the web app (optimised) and serve it at http://127.0.0.1:$(PORT)/
#   make test      build native + wasm and run every test; last line "N passed, N failed"
#   make desktop   the same app in a native window
#   make bench     engine vs tfjs-backend-wasm and PyTorch; writes bench/results/
#   make fuzz      fuzz the state decoder (ASan+UBSan) until stopped, or SECONDS=N
#   make native / wasm / site / cli   just build
#   make clean     remove build/ (keeps nothing; the next build fetches again)

PORT ?= 8000
JOBS ?= $(shell nproc)
export NODE_PATH := /usr/share/nodejs
BUILD_TYPE ?= Release
# Explicit, so a build tree configured by hand with other options is put right.
CMAKE_FLAGS := -DATTNVIZ_BUILD_UI=ON -DATTNVIZ_BUILD_TESTS=ON -DATTNVIZ_SANITIZE=OFF

NATIVE := build/native
WASM := build/wasm
WASM_MT := build/wasm-mt
STAMP := build/stamps

.PHONY: all run test desktop native wasm site cli setup setup-test clean bench fuzz help native-asan native-tsan fuzz-build
all: native wasm

help:
	@sed -n '2,10p' Makefile | sed 's/^# \{0,1\}//'

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
$(STAMP)/sdl2-wasm: $(STAMP)/system-web
	scripts/fetch-deps.sh sdl2-wasm
	@touch $@
$(STAMP)/sdl2-wasm-mt: $(STAMP)/system-web
	scripts/fetch-deps.sh sdl2-wasm-mt
	@touch $@
$(STAMP)/npm: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@mkdir -p $(STAMP) && touch $@

setup: $(STAMP)/imgui $(STAMP)/sdl2-wasm $(STAMP)/sdl2-wasm-mt
setup-test: $(STAMP)/system-test $(STAMP)/imgui $(STAMP)/sdl2-wasm $(STAMP)/sdl2-wasm-mt $(STAMP)/npm

# --- builds
native: $(STAMP)/imgui
	cmake -S . -B $(NATIVE) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(NATIVE) -j$(JOBS)

# Two WebAssembly builds, one site: build/wasm (one thread, every test) and
# build/wasm-mt (attnviz-mt: pthreads, the page's choice when it is cross-origin
# isolated; only its thread tests), whose module files join build/wasm/site.
wasm: $(STAMP)/imgui $(STAMP)/sdl2-wasm $(STAMP)/sdl2-wasm-mt
	emcmake cmake -S . -B $(WASM) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) -DATTNVIZ_THREADS=OFF >/dev/null
	cmake --build $(WASM) -j$(JOBS)
	emcmake cmake -S . -B $(WASM_MT) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) -DATTNVIZ_THREADS=ON >/dev/null
	cmake --build $(WASM_MT) -j$(JOBS)
	cp $(WASM_MT)/site/attnviz-mt.js $(WASM_MT)/site/attnviz-mt.wasm $(WASM_MT)/site/attnviz-mt.worker.js $(WASM)/site/

site: wasm
cli: native

# --- the two commands
run: wasm
	node web/serve.mjs $(WASM)/site --port $(PORT)

# make test also runs the native unit tests under ASan + UBSan (build/asan, g++)
# and the state-decoder fuzzer for FUZZ_SECONDS (build/fuzz, clang-14).
ASAN := build/asan
native-asan: $(STAMP)/imgui
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Release '-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g' \
	  '-DCMAKE_C_FLAGS_RELEASE=-O1 -g' -DATTNVIZ_BUILD_UI=ON -DATTNVIZ_BUILD_TESTS=ON \
	  -DATTNVIZ_SANITIZE=ON >/dev/null
	cmake --build $(ASAN) -j$(JOBS)
# ... and the engine's tests under ThreadSanitizer (build/tsan, no UI): the
# worker pool and the head groups (docs/engine.md, "Threads").
TSAN := build/tsan
native-tsan:
	cmake -S . -B $(TSAN) -DCMAKE_BUILD_TYPE=Release '-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g' \
	  '-DCMAKE_C_FLAGS_RELEASE=-O1 -g' -DATTNVIZ_BUILD_UI=OFF -DATTNVIZ_BUILD_TESTS=ON \
	  -DATTNVIZ_TSAN=ON >/dev/null
	cmake --build $(TSAN) -j$(JOBS)
fuzz-build: setup-test
	scripts/fuzz.sh --build-only

test: setup-test native wasm native-asan native-tsan fuzz-build
	scripts/test-all.sh

desktop: native
	$(NATIVE)/attnviz

# --- beyond the two commands (each script documents itself)
bench: setup-test native wasm
	scripts/bench.sh

fuzz: setup-test
	scripts/fuzz.sh $(if $(SECONDS),--seconds $(SECONDS),)

clean:
	rm -rf build
