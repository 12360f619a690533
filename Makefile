# Thin wrapper around CMake: the two commands a new user needs are
#   make run    install missing packages, build, start one broker on localhost:9092
#   make cluster  the same for ZooKeeper and 3 brokers on localhost:9092-9094
#                 (make cluster-stop stops them; see ci/cluster.sh)
#   make test   install, build, run every test (normal and sanitizer builds;
#               gcc Release and clang builds warning-free; the sanitizer build is gcc Debug)
#   make bench  benchmarks beside librdkafka's mock cluster (SCENARIO=name[,name] for some)
#   make install  gregor, gregor-admin, etc/gregor/server.properties under PREFIX (DESTDIR)
#   make package  the Debian package (debian/), see docs/operations.md
BUILD      ?= build
ASAN_BUILD ?= build-asan
# Variants ci/test.sh also builds, beside the normal build's tests
# (ci/build-variants.sh): gcc Release and clang (gcc Debug is the sanitizer build).
RELEASE_BUILD ?= build-release
CLANG_BUILD   ?= build-clang
FUZZ_BUILD ?= build-fuzz
JOBS       ?= 2
FUZZ_SECONDS ?= 60
SCENARIO   ?=
BENCH_RUNS ?= 3


.PHONY: all deps deps-build compile build run test test-unit test-asan fuzz format clean
.PHONY: bench cluster cluster-stop

all: build

deps:
	@bash ci/install-deps.sh

deps-build:
	@bash ci/install-deps.sh --build-only

compile:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build: deps compile

run: deps-build compile
	@bash ci/run-broker.sh $(BUILD)

cluster: deps compile
	@BUILD=$(BUILD) bash ci/cluster.sh start

cluster-stop:
	@BUILD=$(BUILD) bash ci/cluster.sh stop

test: deps compile
	@bash ci/test.sh $(BUILD) $(ASAN_BUILD) $(RELEASE_BUILD) $(CLANG_BUILD)

test-unit: compile
	@cd $(BUILD) && ctest -L unit -j $(JOBS) --output-on-failure

test-asan: deps
	@bash ci/test-asan.sh $(ASAN_BUILD)

fuzz: deps
	@bash ci/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# Benchmarks run on the normal optimised build (RelWithDebInfo: -O2, asserts
# off, symbols kept for perf); results go to bench/out/.
bench: deps compile
	@bash ci/install-bench-deps.sh
	@python3 bench/run.py --build $(BUILD) --runs $(BENCH_RUNS) --scenario "$(SCENARIO)"

format:
	@git ls-files '*.c' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(RELEASE_BUILD) $(CLANG_BUILD)

# Installs gregor, gregor-admin and etc/gregor/server.properties under PREFIX
# (staged under DESTDIR when set); docs/operations.md. `make package` builds
# the Debian package (debian/) into $(PACKAGE_OUT).
PREFIX  ?= /usr/local
DESTDIR ?=
PACKAGE_OUT ?= $(BUILD)/package

.PHONY: install package
install: deps-build
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target gregor gregor-admin
	@DESTDIR=$(DESTDIR) cmake --install $(BUILD)

package:
	@bash ci/install-deps.sh --package
	@bash ci/package.sh $(PACKAGE_OUT)
