# The README's two commands: `make run` (build + the main job) and `make test` (build + all tests).
# What each costs from a fresh clone: README.md and docs/performance.md, "Build and test times".
BUILD    ?= build
SANITIZE ?= build/sanitize
TSAN     ?= build/tsan
JOBS     ?= $(shell nproc)
SCENARIO ?= scenarios/thesis.toml

.PHONY: deps build build-all run test test-under-load tsan-tests check sanitize tsan bench format clean

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

# What `make run` and the docs' commands use: the kausal CLI, which brings its component
# executables (kausal-system, kausal-integrator, kausal-pendulum, kausal-block,
# kausal-event-group), kausal-animation (--animate, the report's pictures), the FMUs of the
# shipped FMU scenarios (build/fmus) and the example controller. No tests, no benchmarks.
build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target kausal kausal-animation test_fmus \
	  kausal-level-controller

# Everything of the release build: the above, the tests of real processes, the benchmarks and
# the examples. (The unit tests are compiled in the sanitizer builds, which run them.)
build-all: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# What `make run` builds: the CLI with its component executables and kausal-animation (the
# report's pictures), and the test FMUs only when the scenario names an FMU (they are a tenth of
# `make build`'s compile time).
RUN_TARGETS = kausal kausal-animation $(if $(shell grep -qs '^fmu *=' $(SCENARIO) && echo y),test_fmus)

run: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target $(RUN_TARGETS)
	$(BUILD)/bin/kausal compare $(SCENARIO)

# The unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer, and the parsers'
# libFuzzer targets, in one clang build (plain libraries only; the libraries are compiled
# once for both). Line tables only: sanitizer reports name file and line.
sanitize: deps
	cmake -S . -B $(SANITIZE) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only -DKAUSAL_SANITIZE=ON -DKAUSAL_UNIT_ONLY=ON
	cmake --build $(SANITIZE) -j $(JOBS)

# The unit tests of threaded code again under ThreadSanitizer (plain libraries and the
# threaded tests only; tests/CMakeLists.txt names the suites it runs).
# The libraries that start no thread (models, ODE methods, reference solutions, analysis,
# parsers) come from the release build, uninstrumented (kausal_unthreaded_library in
# CMakeLists.txt).
tsan: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target kausal_unthreaded
	cmake -S . -B $(TSAN) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O1 -g1 -DNDEBUG' -DKAUSAL_TSAN=ON -DKAUSAL_UNIT_ONLY=ON \
	  -DKAUSAL_TSAN_UNTHREADED_FROM=$(abspath $(BUILD))
	cmake --build $(TSAN) -j $(JOBS)

# Every build and every test, phases overlapped where the CPUs are idle, with a table of what
# each took: scripts/test-all.sh. The fuzz targets fuzz for a bounded time
# (KAUSAL_FUZZ_SECONDS, default 40 s, for scenario and deployment files;
# KAUSAL_FMU_FUZZ_SECONDS, KAUSAL_FMU_ARCHIVE_FUZZ_SECONDS and KAUSAL_CHECKPOINT_FUZZ_SECONDS,
# 20 s each, for modelDescription.xml, whole .fmu archives and checkpoint.json);
# tests/fuzz/ has their seeds.
test: deps
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) TSAN=$(TSAN) MAKE=$(MAKE) bash scripts/test-all.sh

# `make test` with one busy process per CPU beside it (scripts/with-cpu-hog.sh): CI machines
# are shared, and a test that passes only on an idle one is a defect.
test-under-load: deps
	@bash scripts/with-cpu-hog.sh $(MAKE) --no-print-directory test

# The threaded suites of a built `make tsan`.
tsan-tests:
	cd $(TSAN) && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j 2 -L unit

# The unit tests (ctest label `unit`, 24 GoogleTest shards) under ASan + UBSan, where `make
# test` runs them: about three minutes on a warm sanitizer build. One test alone:
# build/sanitize/bin/unit_tests --gtest_filter=Suite.Test. CI runs `make test`, in full.
check: sanitize
	cd $(SANITIZE) && ctest --output-on-failure -j 2 -L unit

bench: build-all
	bash bench/run.sh

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD)
