// SPDX-License-Identifier: GPL-2.0
/*
 * Guest benchmark of counting socket filters through BPF_PROG_TEST_RUN
 * (tests/bench/codegen.sh): ebpfcount's own programs, built by its parser,
 * code generator and loader (linked from src/), next to programs compiled
 * from C by clang and loaded with libbpf.
 *
 *   bench_prog [-1] [-r REPEAT] [-n ROUNDS] CASE...
 *
 * CASE is NAME=ebpfcount:EXPRESSION (the program reading a copy of the
 * frame on the stack), NAME=ebpfcount-ld:EXPRESSION (with LD_ABS, as
 * without CAP_PERFMON), NAME=ebpfcount-direct:EXPRESSION (straight from
 * the packet, on a kernel with the series; see src/frame.h), with several expressions in one program separated by
 * ';' (ebpfcount -e ... -e ...), or NAME=FILE.bpf.o (the object's first
 * program; its counting map is called "counts").  Each case is loaded with
 * the JIT (bpf_jit_enable=1), then again interpreted (0); in each mode the
 * cases run in turn, ROUNDS times, on one test frame, REPEAT times per run
 * (REPEAT/4 interpreted).  With -1 one case is loaded at a time (no
 * interleaving; for load tests whose many maps would not fit together).
 * One line per case and mode:
 *
 *   prog NAME MODE INSNS XLATED JITED NS
 *
 * INSNS: instructions loaded; XLATED: instructions after the verifier's
 * rewrites (bpf_prog_info.xlated_prog_len / 8); JITED: bytes of machine
 * code (0 interpreted); NS: median ns per packet (wall clock).  Afterwards
 * every counting map (each expression's) must hold exactly the packets run
 * through it.
 *
 * The frame is Ethernet/IPv4/TCP 198.18.0.2:40000 -> 198.18.0.1:443, 60
 * bytes.  BPF_PROG_TEST_RUN treats the first 14 bytes of its input as an
 * Ethernet header and shows socket filters the data after it, so 14 more
 * bytes (EtherType IPv4) go in front: the programs see the frame from L2 at
 * offset 0, as on a live AF_PACKET socket.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "codegen.h"
#include "compile.h"
#include "filter.h"
#include "load.h"
#include "maps.h"
#include "parse.h"
#include "session.h"
#include "spec.h"

#define MAX_CASES 64
#define MAX_ROUNDS 64

/* What BPF_PROG_TEST_RUN takes for the Ethernet header, then the frame. */
static unsigned char pkt[14 + 60] = { [12] = 0x08, [13] = 0x00 };
#define FRAME_SPEC "tcp4,sport=40000,dport=443,frag=df,len=60"

struct bcase {
	const char *name;
	const char *expr;	/* ebpfcount expressions, or NULL */
	const char *exprs[MAX_EXPRS];
	int nx;
	enum frame_mode mode;
	const char *obj;	/* clang object, or NULL */
	/* loaded */
	int fd, insns;
	struct program p;
	struct session s;
	struct bpf_object *bo;
	int map_fd;
	unsigned long long runs;
	double ns[MAX_ROUNDS];
};

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "bench_prog: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void set_jit(int on)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "w");

	if (!f || fputs(on ? "1" : "0", f) < 0 || fclose(f))
		die("bpf_jit_enable: %s", strerror(errno));
}

/* ebpfcount's path: parse, pcap filter, layout, codegen, maps, verifier */
static void load_ebpfcount(struct bcase *c)
{
	struct build_opts bo = { .allowed = c->mode };
	struct build_error berr;
	char err[1024];

	if (program_build(&c->p, c->exprs, c->nx, &bo, &berr))
		die("%s: %s (column %d)", c->exprs[berr.expr], berr.msg, berr.pos + 1);
	if (session_open(&c->s, &c->p, &(struct session_opts){ .kernel = 1 }, err, sizeof(err)))
		die("%s: %s", c->expr, err);
	c->fd = c->s.prog;
	c->insns = c->p.e.len;
}

static void load_object(struct bcase *c)
{
	struct bpf_program *p;
	struct bpf_map *map;

	c->bo = bpf_object__open_file(c->obj, NULL);
	if (!c->bo)
		die("%s: cannot open: %s", c->obj, strerror(errno));
	if (bpf_object__load(c->bo))
		die("%s: cannot load: %s", c->obj, strerror(errno));
	p = bpf_object__next_program(c->bo, NULL);
	if (!p)
		die("%s: no program", c->obj);
	c->fd = bpf_program__fd(p);
	c->insns = bpf_program__insn_cnt(p);
	map = bpf_object__find_map_by_name(c->bo, "counts");
	c->map_fd = map ? bpf_map__fd(map) : -1;
}

static void unload(struct bcase *c)
{
	if (c->expr) {
		session_close(&c->s);
		program_free(&c->p);
	} else {
		bpf_object__close(c->bo);
	}
	c->runs = 0;
}

static double run_ns(struct bcase *c, int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = repeat);
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (bpf_prog_test_run_opts(c->fd, &topts))
		die("%s: BPF_PROG_TEST_RUN: %s", c->name, strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (topts.retval != 0)
		die("%s: returned %u, not 0", c->name, topts.retval);
	c->runs += repeat;
	/* wall clock rather than topts.duration, which is whole ns */
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / repeat;
}

static int add_packets(const unsigned char *key, const struct counter *sum, void *ctx)
{
	(void)key;
	*(unsigned long long *)ctx += sum->packets;
	return 0;
}

/*
 * Packets in the counting map: every key, every possible CPU; of several
 * expressions', the one that counted least.
 */
static unsigned long long counted(struct bcase *c)
{
	unsigned long long n = 0, least = ~0ull;
	int ncpus = libbpf_num_possible_cpus(), i;
	struct counter ovf, *vals;
	unsigned char key[64], next[64];
	void *prev = NULL;

	for (i = 0; c->expr && i < c->nx; i++) {
		n = 0;
		if (maps_read(&c->s.m[i], add_packets, &n, &ovf))
			die("%s: cannot read the counters", c->name);
		if (n + ovf.packets < least)
			least = n + ovf.packets;
	}
	if (c->expr)
		return least;
	if (c->map_fd < 0)
		return c->runs;		/* the floor counts nothing */
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		die("out of memory");
	while (!bpf_map_get_next_key(c->map_fd, prev, next)) {
		memcpy(key, next, sizeof(key));
		prev = key;
		if (bpf_map_lookup_elem(c->map_fd, key, vals))
			die("%s: map lookup: %s", c->name, strerror(errno));
		for (i = 0; i < ncpus; i++)
			n += vals[i].packets;
	}
	free(vals);
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Check that every run was counted, then print the case's median. */
static void report(struct bcase *c, int jit, int rounds)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	unsigned long long got = counted(c);

	if (bpf_obj_get_info_by_fd(c->fd, &info, &len))
		die("%s: BPF_OBJ_GET_INFO_BY_FD: %s", c->name, strerror(errno));
	if (got != c->runs)
		die("%s: counted %llu packets of %llu run", c->name, got, c->runs);
	qsort(c->ns, rounds, sizeof(double), cmp_double);
	printf("prog %s %s %d %u %u %.1f\n", c->name, jit ? "jit" : "interp",
	       c->insns, info.xlated_prog_len / 8, info.jited_prog_len, c->ns[rounds / 2]);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	struct bcase cases[MAX_CASES];
	int repeat = 1000000, rounds = 5, n = 0, alone = 0, mode, first, last, i, r, opt;
	char *s, *semi, err[256];
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "1r:n:")) != -1) {
		switch (opt) {
		case '1': alone = 1; break;
		case 'r': repeat = atoi(optarg); break;
		case 'n': rounds = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (repeat < 4 || rounds < 1 || rounds > MAX_ROUNDS || optind == argc ||
	    argc - optind > MAX_CASES)
		goto usage;
	if (spec_frame(FRAME_SPEC, pkt + 14, sizeof(pkt) - 14, err, sizeof(err)) < 0)
		die("%s", err);
	memset(cases, 0, sizeof(cases));
	for (i = optind; i < argc; i++, n++) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			goto usage;
		*eq = '\0';
		cases[n].name = argv[i];
		if (!strncmp(eq + 1, "ebpfcount:", 10)) {
			cases[n].expr = eq + 11;
		} else if (!strncmp(eq + 1, "ebpfcount-ld:", 13)) {
			cases[n].expr = eq + 14;
			cases[n].mode = FRAME_LD_ABS;
		} else if (!strncmp(eq + 1, "ebpfcount-direct:", 17)) {
			cases[n].expr = eq + 18;
			cases[n].mode = FRAME_DIRECT;
		} else
			cases[n].obj = eq + 1;
		for (s = (char *)cases[n].expr; s; s = semi ? semi + 1 : NULL) {
			semi = strchr(s, ';');
			if (semi)
				*semi = '\0';
			if (cases[n].nx == MAX_EXPRS)
				goto usage;
			cases[n].exprs[cases[n].nx++] = s;
		}
	}
	libbpf_set_print(quiet);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);

	for (mode = 1; mode >= 0; mode--) {
		int rep = mode ? repeat : repeat / 4;

		set_jit(mode);
		/* alone: one case at a time, for the many big maps of a load test */
		for (first = 0; first < n; first = last) {
			last = alone ? first + 1 : n;
			for (i = first; i < last; i++) {
				if (cases[i].expr)
					load_ebpfcount(&cases[i]);
				else
					load_object(&cases[i]);
			}
			/* warm up: inserts the keys, faults everything in */
			for (i = first; i < last; i++)
				run_ns(&cases[i], 1000);
			/* interleave the cases so that drift hits them alike */
			for (r = 0; r < rounds; r++)
				for (i = first; i < last; i++)
					cases[i].ns[r] = run_ns(&cases[i], rep);
			for (i = first; i < last; i++) {
				report(&cases[i], mode, rounds);
				unload(&cases[i]);
			}
		}
	}
	set_jit(1);
	return 0;
usage:
	fprintf(stderr, "usage: bench_prog [-1] [-r REPEAT] [-n ROUNDS<=%d] NAME=ebpfcount[-ld]:EXPR|"
		"NAME=FILE.bpf.o...\n", MAX_ROUNDS);
	return 2;
}
