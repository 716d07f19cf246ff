# Entry points for a fresh Debian machine: `make demo` and `make test` do all set-up;
# `make install` (PREFIX=/usr/local) puts bankcheck on PATH, `make package` builds a .deb.
BUILD ?= build
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
BANKCHECK := $(BUILD)/tools/bankcheck/bankcheck

.PHONY: all deps configure build test test-slow test-sanitize demo installable install package bench clean format

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# `make test` leaves out the tests labelled slow (a replay that takes over 10 minutes on a
# CPU, bench/README.md); `make test-slow` runs them alone.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE slow

test-slow: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L slow

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

# Only what the demo runs: bankcheck, its libcuda.so.1 and one bundled program.
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target bankcheck_demo
	@scripts/demo.sh $(BANKCHECK)

# installable: builds what `make install` installs (and not the tests), so that
# `make installable && sudo make install` builds as the user. The prefix is compiled into the
# help texts and the manual page (they name the installed documentation), so the build is
# reconfigured when PREFIX differs from the one it was configured with.
INSTALL_PREFIX = $(abspath $(PREFIX))
installable: configure
	@grep -qx 'CMAKE_INSTALL_PREFIX:PATH=$(INSTALL_PREFIX)' $(BUILD)/CMakeCache.txt || \
	  cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(INSTALL_PREFIX)
	cmake --build $(BUILD) -j $(JOBS) --target bankcheck_installable

install: installable
	cmake --install $(BUILD)

# A Debian package ($(PACKAGE_BUILD)/bankcheck_VERSION_ARCH.deb) installing under
# /usr, from a build of its own without the tests.
PACKAGE_BUILD ?= build-package
package: deps
	cmake -S . -B $(PACKAGE_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
	  -DBANKCHECK_BUILD_TESTS=OFF -DBANKCHECK_BUILD_BENCH=OFF
	cmake --build $(PACKAGE_BUILD) -j $(JOBS) --target bankcheck_installable
	cd $(PACKAGE_BUILD) && cpack -G DEB

bench: build
	$(BUILD)/bench/model_bench
	$(BUILD)/bench/emu_bench

format:
	clang-format -i $$(git ls-files '*.hpp' '*.cpp' '*.cu')

clean:
	rm -rf $(BUILD) $(PACKAGE_BUILD)
