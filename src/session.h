/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One program counting, for every caller (main.c, the benchmarks, the
 * fuzzers): each expression's tables, created in the kernel or in the
 * user engine, the program relocated to them and loaded into the same
 * place; then packets run through it (the engine, or the kernel's test
 * run) or it is attached to a live socket (attach.h); and its reports
 * read the tables, interval by interval (report.h).  Errors come back
 * with their cause; nothing here exits.
 *
 *	struct session s;
 *	if (session_open(&s, &p, &(struct session_opts){ .kernel = 1 }, err, n))
 *		...
 *	session_run(&s, &pkt, err, n);	(or session_attach(&s, "eth0", 1, err, n))
 *	session_collect(&s, iv);	(or maps.h reads s.m[i])
 *	session_close(&s);
 */
#ifndef EBPFCOUNT_SESSION_H
#define EBPFCOUNT_SESSION_H

#include <stddef.h>

#include "compile.h"
#include "maps.h"
#include "packet.h"
#include "report.h"

struct vm;

struct session {
	int n;				/* expressions */
	struct layout lay[MAX_EXPRS];	/* their layouts, which m[] point to */
	struct maps m[MAX_EXPRS];	/* their tables */
	struct vm *vm;			/* the user engine, or NULL: the kernel */
	int prog;			/* the kernel's program, or -1 */
	int sock;			/* the socket it is attached to, or -1 */
	unsigned int ifindex;		/* that socket's interface */
	struct report *r[MAX_EXPRS];	/* their reports (session_collect()) */
};

struct session_opts {
	int kernel;		/* in the kernel (bpf(2)), else in the user engine */
	int strict;		/* the engine faults where the verifier would refuse */
	int verbose;		/* the verifier's log on stderr */
	/* the engine: an unbounded hash holds this many keys (0: the layout's) */
	unsigned int engine_keys;
};

/* 0, or -1 with err filled (and nothing left open). */
int session_open(struct session *s, const struct program *p, const struct session_opts *o,
		 char *err, size_t errlen);
/*
 * Run the program on one packet, in the engine or by BPF_PROG_TEST_RUN: 0,
 * or -1 with err (a fault, or a verdict other than 0: ebpfcount's
 * programs keep no packet for the socket).
 */
int session_run(struct session *s, const struct packet *pkt, char *err, size_t errlen);
/*
 * Attach the kernel's program to a new packet socket on ifname (attach.h:
 * promisc, "any"); it counts from then on.  0, or -1 with err filled.
 */
int session_attach(struct session *s, const char *ifname, int promisc, char *err,
		   size_t errlen);
/* Close the socket, the program, the tables: everything session_open() made. */
void session_close(struct session *s);

/* The reports (report.h), one per table, read them: */
/* Read and empty every table: the interval's rows into iv[0..n).  0, or -1 with err. */
int session_collect(struct session *s, struct interval *iv, char *err, size_t errlen);
/*
 * Within an interval: read the tables that overflowed, or (drain) every
 * table that grows, so that they grow now (report_fold(), report_drain()).
 * A mask of the tables that changed size (maps.h: grew_to, refused), or -1
 * with err.
 */
int session_fold(struct session *s, int drain, char *err, size_t errlen);
/* The totals since start, as of the last readout, into iv[0..n): 0, or -ENOMEM. */
int session_totals(struct session *s, struct interval *iv);
/*
 * How many records a capture file may bring before its tables that grow
 * must be drained (one new key each at most): the entries of the smallest
 * such table; 0 if none grows.
 */
unsigned long session_drain_every(const struct session *s);

#endif
