# Thin wrapper around meson: the two commands an operator needs, plus bench.
#   make run    install missing deps, build, start ofcd on config/ofcd.conf
#   make test   install missing deps, build, run unit + integration tests,
#               then the unit tests again under ASan+UBSan
#   make bench  build optimised, print benchmark figures (bench/out/)

BUILD      ?= build
BUILD_ASAN ?= build-asan
CONFIG     ?= config/ofcd.conf
MESON      ?= meson

.PHONY: all deps build build-asan run test test-unit test-integration test-asan bench clean

all: build

deps:
	@./scripts/install-deps

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --buildtype=debugoptimized

$(BUILD_ASAN)/build.ninja:
	$(MESON) setup $(BUILD_ASAN) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

build: deps $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)

build-asan: deps $(BUILD_ASAN)/build.ninja
	$(MESON) compile -C $(BUILD_ASAN)

run: build
	./$(BUILD)/app/ofcd --config $(CONFIG) $(ARGS)

test-unit: build
	$(MESON) test -C $(BUILD) --suite unit --print-errorlogs

test-integration: build
	$(MESON) test -C $(BUILD) --suite integration --print-errorlogs

test-asan: build-asan
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(MESON) test -C $(BUILD_ASAN) --suite unit --suite asan --print-errorlogs

# Both runs always happen; the summary line counts them together and fails
# the target if either failed.
test: build build-asan
	-$(MESON) test -C $(BUILD) --print-errorlogs
	-UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	 $(MESON) test -C $(BUILD_ASAN) --suite unit --suite asan --print-errorlogs
	@./scripts/test-summary $(BUILD) $(BUILD_ASAN)

# Figures, never pass/fail. Optimised build of its own so debug options do
# not skew the numbers; output also kept in bench/out/.
BUILD_BENCH ?= build-bench
$(BUILD_BENCH)/build.ninja:
	$(MESON) setup $(BUILD_BENCH) --buildtype=release

bench: deps $(BUILD_BENCH)/build.ninja
	$(MESON) compile -C $(BUILD_BENCH)
	@mkdir -p bench/out
	BENCH_JSON_DIR=bench/out ./tests/tools/run_bench_tcp.sh $(BUILD_BENCH)/tests/tools \
	    $(BUILD_BENCH)/app/ofcd $(CONFIG) | tee bench/out/tcp.txt
	./tests/bench/run_bench_of.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/bench/ofswitch-emu/ofswitch-emu bench/out | tee bench/out/openflow.txt
	./tests/bench/run_bench_osken.sh $(BUILD_BENCH)/tests/bench/ofswitch-emu/ofswitch-emu \
	    bench/out | tee bench/out/osken.txt
	./tests/bench/run_bench_rest.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/bench/ofswitch-emu/ofswitch-emu bench/out | tee bench/out/rest.txt
	./scripts/bench-report bench/out

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_BENCH)
