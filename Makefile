# Thin wrapper over CMake. `make` builds into build/, `make test` runs every
# test through ctest, `make asan-test` does the same with AddressSanitizer and
# UBSan in build-asan/.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

FUZZ_SECONDS ?= 600

.PHONY: all test asan-test bench fuzz vectors clean

all: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

test: all
	ctest --test-dir $(BUILD) --output-on-failure

$(ASAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCUZK_SANITIZE=ON -DCUZK_CUDA=OFF -DCUZK_BENCH=OFF $(CMAKE_ARGS)

asan-test: $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ctest --test-dir $(ASAN_BUILD) --output-on-failure

bench: all
	$(BUILD)/bench/bench_arith

# libFuzzer on the file readers (clang), FUZZ_SECONDS each, two at a time.
fuzz:
	tests/fuzz/run.sh $(FUZZ_SECONDS)

# Regenerates the @noble/curves known-answer vectors (needs node and npm).
vectors:
	cd tests/vectors && npm ci --silent && node gen_vectors.mjs

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
