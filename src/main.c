// SPDX-License-Identifier: GPL-2.0
/*
 * ebpfcount: count packets per key in the kernel with eBPF.
 *
 *   options.c --> expressions --compile.c--> one eBPF program
 *   --session.c (maps, verifier or engine)--> on an AF_PACKET socket or a
 *   capture file's records --loop.c--> per-interval rows --output.c-->
 *   human/JSON/CSV, Prometheus, the live view
 *
 * Here: the set-up of each packet source, the signals, and the one error path.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "capture.h"
#include "compile.h"
#include "disasm.h"
#include "load.h"
#include "json.h"
#include "loop.h"
#include "maps.h"
#include "metrics.h"
#include "options.h"
#include "output.h"
#include "privs.h"
#include "serve.h"
#include "session.h"
#include "view.h"

static volatile sig_atomic_t stop;
/* The counting has begun: before, a signal ends us at once. */
static volatile sig_atomic_t counting;
/* The view is on the terminal: a second signal would leave it there. */
static volatile sig_atomic_t viewing;
/* The signals that end the counting with the totals. */
static sigset_t stop_signals;

static void flush_output(void);

/* The counting: where it goes, when it stops (loop.h). */
static struct output out = { .f = NULL };
static struct loop lp = {
	.out = &out, .viewing = &viewing, .health = { .version = EBPFCOUNT_VERSION },
	.prog = -1, .stop = &stop, .signals = &stop_signals, .flush = flush_output,
};
static struct serve *server;

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
	view_close(lp.view);	/* the message goes below the screen it was on */
	lp.view = NULL;
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

/* --listen, --textfile: the totals of p's counts for the monitoring. */
static void metrics_begin(const struct options *o, const struct program *p)
{
	if (!o->listen && !o->textfile)
		return;
	lp.metrics = metrics_new(p->x, p->nx, o->textfile, o->listen != NULL);
	if (!lp.metrics)
		die(EXIT_RUNTIME, "out of memory");
}

/* The loop has printed the totals (or could not): the monitoring ends, then an error ends us. */
static void counted(int ret, const char *why)
{
	serve_stop(server);
	metrics_free(lp.metrics);
	if (ret)
		die(EXIT_RUNTIME, "%s", why);
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
	struct session s;
	struct program p;
	char err[512], why[1024];
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
	counting = 1;
	open_session(&s, &p, o->kernel_engine, o->verbose);
	lp.prog = s.prog;
	drop_privileges(o, &s, o->kernel_engine);
	counted(loop_run(&lp, &s, cap, why, sizeof(why)), why);
	session_close(&s);
	capture_close(cap);
	program_free(&p);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { .interval = 1, .format = "human", .promisc = 1 };
	struct if_counters c;
	struct source src;
	enum options_result ret;
	char ifname[64], err[1024], why[1024];
	struct session t;
	struct program p;

	ret = options_parse(argc, argv, &o, err, sizeof(err));
	json_errors = o.json;
	if (ret == OPTIONS_USAGE)
		die(EXIT_USAGE, "%s", err);
	if (ret == OPTIONS_DONE) {
		flush_output();
		return 0;
	}
	lp.count = o.count;
	lp.interval = o.interval;
	lp.verbose = o.verbose;
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
	src = (struct source){ .ifname = o.ifname, .cooked = o.ifname && !strcmp(o.ifname, "any"),
			       .loopback = o.ifname ? attach_loopback(o.ifname) : 0 };
	compile(&o, &src, &p);
	out.x = p.x;
	out.nx = p.nx;
	out.ifnames = 1;
	if (o.dump)
		return dump(&o, &p);
	open_session(&t, &p, 1, o.verbose);
	if (session_attach(&t, o.ifname, o.promisc, err, sizeof(err)))
		die(EXIT_RUNTIME, "%s", err);
	metrics_begin(&o, &p);
	lp.prog = t.prog;
	lp.ifindex = t.ifindex;
	lp.ifname = o.ifname;
	/* The port before the privileges go (one below 1024 wants one); the
	 * server's thread after, as the privileges are per thread. */
	if (o.listen && !(server = serve_listen(o.listen_host, o.listen_port, err, sizeof(err))))
		die(EXIT_RUNTIME, "%s", err);
	drop_privileges(&o, &t, 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A person at a terminal gets the live view, unless -c or -F asks for lines. */
	if (!o.count && !o.format_given && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		lp.view = view_open(&out, o.ifname, src.loopback && !src.cooked,
				    attach_if_counters(lp.ifindex, &c) ? NULL : &c);
	viewing = lp.view != NULL;
	if (server && serve_start(server, lp.metrics, err, sizeof(err)))
		die(EXIT_RUNTIME, "%s", err);
	counting = 1;
	counted(loop_run(&lp, &t, NULL, why, sizeof(why)), why);
	session_close(&t);
	program_free(&p);
	return 0;
}
