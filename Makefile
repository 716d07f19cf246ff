# Entry points for a fresh Debian machine: `make demo` and `make test` do all set-up.
BUILD ?= build
JOBS ?= $(shell nproc)
BANKCHECK := $(BUILD)/tools/bankcheck/bankcheck

.PHONY: all deps configure build test test-sanitize demo bench clean format

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

# The whole suite built with ASan and UBSan (docs/limits.md says how long it takes; too
# slow for .ci/run). ASan's shadow memory needs more address space than the hostile
# suite's 4 GiB limit, so that suite runs unlimited here (BANKCHECK_HOSTILE_NO_ULIMIT).
SANITIZE_BUILD ?= build-sanitize
test-sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBANKCHECK_SANITIZE=ON \
	  -DBANKCHECK_BUILD_BENCH=OFF
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  BANKCHECK_HOSTILE_NO_ULIMIT=1 ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo.sh $(BANKCHECK)

bench: build
	$(BUILD)/bench/model_bench
	$(BUILD)/bench/emu_bench

format:
	clang-format -i $$(git ls-files '*.hpp' '*.cpp' '*.cu')

clean:
	rm -rf $(BUILD)
