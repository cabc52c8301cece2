/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code generator: a parsed query (and its translated pcap filter) becomes
 * one socket filter program that counts packets and bytes per key in a
 * per-CPU map and returns 0, so that no packet is queued to the socket.
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

/*
 * Emit the program for q into e.  filter (n instructions, may be NULL) is
 * the classic BPF of the where clause; mode says how the frame is read
 * (see frame.h); loopback: the index of a loopback whose packets the
 * socket sees leave and arrive, whose outgoing copies are then not
 * counted (libpcap drops them), else 0.  Returns 0, or -1 with err filled.
 */
int codegen(const struct query *q, const struct layout *lay,
	    const struct sock_filter *filter, unsigned int n, enum frame_mode mode,
	    unsigned int loopback, struct emit *e, char *err, size_t errlen);

/*
 * How the program for q reads the frame when allowed says what the
 * verifier accepts: FRAME_LD_ABS also when the program would read the
 * frame only once or twice and has no where clause (filtered), as a copy
 * costs about as much as two loads.
 */
enum frame_mode codegen_frame_mode(const struct query *q, int filtered, enum frame_mode allowed);

#endif
