// SPDX-License-Identifier: GPL-2.0
/* The counting loop; see loop.h. */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "attach.h"
#include "load.h"
#include "loop.h"

/* How often, within an interval, overflowing tables are read to grow. */
#define FOLD_SECS 1.0
#define FOLD_RECORDS 4096

/*
 * A capture file's run of this many empty intervals or more (a time with
 * no record) is one line, read out and handed to the monitoring once: two
 * records 10 years apart are not 315 M lines.
 */
#define FILE_GAP 3

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Sleep until monotonic time t; early on a signal.  The signals stay
 * blocked from the test of stop to the wait, which unblocks them, so one
 * that comes in between is not slept through.  fd: the view's terminal
 * (or -1); 1 when it has input or another signal came (a resize), before
 * t; a terminal that hangs up stops the counting.
 */
static int sleep_until(struct loop *l, double t, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int woke = 0;
	sigset_t old;
	double left;

	sigprocmask(SIG_BLOCK, l->signals, &old);
	while (!*l->stop && !woke && (left = t - now(CLOCK_MONOTONIC)) > 0) {
		struct timespec ts = { .tv_sec = (time_t)left,
				       .tv_nsec = (long)((left - (time_t)left) * 1e9) };

		woke = ppoll(&pfd, fd >= 0, &ts, &old) && fd >= 0;
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			*l->stop = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return woke && !*l->stop;
}

/*
 * Hand the totals since start to the monitoring (--listen, --textfile):
 * tot (one per table), or those of the last readout.  0, or -1 with why
 * filled.
 */
static int export_totals(struct loop *l, struct session *s, const struct interval *tot,
			 char *why, size_t size)
{
	struct interval iv[MAX_EXPRS];

	if (!l->metrics)
		return 0;
	if (!tot && session_totals(s, iv)) {
		snprintf(why, size, "out of memory for the totals");
		return -1;
	}
	metrics_health(&l->health, l->prog, l->ifindex, l->ifname);
	return metrics_update(l->metrics, tot ? tot : iv, &l->health, tot != NULL, why, size);
}

/* -v: how the last readout changed expression i's table size (maps.h). */
static void say_growth(const struct session *s, int i)
{
	const struct maps *m = &s->m[i];
	char expr[32] = "";
	char err[256];

	if (s->n > 1)
		snprintf(expr, sizeof(expr), "expression %d: ", i + 1);
	if (m->grew_to)
		fprintf(stderr, "ebpfcount: %skey table grown from %u to %u keys\n", expr,
			m->grew_from, m->grew_to);
	if (m->refused) {
		load_strerror("cannot create a bigger key table", -m->refused, err, sizeof(err));
		fprintf(stderr, "ebpfcount: %s%s; it stays at %u keys\n", expr, err,
			m->size[m->live]);
	}
}

/* The header, and nothing counted yet for the monitoring.  0, or -1 with why. */
static int begin(struct loop *l, struct session *s, char *why, size_t size)
{
	output_begin(l->out);
	l->flush();
	return export_totals(l, s, NULL, why, size);
}

/*
 * Read interval n's counts and print them (or show them in the view): it
 * ended at time at, secs long.  0, or -1 with why filled if the counters
 * could not be read (nothing printed), the view found no memory, or they
 * were not handed to the monitoring.
 */
static int interval(struct loop *l, struct session *s, long n, double at, double secs,
		    char *why, size_t size)
{
	double t0 = now(CLOCK_MONOTONIC);
	struct interval iv[MAX_EXPRS];
	struct if_counters c;
	size_t rows = 0;
	int i;

	if (session_collect(s, iv, why, size))
		return -1;
	for (i = 0; i < s->n; i++) {
		iv[i].time = at;
		iv[i].secs = secs;
		rows += iv[i].nrows;
	}
	l->health.readout_secs = now(CLOCK_MONOTONIC) - t0;
	if (l->view && view_interval(l->view, iv, l->ifindex &&
				     !attach_if_counters(l->ifindex, &c) ? &c : NULL)) {
		snprintf(why, size, "out of memory for the view");
		return -1;
	}
	if (!l->view) {
		output_interval(l->out, iv);
		l->flush();
	}
	if (l->verbose) {
		fprintf(stderr, "ebpfcount: interval %ld: %zu rows read and printed in %.3f ms\n",
			n, rows, (now(CLOCK_MONOTONIC) - t0) * 1e3);
		for (i = 0; i < s->n; i++)
			say_growth(s, i);
	}
	return export_totals(l, s, NULL, why, size);
}

/*
 * The totals since start, at time at, over secs, below the view if there
 * was one.  0, or -1 with why filled (unless it already was: the error
 * that ended the counting comes first).
 */
static int final(struct loop *l, struct session *s, double at, double secs, char *why,
		 size_t size)
{
	struct interval iv[MAX_EXPRS];
	char err[640];
	int i;

	if (l->viewing)
		*l->viewing = 0;
	view_close(l->view);	/* the totals go below it, as after the lines */
	l->view = NULL;
	if (session_totals(s, iv)) {
		snprintf(why, size, "out of memory for the final totals");
		return -1;
	}
	for (i = 0; i < s->n; i++) {
		iv[i].time = at;
		iv[i].secs = secs;
	}
	output_interval(l->out, iv);
	l->flush();
	if (export_totals(l, s, iv, err, sizeof(err)) && !why[0])
		snprintf(why, size, "%s", err);
	return why[0] ? -1 : 0;
}

/* Within an interval: read the tables to grow (session_fold()).  0, or -1 with why filled. */
static int fold(struct loop *l, struct session *s, int drain, char *why, size_t size)
{
	int i, ret = session_fold(s, drain, why, size);

	if (ret < 0)
		return -1;
	for (i = 0; l->verbose && i < s->n; i++)
		if (ret & 1 << i)
			say_growth(s, i);
	return 0;
}

/*
 * Intervals n + 1 to n + empty of a file, from time from to time to: it
 * has no record in them.  0, or -1 with why filled.
 */
static int gap(struct loop *l, struct session *s, long n, unsigned long long empty,
	       double from, double to, char *why, size_t size)
{
	struct interval iv[MAX_EXPRS];

	/* what the first of them would read, nothing new; the rest read nothing */
	if (session_collect(s, iv, why, size))
		return -1;
	output_gap(l->out, from, to, empty);
	l->flush();
	if (l->verbose)
		fprintf(stderr, "ebpfcount: intervals %ld to %llu: no record\n", n + 1,
			n + empty);
	return export_totals(l, s, NULL, why, size);
}

/* The end of a file's interval n, in seconds (capture.h). */
static double file_time(long long start, long long step, long n)
{
	long long end = start;

	/* in range for the interval of every record loop_run() takes */
	capture_interval_end(start, step, n, &end);
	return end / 1e9;
}

/*
 * Where the time comes from: the capture time of a file's records, or the
 * monotonic clock on a live socket (whose packets the kernel counts).
 */
struct clock {
	struct capture *cap;		/* the file, or NULL: the clock */
	long long start, step;		/* file: the first record's time, the interval (ns) */
	unsigned long taken;		/* file: records read */
	double t0, last;		/* live: the start, the last readout (monotonic) */
	int gone;			/* live: the interface went away */
};

/* What the loop waits for: a record, or a tick of the clock. */
struct event {
	int record;			/* pkt holds a record, else a tick */
	int fold;			/* a tick within an interval: grow the tables */
	unsigned long long ended;	/* the intervals that ended by its time */
	struct packet pkt;
};

/* A file's next record: 1, 0 at the end, or -1 with err filled. */
static int next_record(struct clock *clk, struct event *ev, char *err, size_t size)
{
	long long ts, end;
	int ret = capture_next(clk->cap, &ev->pkt, &ts, err, size);

	if (ret != 1)
		return ret;
	if (capture_records(clk->cap) == 1)
		clk->start = ts;
	/* the intervals that ended by ts, and the end of its own */
	ev->ended = capture_intervals(clk->start, clk->step, ts);
	if (capture_interval_end(clk->start, clk->step, ev->ended + 1, &end)) {
		capture_time_error(clk->cap, capture_records(clk->cap), err, size);
		return -1;
	}
	ev->record = 1;
	clk->taken++;
	return 1;
}

/*
 * The clock's next tick, n intervals in: the end of interval n + 1 or, to
 * grow the tables, FOLD_SECS from now if sooner; a key in the view (q
 * stops) or a signal wakes it early.  1.
 */
static int next_tick(struct loop *l, struct clock *clk, long n, struct event *ev)
{
	double due = clk->t0 + (n + 1) * l->interval, at = now(CLOCK_MONOTONIC);
	double tick = at + FOLD_SECS < due ? at + FOLD_SECS : due;
	int woke = sleep_until(l, tick, l->view ? view_fd(l->view) : -1);

	if (woke && view_keys(l->view))
		*l->stop = 1;	/* q: as SIGINT */
	ev->record = 0;
	ev->fold = !woke && !*l->stop && tick < due;
	at = now(CLOCK_MONOTONIC);
	for (ev->ended = n; at >= clk->t0 + (ev->ended + 1) * l->interval; ev->ended++)
		;
	return 1;
}

/* Read out and print interval n.  0, or -1 with why filled. */
static int readout(struct loop *l, struct session *s, struct clock *clk, long n, char *why,
		   size_t size)
{
	char name[IF_NAMESIZE];
	double at;
	int ret;

	if (clk->cap)
		return interval(l, s, n, file_time(clk->start, clk->step, n), l->interval, why,
				size);
	at = now(CLOCK_MONOTONIC);
	clk->gone = l->ifindex && !if_indextoname(l->ifindex, name) && errno == ENXIO;
	ret = interval(l, s, n, now(CLOCK_REALTIME), at - clk->last, why, size);
	clk->last = at;
	return ret;
}

int loop_run(struct loop *l, struct session *s, struct capture *cap, char *why, size_t size)
{
	struct clock clk = { .cap = cap, .step = llround(l->interval * 1e9) };
	unsigned long long last, empty;
	unsigned long since = 0, every;
	char err[512] = "";
	struct event ev;
	long n = 0;
	int ret = 0, rerr = 0, failed = 0;

	why[0] = '\0';
	clk.t0 = clk.last = now(CLOCK_MONOTONIC);
	if (begin(l, s, why, size))
		return -1;
	every = session_drain_every(s);
	while (!*l->stop && !rerr && !failed && !clk.gone &&
	       (ret = cap ? next_record(&clk, &ev, err, sizeof(err)) : next_tick(l, &clk, n, &ev)) == 1) {
		/* the last interval to print now; of a file's, after the first, all empty */
		last = l->count && (unsigned long long)l->count < ev.ended ? (unsigned long long)l->count
									  : ev.ended;
		while (!*l->stop && !rerr && !clk.gone && (unsigned long long)n < last) {
			n++;
			since = 0;	/* the readout drained the tables */
			rerr = readout(l, s, &clk, n, why, size);
			empty = last - n;
			if (cap && !rerr && empty >= FILE_GAP) {
				rerr = gap(l, s, n, empty, file_time(clk.start, clk.step, n),
					   file_time(clk.start, clk.step, last), why, size);
				n = last;
			}
			every = session_drain_every(s);
		}
		if (rerr || (l->count && n == l->count))
			break;
		if (!ev.record) {
			if (ev.fold)
				rerr = fold(l, s, 0, why, size);
			continue;
		}
		failed = session_run(s, &ev.pkt, err, sizeof(err));
		if (failed) {
			snprintf(why, size, "record %lu: %s", capture_records(cap), err);
			break;
		}
		if (every && ++since >= every) {
			since = 0;
			rerr = fold(l, s, 1, why, size);
			every = session_drain_every(s);	/* the tables may have grown */
		} else if (!every && capture_records(cap) % FOLD_RECORDS == 0) {
			rerr = fold(l, s, 0, why, size);
		}
	}
	/* the interval in progress, as it stands: live after a signal or q, a file's last */
	if (!rerr && !clk.gone && (cap ? clk.taken > 0 : *l->stop) &&
	    (!l->count || n < l->count)) {
		n++;
		rerr = readout(l, s, &clk, n, why, size);
	}
	if (!cap) {
		if (clk.gone && !rerr)
			snprintf(why, size, "interface %s went away", l->ifname);
		return final(l, s, now(CLOCK_REALTIME), clk.last - clk.t0, why, size);
	}
	if (*l->stop)
		ret = 0;	/* a record cut short by the signal is no error */
	if (ret < 0 && !clk.taken) {
		snprintf(why, size, "%s", err);	/* as tcpdump: nothing read, nothing printed */
		return -1;
	}
	/* What was counted, then why the counting stopped: the read error first. */
	if (ret < 0) {
		char then[640];

		snprintf(then, sizeof(then), "%s", why);
		snprintf(why, size, "%s%s%s", err, rerr ? "; then " : "", rerr ? then : "");
	}
	return final(l, s, file_time(clk.start, clk.step, n), n * l->interval, why, size);
}
