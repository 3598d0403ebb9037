# flatcg.mk - builds and installs the flatcg scheduler (included by the top
# Makefile, which defines BUILD, BPFOUT, KSRC, CLANG, BPFTOOL, Q).
#   make flatcg                       -> build/flatcg/flatcg
#   make install-flatcg [DESTDIR=] [PREFIX=/usr/local]  (make install: both)
#       $(PREFIX)/sbin/flatcg, $(PREFIX)/lib/systemd/system/flatcg.service,
#       $(PREFIX)/share/doc/flatcg/README.md
# The BPF side needs vmlinux.h of the kernel it runs on and the scx headers
# of the series (build/linux/tools/sched_ext/include).

FCG_OUT := $(BUILD)/flatcg
FCG_SRC := $(ROOT)/flatcg
SCX_INC := $(KSRC)/tools/sched_ext/include
FCG_BPF_CFLAGS := -g -O2 -Wall -Wno-compare-distinct-pointer-types -target bpf \
	-mcpu=v3 -D__TARGET_ARCH_x86 -I$(BPFOUT) -I$(SCX_INC) -I$(SCX_INC)/scx -I$(FCG_SRC)
FCG_CFLAGS := -g -O2 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-I$(FCG_OUT) -I$(SCX_INC) -I$(SCX_INC)/scx -I$(FCG_SRC) -I$(ROOT)/common
FCG_HDRS := $(FCG_SRC)/flatcg.h $(ROOT)/common/scx-loader.h $(wildcard $(SCX_INC)/scx/*.h)
PREFIX ?= /usr/local
DESTDIR ?=

$(FCG_OUT)/flatcg.bpf.o: $(FCG_SRC)/flatcg.bpf.c $(FCG_HDRS) $(BPFOUT)/vmlinux.h
	@echo "  CLANG    flatcg.bpf.o"
	$(Q)mkdir -p $(FCG_OUT)
	$(Q)$(CLANG) $(FCG_BPF_CFLAGS) -c $< -o $@

$(FCG_OUT)/flatcg.bpf.skel.h: $(FCG_OUT)/flatcg.bpf.o
	@echo "  SKEL     flatcg.bpf.skel.h"
	$(Q)$(BPFTOOL) gen skeleton $< name flatcg >$@.tmp && mv $@.tmp $@

$(FCG_OUT)/flatcg: $(FCG_SRC)/flatcg.c $(FCG_OUT)/flatcg.bpf.skel.h $(FCG_HDRS)
	@echo "  CC       flatcg"
	$(Q)$(CC) $(FCG_CFLAGS) $< -o $@ -lbpf -lelf -lz -lm

flatcg: $(FCG_OUT)/flatcg

# the unit names the installed paths, so it is made for each PREFIX here
install-flatcg: flatcg
	install -D -m 0755 $(FCG_OUT)/flatcg $(DESTDIR)$(PREFIX)/sbin/flatcg
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' \
		-e 's|@DOCDIR@|$(PREFIX)/share/doc/flatcg|g' $(FCG_SRC)/flatcg.service.in \
		>$(DESTDIR)$(PREFIX)/lib/systemd/system/flatcg.service
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/systemd/system/flatcg.service
	install -D -m 0644 $(FCG_SRC)/README.md \
		$(DESTDIR)$(PREFIX)/share/doc/flatcg/README.md

.PHONY: flatcg install-flatcg
