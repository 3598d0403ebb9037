# pair.mk - builds and installs the pair scheduler (included by the top
# Makefile, which defines BUILD, BPFOUT, KSRC, CLANG, BPFTOOL, Q, PREFIX and
# DESTDIR).
#   make pair                         -> build/pair/pair
#   make install-pair [DESTDIR=] [PREFIX=/usr/local]
#       $(PREFIX)/sbin/pair, $(PREFIX)/lib/systemd/system/pair.service,
#       $(PREFIX)/share/doc/pair/README.md
# The BPF side needs vmlinux.h of the kernel it runs on and the scx headers
# of the series (build/linux/tools/sched_ext/include).

PAIR_OUT := $(BUILD)/pair
PAIR_SRC := $(ROOT)/pair
PAIR_BPF_CFLAGS := -g -O2 -Wall -Wno-compare-distinct-pointer-types -target bpf \
	-mcpu=v3 -D__TARGET_ARCH_x86 -I$(BPFOUT) -I$(SCX_INC) -I$(SCX_INC)/scx -I$(PAIR_SRC)
PAIR_CFLAGS := -g -O2 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-I$(PAIR_OUT) -I$(SCX_INC) -I$(SCX_INC)/scx -I$(PAIR_SRC) -I$(ROOT)/common
PAIR_HDRS := $(PAIR_SRC)/pair.h $(ROOT)/common/scx-loader.h $(wildcard $(SCX_INC)/scx/*.h)

$(PAIR_OUT)/pair.bpf.o: $(PAIR_SRC)/pair.bpf.c $(PAIR_HDRS) $(BPFOUT)/vmlinux.h
	@echo "  CLANG    pair.bpf.o"
	$(Q)mkdir -p $(PAIR_OUT)
	$(Q)$(CLANG) $(PAIR_BPF_CFLAGS) -c $< -o $@

$(PAIR_OUT)/pair.bpf.skel.h: $(PAIR_OUT)/pair.bpf.o
	@echo "  SKEL     pair.bpf.skel.h"
	$(Q)$(BPFTOOL) gen skeleton $< name pair >$@.tmp && mv $@.tmp $@

$(PAIR_OUT)/pair: $(PAIR_SRC)/pair.c $(PAIR_OUT)/pair.bpf.skel.h $(PAIR_HDRS)
	@echo "  CC       pair"
	$(Q)$(CC) $(PAIR_CFLAGS) $< -o $@ -lbpf -lelf -lz -lm

pair: $(PAIR_OUT)/pair

install-pair: pair
	install -D -m 0755 $(PAIR_OUT)/pair $(DESTDIR)$(PREFIX)/sbin/pair
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' \
		-e 's|@DOCDIR@|$(PREFIX)/share/doc/pair|g' $(PAIR_SRC)/pair.service.in \
		>$(DESTDIR)$(PREFIX)/lib/systemd/system/pair.service
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/systemd/system/pair.service
	install -D -m 0644 $(PAIR_SRC)/README.md \
		$(DESTDIR)$(PREFIX)/share/doc/pair/README.md

.PHONY: pair install-pair
