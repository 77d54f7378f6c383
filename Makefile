# corempi -- top-level entry points.  make demo, check, check-asan,
# check-faults and bench do their own set-up on a fresh Debian 12 machine
# (packages through scripts/deps.sh, i.e. apt-get), so that
#   make deps    installs the packages and nothing else
#   make build   builds and installs nothing (a missing package: make deps)
#   make demo    builds everything and runs the demo under the profiler
#   make check   builds and runs every test
#   make check-asan  the same under AddressSanitizer + UBSan, in build-asan
#   make check-tsan  the thread tests under ThreadSanitizer, in build-tsan
#   make bench   compares corempi with Open MPI and MPICH
#   make bench-check [BASE=rev|dir|recorded] [ROUNDS=n]  fails on a 2-rank
#                micro-benchmark more than 10% slower than the base
#   make bench-record  records this build's figures for BASE=recorded
#   make stress SECONDS=N   runs the collective fuzz test for N seconds
#   make check-faults  the protocol tests again, with random stalls at every
#                protocol step (build-faults, -DCOREMPI_FAULTS=ON)
#   make client-scalapack  a real Fortran client (ScaLAPACK, else HDF5) from
#                Debian's sources built with mpifort, its tests; slow, not in check
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
CMAKE_TYPE ?= RelWithDebInfo
BUILD_ASAN ?= build-asan

.PHONY: all build deps demo check check-asan check-tsan check-faults bench bench-check bench-record install tune clean stress client-scalapack

all: build

deps:
	@sh scripts/deps.sh build prof peers

# A plain build never runs apt-get: a machine without the packages gets
# cmake's complaint and the hint below.
$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(CMAKE_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) || \
	  { echo "make build: cmake failed; 'make deps' installs the packages it needs"; exit 1; }

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The targets that set a machine up: packages first, then the build.
demo: deps
	@$(MAKE) --no-print-directory build
	@sh scripts/demo.sh $(BUILD)

check: deps
	@sh scripts/deps.sh browser || echo "make check: Chromium could not be installed; the HTML report test will be skipped"
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 2

# Library, launcher, tools and tests built with -fsanitize=address,undefined;
# the tests left out (peer MPIs, more than 5 ranks, ...) and the sanitizer
# options are in tests/sanitize.cmake.
check-asan:
	@sh scripts/deps.sh build prof
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=$(CMAKE_TYPE) -DCOREMPI_SANITIZE=ON
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	cd $(BUILD_ASAN) && ctest --output-on-failure --timeout 300 -j 2
# The tests labelled "threads" (MPI_THREAD_MULTIPLE, docs/threads.md) with
# ThreadSanitizer; tests/tsan.supp names the races it may not judge.
BUILD_TSAN ?= build-tsan
check-tsan:
	@sh scripts/deps.sh build
	cmake -S . -B $(BUILD_TSAN) -DCMAKE_BUILD_TYPE=$(CMAKE_TYPE) -DCOREMPI_TSAN=ON
	cmake --build $(BUILD_TSAN) -j $(JOBS) --target corempi mpirun cm_thread_tests
	cd $(BUILD_TSAN) && TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp halt_on_error=1 exitcode=66 $(TSAN_OPTIONS)" \
	  ctest --output-on-failure --timeout 600 -j 2 -L threads
# Fault injection (docs/protocols.md): its own build directory, only the
# tests labelled "faults".  The seed is printed; FAULT_SEED=N reruns it.
FAULTS_BUILD ?= build-faults
FAULT_RATE ?= 0.1
ifeq ($(origin FAULT_SEED), undefined)
FAULT_SEED := $(shell date +%s)
endif
check-faults:
	@sh scripts/deps.sh build
	cmake -S . -B $(FAULTS_BUILD) -DCMAKE_BUILD_TYPE=$(CMAKE_TYPE) -DCOREMPI_FAULTS=ON >/dev/null
	cmake --build $(FAULTS_BUILD) -j $(JOBS) --target cm_fault_programs
	@echo "make check-faults: COREMPI_FAULTS=$(FAULT_SEED),$(FAULT_RATE) (again: make check-faults FAULT_SEED=$(FAULT_SEED))"
	cd $(FAULTS_BUILD) && COREMPI_FAULTS=$(FAULT_SEED),$(FAULT_RATE) ctest -L faults --output-on-failure --timeout 300 -j 2

bench: deps
	@$(MAKE) --no-print-directory build
	COREMPI_BUILD=$(abspath $(BUILD)) bash bench/run.sh

# The regression gate (docs/bench.md, "Regression gate"): not in make check,
# timing on a shared machine is no test; tools.bench_check tests its verdict.
BASE ?=
ROUNDS ?= 8
bench-check: build
	BENCH_CHECK_ROUNDS=$(ROUNDS) bash bench/check.sh $(BUILD) $(BASE)
bench-record: build
	BENCH_CHECK_ROUNDS=$(ROUNDS) bash bench/check.sh $(BUILD) --record

# Rounds of tests/coll/coll_fuzz with fresh seeds, 2..9 ranks and forced
# algorithms until SECONDS have passed (docs/testing-fuzz.md).
SECONDS ?= 300
stress: build
	sh tests/coll/coll_fuzz_stress.sh $(BUILD) $(SECONDS)

tune: build
	COREMPI_BUILD=$(abspath $(BUILD)) bash bench/tune.sh

# Issue 36's real client (docs/fortran.md, "Real client: ScaLAPACK"): needs
# root and the network to Debian's archive; builds only what a client needs.
client-scalapack:
	sh scripts/client_scalapack.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN)
