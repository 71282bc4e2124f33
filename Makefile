# Thin wrapper over CMake. `make demo` and `make test` set up a fresh
# Debian 12 / Ubuntu 24.04 machine themselves (scripts/deps.sh: packages
# through apt-get, the test oracles through npm); `make` builds into
# build/, `make test` runs every test through ctest, `make asan-test` does
# the same with AddressSanitizer and UBSan in build-asan/, `make install`
# installs into PREFIX (DESTDIR for packaging).
BUILD      ?= build
ASAN_BUILD ?= build-asan
MIN_BUILD  ?= build-min
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

FUZZ_SECONDS ?= 600

DEMO_DIR   ?= $(BUILD)/demo
PREFIX     ?= /usr/local

.PHONY: all demo test asan-test minimal bench fuzz vectors install clean

all: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

# Proves and verifies the bundled Poseidon circuit (tests/fixtures) on both
# curves, printing each phase's time. Builds the cuzk command alone (no
# tests, benchmarks or libraries it does not run).
demo:
	@scripts/deps.sh demo
	@start=$$(date +%s); \
	  cmake -S . -B $(BUILD) $(CMAKE_ARGS) >$(BUILD).configure.log 2>&1 || { cat $(BUILD).configure.log; exit 1; }; \
	  cmake --build $(BUILD) --target cuzk_cli -j $(JOBS) && \
	  echo "== built $(BUILD)/cuzk in $$(( $$(date +%s) - start )) s"
	@mkdir -p $(DEMO_DIR)
	@for c in bn128 bls12381; do \
	  echo "== $$c: cuzk prove tests/fixtures/$$c/poseidon3.zkey tests/fixtures/$$c/poseidon3.wtns"; \
	  $(BUILD)/cuzk prove tests/fixtures/$$c/poseidon3.zkey tests/fixtures/$$c/poseidon3.wtns \
	    $(DEMO_DIR)/$$c.proof.json $(DEMO_DIR)/$$c.public.json --timings || exit 1; \
	  echo "== $$c: cuzk verify (snarkjs's verification key)"; \
	  $(BUILD)/cuzk verify tests/fixtures/$$c/poseidon3.vk.json $(DEMO_DIR)/$$c.public.json \
	    $(DEMO_DIR)/$$c.proof.json || exit 1; \
	done
	@echo "proofs in $(DEMO_DIR)/ (each verified with snarkjs's verification key, tests/fixtures/*/poseidon3.vk.json)"

# (configures again: the oracles npm just installed are found at configure time)
test:
	@scripts/deps.sh test
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure

# PREFIX/bin/cuzk, lib/libcuzk.{a,so}, include/cuzk.h, lib/pkgconfig/cuzk.pc,
# share/man/man1/cuzk.1, lib/systemd/system/cuzk.service, share/cuzk/cuzk.conf
install: all
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix $(PREFIX)

# Sanitizer builds run unoptimized: the random tests use a tenth of their
# iterations (CUZK_TEST_ITERS), which keeps every code path, and leave out
# the work of minutes that make test runs (CUZK_TEST_LIGHT: test_filecoin).
asan-test:
	@scripts/deps.sh test
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCUZK_SANITIZE=ON -DCUZK_CUDA=OFF -DCUZK_BENCH=OFF $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	CUZK_TEST_ITERS=300 CUZK_SUPRASEAL_CIRCUITS=6 CUZK_TEST_LIGHT=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure

# What a GPU machine without the optional packages builds: no GMP, jansson,
# libmicrohttpd, libcurl or libpq (CUDA off here to keep it quick); it must still compile.
minimal:
	cmake -S . -B $(MIN_BUILD) -DCUZK_CUDA=OFF -DCUZK_REQUIRE_TEST_DEPS=OFF -DGMP_INCLUDE_DIR=GMP_INCLUDE_DIR-NOTFOUND \
	  -DJANSSON_INCLUDE_DIR=JANSSON_INCLUDE_DIR-NOTFOUND -DMHD_INCLUDE_DIR=MHD_INCLUDE_DIR-NOTFOUND \
	  -DCURL_INCLUDE_DIR=CURL_INCLUDE_DIR-NOTFOUND -DPG_INCLUDE_DIR=PG_INCLUDE_DIR-NOTFOUND $(CMAKE_ARGS)
	cmake --build $(MIN_BUILD) -j $(JOBS)

bench: all
	$(BUILD)/bench/bench_arith

# libFuzzer on the file readers (clang), FUZZ_SECONDS each, two at a time.
fuzz:
	tests/fuzz/run.sh $(FUZZ_SECONDS)

# Regenerates the @noble/curves known-answer vectors (needs node and npm).
vectors:
	cd tests/vectors && npm ci --silent && node gen_vectors.mjs

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(MIN_BUILD) build-fuzz
