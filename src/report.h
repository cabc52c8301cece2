/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-interval statistics from the counters in the maps: an array's
 * counters only grow, so each interval's figures are differences from the
 * previous readout; a hash's drained table (maps.h) gives them directly
 * and they add up to the totals.  No increment is lost between reads.
 *
 * The table of a hash's totals since start is bounded as its tables are
 * (--max-keys N, else MAPS_DEFAULT_KEYS): once it holds more keys, the
 * keys that did not count in the last interval are dropped from it and
 * their totals join the final overflow.
 */
#ifndef EBPFCOUNT_REPORT_H
#define EBPFCOUNT_REPORT_H

#include <stddef.h>

#include "maps.h"

struct row {
	const unsigned char *key;	/* hash layout, see layout.h */
	struct counter c;
};

struct interval {
	double time;		/* Unix time of the readout */
	double secs;		/* length of the interval */
	struct row *rows;	/* sorted by packets, then bytes, then key */
	size_t nrows;
	struct counter overflow;
	struct counter total;	/* rows + overflow */
	int final;		/* figures since start instead of deltas */
};

struct report;

struct report *report_new(const struct layout *lay);
void report_free(struct report *r);
/*
 * Read the maps and fill iv with the deltas since the previous call; 0 or
 * -errno.  After an error, what was read is still in the final totals
 * (a drained key that found no room, as overflow).
 */
int report_collect(struct report *r, struct maps *m, struct interval *iv);
/*
 * Within an interval, tables that grow (maps.h): when keys overflowed
 * since the last read, read the maps now into the interval's figures, so
 * that they grow now rather than at the interval's end.  1 when it read,
 * 0 when nothing overflowed (or the tables do not grow), or -errno.
 */
int report_fold(struct report *r, struct maps *m);
/* The same read whether keys overflowed or not (a capture file's tables
 * are drained before they can fill up). */
int report_drain(struct report *r, struct maps *m);
/* Fill iv with the totals since start, as of the last collect; 0 or -ENOMEM. */
int report_final(struct report *r, struct interval *iv);

#endif
