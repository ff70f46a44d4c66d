# The two commands of the README: `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
FUZZ_SECONDS ?= 25

.PHONY: demo test setup build asan bench fuzz clean

setup:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Records one real training step of a built-in model, replays it against the
# original, simulates a 2-rank DDP recording and predicts it (scripts/demo.sh).
demo: build
	bash scripts/demo.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) fuzz FUZZ_SECONDS=20

# AddressSanitizer + UBSan build of everything but the libtorch parts (libtorch
# itself is not instrumented), tests included.
asan: setup
	cmake -S . -B build-asan -G Ninja -DMIMIC_SANITIZE=ON -DMIMIC_BENCH=OFF -DMIMIC_WITH_TORCH=OFF
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS)

bench: build
	bash bench/run.sh $(BUILD)

# libFuzzer targets (clang): replays seeds and regressions, then fuzzes each reader FUZZ_SECONDS.
fuzz: setup
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DMIMIC_FUZZ=ON -DMIMIC_WITH_TORCH=OFF -DMIMIC_BENCH=OFF \
	  -DMIMIC_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build build-fuzz -j $(JOBS) --target fuzzers
	cd build-fuzz && ctest --output-on-failure -j $(JOBS) -R '^fuzz\.'

clean:
	rm -rf $(BUILD) build-asan build-fuzz
