/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one program builder: expressions, and the source their packets come
 * from, to one program (each expression's query and key layout, the
 * instructions and the way they read the frame).  main, the tests and the benchmarks all build programs
 * here.  It makes no bpf(2) call and creates no maps.
 */
#ifndef EBPFCOUNT_COMPILE_H
#define EBPFCOUNT_COMPILE_H

#include <stddef.h>

#include "codegen.h"

/*
 * Where the packets come from.  Either way the program sees each packet as
 * a packet socket on an Ethernet interface sees it, from the Ethernet
 * header on; what differs is the where clause: on a live interface the
 * kernel has moved the outer VLAN tag out of the frame, in a file it is
 * inline (see filter.h).
 */
struct source {
	const char *ifname;	/* a live interface, or NULL for a capture file */
	const char *linktype;	/* a file's, when not Ethernet: no Ethernet addresses */
	int cooked;		/* live on every interface (-i any): see frame.h */
	unsigned int loopback;	/* lo's index where the socket sees lo's packets
				 * (-i lo, -i any), which it sees twice; else 0 */
};

struct build_opts {
	struct source src;
	enum frame_mode allowed;	/* what the verifier will accept (load.h) */
	unsigned int max_keys;		/* bound of a hash's keys (--max-keys), 0: none */
	int slow_only;			/* no fast paths: for tests (see codegen.c) */
};

struct program {
	struct expr x[MAX_EXPRS];
	int nx;
	struct emit e;
	enum frame_mode allowed;	/* what the verifier would accept */
	enum frame_mode mode;		/* how it reads the frame, as chosen */
};

struct build_error {
	int expr;			/* the expression it is about */
	int pos;			/* offset in it, -1: not about one */
	char msg[512];
};

/*
 * The longest program built with its fast paths (codegen.c), which add
 * code: a longer one is built without.  A socket takes a filter of about
 * 2500 instructions as the kernel translates it (its option memory,
 * net.core.optmem_max, 20480 bytes by default); eight expressions of 1648
 * instructions attached, 1771 did not.
 */
#define PROGRAM_FAST_BUDGET 1536

/*
 * Parse the n (at most MAX_EXPRS) expressions exprs, which must outlive
 * p, compile their where clauses for o->src, lay out their keys and
 * generate their program into p.  Returns 0, or -1 with err filled (and p
 * freed).  The program's map loads refer to map slots until
 * layout_relocate().
 */
int program_build(struct program *p, const char *const *exprs, int n,
		  const struct build_opts *o, struct build_error *err);
void program_free(struct program *p);

/* How a program reads the frame, in words, for -v. */
const char *program_frame_mode(const struct program *p);

#endif
