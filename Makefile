# Thin wrapper around meson: the two commands an operator needs, plus bench.
#   make run    install missing deps, build the product (build-run/), start ofcd
#               on config/ofcd.conf
#   make test   install missing deps, build, run unit + integration tests
#               (the dashboard's in Chromium among them), then the unit tests
#               and the input-path integration tests under ASan+UBSan, then the unit tests and the threaded
#               REST integration test under ThreadSanitizer
#   make bench  build optimised, print benchmark figures (bench/out/)
#   make bench-quick  the headline figures next to their peers, ~2 minutes
#   make deb    the Debian package, checked by lintian (build/deb/)

BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_TSAN ?= build-tsan
CONFIG     ?= config/ofcd.conf
MESON      ?= meson
# The test and bench builds carry ofcd's test-only services (the TCP echo of
# tcp.echo_port / tcp.echo_connect that tcp_kernel, tcp_active, ovs_channel
# and the TCP bench drive); a plain `meson setup` builds the product without
# them (docs/architecture.md, "Test-only services").
TEST_OPTS  ?= -Dtest_services=true
# A build dir set up before the option existed, or without it, gets it once
# (--reconfigure: meson configure does not know an option added since the
# setup; run at every make, either would regenerate the build each time).
test_services_on = grep -q '"name": "test_services", "value": true' \
	$(1)/meson-info/intro-buildoptions.json || $(MESON) setup --reconfigure $(1) $(TEST_OPTS)

.PHONY: all deps build build-asan build-tsan run test test-unit test-integration test-asan \
	test-tsan layout bench bench-quick deb clean

all: build

deps:
	@./scripts/install-deps

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --buildtype=debugoptimized $(TEST_OPTS)

$(BUILD_ASAN)/build.ninja:
	$(MESON) setup $(BUILD_ASAN) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
	    $(TEST_OPTS)

# ThreadSanitizer: DPDK's inline rings in their C11 memory-model variant,
# whose acquire/release the sanitizer follows (tests/tsan.supp says why the
# rest of DPDK's ring internals are suppressed).
$(BUILD_TSAN)/build.ninja:
	$(MESON) setup $(BUILD_TSAN) --buildtype=debug -Db_sanitize=thread -Db_lundef=false \
	    -Dc_args=-DRTE_USE_C11_MEM_MODEL $(TEST_OPTS)

build: deps $(BUILD)/build.ninja
	@$(call test_services_on,$(BUILD))
	$(MESON) compile -C $(BUILD)

build-asan: deps $(BUILD_ASAN)/build.ninja
	@$(call test_services_on,$(BUILD_ASAN))
	$(MESON) compile -C $(BUILD_ASAN)

build-tsan: deps $(BUILD_TSAN)/build.ninja
	@$(call test_services_on,$(BUILD_TSAN))
	$(MESON) compile -C $(BUILD_TSAN)

# A report makes the process exit 66 at the end (tests check ofcd's exit
# code); ASLR off because the sanitizer's fixed shadow layout does not fit
# every kernel's randomised mappings; under it, freeing the buffer pools at
# stop takes seconds (OFCD_STOP_S: how long the tests wait after SIGTERM).
TSAN_RUN = TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp second_deadlock_stack=1" \
	OFCD_STOP_S=20 setarch $$(uname -m) -R

# The Debian package (debian/): build/deb/ofcd_VERSION_amd64.deb, checked by
# lintian (scripts/make-deb; README "Install on an appliance").
deb: deps
	./scripts/make-deb

# make run: the product as an operator gets it (no test services, so
# ofcdctl offers no time/warp and tcp.echo_* are refused), in a build of its
# own beside the test builds.
BUILD_RUN ?= build-run
$(BUILD_RUN)/build.ninja:
	$(MESON) setup $(BUILD_RUN) --buildtype=debugoptimized -Dtests=false

run: deps $(BUILD_RUN)/build.ninja
	$(MESON) compile -C $(BUILD_RUN)
	./$(BUILD_RUN)/app/ofcd --config $(CONFIG) $(ARGS)

test-unit: build
	$(MESON) test -C $(BUILD) --suite unit --print-errorlogs

test-integration: build
	$(MESON) test -C $(BUILD) --suite integration --print-errorlogs

test-asan: build-asan
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(MESON) test -C $(BUILD_ASAN) --suite unit --suite asan --print-errorlogs

test-tsan: build-tsan
	$(TSAN_RUN) $(MESON) test -C $(BUILD_TSAN) --suite unit --suite tsan --print-errorlogs

# Every #include runs down the module order, every document cited is in the
# tree (both meson tests of suite layout).
layout:
	./scripts/check-layout .
	./scripts/check-docs .

# All three runs always happen; the summary line counts them together and
# fails the target if any failed. An integration test of suite 'asan' runs
# once, under the sanitizers, not again in the plain build (the same test
# twice cost CI minutes that the browser tests need).
test: build build-asan build-tsan
	-$(MESON) test -C $(BUILD) --print-errorlogs --no-suite asan
	-UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	 $(MESON) test -C $(BUILD_ASAN) --suite unit --suite asan --print-errorlogs
	-$(TSAN_RUN) $(MESON) test -C $(BUILD_TSAN) --suite unit --suite tsan --print-errorlogs
	@./scripts/test-summary $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN)

# Figures, never pass/fail. Optimised build of its own so debug options do
# not skew the numbers; output also kept in bench/out/. Rounds are cut to
# keep it within 25 minutes on a slow day of this 2-core machine (29.0 min
# on 2026-12-05 with 3 rounds of the seed, link-down and batch benches and 3
# cluster kills; each script's header says what more rounds give).
BUILD_BENCH ?= build-bench
$(BUILD_BENCH)/build.ninja:
	$(MESON) setup $(BUILD_BENCH) --buildtype=release $(TEST_OPTS)

bench: deps $(BUILD_BENCH)/build.ninja
	@mkdir -p bench/out && date +%s >bench/out/started
	@$(call test_services_on,$(BUILD_BENCH))
	$(MESON) compile -C $(BUILD_BENCH)
	@mkdir -p bench/out
	BENCH_JSON_DIR=bench/out ./tests/tools/run_bench_tcp.sh $(BUILD_BENCH)/tests/tools \
	    $(BUILD_BENCH)/app/ofcd $(CONFIG) | tee bench/out/tcp.txt
	./tests/bench/run_bench_of.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/openflow.txt
	./tests/bench/run_bench_osken.sh $(BUILD_BENCH)/tests/emu/ofswitch-emu \
	    bench/out | tee bench/out/osken.txt
	./tests/bench/run_bench_rest.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/rest.txt
	./tests/bench/run_bench_isolation.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/isolation.txt
	CHURN_S=30 ./tests/bench/run_bench_hostile.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/hostile.txt
	ROUNDS=2 ./tests/bench/run_bench_tls.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/tls.txt
	ROUNDS=2 ./tests/bench/run_bench_seed_ovs.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) bench/out | \
	    tee bench/out/seed_ovs.txt
	ROUNDS=2 ./tests/bench/run_bench_topology.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/topology.txt
	ROUNDS=2 ./tests/bench/run_bench_linkdown_ovs.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) bench/out | \
	    tee bench/out/linkdown.txt
	./tests/bench/run_bench_eline_failover.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) bench/out | \
	    tee bench/out/eline_failover.txt
	RUNS=2 ./tests/bench/run_bench_ports.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/ports.txt
	./tests/bench/run_bench_durable.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/durable.txt
	ROUNDS=2 ./tests/bench/run_bench_batch.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/batch.txt
	./tests/bench/run_bench_etcd.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/etcd.txt
	SIZES=50 KILLS=2 ./tests/bench/run_bench_cluster.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    bench/out | \
	    tee bench/out/cluster.txt
	ROUNDS=1 ./tests/bench/run_bench_recorder.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out | tee bench/out/recorder.txt
	./scripts/bench-report bench/out

# The headline figures next to their peers in about two minutes; prints
# the change against the previous run (bench/quick-last.json).
bench-quick: deps $(BUILD_BENCH)/build.ninja
	@$(call test_services_on,$(BUILD_BENCH))
	$(MESON) compile -C $(BUILD_BENCH)
	@mkdir -p bench/out
	./tests/bench/run_bench_quick.sh $(BUILD_BENCH)/app/ofcd $(CONFIG) \
	    $(BUILD_BENCH)/tests/emu/ofswitch-emu bench/out bench/quick-last.json

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN) $(BUILD_BENCH)
