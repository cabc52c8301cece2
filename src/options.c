// SPDX-License-Identifier: GPL-2.0
/* The command line; see options.h and ebpfcount(8). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "maps.h"
#include "options.h"
#include "serve.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ebpfcount [-i IFACE | -r FILE [--engine user|kernel]] [-c COUNT] [-I SECONDS]\n"
		"                 [-F human|json|csv|none] [-n] [-p] [--top N] [--max-keys N]\n"
		"                 [--listen [ADDR:]PORT] [--textfile PATH] [-Z USER] [-d|-dd] [-v]\n"
		"                 EXPRESSION | -e EXPRESSION [-e EXPRESSION...]\n"
		"       ebpfcount --list-fields | -h | --version\n"
		"\n"
		"EXPRESSION: count [by KEY[, KEY...]] [where PCAP-FILTER]\n"
		"  KEY is a Wireshark field name (ip.proto, ip.src/24, tcp.dstport, ...)\n"
		"  PCAP-FILTER is tcpdump's filter syntax (tcp port 443 and not net 198.18.0.0/16)\n"
		"\n"
		"  -e EXPRESSION count by several expressions at once, up to %d, in one program\n"
		"  -i IFACE      interface (default: the first up, non-loopback one)\n"
		"  -r FILE       count the packets of a capture file (pcap, pcapng; - for stdin),\n"
		"                by capture time\n"
		"  --engine E    who runs the program for -r: user (default: ebpfcount's own\n"
		"                engine, no privileges) or kernel (BPF_PROG_TEST_RUN)\n"
		"  -c COUNT      stop after COUNT intervals\n"
		"  -I SECONDS    interval length (default 1; fractions allowed)\n"
		"  -F FORMAT     human (default), json (JSON Lines), csv or none; without -F\n"
		"                and -c, a terminal gets a live view instead (q quits)\n"
		"  -n            numbers only: no protocol or port names\n"
		"  -p            do not put the interface in promiscuous mode\n"
		"  --top N       print the N busiest keys per interval\n"
		"  --max-keys N  bound the keys per interval; keys that do not fit count as overflow\n"
		"  --listen [ADDR:]PORT\n"
		"                serve the totals to Prometheus at http://ADDR:PORT/metrics\n"
		"                (no ADDR: 127.0.0.1 and ::1 only; [::] for every address)\n"
		"  --textfile PATH\n"
		"                write the totals for Prometheus to PATH at every interval\n"
		"  -Z USER       once set up, run as USER (every capability is dropped anyway)\n"
		"  -d            print the generated eBPF program and exit; -dd as a C array\n"
		"  -v            print the verifier's log, and per interval the time\n"
		"                taken to read and print the counters (on stderr)\n"
		"  --list-fields list the keys\n"
		"  -h, --help    this help; --version the version\n"
		"See ebpfcount(8).\n", MAX_EXPRS);
}

static void list_fields(void)
{
	const struct field *f;
	int i, n;

	f = field_table(&n);
	for (i = 0; i < n; i++)
		printf("%-16s %s\n", f[i].name, f[i].help);
}

/* A usage error: its message in err; -1. */
static __attribute__((format(printf, 3, 4))) int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Is s a decimal number as tcpdump's options want them: digits and, if
 * dot, one '.'?  No blank, sign, hex, exponent, inf or nan, which strtol()
 * and strtod() would take.
 */
static int decimal(const char *s, int dot)
{
	int digits = 0;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digits++;
		else if (*s == '.' && dot)
			dot = 0;
		else
			return 0;
	}
	return digits > 0;
}

/* A whole number from min to max into *v: anything else is a usage error. */
static int parse_long(const char *s, const char *opt, long min, long max, long *v,
		      char *err, size_t errlen)
{
	errno = 0;
	*v = strtol(s, NULL, 10);
	if (!decimal(s, 0) || errno || *v < min || *v > max)
		return bad(err, errlen, "%s wants a whole number from %ld to %ld, not '%s'",
			   opt, min, max, s);
	return 0;
}

static int parse_secs(const char *s, double *v, char *err, size_t errlen)
{
	*v = strtod(s, NULL);
	if (!decimal(s, 1) || *v < 0.01 || *v > 86400)
		return bad(err, errlen, "-I wants seconds from 0.01 to 86400, not '%s'", s);
	return 0;
}

/* Expression -e (or the argument): each is counted once. */
static int add_expr(struct options *o, const char *expr, char *err, size_t errlen)
{
	int i;

	if (o->nexprs == MAX_EXPRS)
		return bad(err, errlen, "at most %d expressions", MAX_EXPRS);
	for (i = 0; i < o->nexprs; i++)
		if (!strcmp(o->exprs[i], expr))
			return bad(err, errlen, "expression '%s' given twice", expr);
	o->exprs[o->nexprs++] = expr;
	return 0;
}

enum { OPT_TOP = 256, OPT_MAX_KEYS, OPT_VERSION, OPT_LIST, OPT_ENGINE, OPT_LISTEN,
       OPT_TEXTFILE };

static const struct option longopts[] = {
	{ "top", required_argument, NULL, OPT_TOP },
	{ "max-keys", required_argument, NULL, OPT_MAX_KEYS },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "list-fields", no_argument, NULL, OPT_LIST },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "textfile", required_argument, NULL, OPT_TEXTFILE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
static const char shortopts[] = ":e:i:r:c:I:F:npdvZ:h";

/* The option getopt_long() stopped at, as given: "-x" or "--name". */
static const char *option_name(char **argv, int next)
{
	static char buf[4];

	if (optopt > 0 && optopt < 256) {	/* a short one, maybe in a cluster */
		snprintf(buf, sizeof(buf), "-%c", optopt);
		return buf;
	}
	return argv[next - 1];
}

/* One option, c with its argument arg: 0, 1 when it printed what was asked, or -1. */
static int option(struct options *o, int c, const char *arg, char **argv, char *err, size_t errlen)
{
	switch (c) {
	case 'e': return add_expr(o, arg, err, errlen);
	case 'i': o->ifname = arg; break;
	case 'r': o->file = arg; break;
	case 'c': return parse_long(arg, "-c", 1, INT_MAX, &o->count, err, errlen);
	case 'I': return parse_secs(arg, &o->interval, err, errlen);
	case 'F': o->format = arg, o->format_given = 1; break;
	case 'n': o->numeric = 1; break;
	case 'p': o->promisc = 0, o->nopromisc = 1; break;
	case 'd': o->dump++; break;
	case 'v': o->verbose = 1; break;
	case 'Z': o->user = arg; break;
	case OPT_TOP: return parse_long(arg, "--top", 1, INT_MAX, &o->top, err, errlen);
	case OPT_MAX_KEYS:
		return parse_long(arg, "--max-keys", 1, MAPS_DEFAULT_KEYS, &o->max_keys, err,
				  errlen);
	case OPT_VERSION: printf("ebpfcount %s\n", EBPFCOUNT_VERSION); return 1;
	case OPT_LIST: list_fields(); return 1;
	case 'h': usage(stdout); return 1;
	case OPT_ENGINE:
		if (strcmp(arg, "user") && strcmp(arg, "kernel"))
			return bad(err, errlen, "--engine is user or kernel, not '%s'", arg);
		o->kernel_engine = !strcmp(arg, "kernel");
		o->engine = 1;
		break;
	case OPT_LISTEN:
		o->listen = arg;
		if (serve_parse(arg, o->listen_host, sizeof(o->listen_host), o->listen_port,
				sizeof(o->listen_port)))
			return bad(err, errlen, "--listen wants [ADDR:]PORT, PORT from 1 to 65535 "
				   "and an IPv6 ADDR in brackets, not '%s'", arg);
		break;
	case OPT_TEXTFILE:
		if (!*arg)
			return bad(err, errlen, "--textfile wants a file name");
		o->textfile = arg;
		break;
	case ':': return bad(err, errlen, "%s wants a value", option_name(argv, optind));
	default: return bad(err, errlen, "unknown option %s", option_name(argv, optind));
	}
	return 0;
}

/* What the options say together, and the expression argument. */
static int together(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	if (o->nexprs && optind < argc)
		return bad(err, errlen, "give the expressions with -e, or one as the argument, "
			   "not both");
	if (!o->nexprs && optind != argc - 1)
		return bad(err, errlen, "%s", optind == argc ? "no expression given" :
			   "give the expression as one argument (quote it)");
	if (!o->nexprs && add_expr(o, argv[optind], err, errlen))
		return -1;
	if (o->file && (o->ifname || o->nopromisc))
		return bad(err, errlen, "%s", o->ifname ? "-r and -i do not go together" :
			   "-p is for an interface, not -r");
	if (o->engine && !o->file)
		return bad(err, errlen, "--engine is for -r (live mode is always the kernel)");
	if (o->listen && o->file)
		return bad(err, errlen, "--listen is for an interface (use --textfile with -r)");
	return 0;
}

enum options_result options_parse(int argc, char **argv, struct options *o, char *err,
				  size_t errlen)
{
	int c, ret = 0;

	/* -F first, so that an error of the options before it is JSON too */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
		if (c == 'F')
			o->json = !strcmp(optarg, "json");
	optind = 0;	/* glibc: start again */
	while (!ret && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
		ret = option(o, c, optarg, argv, err, errlen);
	if (ret > 0)
		return OPTIONS_DONE;
	if (ret < 0 || together(argc, argv, o, err, errlen))
		return OPTIONS_USAGE;
	return OPTIONS_COUNT;
}
