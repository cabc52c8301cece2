/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counts for monitoring: a Prometheus exposition of the totals since
 * start (text format 0.0.4 and OpenMetrics 1.0), with ebpfcount's own
 * health, rendered once per interval.  It goes to a textfile for
 * node_exporter (replaced atomically) and to whoever asks for it through
 * metrics_text() (serve.h), from another thread.
 */
#ifndef EBPFCOUNT_METRICS_H
#define EBPFCOUNT_METRICS_H

#include <stddef.h>

#include "layout.h"
#include "report.h"

/* What ebpfcount knows of itself and of the interface. */
struct health {
	const char *version;	/* ebpfcount's */
	double readout_secs;	/* the last readout of the maps */
	/* the kernel's statistics of the program, if prog_stats (they count
	 * while kernel.bpf_stats_enabled is 1) */
	int prog_stats;
	unsigned long long runs, run_ns;
	/* the interface's own counters, if ifname is not NULL */
	const char *ifname;
	unsigned long long rx_packets, rx_bytes, rx_dropped, tx_packets, tx_bytes;
};

struct metrics;

/*
 * For the counts of the nx expressions x; textfile: the file to replace
 * at every update, or NULL.
 */
struct metrics *metrics_new(const struct expr *x, int nx, const char *textfile);
void metrics_free(struct metrics *m);
/*
 * Render the totals tot (final intervals, report.h, one per expression)
 * and h: the textfile
 * is replaced, the served text swapped.  0, or -1 with err filled.
 */
int metrics_update(struct metrics *m, const struct interval *tot, const struct health *h,
		   char *err, size_t errlen);
/* A copy of the last exposition (malloc'ed), its length in *len; NULL if none. */
char *metrics_text(struct metrics *m, int openmetrics, size_t *len);

#endif
