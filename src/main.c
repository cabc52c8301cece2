// SPDX-License-Identifier: GPL-2.0
/*
 * ebpfcount: count packets per key in the kernel with eBPF.
 *
 *   expression --parse--> query --codegen (+ pcap filter via cbpf)-->
 *   eBPF --load (verifier)--> program on an AF_PACKET socket, counting in
 *   per-CPU maps --report--> per-interval rows --output--> human/JSON/CSV
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "codegen.h"
#include "compile.h"
#include "disasm.h"
#include "filter.h"
#include "load.h"
#include "maps.h"
#include "output.h"
#include "parse.h"
#include "report.h"

#ifndef EBPFCOUNT_VERSION
#define EBPFCOUNT_VERSION "0.1"
#endif

struct options {
	const char *ifname;
	long count;		/* intervals, 0: until interrupted */
	double interval;
	const char *format;
	int numeric;
	int promisc;
	long top;
	long max_keys;
	int dump;		/* -d: 1 listing, 2 C array */
	int verbose;
	const char *expr;
};

static struct output out = { .f = NULL };
static volatile sig_atomic_t stop;

/* The one error path: a line on stderr (and a JSON object in JSON mode),
 * then, for a bad expression, the expression with a caret under pos. */
static _Noreturn void fail(const char *msg, const char *expr, int pos)
{
	fprintf(stderr, "ebpfcount: %s\n", msg);
	if (expr)
		fprintf(stderr, "  %s\n  %*s^\n", expr, pos, "");
	if (out.p && output_is_json(&out)) {
		printf("{\"error\": ");
		output_json_string(stdout, msg);
		printf("}\n");
	}
	exit(1);
}

static _Noreturn void die(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail(msg, NULL, 0);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ebpfcount [-i IFACE] [-c COUNT] [-I SECONDS] [-F human|json|csv] [-n] [-p]\n"
		"                 [--top N] [--max-keys N] [-d|-dd] [-v] EXPRESSION\n"
		"       ebpfcount --list-fields | -h | --version\n"
		"\n"
		"EXPRESSION: count [by KEY[, KEY...]] [where PCAP-FILTER]\n"
		"  KEY is a Wireshark field name (ip.proto, ip.src/24, tcp.dstport, ...)\n"
		"  PCAP-FILTER is tcpdump's filter syntax (tcp port 443 and not net 198.18.0.0/16)\n"
		"\n"
		"  -i IFACE      interface (default: the first up, non-loopback one)\n"
		"  -c COUNT      stop after COUNT intervals\n"
		"  -I SECONDS    interval length (default 1; fractions allowed)\n"
		"  -F FORMAT     human (default), json (JSON Lines) or csv\n"
		"  -n            numbers only: no protocol or port names\n"
		"  -p            do not put the interface in promiscuous mode\n"
		"  --top N       print the N busiest keys per interval\n"
		"  --max-keys N  bound the keys per interval; keys that do not fit count as overflow\n"
		"  -d            print the generated eBPF program and exit; -dd as a C array\n"
		"  -v            print the verifier's log, and per interval the time\n"
		"                taken to read and print the counters (on stderr)\n"
		"  --list-fields list the keys\n"
		"  -h, --help    this help; --version the version\n"
		"See ebpfcount(8).\n");
}

static void list_fields(void)
{
	const struct field *f;
	int i, n;

	f = field_table(&n);
	for (i = 0; i < n; i++)
		printf("%-16s %s\n", f[i].name, f[i].help);
}

static long parse_long(const char *s, const char *opt, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min)
		die("%s wants a whole number of at least %ld, not '%s'", opt, min, s);
	return v;
}

static double parse_secs(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !isfinite(v) || v < 0.01 || v > 86400)
		die("-I wants seconds from 0.01 to 86400, not '%s'", s);
	return v;
}

enum { OPT_TOP = 256, OPT_MAX_KEYS, OPT_VERSION, OPT_LIST };

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, OPT_TOP },
		{ "max-keys", required_argument, NULL, OPT_MAX_KEYS },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "list-fields", no_argument, NULL, OPT_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "i:c:I:F:npdvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->ifname = optarg; break;
		case 'c': o->count = parse_long(optarg, "-c", 1); break;
		case 'I': o->interval = parse_secs(optarg); break;
		case 'F': o->format = optarg; break;
		case 'n': o->numeric = 1; break;
		case 'p': o->promisc = 0; break;
		case 'd': o->dump++; break;
		case 'v': o->verbose = 1; break;
		case OPT_TOP: o->top = parse_long(optarg, "--top", 1); break;
		case OPT_MAX_KEYS: o->max_keys = parse_long(optarg, "--max-keys", 1); break;
		case OPT_VERSION: printf("ebpfcount %s\n", EBPFCOUNT_VERSION); exit(0);
		case OPT_LIST: list_fields(); exit(0);
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "ebpfcount: %s\n", optind == argc ? "no expression given" :
			"give the expression as one argument (quote it)");
		usage(stderr);
		exit(2);
	}
	o->expr = argv[optind];
}

/* A bad expression: say where. */
static _Noreturn void die_at(const char *expr, int pos, const char *msg)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "bad expression at column %d: %s", pos + 1, msg);
	fail(buf, expr, pos);
}

/* Build the program for the packets of src. */
static void compile(const struct options *o, const struct source *src, struct program *p)
{
	struct build_opts bo = { .src = *src, .allowed = load_frame_mode(),
				 .max_keys = o->max_keys };
	struct build_error err;

	if (program_build(p, o->expr, &bo, &err)) {
		if (err.pos >= 0)
			die_at(o->expr, err.pos, err.msg);
		die("cannot generate the program: %s", err.msg);
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

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void catch_signals(void)
{
	/* SA_RESTART: a write to a slow reader goes on; the sleep does not. */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Sleep until monotonic time t; early on a signal. */
static void sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t, .tv_nsec = (long)((t - (time_t)t) * 1e9) };

	while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void run(const struct options *o, struct maps *m, const struct layout *lay)
{
	struct report *r = report_new(lay);
	double start = now(CLOCK_MONOTONIC), last = start;
	struct interval iv;
	long n;
	int err;

	if (!r)
		die("out of memory");
	output_begin(&out);
	for (n = 1; !stop && (!o->count || n <= o->count); n++) {
		double t0;

		sleep_until(start + n * o->interval);
		t0 = now(CLOCK_MONOTONIC);
		err = report_collect(r, m, &iv);
		if (err)
			die("cannot read the counters: %s", strerror(-err));
		iv.time = now(CLOCK_REALTIME);
		iv.secs = now(CLOCK_MONOTONIC) - last;
		last += iv.secs;
		output_interval(&out, &iv);
		if (o->verbose)
			fprintf(stderr, "ebpfcount: interval %ld: %zu rows read and printed in %.3f ms\n",
				n, iv.nrows, (now(CLOCK_MONOTONIC) - t0) * 1e3);
	}
	report_final(r, &iv);
	iv.time = now(CLOCK_REALTIME);
	iv.secs = last - start;
	output_interval(&out, &iv);
	report_free(r);
}

int main(int argc, char **argv)
{
	struct options o = { .interval = 1, .format = "human", .promisc = 1 };
	char ifname[64], err[1024];
	struct program p;
	struct maps m;
	int prog, sock;

	parse_args(argc, argv, &o);
	out.f = stdout;
	out.numeric = o.numeric;
	out.top = o.top;
	if (output_init(&out, o.format))
		die("unknown output format '%s' (human, json or csv)", o.format);
	/* The where clause is compiled for the interface: choose it first
	 * (-d without -i shows the program as for a capture file). */
	if (!o.ifname && !o.dump) {
		if (attach_default_ifname(ifname, sizeof(ifname), err, sizeof(err)))
			die("%s", err);
		o.ifname = ifname;
	}
	compile(&o, &(struct source){ .ifname = o.ifname }, &p);
	out.q = &p.q;
	out.lay = &p.lay;
	if (o.dump) {
		(o.dump > 1 ? disasm_print_c : disasm_print)(stdout, &p.e);
		return 0;
	}
	if (maps_create(&m, &p.lay, err, sizeof(err)))
		die("%s", err);
	prog = load_program(&p.e, m.fd, o.verbose, err, sizeof(err));
	if (prog < 0)
		die("%s", err);
	sock = attach_socket(o.ifname, prog, o.promisc, err, sizeof(err));
	if (sock < 0)
		die("%s", err);
	catch_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	run(&o, &m, &p.lay);
	close(sock);
	close(prog);
	maps_close(&m);
	program_free(&p);
	return 0;
}
