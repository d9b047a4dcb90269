# Thin wrapper: the two commands of the README, and the build variants.
#   make demo   install what is needed, build, run the main job on its defaults
#   make test   install what is needed, build the normal and the sanitizer
#               variants, and run the test suite on both (without the
#               tests labelled kernel and e2e, which build Linux for minutes)
#   make test-kernel   the kernel-labelled tests, normal variant only
#   make release-check   a packager's builds: Release with gcc (warnings are
#               errors) and with clang, installed into a DESTDIR and served
#   make e2e    make demo as a test (label e2e): the injected regression
#               found, bisected, mailed and shown, normal variant only
# CMake does the real work in build/ (normal) and build-asan/ (ASan+UBSan).
# Both are developer builds: warnings are errors (FL_WERROR). A packager's
# "cmake -DCMAKE_BUILD_TYPE=Release" leaves it off.

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Two tests per core: most wait more than they compute; the ones that keep
# a core busy take two slots (tests/CMakeLists.txt, PROCESSORS).
TEST_JOBS ?= $(shell echo $$(( $(JOBS) * 2 )))
CTEST_ARGS ?= -LE 'kernel|e2e'
# ctest ARGS in a build directory; then each skipped test with its reason
# (tests/skipped.py), and tests/leftovers.py: the run fails when a process
# a test started outlived its test (it is named and stopped).
CTEST = sh -c 'ctest --output-junit Testing/Temporary/junit.xml "$$@"; rc=$$?; \
	python3 ../tests/skipped.py Testing/Temporary/junit.xml; \
	python3 ../tests/leftovers.py . || rc=1; exit $$rc' ctest

.PHONY: all deps build build-asan test test-build test-asan test-kernel e2e demo clean \
	release-check pg

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFL_WERROR=ON \
		>build.cmake.log || \
		{ cat build.cmake.log; exit 1; }
	@cmake --build build -j$(JOBS) -- --no-print-directory

build-asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFL_SANITIZE=ON -DFL_WERROR=ON \
		>build-asan.cmake.log || { cat build-asan.cmake.log; exit 1; }
	@cmake --build build-asan -j$(JOBS) -- --no-print-directory

# The tests labelled pg run on a throw-away PostgreSQL cluster on loopback
# (scripts/pg-start.sh, reused while it runs; "scripts/pg-start.sh stop").
pg: deps
	@scripts/pg-start.sh start >/dev/null

test-build: build pg
	@cd build && $(CTEST) --output-on-failure -j$(TEST_JOBS) $(CTEST_ARGS)

test-asan: build-asan pg
	@cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(CTEST) --output-on-failure -j$(TEST_JOBS) $(CTEST_ARGS)

test: test-build test-asan

test-kernel: build
	@cd build && $(CTEST) --output-on-failure -L kernel

e2e: build
	@cd build && $(CTEST) --output-on-failure -L e2e

release-check: deps
	@scripts/release-check.sh

# The demo's output is the demo's: faultline is built quietly (build.log).
demo: deps
	@echo "demo: building faultline in build/ (its output: build.log)"
	@$(MAKE) --no-print-directory build >build.log 2>&1 || { tail -n 40 build.log; exit 1; }
	@scripts/demo.sh

clean:
	rm -rf build build-asan build-release build-clang build*.log
