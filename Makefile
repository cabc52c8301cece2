# SPDX-License-Identifier: GPL-2.0
# ebpfcount: `make demo` and `make check` do all set-up on Debian 12 as root.

CC       ?= gcc
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc
LDLIBS   := -lbpf -lpcap -lmicrohttpd -lncursesw -ltinfo -lpthread -lm
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
B        := build
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1)

SRCS     := $(filter-out src/main.c,$(wildcard src/*.c))
OBJS     := $(SRCS:src/%.c=$(B)/obj/%.o)
SAN_OBJS := $(SRCS:src/%.c=$(B)/san/%.o)
UNITS    := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
# craft's spec language (tests/spec.c): the frame builder of every test
SPEC     := tests/spec.c
UNIT_DEPS := $(filter-out tests/unit/test_%,$(wildcard tests/unit/*.[ch])) tests/tap.h \
	$(SPEC) tests/spec.h
PROGS    := $(patsubst tests/progs/%.c,$(B)/bin/%,$(wildcard tests/progs/*.c))

.PHONY: all deps bench-deps fuzz-deps pkg-deps fuzzers fuzz kernel check check-debug unit guest \
	demo bench cost soak install uninstall deb clean
PRELOAD  := $(patsubst tests/preload/%.c,$(B)/guest/usr/lib/ebpfcount/%.so,$(wildcard tests/preload/*.c))
all: $(B)/bin/ebpfcount $(PROGS) $(PRELOAD)

deps:
	@qemu-env/deps.sh

$(B)/obj/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(B)/san/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -c $< -o $@

$(B)/bin/ebpfcount: $(B)/obj/main.o $(OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(B)/obj/main.o $(B)/obj/options.o: $(B)/obj/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DEBPFCOUNT_VERSION='"$(VERSION)"' -c $< -o $@

# Test programs run in the guests; they share headers and the frame builder.
$(B)/bin/%: tests/progs/%.c $(wildcard tests/progs/*.h tests/tap.h src/*.h) $(SPEC) tests/spec.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests $< $(SPEC) $(LDLIBS) -o $@

# LD_PRELOAD shims for the guest fault tests (build/guest is the guests' /).
$(B)/guest/usr/lib/ebpfcount/%.so: tests/preload/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC $< -ldl -o $@

# bench_prog loads ebpfcount's own programs, bench_readout reads its maps:
# they link the objects of src/.
$(B)/bin/bench_prog $(B)/bin/bench_readout: $(B)/bin/%: tests/progs/%.c $(OBJS) $(SPEC)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests $< $(SPEC) $(OBJS) $(LDLIBS) -o $@

# Hand-written C counterparts of ebpfcount's programs (make bench only).
BPF_OBJS := $(patsubst tests/bench/c/%.bpf.c,$(B)/bench/%.bpf.o,$(wildcard tests/bench/c/*.bpf.c))
$(B)/bench/%.bpf.o: tests/bench/c/%.bpf.c $(wildcard tests/bench/c/*.h tests/bench/c/*.bpf.c)
	@mkdir -p $(@D)
	clang -O2 -g -target bpf -I/usr/include/$(shell $(CC) -print-multiarch) -Wall -c $< -o $@

# The cost table (issue 27): ebpfcount's programs and their C twins counted
# in the engine (tests/bench/cost.c, cost.py); make check guards a baseline.
$(B)/bench/cost: tests/bench/cost.c $(OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(OBJS) $(LDLIBS) -lelf -o $@

cost: $(B)/bench/cost $(BPF_OBJS) $(B)/bin/craft
	@tests/bench/cost.py --json

# Host unit tests, built twice: plain and under ASan/UBSan.  Helpers in
# tests/unit (ebpf_vm.c) are #included by the tests that use them.
$(B)/unit/%: tests/unit/%.c $(OBJS) $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests -Itests/unit $< $(SPEC) $(OBJS) $(LDLIBS) -o $@
$(B)/unit-san/%: tests/unit/%.c $(SAN_OBJS) $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -Itests -Itests/unit $< $(SPEC) $(SAN_OBJS) $(LDLIBS) -o $@

unit: $(UNITS:%=$(B)/unit/%) $(UNITS:%=$(B)/unit-san/%)

# libFuzzer targets (tests/fuzz/README), built with Debian's clang: a third
# set of objects, instrumented for coverage and under ASan/UBSan.  The
# engine and the maps' readout run every input's program: comparisons there
# follow data, not magic values, and tracing them would triple the time.
# `make fuzz` runs each target for FUZZ_SECONDS, 10 minutes in all by default.
FUZZ_CC   := clang
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_COV  := -fsanitize=fuzzer-no-link
FUZZ_OBJS := $(SRCS:src/%.c=$(B)/fuzz/obj/%.o)
FUZZERS   := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= $(shell echo $$((600 / $(words $(FUZZERS)))))

# clang, and libclang_rt.fuzzer*.a, which libclang-rt-14-dev holds
fuzz-deps:
	@qemu-env/deps.sh clang libclang-rt-dev

$(B)/fuzz/obj/vm.o $(B)/fuzz/obj/maps.o: FUZZ_COV += -fno-sanitize-coverage=trace-cmp
$(B)/fuzz/obj/%.o: src/%.c $(wildcard src/*.h) | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CFLAGS) $(FUZZ_SAN) $(FUZZ_COV) -c $< -o $@

$(FUZZERS:%=$(B)/fuzz/%): $(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(SPEC) tests/spec.h \
		$(FUZZ_OBJS) | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -Itests -Itests/fuzz $< $(SPEC) \
		$(FUZZ_OBJS) \
		$(LDLIBS) -o $@

fuzzers: $(FUZZERS:%=$(B)/fuzz/%)

# The fuzzers for FUZZ_SECONDS each, then the guests' property test
# (tests/vm/57-property.t) with a new seed, which it prints.
fuzz: deps fuzzers
	@tests/fuzz/run -t $(FUZZ_SECONDS) $(FUZZERS)
	@$(MAKE) --no-print-directory all kernel
	@EBPFCOUNT_SEED=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') tests/run tests/vm/57-property.t

kernel: deps
	@qemu-env/kernel.sh stock
	@qemu-env/kernel.sh patched

# All tests: host unit tests (plain and sanitized), then the guest tests on
# the patched kernel (EBPFCOUNT_KERNEL=stock to point them at stock).
check: deps fuzz-deps pkg-deps
	@$(MAKE) --no-print-directory all unit fuzzers $(B)/bench/cost $(BPF_OBJS)
	@$(MAKE) --no-print-directory kernel
	@tests/run

# The guest tests on the debug build of the series (KASAN, lockdep,
# preemption checks; kernel-patches/debug.config) next to stock, and the
# per-CPU tests on a CONFIG_SMP=n build (tests/debug/).
check-debug: deps
	@$(MAKE) --no-print-directory all
	@qemu-env/kernel.sh stock
	@qemu-env/kernel.sh patched-debug
	@qemu-env/kernel.sh patched-up
	@EBPFCOUNT_KERNEL=patched-debug EBPFCOUNT_KERNELS="stock patched-debug" \
		tests/run tests/vm/*.t tests/debug/*.t

# Not in make check: SOAK_SECONDS (default 600) of iperf3 traffic and
# churning keys in a guest; ebpfcount's RSS and descriptors and the
# kernel's BPF memory must stay flat, the totals exact (tests/soak/soak.t).
soak: deps
	@$(MAKE) --no-print-directory all kernel
	@tests/run tests/soak/soak.t

demo: deps
	@$(MAKE) --no-print-directory all kernel
	@qemu-env/demo.sh

bench-deps:
	@qemu-env/deps.sh clang llvm time

bench: deps bench-deps
	@$(MAKE) --no-print-directory all kernel $(BPF_OBJS)
	@tests/bench/run

# make install: the binary, the man page and the systemd unit (whose
# ExecStart names the installed binary) under $(DESTDIR)$(PREFIX).
PREFIX  ?= /usr/local
BINDIR  := $(PREFIX)/bin
MANDIR  := $(PREFIX)/share/man
UNITDIR := $(PREFIX)/lib/systemd/system

install: $(B)/bin/ebpfcount
	install -D -m 0755 $(B)/bin/ebpfcount $(DESTDIR)$(BINDIR)/ebpfcount
	install -D -m 0644 man/ebpfcount.8 $(DESTDIR)$(MANDIR)/man8/ebpfcount.8
	sed 's|/usr/bin/ebpfcount|$(BINDIR)/ebpfcount|' contrib/ebpfcount@.service \
		>$(B)/ebpfcount@.service
	install -D -m 0644 $(B)/ebpfcount@.service $(DESTDIR)$(UNITDIR)/ebpfcount@.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ebpfcount $(DESTDIR)$(MANDIR)/man8/ebpfcount.8 \
		$(DESTDIR)$(UNITDIR)/ebpfcount@.service

# Packaging tools, the build dependencies of debian/control, and what
# tests/host/80-package.t checks with.
pkg-deps:
	@qemu-env/deps.sh debhelper dpkg-dev lintian mandoc groff-base systemd gcc make \
		pkg-config libbpf-dev libpcap-dev libmicrohttpd-dev libncurses-dev

# The Debian package (debian/) of the committed tree, HEAD: built from a
# copy in a temporary directory, since dpkg-buildpackage writes next to
# the tree; the .deb is left in build/deb.
deb: pkg-deps
	@rm -rf $(B)/deb
	@mkdir -p $(B)/deb
	@t=$$(mktemp -d) && trap 'rm -rf "$$t"' EXIT && \
		git archive --prefix=ebpfcount/ HEAD | tar -x -C "$$t" && \
		(cd "$$t/ebpfcount" && dpkg-buildpackage -us -uc -b) && \
		cp "$$t"/ebpfcount_*.deb $(B)/deb/

clean:
	rm -rf $(B)
