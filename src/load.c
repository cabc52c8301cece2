// SPDX-License-Identifier: GPL-2.0
/* Load a generated program through the verifier; see load.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <bpf/bpf.h>

#include "insn.h"
#include "load.h"
#include "packet.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

#define LOG_SIZE (1 << 20)
#define LOG_TAIL_LINES 4

/* The last lines of the verifier log, joined with " | ". */
static void log_tail(char *log, char *buf, size_t size)
{
	char *p = log + strlen(log), *start;
	int lines = 0;

	while (p > log && p[-1] == '\n')
		*--p = '\0';
	start = p;
	while (start > log && lines < LOG_TAIL_LINES) {
		start--;
		if (*start == '\n')
			lines++;
	}
	if (*start == '\n')
		start++;
	for (p = start; *p; p++)
		if (*p == '\n')
			*p = '|';
	snprintf(buf, size, "%s", start);
}

int load_program(const struct bpf_insn *insns, int n, int verbose, char *err, size_t errlen)
{
	char *log = calloc(1, LOG_SIZE), tail[512];
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = LOG_SIZE,
		    .log_level = verbose ? 1 | 4 : 0);
	int fd = -1;

	if (!log) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Log level 0 with a log buffer: libbpf loads once without a log
	 * and, only if the verifier refuses, again with one to say why. */
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ebpfcount", "GPL", insns, n, &opts);
	if (verbose && log[0])
		fprintf(stderr, "%s", log);
	if (fd < 0 && errno == EPERM) {
		load_strerror("cannot load the program", EPERM, err, errlen);
	} else if (fd < 0) {
		int saved = errno;

		log_tail(log, tail, sizeof(tail));
		snprintf(err, errlen, "the verifier rejected the program (%s): %s",
			 strerror(saved), tail[0] ? tail : "no log");
	}
	free(log);
	return fd;
}

static int has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << cap % 32);
}

/*
 * Does the verifier let this process's socket filters read the packet at
 * an offset held in a register, as FRAME_DIRECT programs do?  A stock
 * kernel refuses the ctx access to data (EACCES).
 */
static int direct_reads(void)
{
	static const struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, len)),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_2, 0xff),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct __sk_buff, data)),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_2),
		BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_1, offsetof(struct __sk_buff, data_end)),
		BPF_MOV64_REG(BPF_REG_5, BPF_REG_3),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 1),
		BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_4, 1),
		BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_3, 0),
		BPF_EXIT_INSN(),
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ebpfcount_probe", "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * Is the JIT on?  Direct reads take more instructions than reads of the
 * copy, which only the interpreter pays for (tests/bench/codegen.sh:
 * 1.3-1.5x the copy's time interpreted, 0.7-1.05x with the JIT).
 */
static int jit_enabled(void)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "r");
	int on = 1;

	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 1;
		fclose(f);
	}
	return on != 0;
}

int load_reads(int probe)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	if (syscall(SYS_capget, &h, d))
		return 0;
	if (!has_cap(d, CAP_PERFMON) && !has_cap(d, CAP_SYS_ADMIN))
		return 0;
	return LOAD_READS_STACK |
	       (probe && jit_enabled() && direct_reads() ? LOAD_READS_PACKET : 0);
}

/* What bpf_test_init() takes: a page less headroom and skb_shared_info. */
#define TEST_RUN_MAX 3584

int load_test_run(int prog_fd, const struct packet *skb, char *err, size_t errlen)
{
	static unsigned char buf[TEST_RUN_MAX];
	struct __sk_buff ctx = { .cb = { skb->cb[0] } };
	unsigned int len = skb->len < TEST_RUN_MAX - ETH_HLEN ? skb->len : TEST_RUN_MAX - ETH_HLEN;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = buf, .data_size_in = ETH_HLEN + len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);

	memset(buf, 0, ETH_HLEN);
	if (skb->pkt_type == PACKET_MULTICAST || skb->pkt_type == PACKET_BROADCAST)
		buf[0] = 1;
	else if (skb->pkt_type == PACKET_OTHERHOST)
		buf[0] = 2;
	if (skb->len >= ETH_HLEN)
		memcpy(buf + 12, skb->data + 12, 2);
	memcpy(buf + ETH_HLEN, skb->data, len);
	ctx.cb[0] += skb->len - len;
	if (bpf_prog_test_run_opts(prog_fd, &opts)) {
		int saved = errno;

		load_strerror("BPF_PROG_TEST_RUN", saved, err, errlen);
		return -saved;
	}
	if (opts.retval) {	/* it would have queued the packet to the socket */
		snprintf(err, errlen, "the program returned %u, not 0", opts.retval);
		return -EINVAL;
	}
	return 0;
}
int load_prog_stats(int prog_fd, unsigned long long *runs, unsigned long long *ns)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	*runs = info.run_cnt;
	*ns = info.run_time_ns;
	return 0;
}

void load_strerror(const char *what, int err, char *buf, size_t size)
{
	if (err == EPERM)
		snprintf(buf, size, "%s: operation not permitted (needs CAP_BPF or CAP_SYS_ADMIN)",
			 what);
	else
		snprintf(buf, size, "%s: %s", what, strerror(err));
}
