/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting loop: a session's intervals, read out (session.h) and
 * printed (output.h) or shown in the live view (view.h), handed to the
 * monitoring (metrics.h), until the count of intervals, the end of a
 * capture file, a signal or an error; then the totals since start.  Its
 * time is the clock's on a live socket, the capture time of a file's
 * records, which it runs through the session itself.
 */
#ifndef EBPFCOUNT_LOOP_H
#define EBPFCOUNT_LOOP_H

#include <signal.h>
#include <stddef.h>

#include "capture.h"
#include "metrics.h"
#include "output.h"
#include "session.h"
#include "view.h"

struct loop {
	long count;			/* intervals, 0: until stopped */
	double interval;		/* their length, in seconds */
	int verbose;			/* -v: each readout on stderr */
	struct output *out;		/* the lines, */
	struct view *view;		/* or the live view (closed before the totals) */
	volatile sig_atomic_t *viewing;	/* cleared when the view closes, or NULL */
	struct metrics *metrics;	/* --listen, --textfile, or NULL */
	struct health health;		/* for the metrics: .version set */
	int prog;			/* the kernel's program, for its statistics, or -1 */
	unsigned int ifindex;		/* live: the interface, 0 for a file */
	const char *ifname;		/* ... by the name it was given */
	volatile sig_atomic_t *stop;	/* a signal came: end with the totals */
	const sigset_t *signals;	/* the signals that set it */
	/* after printing: a failed write ends the process (or a gone reader) */
	void (*flush)(void);
};

/*
 * Count until the count of intervals, the end of the file, a signal or an
 * error, then print the totals since start.  0, or -1 with why filled; the
 * totals of what was counted are printed either way, unless nothing could
 * be.
 *
 * cap NULL: on the live socket whose program is s's, an interval every
 * l->interval seconds of the monotonic clock.  An interface that goes
 * down and up keeps its index and the socket its program; one that is
 * deleted ends the run after the interval that saw it go.
 *
 * Else the records of cap, run through s, by capture time: the first
 * interval starts at the first record; a record that goes back in time
 * counts in the current interval.  A read error ends the file: what was
 * read is reported, then the error; so does a record whose interval would
 * end past the largest time.  A file that gives no record before its
 * error prints nothing, as with tcpdump.
 */
int loop_run(struct loop *l, struct session *s, struct capture *cap, char *why, size_t size);

#endif
