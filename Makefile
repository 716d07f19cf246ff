# Entry points for a fresh Debian machine: `make demo` and `make test` do all set-up.
BUILD ?= build
JOBS ?= $(shell nproc)
BANKCHECK := $(BUILD)/tools/bankcheck/bankcheck

.PHONY: all deps configure build test demo bench clean format

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo.sh $(BANKCHECK)

bench: build
	$(BUILD)/bench/model_bench
	$(BUILD)/bench/emu_bench

format:
	clang-format -i $$(git ls-files '*.hpp' '*.cpp' '*.cu')

clean:
	rm -rf $(BUILD)
