# The README's two commands: `make run` (build + the main job) and `make test` (build + all tests).
BUILD    ?= build
ASAN     ?= build/asan
JOBS     ?= $(shell nproc)
SCENARIO ?= scenarios/thesis.toml

.PHONY: deps configure build run test asan bench format clean

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

test: build asan
	cd $(BUILD) && ctest --output-on-failure -j 2
	cd $(ASAN) && ctest --output-on-failure -j 2

bench: build
	bash bench/run.sh

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD)
