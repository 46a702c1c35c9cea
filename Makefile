# vmemscope — convenience targets over CMake. `make demo` and `make test` do
# all the set-up on a fresh Debian 12 machine (scripts/bootstrap).

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
PREFIX     ?= /usr/local
JOBS       ?= 2
FUZZ_SECONDS ?= 20
CC         ?= cc
MAKEFLAGS  += --no-print-directory

.PHONY: all bootstrap build demo test python-venv asan tsan fuzz bench install format clang golden-update clean \
        oracle-setup oracle oracle-table oracle-gen

all: build

bootstrap:
	@scripts/bootstrap

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: bootstrap $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

demo: build python-venv
	@scripts/demo $(BUILD)/vmemscope

# The Python tests' venv (pinned JAX and pytest from PyPI): made once;
# without PyPI the JAX tests skip and say why.
VENV ?= .venv

python-venv:
	@scripts/python-venv $(VENV)

test: build python-venv
	@scripts/run-tests $(BUILD)

# Every test again under AddressSanitizer and UndefinedBehaviorSanitizer (clang).
asan: bootstrap
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DVMEM_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	@ASAN_OPTIONS=detect_leaks=1 scripts/run-tests $(ASAN_BUILD)

# The library's threads under ThreadSanitizer (clang): the heap tests, whose
# halves-of-time test runs two threads on 200 random mixes, and the HLO
# reader's halves, cut at every line of its fixtures.
tsan: bootstrap
	cmake -S . -B build-tsan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DVMEM_TSAN=ON
	cmake --build build-tsan -j$(JOBS) --target test_heap test_hlo_halves
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/test_heap
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/test_hlo_halves

# The same sources built with clang and gcc must both be warning-free.
# The C sources in the project's style (.clang-format); CTest `format` checks it.
format: bootstrap
	scripts/format

clang: bootstrap
	cmake -S . -B build-clang -DCMAKE_C_COMPILER=clang
	cmake --build build-clang -j$(JOBS)

fuzz: bootstrap
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DVMEM_FUZZ=ON -DVMEM_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j$(JOBS)
	@scripts/run-fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: bootstrap
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DVMEM_TESTS=OFF
	cmake --build build-bench -j$(JOBS)
	@echo "== bench_shape"; build-bench/bench_shape
	@echo "== bench_hlo"; build-bench/bench_hlo 100 ../shared/corpus/hlo/gpu_large_loop_fusion_1.8MB.hlo
	@echo "== bench_explain"; build-bench/bench_explain 100
	@echo "== bench_fit"; build-bench/bench_fit
	@echo "== bench_stablehlo"; build-bench/bench_stablehlo 100
	@echo "== bench_program"; build-bench/bench_program 200000
	@echo "== bench_heap"; build-bench/bench_heap 1000000
	@echo "== bench_compile"; build-bench/bench_compile

# The oracle (oracle/, docs/fidelity.md): the real TPU compiler, from PyPI's
# libtpu, in a venv of its own. Only oracle-setup downloads; the tests read
# the committed records in tests/oracle/ and need neither JAX nor libtpu.
ORACLE_VENV ?= .venv-oracle
ORACLE_TARGETS ?= v2 v3 v4 v5e v5p v6e 7x

$(ORACLE_VENV)/.installed: oracle/requirements.txt
	python3 -m venv $(ORACLE_VENV)
	$(ORACLE_VENV)/bin/pip install -q -r oracle/requirements.txt
	touch $@

oracle-setup: $(ORACLE_VENV)/.installed

# Records every case for every target again, then prints the agreement table.
oracle: oracle-setup build
	$(ORACLE_VENV)/bin/python oracle/record.py $(addprefix --target ,$(ORACLE_TARGETS))
	@python3 oracle/compare.py --vmemscope $(BUILD)/vmemscope tests/oracle

# The agreement table over the committed records (no venv needed), then the
# generated kernels' test split: the measures docs/fidelity.md reports.
oracle-table: build
	@python3 oracle/compare.py --vmemscope $(BUILD)/vmemscope tests/oracle
	@echo; echo "== generated kernels, the test split (oracle/gen; no rule looks at it)"
	@python3 oracle/gen/compare_gen.py --vmemscope $(BUILD)/vmemscope --split test tests/oracle/gen

# Generated kernels (oracle/gen/grammar.py) recorded with libtpu for the four
# current targets, two recorders at once; resumes where it stopped, then packs
# the records into tests/oracle/gen/SPLIT/TARGET.N.jsonl.gz.
GEN_SEEDS ?= 0:3000
oracle-gen: oracle-setup
	$(ORACLE_VENV)/bin/python oracle/gen/record_gen.py --target v5e --target v6e --seeds $(GEN_SEEDS) > /tmp/vmemscope-gen-a.log 2>&1 & \
	$(ORACLE_VENV)/bin/python oracle/gen/record_gen.py --target v5p --target 7x --seeds $(GEN_SEEDS) > /tmp/vmemscope-gen-b.log 2>&1; \
	wait
	$(ORACLE_VENV)/bin/python oracle/gen/record_gen.py --pack

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# Rewrites the expected outputs of the golden CLI tests from the current
# binary. Review the diff before committing it.
golden-update: build
	@scripts/golden-update $(BUILD)/vmemscope

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) build-bench build-clang build-tsan
