/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counts for monitoring: a Prometheus exposition of the totals since
 * start (text format 0.0.4 and OpenMetrics 1.0), with ebpfcount's own
 * health.  It goes to a textfile for node_exporter (replaced atomically)
 * and to whoever asks for it through metrics_get() (serve.h), from
 * another thread: each format is rendered only when it is used.
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

/*
 * Gather h's figures of the kernel: program prog's statistics (or -1:
 * none) and the counters of interface ifindex (0: none), called ifname.
 */
void metrics_health(struct health *h, int prog, unsigned int ifindex, const char *ifname);

struct metrics;
/* One exposition's text, shared by every request that serves it. */
struct exposition;

/*
 * For the counts of the nx expressions x; textfile: the file to replace
 * (see metrics_update()), or NULL; serving: metrics_get() will be called
 * (--listen).
 */
struct metrics *metrics_new(const struct expr *x, int nx, const char *textfile, int serving);
void metrics_free(struct metrics *m);
/*
 * Hand over the totals tot (final intervals, report.h, one per
 * expression) and h.  Nothing is rendered for the server here: the
 * totals are copied for metrics_get().  The textfile is rendered and
 * replaced at the first update, at the last (last != 0), and in between
 * no sooner than METRICS_TEXTFILE_GAP seconds, or ten times its last
 * rendering and writing took, after its last write began.  0, or -1 with err
 * filled.
 */
#define METRICS_TEXTFILE_GAP 1.0
int metrics_update(struct metrics *m, const struct interval *tot, const struct health *h,
		   int last, char *err, size_t errlen);
/*
 * The exposition of the last totals handed over (OpenMetrics if
 * openmetrics, else the text format), rendered in the caller's thread if
 * it was not yet; its text and length in *text, *len.  One rendering
 * serves every request.  At most two of a format live: while requests
 * still hold an older one (slow readers, which serve.h cuts at its
 * deadline) as well as the latest, the latest is served again.  NULL if
 * there are no totals yet, or no memory.  Give it back with
 * metrics_put().
 */
struct exposition *metrics_get(struct metrics *m, int openmetrics, const char **text,
			       size_t *len);
void metrics_put(struct metrics *m, struct exposition *e);

#endif
