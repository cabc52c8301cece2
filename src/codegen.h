/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code generator: parsed queries (and their translated pcap filters)
 * become one socket filter program that counts packets and bytes per key
 * in a per-CPU map per query and returns 0, so that no packet is queued
 * to the socket.
 * The key layout it writes is in layout.h.
 */
#ifndef EBPFCOUNT_CODEGEN_H
#define EBPFCOUNT_CODEGEN_H

#include <stddef.h>
#include <linux/filter.h>

#include "emit.h"
#include "frame.h"
#include "layout.h"
#include "parse.h"

/* One expression of a program: what it counts and its where clause. */
struct codegen_expr {
	const struct query *q;
	const struct layout *lay;
	const struct sock_filter *filter;	/* its classic BPF, or NULL */
	unsigned int n;				/* instructions of filter */
};

/*
 * Emit the program for the nx expressions x into e: each counts in its
 * own maps, expression i's in slots MAP_SLOT(i, ...) (layout.h).  mode
 * says how the frame is read (see frame.h); loopback: the index of a
 * loopback whose packets the socket sees leave and arrive, whose outgoing
 * copies are then not counted (libpcap drops them), else 0.  Returns 0,
 * or -1 with err filled.
 */
int codegen(const struct codegen_expr *x, int nx, enum frame_mode mode, unsigned int loopback,
	    struct emit *e, char *err, size_t errlen);

/*
 * How the program for x reads the frame when allowed says what the
 * verifier accepts: FRAME_LD_ABS also when the program would read the
 * frame only once or twice and has no where clause, as a copy costs about
 * as much as two loads.
 */
enum frame_mode codegen_frame_mode(const struct codegen_expr *x, int nx, enum frame_mode allowed);

#endif
