# The README's two commands: `make run` (build + the main job) and `make test` (build + all tests).
BUILD    ?= build
ASAN     ?= build/asan
TSAN     ?= build/tsan
FUZZ     ?= build/fuzz
JOBS     ?= $(shell nproc)
SCENARIO ?= scenarios/thesis.toml

.PHONY: deps configure build run test asan tsan fuzz bench format clean

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/bin/kausal compare $(SCENARIO)

# Unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer (plain libraries only).
asan: deps
	cmake -S . -B $(ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKAUSAL_SANITIZE=ON -DKAUSAL_UNIT_ONLY=ON
	cmake --build $(ASAN) -j $(JOBS)

# The unit tests of threaded code again under ThreadSanitizer (plain libraries only): the
# monitor's lanes and blocks, a block process's run-ahead thread, paced runs' releasers,
# optimistic and partitioned runs, event groups, recorders and checkpoint writers. A data
# race fails its test. The tests of one thread only (and the slowest block matrices, whose
# threads the other block tests exercise alike) are left out: about 2 minutes.
TSAN_TESTS := ^(BlockCore|Blocks|RealtimeRun|Optimistic|PartitionedMethods|PartitionedResume|Resume|EventRun|EventCuts|FanOut|Worker|OrderedSender|TrajectoryRecorder|ActivityTrace|Checkpointer|StepClockStop|ExternalClock|RunObserver|EventLiveView|PeerExchange)\.
TSAN_SKIP  := ^Blocks\.(ShippedChains|RandomChains)
tsan: deps
	cmake -S . -B $(TSAN) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKAUSAL_TSAN=ON -DKAUSAL_UNIT_ONLY=ON
	cmake --build $(TSAN) -j $(JOBS)

# The scenario and deployment-file parsers, the FMU model-description reader and the
# checkpoint reader under
# libFuzzer (clang), ASan and UBSan: plain libraries only, in their own build directory.
# `make test` fuzzes for a bounded time (KAUSAL_FUZZ_SECONDS, default 40 s, and
# KAUSAL_FMU_FUZZ_SECONDS and KAUSAL_CHECKPOINT_FUZZ_SECONDS, default 20 s each).
fuzz: deps
	cmake -S . -B $(FUZZ) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DKAUSAL_FUZZ=ON -DKAUSAL_UNIT_ONLY=ON
	cmake --build $(FUZZ) -j $(JOBS) --target scenario_fuzzer model_description_fuzzer checkpoint_fuzzer

test: build asan tsan fuzz
	cd $(BUILD) && ctest --output-on-failure -j 2
	cd $(ASAN) && ctest --output-on-failure -j 2
	cd $(TSAN) && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j 2 \
	  -R '$(TSAN_TESTS)' -E '$(TSAN_SKIP)'
	cd $(FUZZ) && ctest --output-on-failure

bench: build
	bash bench/run.sh

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD)
