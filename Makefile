# Top-level build of the project: kernel (Debian 6.1 + kernel-patches/),
# BPF programs, tests in QEMU, benchmarks.  `make help` lists the targets.
# Quiet by default; V=1 shows every command.  DEBUG=1 builds and tests a
# kernel with lock/atomic-sleep debugging in build/kbuild-debug.

ROOT   := $(CURDIR)
BUILD  := $(ROOT)/build
DEBUG  ?= 0
V      ?= 0
ifeq ($(DEBUG),1)
KOBJ   := $(BUILD)/kbuild-debug
FRAGS  := $(filter-out %/debug.config,$(wildcard kernel-patches/*.config)) kernel-patches/debug.config
else
KOBJ   := $(BUILD)/kbuild
FRAGS  := $(filter-out %/debug.config,$(wildcard kernel-patches/*.config))
endif
KIMAGE := $(KOBJ)/arch/x86/boot/bzImage
BPFOUT := $(BUILD)/bpf
STAMPS := $(BUILD)/stamps
export BUILD KOBJ KIMAGE V

Q := $(if $(filter 1,$(V)),,@)
CLANG   ?= clang-16
BPFTOOL ?= bpftool
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -I$(BPFOUT)
USER_CFLAGS := -g -O2 -Wall -Wextra -Wno-unused-parameter -I$(BPFOUT)
USER_LIBS := -lbpf -lelf -lz

# Debian packages the project uses (make deps installs the missing ones).
DEB_PKGS := linux-source-6.1 build-essential bc bison flex libssl-dev \
	libelf-dev zlib1g-dev dwarves cpio xz-utils kmod rsync git ccache \
	qemu-system-x86 busybox-static clang-16 llvm-16 bpftool libbpf-dev \
	cgroup-tools apache2 wrk stress-ng linux-perf gnuplot-nox iproute2 procps \
	rt-tests python3 systemd util-linux

.PHONY: all help deps kernel kernel-force bpf scx test test-full vm-shell export-patches check-patches selftest-repeat soak-hotplug soak-reload clean distclean
all: kernel bpf

help:
	@echo "make deps            install the Debian packages the project needs (root)"
	@echo "make kernel          unpack linux-source-6.1, apply kernel-patches/, build"
	@echo "make kernel-force    rebuild after editing build/linux by hand"
	@echo "make bpf             build the BPF programs and their loaders (and scx, tests/tools)"
	@echo "make scx             build tools/sched_ext and the sched_ext selftests"
	@echo "make flatcg          build the flatcg scheduler (build/flatcg/flatcg)"
	@echo "make pair            build the pair scheduler (build/pair/pair)"
	@echo "make install         install flatcg and pair with their systemd units (DESTDIR=, PREFIX=/usr/local)"
	@echo "make test            deps + kernel + bpf, the quick tier of the host and guest suites (CI)"
	@echo "make test-full       the same with every test: long stress, soak, bench self-check"
	@echo "make bench [QUICK=1] run the benchmark scenarios, write results/"
	@echo "make vm-shell        interactive shell in the guest (exit powers off)"
	@echo "make export-patches  turn build/linux commits into kernel-patches/"
	@echo "make selftest-repeat T=\"NAME...\" [N=20]  run sched_ext selftests N times in one guest (flake check)"
	@echo "make soak-hotplug [N=40]  CPU hotplug under pair N times in one guest (hang hunt, not in make test)"
	@echo "make soak-reload [N=300]  scheduler unload/reload racing CPU hotplug N times in one guest (hang hunt)"
	@echo "make check-patches [FROM=N]  checkpatch --strict every patch, build the series patch by patch (from patch N)"
	@echo "make clean           remove build outputs but keep build/linux"
	@echo "make distclean       remove build/ entirely"
	@echo "Options: V=1 verbose, DEBUG=1 lockdep/atomic-sleep kernel (build/kbuild-debug)"

deps:
	$(Q)missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "  DEPS     apt-get install $$missing"; \
		[ "$$(id -u)" = 0 ] || { echo "error: run 'make deps' as root to install: $$missing" >&2; exit 1; }; \
		mkdir -p $(BUILD); \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >$(BUILD)/deps.log 2>&1 \
			|| { tail -n 20 $(BUILD)/deps.log >&2; exit 1; }; \
	fi

# ---- kernel -------------------------------------------------------------
PATCH_INPUTS := kernel-patches/series $(wildcard kernel-patches/*.patch) \
	scripts/kernel-prepare.sh scripts/common.sh
$(STAMPS)/prepare: $(PATCH_INPUTS)
	$(Q)mkdir -p $(STAMPS)
	$(Q)scripts/kernel-prepare.sh
	$(Q)touch $@

KSTAMP := $(KOBJ)/.stamp-built
$(KSTAMP): $(STAMPS)/prepare $(FRAGS) scripts/kernel-build.sh scripts/kernel-config.sh
	$(Q)scripts/kernel-build.sh $(FRAGS)
	$(Q)touch $@

kernel: deps $(KSTAMP)
kernel-force: $(STAMPS)/prepare
	$(Q)scripts/kernel-build.sh $(FRAGS)
	$(Q)touch $(KSTAMP)

selftest-repeat:
	$(Q)scripts/selftest-repeat.sh $(if $(N),-n $(N)) $(T)

soak-hotplug soak-reload:
	$(Q)scripts/soak.sh $(if $(N),-n $(N)) $(@:soak-%=%)

check-patches: $(STAMPS)/prepare
	$(Q)CHECK_FROM=$(FROM) scripts/check-patches.sh $(FRAGS)

export-patches:
	$(Q)scripts/export-patches.sh
	$(Q)mkdir -p $(STAMPS) && touch $(STAMPS)/prepare

# ---- BPF programs -------------------------------------------------------
# vmlinux.h comes from the built kernel's BTF; every BPF object depends on it.
$(BPFOUT)/vmlinux.h: $(KSTAMP)
	$(Q)mkdir -p $(BPFOUT)
	@echo "  GEN      vmlinux.h"
	$(Q)$(BPFTOOL) btf dump file $(KOBJ)/vmlinux format c >$@.tmp && mv $@.tmp $@

$(BPFOUT)/%.bpf.o: tests/bpf/%.bpf.c $(BPFOUT)/vmlinux.h
	@echo "  CLANG    $(notdir $@)"
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BPFOUT)/%.skel.h: $(BPFOUT)/%.bpf.o
	@echo "  SKEL     $(notdir $@)"
	$(Q)$(BPFTOOL) gen skeleton $< >$@.tmp && mv $@.tmp $@

$(BPFOUT)/%: tests/bpf/%.c $(BPFOUT)/%.skel.h
	@echo "  CC       $(notdir $@)"
	$(Q)$(CC) $(USER_CFLAGS) $< -o $@ $(USER_LIBS)

# Plain C helpers of the guest tests (tests/tools/*.c, no BPF).
TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))
$(BUILD)/tools/%: tests/tools/%.c
	@echo "  CC       $(notdir $@)"
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(USER_CFLAGS) $< -o $@

.SECONDARY:
BPF_TARGETS := $(BPFOUT)/swcount $(BPFOUT)/tcpca $(BPFOUT)/swdelay $(BPFOUT)/lockhold
bpf: $(BPF_TARGETS) scx flatcg pair $(TOOLS)

# sched_ext schedulers and selftests live in the kernel tree (the series adds
# them); their own makefiles build them against the built kernel's BTF.
KSRC   ?= $(BUILD)/linux
SCXOUT := $(BUILD)/scx
scx: $(KSTAMP)
	@echo "  SCX      tools/sched_ext, selftests/sched_ext -> $(SCXOUT)"
	$(Q)$(MAKE) -s -C $(KSRC)/tools/sched_ext VMLINUX=$(KOBJ)/vmlinux OUTPUT=$(SCXOUT)
	$(Q)$(MAKE) -s -C $(KSRC)/tools/testing/selftests/sched_ext \
		VMLINUX=$(KOBJ)/vmlinux OUTPUT=$(SCXOUT)/selftests

include flatcg/flatcg.mk
include pair/pair.mk

install: install-flatcg install-pair
.PHONY: install

# ---- tests and VM -------------------------------------------------------
# Included makefiles may add prerequisites of `make test` to TEST_DEPS.
TEST_DEPS :=
-include bench/bench.mk

# make test: the quick tier (what CI runs); make test-full: every test,
# with the long stress, soak and bench self-check cases
test: deps kernel bpf $(TEST_DEPS)
	$(Q)TIER=quick scripts/test.sh

test-full: deps kernel bpf $(TEST_DEPS)
	$(Q)TIER=full scripts/test.sh

vm-shell: kernel
	$(Q)vm/run-qemu.sh -s $(VMFLAGS)

clean:
	$(Q)rm -rf $(BPFOUT) $(SCXOUT) $(BUILD)/tools $(BUILD)/test $(BUILD)/vm $(BUILD)/kbuild $(BUILD)/kbuild-debug $(STAMPS)

distclean:
	$(Q)rm -rf $(BUILD)
