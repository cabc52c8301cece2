// SPDX-License-Identifier: GPL-2.0
/*
 * Guest benchmark of per-CPU counting socket filters through
 * BPF_PROG_TEST_RUN: ns per packet for
 *
 *   empty         r0 = 0; exit (the floor)
 *   array_proto   count by ip.proto in a PERCPU_ARRAY (256 entries)
 *   hash_src      count by ip.src in a PERCPU_HASH
 *   lru_src       count by ip.src in an LRU_PERCPU_HASH
 *   hash_rand     count by a random key of 16 bits in a PERCPU_HASH of 1024
 *                 entries: mostly misses, then an insert that fails (full)
 *   lru_rand      the same in an LRU_PERCPU_HASH: the insert evicts
 *
 * each with the JIT (bpf_jit_enable=1) and interpreted (0).  These are
 * hand-written equivalents of ebpfcount's "count by" programs: load the
 * field with LD_ABS, look it up, add 1 to the per-CPU u64, insert it when
 * missing.  Prints one line per case: "bench PROG MODE MIN MEDIAN", the
 * fastest and the median of ROUNDS runs of REPEAT packets, in ns/packet
 * (other load on the host only ever adds time, so MIN is the steadier).
 *
 *   bench_percpu [REPEAT [ROUNDS]]     (defaults 1000000 and 5)
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "insn.h"
#include "spec.h"

#define LD_ABS(SIZE, OFF) INSN(BPF_LD | BPF_SIZE(SIZE) | BPF_ABS, 0, 0, 0, OFF)

static char vlog[1 << 16];

static int load(const char *name, struct bpf_insn *insns, size_t n)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = vlog,
		    .log_size = sizeof(vlog));
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, name, "GPL", insns,
			       n, &opts);

	if (fd < 0) {
		fprintf(stderr, "bpf_prog_load(%s): %s\n%s\n", name, strerror(errno), vlog);
		exit(1);
	}
	return fd;
}

/*
 * count by the field at L3 offset OFF (SIZE bytes) in map_fd; SIZE 0: by
 * bpf_get_prandom_u32() & 0xffff instead
 */
static int load_count(const char *name, int map_fd, int size, int off)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		size ? LD_ABS(size, off) : BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32),
		size ? BPF_MOV64_REG(BPF_REG_0, BPF_REG_0) : BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_0, -4),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		/* missing: insert 1 */
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 1),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16),
		BPF_MOV64_IMM(BPF_REG_4, BPF_ANY),
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};

	return load(name, insns, sizeof(insns) / sizeof(insns[0]));
}

static int load_empty(void)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};

	return load("empty", insns, 2);
}

/* Ethernet + IPv4/UDP, 64 bytes; ip.proto 17, ip.src 198.18.0.1 */
static unsigned char pkt[64];
#define FRAME_SPEC "udp4,src=198.18.0.1,dst=198.18.0.2,sport=12345,dport=53,frag=df,len=64," \
	"smac=52:54:00:12:34:01,dmac=52:54:00:12:34:02"

static double run_ns(int fd, int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = repeat);
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (bpf_prog_test_run_opts(fd, &topts)) {
		fprintf(stderr, "bpf_prog_test_run_opts: %s\n", strerror(errno));
		exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	/* wall clock rather than topts.duration, which is whole ns */
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / repeat;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void set_jit(int on)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "w");

	if (!f || fputs(on ? "1" : "0", f) < 0 || fclose(f)) {
		perror("bpf_jit_enable");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int repeat = argc > 1 ? atoi(argv[1]) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	const char *names[] = { "empty", "array_proto", "hash_src", "lru_src",
				"hash_rand", "lru_rand" };
	enum { NPROGS = sizeof(names) / sizeof(names[0]) };
	double t[NPROGS][64];
	cpu_set_t set;
	char err[256];
	int mode, p, r;

	if (repeat <= 0 || rounds <= 0 || rounds > 64) {
		fprintf(stderr, "usage: %s [REPEAT [ROUNDS<=64]]\n", argv[0]);
		return 2;
	}
	if (spec_frame(FRAME_SPEC, pkt, sizeof(pkt), err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_percpu: %s\n", err);
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);

	int arr = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "proto", 4, 8, 256, NULL);
	int hash = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "src", 4, 8, 1024, NULL);
	int lru = bpf_map_create(BPF_MAP_TYPE_LRU_PERCPU_HASH, "src_lru", 4, 8, 1024, NULL);
	int hash_r = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "rand", 4, 8, 1024, NULL);
	int lru_r = bpf_map_create(BPF_MAP_TYPE_LRU_PERCPU_HASH, "rand_lru", 4, 8, 1024, NULL);

	if (arr < 0 || hash < 0 || lru < 0 || hash_r < 0 || lru_r < 0) {
		perror("bpf_map_create");
		return 1;
	}
	for (mode = 1; mode >= 0; mode--) {
		int fds[NPROGS];

		set_jit(mode);
		fds[0] = load_empty();
		fds[1] = load_count("array_proto", arr, BPF_B, 9);
		fds[2] = load_count("hash_src", hash, BPF_W, 12);
		fds[3] = load_count("lru_src", lru, BPF_W, 12);
		fds[4] = load_count("hash_rand", hash_r, 0, 0);
		fds[5] = load_count("lru_rand", lru_r, 0, 0);
		/* warm up: inserts the keys (fills the random maps), faults
		 * everything in
		 */
		for (p = 0; p < NPROGS; p++)
			run_ns(fds[p], p >= 4 ? 20000 : 1000);
		/* interleave the programs so drift hits them alike */
		for (r = 0; r < rounds; r++)
			for (p = 0; p < NPROGS; p++)
				t[p][r] = run_ns(fds[p], mode ? repeat : repeat / 4);
		for (p = 0; p < NPROGS; p++) {
			qsort(t[p], rounds, sizeof(double), cmp_double);
			printf("bench %s %s %.1f %.1f\n", names[p],
			       mode ? "jit" : "interp", t[p][0], t[p][rounds / 2]);
			close(fds[p]);
		}
	}
	set_jit(1);
	return 0;
}
