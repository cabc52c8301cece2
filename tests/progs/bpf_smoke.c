// SPDX-License-Identifier: GPL-2.0
/*
 * Guest smoke test of bpf(2): create a per-CPU hash map, load a socket
 * filter that uses it, and run it once with BPF_PROG_TEST_RUN.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "insn.h"
#include "tap.h"

int main(void)
{
	char log[65536] = "";
	unsigned char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_prog_load_opts, popts, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 1);
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = 1);
	int map, prog, ncpu = libbpf_num_possible_cpus();
	unsigned int key = 0;

	map = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "smoke", sizeof(key),
			     sizeof(long long), 16, NULL);
	tap_ok(map >= 0, "create a per-CPU hash map");
	if (map < 0)
		printf("# bpf_map_create: %s\n", strerror(errno));

	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_0, 7),
		BPF_EXIT_INSN(),
	};
	prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "smoke", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &popts);
	tap_ok(prog >= 0, "load a socket filter that looks up the map");
	if (prog < 0)
		printf("# bpf_prog_load: %s\n# verifier log:\n%s\n", strerror(errno), log);

	int err = prog >= 0 ? bpf_prog_test_run_opts(prog, &topts) : -1;
	tap_ok(!err && topts.retval == 7, "run it with BPF_PROG_TEST_RUN");
	printf("# possible CPUs: %d\n", ncpu);
	return tap_done();
}
