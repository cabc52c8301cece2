// SPDX-License-Identifier: GPL-2.0
/*
 * Guest benchmark of ebpfcount's readout (tests/bench/readout.sh): its
 * maps and report, opened by the session (src/session.c) as ebpfcount
 * opens them, filled directly with BPF_MAP_UPDATE_BATCH, next to the bare
 * batch syscalls on the same maps.  The program is loaded, never run, and
 * no packet is sent.
 *
 *   bench_readout idle
 *   bench_readout keys N...
 *
 * idle: the median of 7 readouts of an idle interval (the third and later
 * of a fresh run), for
 *   ebpfcount   maps_read() and the report of the default 'count by
 *               ip.src' (two empty 1024-key tables, the overflow counter),
 *   pre1k       one BPF_MAP_LOOKUP_BATCH of an empty preallocated per-CPU
 *               hash of 1024 entries,
 *   old1m       the same on an empty per-CPU hash of 2^20 entries with
 *               BPF_F_NO_PREALLOC: the table ebpfcount read before.
 * One line:  idle EBPFCOUNT_US PRE1K_US OLD1M_US
 *
 * keys N: the default 'count by ip.src' tables are grown as ebpfcount
 * grows them (fill the live table, count the rest as overflow, read) until
 * N keys fit; then N keys with 1 packet each go into the live table and
 * one readout (report_collect(): swap, drain, report) is timed, then the
 * JSON output of that interval to /dev/null.  On the same map, filled
 * again, one BPF_MAP_LOOKUP_BATCH pass and one LOOKUP_AND_DELETE_BATCH
 * pass over all entries, with ebpfcount's 1024 entries per call.  Peak
 * RSS: VmHWM from the maps' creation to the readout's end (reset before
 * with clear_refs) minus VmRSS before: what ebpfcount's user space holds
 * for N keys (the report's table of totals, the rows, the buffers).  Median of 3 runs (1 from 1M keys).  One line per N:
 *
 *   keys N ROWS TABLE READ_US PRINT_US LOOKUP_US DRAIN_US PEAK_KB ROW_BYTES
 *
 * ROW_BYTES: a row's own bytes, its key as rows carry it and its counter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compile.h"
#include "output.h"
#include "session.h"

#define CHUNK 1024
#define FILL_CHUNK 65536

/* The default 'count by ip.src', as ebpfcount builds it: its tables come from the session. */
static const char *expr = "count by ip.src";
static struct program prog;
static int ncpus;

static _Noreturn void die(const char *what, int err)
{
	fprintf(stderr, "bench_readout: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static long status_kb(const char *field)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = atol(line + strlen(field) + 1);
	if (f)
		fclose(f);
	return kb;
}

static void reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

/* Keys first .. first + n - 1 of 'count by ip.src', 1 packet each, into fd. */
static unsigned int bare_pass(int fd, int drain);

static void fill(int fd, unsigned int first, unsigned int n)
{
	static unsigned char *keys;
	static struct counter *vals;
	int ks = prog.x[0].lay.key_size;
	unsigned int i, done, k;
	__u32 count;
	int c, err;

	if (!keys) {
		keys = calloc(FILL_CHUNK, ks);
		bare_pass(-1, 0);
		vals = calloc((size_t)FILL_CHUNK * ncpus, sizeof(*vals));
		if (!keys || !vals)
			die("fill", ENOMEM);
	}
	for (done = 0; done < n; done += count) {
		count = n - done < FILL_CHUNK ? n - done : FILL_CHUNK;
		for (i = 0; i < count; i++) {
			unsigned char *key = keys + (size_t)i * ks;

			k = first + done + i;
			memset(key, 0, ks);
			key[0] = KEY_PRESENT;
			key[prog.x[0].lay.val_off[0]] = 198;
			key[prog.x[0].lay.val_off[0] + 1] = k >> 16;
			key[prog.x[0].lay.val_off[0] + 2] = k >> 8;
			key[prog.x[0].lay.val_off[0] + 3] = k;
			for (c = 0; c < ncpus; c++)
				vals[(size_t)i * ncpus + c] = (struct counter){ c == 0, c == 0 ? 60 : 0 };
		}
		err = bpf_map_update_batch(fd, keys, vals, &count, NULL);
		if (err)
			die("BPF_MAP_UPDATE_BATCH", errno);
	}
}

/* n more packets in the overflow counter (CPU 0's). */
static void add_overflow(struct maps *m, unsigned long long n)
{
	struct counter *v = calloc(ncpus, sizeof(*v));
	__u32 zero = 0;

	if (!v || bpf_map_lookup_elem(m->fd[MAP_OVERFLOW], &zero, v))
		die("overflow", errno);
	v[0].packets += n;
	v[0].bytes += 60 * n;
	if (bpf_map_update_elem(m->fd[MAP_OVERFLOW], &zero, v, BPF_ANY))
		die("overflow", errno);
	free(v);
}

/* One pass of bare batch calls over fd (drain: and delete): entries seen. */
static unsigned int bare_pass(int fd, int drain)
{
	static void *keys, *vals;
	unsigned int seen = 0;
	__u32 cur = 0, n;
	int first = 1, err;

	if (!keys) {
		keys = calloc(CHUNK, 8);
		vals = calloc((size_t)CHUNK * ncpus, sizeof(struct counter));
	}
	if (fd < 0)		/* only the buffers */
		return 0;
	do {
		n = CHUNK;
		err = (drain ? bpf_map_lookup_and_delete_batch : bpf_map_lookup_batch)
			(fd, first ? NULL : &cur, &cur, keys, vals, &n, NULL);
		if (err && errno != ENOENT)
			die("batch", errno);
		seen += n;
		first = 0;
	} while (!err);
	return seen;
}

/* The tables and the report, through the session as ebpfcount opens them. */
static void start(struct session *s, struct maps **m, struct report **r)
{
	char err[1024];

	if (session_open(s, &prog, &(struct session_opts){ .kernel = 1 }, err, sizeof(err))) {
		fprintf(stderr, "bench_readout: %s\n", err);
		exit(1);
	}
	*m = &s->m[0];
	*r = s->r[0];
}

static void idle(void)
{
	double eb[7], pre[7], old[7], t;
	struct interval iv;
	struct report *r;
	struct session s;
	struct maps *m;
	int i, fd1k, fd1m;

	start(&s, &m, &r);
	for (i = 0; i < 2; i++)
		if (report_collect(r, m, &iv))
			die("readout", EIO);
	for (i = 0; i < 7; i++) {
		t = now_us();
		if (report_collect(r, m, &iv))
			die("readout", EIO);
		eb[i] = now_us() - t;
	}
	fd1k = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "pre1k", 8, 16, 1024, NULL);
	fd1m = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "old1m", 8, 16, 1 << 20,
			      &(struct bpf_map_create_opts){ .sz = sizeof(struct bpf_map_create_opts),
							     .map_flags = BPF_F_NO_PREALLOC });
	if (fd1k < 0 || fd1m < 0)
		die("bpf_map_create", errno);
	for (i = 0; i < 7; i++) {
		t = now_us();
		bare_pass(fd1k, 0);
		pre[i] = now_us() - t;
		t = now_us();
		bare_pass(fd1m, 0);
		old[i] = now_us() - t;
	}
	printf("idle %.1f %.1f %.1f\n", median(eb, 7), median(pre, 7), median(old, 7));
	session_close(&s);
}

/* Grow the tables as ebpfcount does until n keys fit in the live one. */
static void grow_to(struct maps *m, struct report *r, unsigned int n)
{
	struct interval iv;

	while (m->size[m->live] < 2 * n && m->size[m->live] < MAPS_DEFAULT_KEYS) {
		unsigned int fit = n < m->size[m->live] ? n : m->size[m->live];

		fill(m->table[m->live], 0, fit);
		add_overflow(m, n - fit);
		if (report_collect(r, m, &iv))
			die("readout", EIO);
		if (m->refused)
			die("growing", m->refused);
	}
}

static void keys(unsigned int n)
{
	int runs = n >= 1000000 ? 1 : 3, i;
	double rd[3], pr[3], lk[3], dr[3], t;
	long peak[3], rss;
	struct output out = { 0 };
	struct interval iv;
	struct report *r;
	struct session s;
	struct maps *m;
	unsigned int table = 0;
	size_t rows = 0;

	for (i = 0; i < runs; i++) {
		rss = status_kb("VmRSS:");
		reset_peak();
		start(&s, &m, &r);
		grow_to(m, r, n);
		fill(m->table[m->live], 0, n);
		t = now_us();
		if (report_collect(r, m, &iv))
			die("readout", EIO);
		rd[i] = now_us() - t;
		peak[i] = status_kb("VmHWM:") - rss;
		rows = iv.nrows;
		out.f = fopen("/dev/null", "w");
		if (!out.f || output_init(&out, "json"))
			die("output", EINVAL);
		out.x = prog.x;
		out.nx = 1;
		t = now_us();
		output_interval(&out, &iv);
		fflush(out.f);
		pr[i] = now_us() - t;
		fclose(out.f);
		/* the bare syscalls, on the table just drained (not live) */
		fill(m->table[!m->live], 0, n);
		t = now_us();
		if (bare_pass(m->table[!m->live], 0) != n)
			die("lookup batch", EIO);
		lk[i] = now_us() - t;
		t = now_us();
		if (bare_pass(m->table[!m->live], 1) != n)
			die("lookup-and-delete batch", EIO);
		dr[i] = now_us() - t;
		table = m->size[m->live];
		session_close(&s);
	}
	qsort(peak, runs, sizeof(*peak), cmp_long);
	printf("keys %u %zu %u %.1f %.1f %.1f %.1f %ld %zu\n", n, rows, table, median(rd, runs),
	       median(pr, runs), median(lk, runs), median(dr, runs), peak[runs / 2],
	       prog.x[0].lay.row_size + sizeof(struct counter));
}

int main(int argc, char **argv)
{
	struct build_error berr;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ncpus = libbpf_num_possible_cpus();
	if (argc < 2) {
		fprintf(stderr, "usage: bench_readout idle | keys N...\n");
		return 2;
	}
	if (program_build(&prog, &expr, 1, &(struct build_opts){ .allowed = FRAME_WINDOW },
			  &berr)) {
		fprintf(stderr, "bench_readout: %s\n", berr.msg);
		return 1;
	}
	fill(-1, 0, 0);		/* its buffers, before any RSS is measured */
	if (!strcmp(argv[1], "idle"))
		idle();
	else
		for (i = 2; i < argc; i++)
			keys(strtoul(argv[i], NULL, 10));
	return 0;
}
