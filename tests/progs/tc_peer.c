// SPDX-License-Identifier: GPL-2.0
/*
 * Loader of the peer benchmark's TC program (tests/bench/peer.sh,
 * tests/bench/c/tc_5tuple.bpf.c): the kind of program pktstat-bpf attaches,
 * measured next to ebpfcount on the same packets.
 *
 *   tc_peer -i IFACE OBJ
 *
 * Loads OBJ's first program, attaches it to IFACE's ingress through a clsact
 * qdisc (bpf_tc_hook_create, bpf_tc_attach), prints "attached" and waits for
 * SIGINT or SIGTERM; then detaches it, removes the qdisc and prints
 *
 *   tc KEYS PACKETS BYTES RUNS RUN_NS
 *
 * KEYS, PACKETS, BYTES: entries of its map "counts" and their sums; RUNS,
 * RUN_NS: the kernel's statistics of the program (bpf_prog_info run_cnt and
 * run_time_ns, counted while kernel.bpf_stats_enabled is 1).
 *
 *   tc_peer -t [-r REPEAT] [-n ROUNDS] OBJ
 *
 * BPF_PROG_TEST_RUN of the program, as tests/progs/bench_prog.c does for
 * socket filters, on two fixed 60-byte frames, interleaved: "udp",
 * Ethernet/IPv4/UDP 198.18.0.2:1000 -> 198.18.0.1:2000, and "tcp",
 * bench_prog's frame (Ethernet/IPv4/TCP 198.18.0.2:40000 -> 198.18.0.1:443).
 * A SCHED_CLS test run sees the frame from its Ethernet header.  REPEAT
 * runs per measurement, ROUNDS measurements; one line per frame:
 *
 *   test tc-FRAME INSNS XLATED JITED NS
 *
 * NS: median wall-clock ns per packet; the map must then hold exactly the
 * packets run.  JIT as the system has it; pinned to CPU 0.
 */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "spec.h"

#define MAX_ROUNDS 64

/* the map's key and value, as in tc_5tuple.bpf.c */
struct key {
	unsigned int src, dst;
	unsigned short sport, dport;
	unsigned char proto, pad[3];
};

struct counter {
	unsigned long long packets, bytes;
};

static unsigned char udp_frame[60], tcp_frame[60];
#define UDP_SPEC "udp4,frag=df,len=60"
#define TCP_SPEC "tcp4,sport=40000,dport=443,frag=df,len=60"

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "tc_peer: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static struct bpf_object *load(const char *path, int *prog_fd, int *map_fd)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *p;

	if (!obj)
		die("%s: cannot open: %s", path, strerror(errno));
	if (bpf_object__load(obj))
		die("%s: cannot load: %s", path, strerror(errno));
	p = bpf_object__next_program(obj, NULL);
	if (!p)
		die("%s: no program", path);
	*prog_fd = bpf_program__fd(p);
	*map_fd = bpf_object__find_map_fd_by_name(obj, "counts");
	if (*map_fd < 0)
		die("%s: no map 'counts'", path);
	return obj;
}

static void prog_info(int fd, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	if (bpf_obj_get_info_by_fd(fd, info, &len))
		die("BPF_OBJ_GET_INFO_BY_FD: %s", strerror(errno));
}

/* Entries of the map and the sums of their counters. */
static unsigned long long sum(int map_fd, struct counter *total)
{
	struct key k, next;
	struct counter c;
	unsigned long long n = 0;
	void *prev = NULL;

	memset(total, 0, sizeof(*total));
	while (!bpf_map_get_next_key(map_fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(map_fd, &k, &c)) {
			if (errno == ENOENT)	/* evicted meanwhile */
				continue;
			die("map lookup: %s", strerror(errno));
		}
		total->packets += c.packets;
		total->bytes += c.bytes;
		n++;
	}
	return n;
}

static int attach(const char *ifname, const char *path)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);
	struct bpf_prog_info info;
	struct bpf_object *obj;
	struct counter total;
	unsigned long long keys;
	int prog_fd, map_fd, err, sig;
	sigset_t set;

	hook.ifindex = if_nametoindex(ifname);
	if (!hook.ifindex)
		die("unknown interface '%s'", ifname);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	obj = load(path, &prog_fd, &map_fd);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		die("clsact on %s: %s%s", ifname, strerror(-err),
		    err == -EOPNOTSUPP || err == -ENOENT ?
		    " (a kernel without CONFIG_NET_SCH_INGRESS?)" : "");
	opts.prog_fd = prog_fd;
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		die("attach to %s ingress: %s", ifname, strerror(-err));
	printf("attached\n");
	fflush(stdout);
	sigwait(&set, &sig);

	opts.prog_fd = opts.prog_id = opts.flags = 0;
	if (bpf_tc_detach(&hook, &opts))
		die("detach: %s", strerror(errno));
	hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	bpf_tc_hook_destroy(&hook);
	prog_info(prog_fd, &info);
	keys = sum(map_fd, &total);
	printf("tc %llu %llu %llu %llu %llu\n", keys, total.packets, total.bytes,
	       (unsigned long long)info.run_cnt, (unsigned long long)info.run_time_ns);
	bpf_object__close(obj);
	return 0;
}

static double run_ns(int fd, unsigned char *frame, int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = frame, .data_size_in = 60,
		    .repeat = repeat);
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (bpf_prog_test_run_opts(fd, &topts))
		die("BPF_PROG_TEST_RUN: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (topts.retval != TC_ACT_OK)
		die("the program returned %d, not TC_ACT_OK", (int)topts.retval);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / repeat;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int test(const char *path, int repeat, int rounds)
{
	static const char *const names[2] = { "udp", "tcp" };
	unsigned char *frames[2] = { udp_frame, tcp_frame };
	unsigned long long runs = 0;
	double ns[2][MAX_ROUNDS];
	struct bpf_prog_info info;
	struct bpf_object *obj;
	struct counter total;
	int prog_fd, map_fd, i, r;
	cpu_set_t set;
	size_t insns;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	obj = load(path, &prog_fd, &map_fd);
	for (i = 0; i < 2; i++, runs += 1000)
		run_ns(prog_fd, frames[i], 1000);	/* warm up, insert the keys */
	for (r = 0; r < rounds; r++)
		for (i = 0; i < 2; i++, runs += repeat)
			ns[i][r] = run_ns(prog_fd, frames[i], repeat);
	if (sum(map_fd, &total) != 2 || total.packets != runs)
		die("counted %llu packets of %llu run", total.packets, runs);
	prog_info(prog_fd, &info);
	insns = bpf_program__insn_cnt(bpf_object__next_program(obj, NULL));
	for (i = 0; i < 2; i++) {
		qsort(ns[i], rounds, sizeof(double), cmp_double);
		printf("test tc-%s %zu %u %u %.1f\n", names[i], insns,
		       info.xlated_prog_len / 8, info.jited_prog_len, ns[i][rounds / 2]);
	}
	bpf_object__close(obj);
	return 0;
}

int main(int argc, char **argv)
{
	int repeat = 1000000, rounds = 5, testrun = 0, opt;
	const char *ifname = NULL;
	char err[256];

	while ((opt = getopt(argc, argv, "i:tr:n:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 't': testrun = 1; break;
		case 'r': repeat = atoi(optarg); break;
		case 'n': rounds = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || !ifname == !testrun || repeat < 1 || rounds < 1 ||
	    rounds > MAX_ROUNDS)
		goto usage;
	if (spec_frame(UDP_SPEC, udp_frame, sizeof(udp_frame), err, sizeof(err)) < 0 ||
	    spec_frame(TCP_SPEC, tcp_frame, sizeof(tcp_frame), err, sizeof(err)) < 0)
		die("%s", err);
	libbpf_set_print(quiet);
	return testrun ? test(argv[optind], repeat, rounds) : attach(ifname, argv[optind]);
usage:
	fprintf(stderr, "usage: tc_peer -i IFACE OBJ | tc_peer -t [-r REPEAT] [-n ROUNDS<=%d] OBJ\n",
		MAX_ROUNDS);
	return 2;
}
