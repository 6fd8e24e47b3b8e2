# scripts/trees.mk: attnviz's build trees and test suites as one dependency graph.
# The Makefile runs it with -j$(JOBS) (never needed by hand), so that one
# jobserver hands the cores to every tree at once: while one tree links (a single
# process for half a minute) another compiles, and a suite starts as soon as the
# tree it tests is built, beside the builds still running.
#
#   b-TREE       configure (idempotent, a few seconds) and build everything in build/TREE
#   site-TREE    only the app in a WebAssembly tree (what `make run` needs)
#   site         both WebAssembly apps, and attnviz-mt's files copied into build/wasm/site
#   cli-wasm     build/wasm's attnviz-cli.js, after its app (the browser tests read it)
#   embed        build/embed/attnviz-embed.js: the embeddable app in one file (tree wasm-embed)
#   s-SUITE      run one test suite (scripts/suite.sh: its JUnit report and wall time)
#   suites       every suite of `make test`
#
# Trees: native, wasm, wasm-mt (Release); asan (ASan + UBSan, -O1 -g1); tsan
# (ThreadSanitizer, no UI); fuzz (clang-14, libFuzzer; scripts/fuzz.sh).
# Recipes that build start with "+": their cmake --build joins this jobserver
# (so they take no -j of their own).

BUILD_TYPE ?= Release
FLAGS := -DATTNVIZ_BUILD_UI=ON -DATTNVIZ_BUILD_TESTS=ON -DATTNVIZ_SANITIZE=OFF
# -g1: line tables, enough for a sanitizer's report to name file and line, and far
# cheaper to compile and link than full debug information.
DEBUG_FLAGS := -DCMAKE_BUILD_TYPE=Release '-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1' '-DCMAKE_C_FLAGS_RELEASE=-O1 -g1'
Q := >/dev/null

.PHONY: b-native b-wasm b-wasm-mt b-asan b-tsan b-fuzz site-wasm site-wasm-mt site cli-wasm \
        c-native c-wasm c-wasm-mt c-asan c-tsan c-wasm-embed embed \
        s-native s-wasm s-wasm-mt s-native-asan s-native-tsan s-fuzz s-e2e s-notebook others suites

# --- configure
c-native:
	cmake -S . -B build/native -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(FLAGS) $(Q)
c-wasm:
	emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(FLAGS) -DATTNVIZ_THREADS=OFF $(Q)
c-wasm-mt:
	emcmake cmake -S . -B build/wasm-mt -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(FLAGS) -DATTNVIZ_THREADS=ON $(Q)
# The embeddable build: its own tree, since everything in it is compiled for size (-Oz:
# the packed file must stay under 1 MB) and without the model checkpoints; only the app
# and its packed file are built there (no tests: its engine is the same source).
c-wasm-embed:
	emcmake cmake -S . -B build/wasm-embed -DCMAKE_BUILD_TYPE=MinSizeRel '-DCMAKE_CXX_FLAGS_MINSIZEREL=-Oz -DNDEBUG' \
	  '-DCMAKE_C_FLAGS_MINSIZEREL=-Oz -DNDEBUG' -DATTNVIZ_BUILD_UI=ON -DATTNVIZ_BUILD_TESTS=OFF -DATTNVIZ_THREADS=OFF \
	  -DATTNVIZ_EMBED=ON $(Q)
c-asan:
	cmake -S . -B build/asan $(DEBUG_FLAGS) -DATTNVIZ_BUILD_UI=ON -DATTNVIZ_BUILD_TESTS=ON -DATTNVIZ_SANITIZE=ON $(Q)
c-tsan:
	cmake -S . -B build/tsan $(DEBUG_FLAGS) -DATTNVIZ_BUILD_UI=OFF -DATTNVIZ_BUILD_TESTS=ON -DATTNVIZ_TSAN=ON $(Q)

# --- build
b-native: c-native
	+scripts/timed.sh native cmake --build build/native
b-wasm: c-wasm site-wasm
	+scripts/timed.sh wasm cmake --build build/wasm
b-wasm-mt: c-wasm-mt site-wasm-mt
	+scripts/timed.sh wasm-mt cmake --build build/wasm-mt
b-asan: c-asan
	+scripts/timed.sh asan cmake --build build/asan
b-tsan: c-tsan
	+scripts/timed.sh tsan cmake --build build/tsan
b-fuzz:
	+scripts/timed.sh fuzz scripts/fuzz.sh --build-only

# The page: attnviz (build/wasm/site) and attnviz-mt beside it.
site-wasm: c-wasm
	+scripts/timed.sh site-wasm cmake --build build/wasm --target attnviz
site-wasm-mt: c-wasm-mt
	+scripts/timed.sh site-wasm-mt cmake --build build/wasm-mt --target attnviz
site: site-wasm site-wasm-mt
	cp build/wasm-mt/site/attnviz-mt.js build/wasm-mt/site/attnviz-mt.wasm \
	   build/wasm-mt/site/attnviz-mt.worker.js build/wasm/site/

# build/embed/attnviz-embed.js, the one file the Python package inlines (scripts/pack_embed.py).
embed: c-wasm-embed
	+scripts/timed.sh embed cmake --build build/wasm-embed --target attnviz_embed_pack
	mkdir -p build/embed && cp build/wasm-embed/embed/attnviz-embed.js build/wasm-embed/embed/sizes.json build/embed/

# The CLI beside the page, for tests/e2e/torch.test.mjs (the page's PyTorch export
# must be `attnviz-cli export-torch` of its state): after site-wasm, not beside it,
# since both build in build/wasm.
cli-wasm: site-wasm
	+scripts/timed.sh cli-wasm cmake --build build/wasm --target attnviz-cli

# --- suites (scripts/suite.sh says what each runs).
s-e2e: site cli-wasm embed
	scripts/suite.sh e2e
s-native: b-native
	scripts/suite.sh native
s-wasm: b-wasm
	scripts/suite.sh wasm
s-wasm-mt: b-wasm-mt
	scripts/suite.sh wasm-mt
s-native-asan: b-asan
	scripts/suite.sh native-asan
s-native-tsan: b-tsan
	scripts/suite.sh native-tsan
s-fuzz: b-fuzz
	scripts/suite.sh fuzz
s-notebook: embed cli-wasm
	scripts/suite.sh notebook

# Every suite but the browser tests, the longest builds first (make -j starts
# prerequisites in this order). scripts/test-all.sh builds the site, starts the
# browser tests, then makes `others` beside them.
others: s-native-asan s-notebook s-native s-native-tsan s-wasm s-wasm-mt s-fuzz
suites: s-e2e others
