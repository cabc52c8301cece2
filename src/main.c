// SPDX-License-Identifier: GPL-2.0
/*
 * ebpfcount: count packets per key in the kernel with eBPF.
 *
 *   expressions --parse--> queries --codegen (+ pcap filters via cbpf)-->
 *   one eBPF program --load (verifier)--> on an AF_PACKET socket, counting
 *   in per-CPU maps, a table per expression --report--> per-interval rows
 *   --output--> human/JSON/CSV, Prometheus, the live view
 */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "capture.h"
#include "compile.h"
#include "disasm.h"
#include "load.h"
#include "json.h"
#include "maps.h"
#include "metrics.h"
#include "options.h"
#include "output.h"
#include "parse.h"
#include "privs.h"
#include "report.h"
#include "serve.h"
#include "session.h"
#include "view.h"

static struct output out = { .f = NULL };
static volatile sig_atomic_t stop;
/* The counting has begun: before, a signal ends us at once. */
static volatile sig_atomic_t counting;
/* The live view on a terminal, instead of out's lines; or NULL. */
static struct view *view;
/* The view is on the terminal: a second signal would leave it there. */
static volatile sig_atomic_t viewing;

/* The counts for monitoring (--listen, --textfile), else NULL. */
static struct metrics *metrics;
static struct serve *server;
static struct health health = { .version = EBPFCOUNT_VERSION };

static int health_prog = -1;		/* the kernel's program, for its statistics */
static unsigned int health_ifindex;	/* the interface, for its counters, */
static const char *health_ifname;	/* by the name it was given */

/* Exit statuses, as ebpfcount(8) gives them. */
enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* -F json: every fatal error is one JSON object on stderr. */
static int json_errors;

/*
 * The one error path, for every fatal error: a line on stderr, then, for
 * a bad expression, the expression with a caret under pos (expr); a usage
 * error points at -h.  Under -F json, one object instead: {"error": msg},
 * with the expression and the column for a bad one.
 */
static _Noreturn void fail(int status, const char *msg, const char *expr, int pos)
{
	viewing = 0;
	view_close(view);	/* the message goes below the screen it was on */
	view = NULL;
	fflush(stdout);
	if (json_errors) {
		struct json j;

		json_open(&j, stderr);
		json_object(&j);
		json_key(&j, "error");
		json_string(&j, msg);
		if (expr) {
			json_key(&j, "expr");
			json_string(&j, expr);
			json_key(&j, "column");
			json_uint(&j, pos + 1);
		}
		json_close(&j);
		exit(status);
	}
	fprintf(stderr, "ebpfcount: %s%s\n", msg, status == EXIT_USAGE ? " (see ebpfcount -h)" : "");
	if (expr) {
		char line[1024];
		int at = output_human(expr, pos, line, sizeof(line));

		if (at > (int)strlen(line))	/* past what fits of the line */
			at = strlen(line);
		fprintf(stderr, "  %s\n  %*s^\n", line, at, "");
	}
	exit(status);
}

static _Noreturn __attribute__((format(printf, 2, 3))) void die(int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail(status, msg, NULL, 0);
}

/* The signals that end the counting with the totals. */
static sigset_t stop_signals;

/*
 * During the set-up (a long where clause in libpcap's optimizer, the
 * verifier) a signal ends us at once, as it ends tcpdump.  Then the first
 * asks for the totals; a second one ends us at once, unless the view has
 * the terminal (then the first is ending us soon).
 */
static void on_signal(int sig)
{
	if (!counting || (stop && !viewing)) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	stop = 1;
}

/*
 * SIGINT, SIGTERM and SIGHUP end the set-up at once, and the counting
 * with the totals, whenever they come; a SIGHUP ignored by whoever started us
 * stays ignored (nohup), as in tcpdump; a capture file read from an idle
 * pipe stops waiting for it (capture_stop_on()).  A second signal ends us
 * at once.  A reader that goes away is seen as EPIPE.
 */
static void catch_signals(void)
{
	/* SA_RESTART: a write to a slow reader goes on; the sleep does not. */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART }, old;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&stop_signals);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler != SIG_IGN) {
		sigaction(SIGHUP, &sa, NULL);
		sigaddset(&stop_signals, SIGHUP);
	}
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Push what was printed out: a reader that is gone (| head) ends the run
 * quietly, as it ends tcpdump; any other write error is an error.
 */
static void flush_output(void)
{
	int err;

	if (!fflush(stdout) && !ferror(stdout))
		return;
	/* the failed write was the last call into the C library */
	err = errno ? errno : EIO;
	if (err == EPIPE)
		exit(0);
	die(EXIT_RUNTIME, "cannot write the output: %s", strerror(err));
}

/* A bad expression: say where. */
static _Noreturn void die_at(const char *expr, int pos, const char *msg)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "bad expression at column %d: %s", pos + 1, msg);
	fail(EXIT_RUNTIME, buf, expr, pos);
}

/*
 * How the program reads the frame: as the kernel lets this process (the
 * user engine runs what root would load, from a copy on the stack), unless
 * EBPFCOUNT_FRAME names a way (window, direct or ld_abs; for tests).  The
 * kernel is asked whether it allows direct reads only for a program that
 * is for it: on an interface, or with the kernel engine.
 */
static enum frame_mode frame_mode(const struct options *o)
{
	static const char *const names[] = {
		[FRAME_WINDOW] = "window", [FRAME_LD_ABS] = "ld_abs", [FRAME_DIRECT] = "direct",
	};
	const char *env = getenv("EBPFCOUNT_FRAME");
	size_t i;
	int reads;

	if (env && *env) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(env, names[i]))
				return (enum frame_mode)i;
		die(EXIT_RUNTIME, "EBPFCOUNT_FRAME is window, direct or ld_abs, not '%s'", env);
	}
	if (o->file && !o->kernel_engine)
		return FRAME_WINDOW;
	reads = load_reads(o->kernel_engine || o->ifname);
	return reads & LOAD_READS_PACKET ? FRAME_DIRECT :
	       reads & LOAD_READS_STACK ? FRAME_WINDOW : FRAME_LD_ABS;
}

/* Build the program for the packets of src, as the kernel would load it. */
static void compile(const struct options *o, const struct source *src, struct program *p)
{
	struct build_opts bo = { .src = *src, .max_keys = o->max_keys, .allowed = frame_mode(o) };
	struct build_error err;

	if (program_build(p, o->exprs, o->nexprs, &bo, &err)) {
		if (err.pos >= 0)
			die_at(o->exprs[err.expr], err.pos, err.msg);
		die(EXIT_RUNTIME, "cannot generate the program: %s", err.msg);
	}
	if (o->verbose)
		fprintf(stderr, "ebpfcount: reading the frame %s\n", program_frame_mode(p));
}

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
static int sleep_until(double t, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int woke = 0;
	sigset_t old;
	double left;

	sigprocmask(SIG_BLOCK, &stop_signals, &old);
	while (!stop && !woke && (left = t - now(CLOCK_MONOTONIC)) > 0) {
		struct timespec ts = { .tv_sec = (time_t)left,
				       .tv_nsec = (long)((left - (time_t)left) * 1e9) };

		woke = ppoll(&pfd, fd >= 0, &ts, &old) && fd >= 0;
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			stop = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return woke && !stop;
}

/* The interface's counters now, in c; NULL if unknown. */
static const struct if_counters *if_counters(struct if_counters *c)
{
	return health_ifindex && !attach_if_counters(health_ifindex, c) ? c : NULL;
}

/*
 * Hand the totals since start to the monitoring (--listen, --textfile):
 * tot (one per table), or those of the last readout.  0, or -1 with why
 * filled.
 */
static int export_totals(struct session *s, const struct interval *tot, char *why, size_t size)
{
	struct interval iv[MAX_EXPRS];

	if (!metrics)
		return 0;
	if (!tot && session_totals(s, iv)) {
		snprintf(why, size, "out of memory for the totals");
		return -1;
	}
	metrics_health(&health, health_prog, health_ifindex, health_ifname);
	return metrics_update(metrics, tot ? tot : iv, &health, tot != NULL, why, size);
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
		maps_strerror("cannot create a bigger key table", -m->refused, err, sizeof(err));
		fprintf(stderr, "ebpfcount: %s%s; it stays at %u keys\n", expr, err,
			m->size[m->live]);
	}
}

/*
 * Read interval n's counts and print them (or show them in the view): it
 * ended at time t, secs long.
 * 0, or -1 with why filled if the counters could not be read (nothing
 * printed), the view found no memory, or they were not handed to the
 * monitoring.
 */
static int interval(const struct options *o, struct session *s, long n, double at, double secs,
		    char *why, size_t size)
{
	double t0 = now(CLOCK_MONOTONIC);
	struct interval iv[MAX_EXPRS];
	struct if_counters c;
	size_t rows = 0;
	int i, err = 0;

	err = session_collect(s, iv);
	if (err) {
		session_strerror(err, why, size);
		return -1;
	}
	for (i = 0; i < s->n; i++) {
		iv[i].time = at;
		iv[i].secs = secs;
		rows += iv[i].nrows;
	}
	health.readout_secs = now(CLOCK_MONOTONIC) - t0;
	if (view && view_interval(view, iv, if_counters(&c))) {
		snprintf(why, size, "out of memory for the view");
		return -1;
	}
	if (!view) {
		output_interval(&out, iv);
		flush_output();
	}
	if (o->verbose)
		fprintf(stderr, "ebpfcount: interval %ld: %zu rows read and printed in %.3f ms\n",
			n, rows, (now(CLOCK_MONOTONIC) - t0) * 1e3);
	if (o->verbose)
		for (i = 0; i < s->n; i++)
			say_growth(s, i);
	return export_totals(s, NULL, why, size);
}

/*
 * The totals since start, at time at, over secs; then, if the counting
 * ended on an error (why), the error: what was counted is printed first.
 */
static void final(struct session *s, double at, double secs, const char *why)
{
	struct interval iv[MAX_EXPRS];
	char err[640];
	int i;

	viewing = 0;
	view_close(view);	/* the totals go below it, as after the lines */
	view = NULL;
	if (session_totals(s, iv))
		die(EXIT_RUNTIME, "out of memory for the final totals");
	for (i = 0; i < s->n; i++) {
		iv[i].time = at;
		iv[i].secs = secs;
	}
	output_interval(&out, iv);
	flush_output();
	if (export_totals(s, iv, err, sizeof(err)) && !why)
		why = err;
	serve_stop(server);
	metrics_free(metrics);
	if (why)
		die(EXIT_RUNTIME, "%s", why);
}

static int maps_reads(void *m)
{
	return maps_probe(m);
}

/*
 * After set-up, the descriptors to the maps are enough: give up the rest.
 * Tables that grow in the kernel get a helper to create them (maps.h).
 */
static void drop_privileges(const struct options *o, struct session *s, int kernel)
{
	char err[512];
	int i, kept;

	for (i = 0; kernel && i < s->n; i++)
		if (s->m[i].grows && maps_helper(o->pw, err, sizeof(err)))
			die(EXIT_RUNTIME, "%s", err);
	if (privs_drop(o->pw, maps_reads, &s->m[0], &kept, err, sizeof(err)))
		die(EXIT_RUNTIME, "%s", err);
	if (kept && o->verbose)
		fprintf(stderr, "ebpfcount: keeping CAP_BPF and CAP_SYS_ADMIN: this kernel wants "
			"one to read the maps (kernel.unprivileged_bpf_disabled)\n");
}

/* p's tables and program, in the kernel or the user engine (session.h). */
static void open_session(struct session *s, const struct program *p, int kernel, int verbose)
{
	char err[1024];

	if (session_open(s, p, &(struct session_opts){ .kernel = kernel, .verbose = verbose },
			 err, sizeof(err)))
		die(EXIT_RUNTIME, "%s", err);
}

/* The header, and nothing counted yet for the monitoring. */
static void report_begin(struct session *s)
{
	char why[640];

	output_begin(&out);
	flush_output();
	if (export_totals(s, NULL, why, sizeof(why)))
		die(EXIT_RUNTIME, "%s", why);
}

/* Within an interval: read the tables to grow (session_fold()).  0, or -1 with why filled. */
static int fold(const struct options *o, struct session *s, int drain, char *why, size_t size)
{
	int i, ret = session_fold(s, drain);

	if (ret < 0) {
		session_strerror(ret, why, size);
		return -1;
	}
	for (i = 0; o->verbose && i < s->n; i++)
		if (ret & 1 << i)
			say_growth(s, i);
	return 0;
}

/* How often, within an interval, overflowing tables are read to grow. */
#define FOLD_SECS 1.0
#define FOLD_RECORDS 4096

/*
 * A capture file has no time pressure: its tables that grow are drained
 * before they can fill (session_drain_every()), so that no key overflows
 * below their largest size; a drained table more than half full grows as
 * at any readout.
 */

/*
 * Live: an interval every o->interval seconds of the monotonic clock,
 * on interface ifindex.  An interface that goes down and up keeps its
 * index and the socket its program; one that is deleted ends the run
 * after the interval that saw it go.
 */
static void run(const struct options *o, struct session *s, unsigned int ifindex)
{
	double start = now(CLOCK_MONOTONIC), last = start, at;
	char name[IF_NAMESIZE], why[640] = "";
	int err = 0, gone = 0;
	long n;

	counting = 1;
	report_begin(s);
	for (n = 1; !err && !gone && !stop && (!o->count || n <= o->count); n++) {
		double due = start + n * o->interval, tick;

		while (!err && !stop && (at = now(CLOCK_MONOTONIC)) < due) {
			tick = at + FOLD_SECS < due ? at + FOLD_SECS : due;
			if (sleep_until(tick, view ? view_fd(view) : -1)) {
				if (view_keys(view))
					stop = 1;	/* q: as SIGINT */
			} else if (!stop && tick < due) {
				err = fold(o, s, 0, why, sizeof(why));
			}
		}
		if (err)
			break;
		at = now(CLOCK_MONOTONIC);
		gone = ifindex && !if_indextoname(ifindex, name) && errno == ENXIO;
		err = interval(o, s, n, now(CLOCK_REALTIME), at - last, why, sizeof(why));
		last = at;
	}
	if (gone && !err)
		snprintf(why, sizeof(why), "interface %s went away", o->ifname);
	final(s, now(CLOCK_REALTIME), last - start, why[0] ? why : NULL);
}

/* --listen, --textfile: the totals of p's counts for the monitoring. */
static void metrics_begin(const struct options *o, const struct program *p)
{
	if (!o->listen && !o->textfile)
		return;
	metrics = metrics_new(p->x, p->nx, o->textfile, o->listen != NULL);
	if (!metrics)
		die(EXIT_RUNTIME, "out of memory");
}

/*
 * A capture file's run of this many empty intervals or more (a time with
 * no record) is one line, read out and handed to the monitoring once: two
 * records 10 years apart are not 315 M lines.
 */
#define FILE_GAP 3

/*
 * Intervals n + 1 to n + empty of a file, from time from to time to: it
 * has no record in them.  0, or -1 with why filled.
 */
static int gap(const struct options *o, struct session *s, long n, unsigned long long empty,
	       double from, double to, char *why, size_t size)
{
	struct interval iv[MAX_EXPRS];
	int err;

	/* what the first of them would read, nothing new; the rest read nothing */
	err = session_collect(s, iv);
	if (err) {
		session_strerror(err, why, size);
		return -1;
	}
	output_gap(&out, from, to, empty);
	flush_output();
	if (o->verbose)
		fprintf(stderr, "ebpfcount: intervals %ld to %llu: no record\n", n + 1,
			n + empty);
	return export_totals(s, NULL, why, size);
}

/* The end of a file's interval n, in seconds (capture.h). */
static double file_time(long long start, long long step, long n)
{
	long long end = start;

	/* in range for the interval of every record run_file() takes */
	capture_interval_end(start, step, n, &end);
	return end / 1e9;
}

/*
 * A capture file, by capture time: the first interval starts at the first
 * record; a record that goes back in time counts in the current interval.
 * A read error ends the file: what was read is reported, then the error;
 * so does a record whose interval would end past the largest time.
 */
static void run_file(const struct options *o, struct capture *cap, const struct program *p)
{
	long long step = llround(o->interval * 1e9), start = 0, ts, end;
	struct session t;
	struct packet skb;
	char err[512] = "", why[640] = "";
	unsigned long since = 0, every, taken = 0;
	unsigned long long due, last, empty;
	long n = 0;
	int ret = 0, rerr = 0, failed = 0;

	counting = 1;
	open_session(&t, p, o->kernel_engine, o->verbose);
	health_prog = t.prog;
	drop_privileges(o, &t, o->kernel_engine);
	report_begin(&t);
	every = session_drain_every(&t);
	while (!stop && !rerr && !failed &&
	       (ret = capture_next(cap, &skb, &ts, err, sizeof(err))) == 1) {
		if (capture_records(cap) == 1)
			start = ts;
		/* the intervals that ended by ts, and the end of its own */
		due = capture_intervals(start, step, ts);
		if (capture_interval_end(start, step, due + 1, &end)) {
			capture_time_error(cap, capture_records(cap), err, sizeof(err));
			ret = -1;
			break;
		}
		taken++;
		/* the last interval to print now; after the first, all empty */
		last = o->count && (unsigned long long)o->count < due ? (unsigned long long)o->count
								     : due;
		while (!stop && !rerr && (unsigned long long)n < last) {
			n++;
			since = 0;	/* the readout drained the tables */
			rerr = interval(o, &t, n, file_time(start, step, n), o->interval,
					why, sizeof(why));
			empty = last - n;
			if (!rerr && empty >= FILE_GAP) {
				rerr = gap(o, &t, n, empty, file_time(start, step, n),
					   file_time(start, step, last), why, sizeof(why));
				n = last;
			}
			every = session_drain_every(&t);
		}
		if (rerr || (o->count && n == o->count))
			break;
		failed = session_run(&t, &skb, err, sizeof(err));
		if (failed) {
			snprintf(why, sizeof(why), "record %lu: %s", capture_records(cap), err);
			break;
		}
		if (every && ++since >= every) {
			since = 0;
			rerr = fold(o, &t, 1, why, sizeof(why));
			every = session_drain_every(&t);	/* the tables may have grown */
		} else if (!every && capture_records(cap) % FOLD_RECORDS == 0) {
			rerr = fold(o, &t, 0, why, sizeof(why));
		}
	}
	if (stop)
		ret = 0;	/* a record cut short by the signal is no error */
	if (ret < 0 && !taken)
		die(EXIT_RUNTIME, "%s", err);		/* as tcpdump: nothing read, nothing printed */
	if (!rerr && taken && (!o->count || n < o->count)) {
		n++;
		rerr = interval(o, &t, n, file_time(start, step, n), o->interval, why,
				sizeof(why));
	}
	/* What was counted, then why the counting stopped. */
	if (rerr && ret < 0)
		fprintf(stderr, "ebpfcount: %s\n", err);
	if (!rerr && !failed && ret < 0)
		snprintf(why, sizeof(why), "%s", err);
	final(&t, file_time(start, step, n), n * o->interval, why[0] ? why : NULL);
	session_close(&t);
}

/* -d, -dd: the program, and no counting. */
static int dump(const struct options *o, const struct program *p)
{
	(o->dump > 1 ? disasm_print_c : disasm_print)(stdout, &p->e);
	flush_output();
	return 0;
}

/* ebpfcount -r: the packets of a capture file. */
static int count_file(const struct options *o)
{
	struct capture *cap;
	struct program p;
	char err[512];
	int i, j;

	cap = capture_open(o->file, err, sizeof(err));
	if (!cap)
		die(EXIT_RUNTIME, "%s", err);
	capture_stop_on(cap, &stop, &stop_signals);
	compile(o, &(struct source){
			.linktype = capture_has_ethernet(cap) ? NULL : capture_linktype(cap) }, &p);
	for (j = 0; o->kernel_engine && j < p.nx; j++)
		for (i = 0; i < p.x[j].q.nkeys; i++)
			if (p.x[j].q.keys[i].field->read == READ_SKB)
				die_at(p.x[j].text, p.x[j].q.keys[i].pos, "the kernel's test run "
				       "cannot give a capture's packet types and interfaces: "
				       "use --engine user");
	out.x = p.x;
	out.nx = p.nx;
	if (o->dump)
		return dump(o, &p);
	if (o->verbose)
		fprintf(stderr, "ebpfcount: %s: link type %s, run by %s\n", o->file,
			capture_linktype(cap), o->kernel_engine ? "the kernel (BPF_PROG_TEST_RUN)" :
			"the user engine");
	metrics_begin(o, &p);
	run_file(o, cap, &p);
	capture_close(cap);
	program_free(&p);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { .interval = 1, .format = "human", .promisc = 1 };
	int sock;
	char ifname[64], err[1024];
	struct session t;
	struct program p;

	switch (options_parse(argc, argv, &o, err, sizeof(err))) {
	case OPTIONS_COUNT:
		break;
	case OPTIONS_DONE:
		flush_output();
		return 0;
	case OPTIONS_USAGE:
		json_errors = o.json;
		die(EXIT_USAGE, "%s", err);
	}
	json_errors = o.json;
	catch_signals();
	if (o.user && privs_user(o.user, &o.pw, err, sizeof(err)))
		die(EXIT_RUNTIME, "%s", err);
	out.f = stdout;
	out.numeric = o.numeric;
	out.top = o.top;
	if (output_init(&out, o.format))
		die(EXIT_USAGE, "-F is human, json, csv or none, not '%s'", o.format);
	if (o.file)
		return count_file(&o);
	/* The where clause is compiled for the interface: choose it first
	 * (-d without -i shows the program as for a capture file). */
	if (!o.ifname && !o.dump) {
		if (attach_default_ifname(ifname, sizeof(ifname), err, sizeof(err)))
			die(EXIT_RUNTIME, "%s", err);
		o.ifname = ifname;
	}
	compile(&o, &(struct source){ .ifname = o.ifname,
				      .cooked = o.ifname && !strcmp(o.ifname, "any"),
				      .loopback = o.ifname ? attach_loopback(o.ifname) : 0 }, &p);
	out.x = p.x;
	out.nx = p.nx;
	out.ifnames = 1;
	if (o.dump)
		return dump(&o, &p);
	open_session(&t, &p, 1, o.verbose);
	sock = attach_socket(o.ifname, t.prog, o.promisc, err, sizeof(err));
	if (sock < 0)
		die(EXIT_RUNTIME, "%s", err);
	metrics_begin(&o, &p);
	health_prog = t.prog;
	health_ifindex = attach_ifindex(sock);
	health_ifname = o.ifname;
	/* The port before the privileges go (one below 1024 wants one); the
	 * server's thread after, as the privileges are per thread. */
	if (o.listen && !(server = serve_listen(o.listen_host, o.listen_port, err, sizeof(err))))
		die(EXIT_RUNTIME, "%s", err);
	drop_privileges(&o, &t, 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A person at a terminal gets the live view, unless -c or -F asks for lines. */
	if (!o.count && !o.format_given && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		view = view_open(&out, o.ifname, if_counters(&(struct if_counters){ 0 }));
	viewing = view != NULL;
	if (server && serve_start(server, metrics, err, sizeof(err)))
		die(EXIT_RUNTIME, "%s", err);
	run(&o, &t, attach_ifindex(sock));
	close(sock);
	session_close(&t);
	program_free(&p);
	return 0;
}
