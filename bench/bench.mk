# bench/bench.mk - make targets of the bench harness (included by the top
# Makefile, which defines ROOT, BUILD, KIMAGE and the kernel target).
#   make bench                 full run of every scenario into results/
#                              (waits for a quiet host first, see run.sh -w)
#   make bench QUICK=1         every scenario once, briefly, into build/bench/
#   make bench SCENARIOS="web" only the named scenarios
#   make bench PIN=1           vCPU threads pinned to host CPUs (run.sh -P)
#   make bench-check           harness self-check (also run by make test as
#                              tests/host/65-bench-selfcheck.sh; quick-mode
#                              plumbing end to end, broken config refused)
BENCH_STATS := $(BUILD)/bench/stats
BENCH_HOSTSPEED := $(BUILD)/bench/hostspeed
BENCH_MODE = $(if $(filter 1 yes y true,$(QUICK)),-q,-w) $(if $(filter 1 yes y true,$(PIN)),-P)

$(BENCH_STATS): $(ROOT)/bench/stats.c
	@mkdir -p $(dir $@)
	$(Q)gcc -O2 -Wall -Wextra -std=c11 -o $@ $< -lm

$(BENCH_HOSTSPEED): $(ROOT)/bench/hostspeed.c
	@mkdir -p $(dir $@)
	$(Q)gcc -O2 -Wall -Wextra -std=c11 -o $@ $<

.PHONY: bench bench-check bench-stats
TEST_DEPS += bench-stats
bench-stats: $(BENCH_STATS) $(BENCH_HOSTSPEED)

# the schedulers the scenarios run are built first (bench/run.sh also
# checks each plug-in's loader before booting)
bench: deps kernel bpf $(BENCH_STATS) $(BENCH_HOSTSPEED)
	$(Q)BUILD=$(BUILD) STATS=$(BENCH_STATS) HOSTSPEED=$(BENCH_HOSTSPEED) $(ROOT)/bench/run.sh $(BENCH_MODE) $(SCENARIOS)

bench-check: kernel bpf $(BENCH_STATS) $(BENCH_HOSTSPEED)
	$(Q)BUILD=$(BUILD) STATS=$(BENCH_STATS) HOSTSPEED=$(BENCH_HOSTSPEED) $(ROOT)/bench/selfcheck.sh
