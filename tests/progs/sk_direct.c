// SPDX-License-Identifier: GPL-2.0
/*
 * Guest test of direct packet reads by socket filters (kernel-patches/:
 * "bpf: let privileged socket filters read packet data directly").
 *
 *   sk_direct --series yes|no [--iface IF --traffic CMD]
 *             [--frames IF COUNT LINEAR CMD]... [--kcm-peer ADDR]
 *   sk_direct --kcm-source PORT     (on the peer, for --kcm-peer)
 *
 * What is checked, with the JIT off, on and hardened (bpf_jit_harden=2):
 *
 *   - a root loader's filter may read __sk_buff->data/data_end (--series
 *     yes) or is refused (no); an unprivileged one is refused either way;
 *     with CAP_BPF but not CAP_PERFMON (nor CAP_SYS_ADMIN), a read at a
 *     constant offset is accepted (yes) and data_end - data or a variable
 *     offset are refused.
 *   - on real sockets, not BPF_PROG_TEST_RUN (which sets data_end itself),
 *     a checker filter reads every __sk_buff field a socket filter may
 *     read (KASAN, on the debug kernel, sees any that is no skb's), then
 *     compares the window [data, data_end) with what
 *     bpf_skb_load_bytes() reads at the same offsets (first and last byte)
 *     and with skb->len: the window is never longer than the packet, a
 *     linear packet's window is all of it, every byte read directly equals
 *     the byte read through the helper.  This exercises the runners that
 *     compute data_end: sk_filter_trim_cap() on UDP, TCP and AF_UNIX
 *     sockets (with SCM_RIGHTS), the AF_PACKET taps (SOCK_RAW and
 *     SOCK_DGRAM, both directions on lo), a PACKET_FANOUT_EBPF program
 *     choosing a socket of the group, a root filter that never reads
 *     data_end and tail-calls the checker, and SO_ATTACH_REUSEPORT_EBPF,
 *     where data starts past the UDP header and picks the socket from
 *     the first payload byte.
 *   - the other runners: a two-queue tun device whose steering program
 *     and filter are the checker, an xt_bpf rule (iptables-legacy, the
 *     checker pinned) in OUTPUT, and, with --kcm-peer, a KCM psock whose
 *     parser is the checker, on messages from the peer's --kcm-source.
 *   - the runner restores skb->cb[40..48) where its owner still needs
 *     it: an SCTP association over UDP whose listener has the checker,
 *     or a filter that reads nothing (the one check on stock too).
 *   - --iface: the checker on an AF_PACKET socket of IF while the shell
 *     command CMD runs (TCP to and from the peer): TSO and GRO make
 *     nonlinear skbs, whose window is their linear part only.
 *   - --frames: the checker on IF while CMD sends COUNT frames (craft -l
 *     over a veth) with LINEAR bytes in the linear part and the headers
 *     past it in page fragments: each window exactly LINEAR bytes.
 *
 * Output is TAP.  Must run as root in a guest (it writes sysctls).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/kcm.h>
#include <linux/sctp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "insn.h"
#include "tap.h"

#define BPF_ATOMIC_ADD(DST, SRC, OFF) \
	INSN(BPF_STX | BPF_DW | BPF_ATOMIC, DST, SRC, OFF, BPF_ADD)
#define SKB(field) ((__s16)offsetof(struct __sk_buff, field))

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

#define JIT_ENABLE	"/proc/sys/net/core/bpf_jit_enable"
#define JIT_HARDEN	"/proc/sys/net/core/bpf_jit_harden"
#define UNPRIV_SYSCTL	"/proc/sys/kernel/unprivileged_bpf_disabled"

/* The checker's counters: one u64 each in one array entry. */
enum { S_PKTS, S_LINEAR, S_NONLINEAR, S_TOOLONG, S_EMPTY, S_CHECKED, S_MISMATCH, S_SKIPPED,
       S_WINDOW, NR_STATS };
static const char *const stat_name[NR_STATS] = {
	"packets", "linear", "nonlinear", "too long", "empty", "checked", "mismatch", "skipped",
	"window bytes",
};

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_sysctl(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		die(path);
}

static char vlog[1 << 16];

/* Load a filter of type; errno and the verifier's log tell why not. */
static int load(enum bpf_prog_type type, const struct bpf_insn *insns, size_t n)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = vlog, .log_size = sizeof(vlog));

	vlog[0] = 0;
	return bpf_prog_load(type, "sk_direct", "GPL", insns, n, &opts);
}

static void print_log(void)
{
	char *line = strtok(vlog, "\n");
	int n = 0;

	for (; line && n < 40; line = strtok(NULL, "\n"), n++)
		printf("#   %s\n", line);
}

/* ---- programs ---- */

/* Read the first byte after a bounds check; returns it, or 0. */
static const struct bpf_insn probe_insns[] = {
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB(data)),
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, SKB(data_end)),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 1),
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 0),
	BPF_EXIT_INSN(),
};

/* data_end - data: needs CAP_PERFMON (allow_ptr_leaks). */
static const struct bpf_insn sub_insns[] = {
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB(data)),
	BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, SKB(data_end)),
	BPF_ALU64_REG(BPF_SUB, BPF_REG_0, BPF_REG_2),
	BPF_EXIT_INSN(),
};

/* A read at a variable offset (0..15): pointer arithmetic with a register. */
static const struct bpf_insn varoff_insns[] = {
	BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_1, SKB(len)),
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB(data)),
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, SKB(data_end)),
	BPF_ALU64_IMM(BPF_AND, BPF_REG_5, 15),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_5),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 1),
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 0),
	BPF_EXIT_INSN(),
};

/*
 * The checker's first part: every __sk_buff field a socket filter may
 * read (sk_filter_is_valid_access(); data and data_end follow), summed at
 * fp-40.  At every runner, on the debug kernel, KASAN sees a read of
 * memory that is no skb's, as it saw reuseport migration run a filter on
 * a struct on the stack.
 */
#define READ_FIELD(f) \
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB(f)), \
	BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_2)

/*
 * The checker (see the top): counts in the array map_fd, accepts every
 * packet whole.  r6 ctx, r7 data, r8 data_end, r9 the window's length;
 * the counters' address is spilled at fp-16.  It returns ret: -1 accepts
 * the whole packet, KCM_MSGLEN makes it a KCM parser of fixed-size messages.
 */
static int load_checker(int map_fd, int ret)
{
	static const struct bpf_insn fields[] = {
		BPF_MOV64_IMM(BPF_REG_3, 0),
		READ_FIELD(len), READ_FIELD(pkt_type), READ_FIELD(mark),
		READ_FIELD(queue_mapping), READ_FIELD(protocol), READ_FIELD(vlan_present),
		READ_FIELD(vlan_tci), READ_FIELD(vlan_proto), READ_FIELD(priority),
		READ_FIELD(ingress_ifindex), READ_FIELD(ifindex), READ_FIELD(tc_index),
		READ_FIELD(cb[0]), READ_FIELD(cb[1]), READ_FIELD(cb[2]), READ_FIELD(cb[3]),
		READ_FIELD(cb[4]), READ_FIELD(hash), READ_FIELD(napi_id),
		READ_FIELD(gso_segs), READ_FIELD(gso_size),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_3, -40),
	};
	/* numbered from here */
	const struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, SKB(data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_6, SKB(data_end)),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 62),		/* -> out */
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -16),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_ATOMIC_ADD(BPF_REG_0, BPF_REG_1, 8 * S_PKTS),
		BPF_MOV64_REG(BPF_REG_9, BPF_REG_8),
		BPF_ALU64_REG(BPF_SUB, BPF_REG_9, BPF_REG_7),
		BPF_ATOMIC_ADD(BPF_REG_0, BPF_REG_9, 8 * S_WINDOW),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, SKB(len)),
		BPF_JMP_REG(BPF_JGT, BPF_REG_9, BPF_REG_2, 3),	/* -> too long */
		BPF_JMP_REG(BPF_JEQ, BPF_REG_9, BPF_REG_2, 4),	/* -> linear */
		BPF_ATOMIC_ADD(BPF_REG_0, BPF_REG_1, 8 * S_NONLINEAR),
		BPF_JMP_A(3),					/* -> check */
		/* 21: too long */
		BPF_ATOMIC_ADD(BPF_REG_0, BPF_REG_1, 8 * S_TOOLONG),
		BPF_JMP_A(49),					/* -> out */
		/* 23: linear */
		BPF_ATOMIC_ADD(BPF_REG_0, BPF_REG_1, 8 * S_LINEAR),
		/* 24: check: the first byte */
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_9, 0, 41),		/* -> empty */
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1),
		BPF_JMP_REG(BPF_JGT, BPF_REG_2, BPF_REG_8, 44),	/* -> out */
		BPF_LDX_MEM(BPF_B, BPF_REG_2, BPF_REG_7, 0),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -24),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -32),
		BPF_MOV64_IMM(BPF_REG_4, 1),
		BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 31),		/* -> mismatch */
		BPF_LDX_MEM(BPF_B, BPF_REG_1, BPF_REG_10, -32),
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_10, -24),
		BPF_JMP_REG(BPF_JNE, BPF_REG_1, BPF_REG_2, 28),	/* -> mismatch */
		/* 40: the last byte, at win - 1 */
		BPF_MOV64_REG(BPF_REG_5, BPF_REG_9),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, -1),
		BPF_JMP_IMM(BPF_JGT, BPF_REG_5, 0xfffe, 27),	/* -> skipped */
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_5),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, 1),
		BPF_JMP_REG(BPF_JGT, BPF_REG_3, BPF_REG_8, 24),	/* -> out */
		BPF_LDX_MEM(BPF_B, BPF_REG_2, BPF_REG_2, 0),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -24),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_5),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -32),
		BPF_MOV64_IMM(BPF_REG_4, 1),
		BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 11),		/* -> mismatch */
		BPF_LDX_MEM(BPF_B, BPF_REG_1, BPF_REG_10, -32),
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_10, -24),
		BPF_JMP_REG(BPF_JNE, BPF_REG_1, BPF_REG_2, 8),	/* -> mismatch */
		BPF_MOV64_IMM(BPF_REG_2, 8 * S_CHECKED),
		/* 61: count: add one to the counter at offset r2 */
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -16),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_ATOMIC_ADD(BPF_REG_0, BPF_REG_1, 0),
		BPF_JMP_A(6),					/* -> out */
		/* 66: empty */
		BPF_MOV64_IMM(BPF_REG_2, 8 * S_EMPTY),
		BPF_JMP_A(-7),					/* -> count */
		/* 68: mismatch */
		BPF_MOV64_IMM(BPF_REG_2, 8 * S_MISMATCH),
		BPF_JMP_A(-9),					/* -> count */
		/* 70: skipped */
		BPF_MOV64_IMM(BPF_REG_2, 8 * S_SKIPPED),
		BPF_JMP_A(-11),					/* -> count */
		/* 72: out: ret (-1: the whole packet) */
		BPF_MOV64_IMM(BPF_REG_0, ret),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn all[sizeof(fields) / sizeof(fields[0]) + sizeof(insns) / sizeof(insns[0])];

	memcpy(all, fields, sizeof(fields));
	memcpy(all + sizeof(fields) / sizeof(fields[0]), insns, sizeof(insns));
	return load(BPF_PROG_TYPE_SOCKET_FILTER, all, sizeof(all) / sizeof(all[0]));
}

/* A root filter that never reads data_end and tail-calls slot 0 of jmp_fd. */
static int load_tail(int jmp_fd)
{
	const struct bpf_insn insns[] = {
		BPF_LD_MAP_FD(BPF_REG_2, jmp_fd),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_tail_call),
		BPF_MOV64_IMM(BPF_REG_0, 0),	/* no tail call: drop */
		BPF_EXIT_INSN(),
	};

	return load(BPF_PROG_TYPE_SOCKET_FILTER, insns, sizeof(insns) / sizeof(insns[0]));
}

/* Reuseport: the socket is the first payload byte & 1 (data past UDP). */
static const struct bpf_insn pick_insns[] = {
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB(data)),
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, SKB(data_end)),
	BPF_MOV64_IMM(BPF_REG_0, 7),	/* out of range: the kernel's hash */
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 2),
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 0),
	BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 1),
	BPF_EXIT_INSN(),
};

/* Accepts the whole packet and reads nothing: the runner still sets data_end. */
static const struct bpf_insn accept_insns[] = {
	BPF_MOV64_IMM(BPF_REG_0, -1),
	BPF_EXIT_INSN(),
};

#define LOAD(type, insns) load(type, insns, sizeof(insns) / sizeof(insns[0]))

/* ---- the checker's counters ---- */

static int stats_fd;

static void stats_reset(void)
{
	__u64 zero[NR_STATS] = { 0 };
	__u32 k = 0;

	if (bpf_map_update_elem(stats_fd, &k, zero, BPF_ANY))
		die("reset the counters");
}

static void stats_read(__u64 *s)
{
	__u32 k = 0;

	if (bpf_map_lookup_elem(stats_fd, &k, s))
		die("read the counters");
}

/*
 * Check the counters after a run that saw at least min packets (exactly
 * min if exact), all linear if linear: no window longer than its packet,
 * no byte that differs from the helper's.
 */
static void check_stats(const char *what, __u64 min, bool exact, bool linear)
{
	__u64 s[NR_STATS];
	char line[256];
	int i, n = 0;

	stats_read(s);
	for (i = 0; i < NR_STATS; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s %llu", stat_name[i],
			      (unsigned long long)s[i]);
	printf("# %s:%s\n", what, line);
	tap_okf(exact ? s[S_PKTS] == min : s[S_PKTS] >= min, "%s: the filter saw %s%llu packets",
	       what, exact ? "" : "at least ", (unsigned long long)min);
	tap_okf(!s[S_TOOLONG] && !s[S_MISMATCH], "%s: window within the packet, bytes equal to "
	       "bpf_skb_load_bytes()'s", what);
	tap_okf(s[S_CHECKED] + s[S_EMPTY] + s[S_SKIPPED] + s[S_TOOLONG] + s[S_MISMATCH] ==
	       s[S_PKTS] && s[S_LINEAR] + s[S_NONLINEAR] + s[S_TOOLONG] == s[S_PKTS],
	       "%s: every packet classified", what);
	if (linear)
		tap_okf(s[S_LINEAR] == s[S_PKTS] && s[S_CHECKED] == s[S_PKTS],
		       "%s: every packet linear, its whole window checked", what);
}

/* ---- sockets ---- */

static int udp_socket(int port, bool reuse)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (fd < 0)
		die("socket");
	if (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)))
		die("SO_REUSEPORT");
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind");
	return fd;
}

static void attach(int fd, int level, int opt, int prog)
{
	if (setsockopt(fd, level, opt, &prog, sizeof(prog)))
		die("attach");
}

/* Wait for the next datagram of fd (1 s at most); its length or -1. */
static ssize_t recv_wait(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 1000) != 1)
		return -1;
	return recv(fd, buf, len, MSG_DONTWAIT);
}

/* The payload of datagram i: its length varies, its bytes too. */
static size_t payload(int i, unsigned char *buf)
{
	size_t len = 1 + (size_t)i * 37 % 1400, j;

	for (j = 0; j < len; j++)
		buf[j] = (unsigned char)(i + j * 7);
	return len;
}

#define NDGRAMS 200

/* NDGRAMS datagrams to a UDP socket that has prog attached, over lo. */
static void test_udp(const char *mode, int prog, const char *how)
{
	unsigned char out[1500], in[1500];
	int rx = udp_socket(9901, false), tx = udp_socket(0, false), i, got = 0;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9901),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char what[96];

	attach(rx, SOL_SOCKET, SO_ATTACH_BPF, prog);
	stats_reset();
	for (i = 0; i < NDGRAMS; i++) {
		size_t len = payload(i, out);
		ssize_t n;

		if (sendto(tx, out, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len)
			die("sendto");
		n = recv_wait(rx, in, sizeof(in));
		got += n == (ssize_t)len && !memcmp(in, out, len);
	}
	snprintf(what, sizeof(what), "%s: UDP socket%s", mode, how);
	tap_okf(got == NDGRAMS, "%s: %d of %d datagrams received intact", what, got, NDGRAMS);
	check_stats(what, NDGRAMS, true, true);
	close(rx);
	close(tx);
}

/* 4 MiB over a TCP connection whose receiving socket has the checker. */
static void test_tcp(const char *mode, int prog)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9902),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	static unsigned char buf[65536];
	size_t total = 4 << 20, sent = 0, rcvd = 0, j;
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), c, s;
	unsigned long long diff = 0;
	pid_t pid;
	char what[96];

	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1))
		die("listen");
	stats_reset();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
			_exit(1);
		for (; sent < total; sent += sizeof(buf)) {
			for (j = 0; j < sizeof(buf); j++)
				buf[j] = (unsigned char)((sent + j) * 13 >> 3);
			if (write(c, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(1);
		}
		_exit(0);
	}
	s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	attach(s, SOL_SOCKET, SO_ATTACH_BPF, prog);
	for (;;) {
		ssize_t n = read(s, buf, sizeof(buf));

		if (n <= 0)
			break;
		for (j = 0; j < (size_t)n; j++)
			diff += buf[j] != (unsigned char)((rcvd + j) * 13 >> 3);
		rcvd += n;
	}
	waitpid(pid, &c, 0);
	snprintf(what, sizeof(what), "%s: TCP socket", mode);
	tap_okf(rcvd == total && !diff && WIFEXITED(c) && !WEXITSTATUS(c),
	       "%s: %zu of %zu bytes received intact", what, rcvd, total);
	check_stats(what, 1, false, false);
	close(s);
	close(l);
}

/* AF_UNIX datagrams carrying a descriptor each (UNIXCB must survive). */
static void test_unix(const char *mode, int prog)
{
	int sv[2], i, got = 0;
	char what[96];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		die("socketpair");
	attach(sv[1], SOL_SOCKET, SO_ATTACH_BPF, prog);
	stats_reset();
	for (i = 0; i < 50; i++) {
		char data[64], cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { .iov_base = data, .iov_len = (size_t)i + 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		int fd = open("/proc/self/stat", O_RDONLY), rfd = -1;
		struct stat a, b;

		memset(data, i, sizeof(data));
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		if (fd < 0 || sendmsg(sv[0], &m, 0) != i + 1)
			die("sendmsg");
		iov.iov_len = sizeof(data);
		m.msg_controllen = sizeof(cbuf);
		if (recvmsg(sv[1], &m, 0) == i + 1 && data[i] == i &&
		    (cm = CMSG_FIRSTHDR(&m)) && cm->cmsg_type == SCM_RIGHTS) {
			memcpy(&rfd, CMSG_DATA(cm), sizeof(int));
			got += !fstat(fd, &a) && !fstat(rfd, &b) && a.st_ino == b.st_ino;
		}
		close(fd);
		if (rfd >= 0)
			close(rfd);
	}
	snprintf(what, sizeof(what), "%s: AF_UNIX datagrams", mode);
	tap_okf(got == 50, "%s: %d of 50 messages with their descriptor", what, got);
	check_stats(what, 50, true, true);
	close(sv[0]);
	close(sv[1]);
}

static int packet_socket(int type, const char *ifname, int prog)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
				 .sll_ifindex = (int)if_nametoindex(ifname) };
	int fd = socket(AF_PACKET, type | SOCK_NONBLOCK, htons(ETH_P_ALL));

	if (fd < 0 || !a.sll_ifindex)
		die("packet socket");
	if (prog >= 0)
		attach(fd, SOL_SOCKET, SO_ATTACH_BPF, prog);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind packet socket");
	return fd;
}

/* The counters reset, NDGRAMS datagrams over lo to a UDP socket of port,
 * each awaited. */
static void lo_datagrams(int port)
{
	int rx = udp_socket(port, false), tx = udp_socket(0, false), i;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned char out[1500];

	stats_reset();
	for (i = 0; i < NDGRAMS; i++) {
		size_t len = payload(i, out);

		if (sendto(tx, out, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len)
			die("sendto");
		recv_wait(rx, out, sizeof(out));
	}
	close(rx);
	close(tx);
}

/* A packet tap on lo while NDGRAMS datagrams pass: each seen twice. */
static void test_packet(const char *mode, int prog, int type)
{
	int p = packet_socket(type, "lo", prog);
	char what[96];

	lo_datagrams(9903);
	snprintf(what, sizeof(what), "%s: AF_PACKET %s on lo", mode,
		 type == SOCK_RAW ? "SOCK_RAW" : "SOCK_DGRAM");
	check_stats(what, 2 * NDGRAMS, false, false);
	close(p);
}

/* A PACKET_FANOUT_EBPF group of two packet sockets on lo, prog picking
 * the socket of each packet (fanout_demux_bpf()), while NDGRAMS pass. */
static void test_fanout(const char *mode, int prog)
{
	int p[2], i, arg = 77 | PACKET_FANOUT_EBPF << 16;
	char what[96];

	for (i = 0; i < 2; i++) {
		p[i] = packet_socket(SOCK_RAW, "lo", -1);
		if (setsockopt(p[i], SOL_PACKET, PACKET_FANOUT, &arg, sizeof(arg)))
			die("PACKET_FANOUT");
	}
	if (setsockopt(p[0], SOL_PACKET, PACKET_FANOUT_DATA, &prog, sizeof(prog)))
		die("PACKET_FANOUT_DATA");
	lo_datagrams(9906);
	snprintf(what, sizeof(what), "%s: PACKET_FANOUT_EBPF on lo", mode);
	check_stats(what, 2 * NDGRAMS, false, true);
	close(p[0]);
	close(p[1]);
}

/* Two reuseport sockets; the first payload byte picks one. */
static void test_reuseport(const char *mode)
{
	int prog = LOAD(BPF_PROG_TYPE_SOCKET_FILTER, pick_insns), s[2], tx, i, right = 0, n = 0;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9904),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned char b;

	if (prog < 0) {
		print_log();
		tap_okf(false, "%s: reuseport picker loads", mode);
		return;
	}
	s[0] = udp_socket(9904, true);
	attach(s[0], SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, prog);
	s[1] = udp_socket(9904, true);
	for (i = 0; i < 40; i++) {
		tx = udp_socket(0, false);	/* a new source port: a new hash */
		b = (unsigned char)(0x10 + i % 2);
		if (sendto(tx, &b, 1, 0, (struct sockaddr *)&to, sizeof(to)) != 1)
			die("sendto");
		close(tx);
	}
	for (i = 0; i < 2; i++)
		while (recv_wait(s[i], &b, 1) == 1) {
			right += (b & 1) == i;
			n++;
		}
	tap_okf(n == 40 && right == 40,
	       "%s: reuseport, data past the UDP header: %d of 40 datagrams on the socket "
	       "their first byte picked", mode, right);
	close(s[0]);
	close(s[1]);
	close(prog);
}

/* ---- the other runners 0008 changes: tun, xt_bpf, KCM ---- */

#define TUN_NAME	"skd0"
#define KCM_MSGLEN	300
#define KCM_PORT	9911
#define BPFFS		"/sys/fs/bpf"
#define PINNED		BPFFS "/sk_direct_checker"

static void ifreq_addr(struct ifreq *ifr, unsigned long req, const char *addr)
{
	struct sockaddr_in *a = (struct sockaddr_in *)&ifr->ifr_addr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	a->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &a->sin_addr);
	if (s < 0 || ioctl(s, req, ifr))
		die(TUN_NAME " address");
	close(s);
}

/*
 * A two-queue tun device whose steering program (TUNSETSTEERINGEBPF, run
 * by tun_select_queue()) and filter (TUNSETFILTEREBPF, run by
 * tun_net_xmit()) are the checker: NDGRAMS datagrams routed out through
 * it, each read back from the queue the steering program picked (-1 % 2).
 */
static void test_tun(const char *mode, int prog)
{
	unsigned char out[1500], in[1600];
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9908) };
	struct ifreq ifr;
	int q[2], tx, i, got = 0, up;
	char what[96];

	for (i = 0; i < 2; i++) {
		memset(&ifr, 0, sizeof(ifr));
		ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_MULTI_QUEUE;
		strcpy(ifr.ifr_name, TUN_NAME);
		q[i] = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
		if (q[i] < 0 || ioctl(q[i], TUNSETIFF, &ifr))
			die("TUNSETIFF");
	}
	if (ioctl(q[0], TUNSETSTEERINGEBPF, &prog) || ioctl(q[0], TUNSETFILTEREBPF, &prog))
		die("TUNSETSTEERINGEBPF/TUNSETFILTEREBPF");
	write_sysctl("/proc/sys/net/ipv6/conf/" TUN_NAME "/disable_ipv6", "1");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, TUN_NAME);
	ifreq_addr(&ifr, SIOCSIFADDR, "198.18.7.1");
	ifreq_addr(&ifr, SIOCSIFNETMASK, "255.255.255.0");
	up = socket(AF_INET, SOCK_DGRAM, 0);
	ifr.ifr_flags = IFF_UP;
	if (up < 0 || ioctl(up, SIOCSIFFLAGS, &ifr))
		die(TUN_NAME " up");
	inet_pton(AF_INET, "198.18.7.2", &to.sin_addr);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0)
		die("socket");
	stats_reset();
	for (i = 0; i < NDGRAMS; i++) {
		size_t len = payload(i, out);
		struct pollfd p = { .fd = q[1], .events = POLLIN };

		if (sendto(tx, out, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len)
			die("sendto " TUN_NAME);
		/* 20 bytes of IPv4, 8 of UDP, then the payload */
		got += poll(&p, 1, 1000) == 1 && read(q[1], in, sizeof(in)) == (ssize_t)len + 28 &&
		       !memcmp(in + 28, out, len);
	}
	snprintf(what, sizeof(what), "%s: tun steering program and filter", mode);
	tap_okf(got == NDGRAMS, "%s: %d of %d datagrams read intact from the queue it picked",
	       what, got, NDGRAMS);
	check_stats(what, 2 * NDGRAMS, true, false);
	close(tx);
	close(up);
	close(q[0]);
	close(q[1]);
}

/*
 * xt_bpf (bpf_mt_v1(), bpf_prog_run_save_cb()): an iptables rule in OUTPUT
 * matches the UDP datagrams to one port on lo with the checker, pinned.
 */
static void test_xt_bpf(const char *mode, int prog)
{
	static const char rule[] = "OUTPUT -o lo -p udp --dport 9909 -m bpf --object-pinned "
				   PINNED " -j ACCEPT";
	char cmd[256], what[96];
	int rc;

	if (mkdir(BPFFS, 0700) && errno != EEXIST)
		die("mkdir " BPFFS);
	if (mount("bpf", BPFFS, "bpf", 0, NULL) && errno != EBUSY)
		die("mount bpffs");
	unlink(PINNED);
	if (bpf_obj_pin(prog, PINNED))
		die("pin the checker");
	snprintf(cmd, sizeof(cmd), "iptables-legacy -A %s", rule);
	rc = system(cmd);
	snprintf(what, sizeof(what), "%s: xt_bpf match in OUTPUT", mode);
	tap_okf(rc == 0, "%s: iptables-legacy adds the rule", what);
	if (rc == 0) {
		lo_datagrams(9909);
		check_stats(what, NDGRAMS, true, true);
		snprintf(cmd, sizeof(cmd), "iptables-legacy -D %s", rule);
		tap_okf(system(cmd) == 0, "%s: the rule is deleted", what);
	}
	unlink(PINNED);
}

/* The payload of KCM message i. */
static void kcm_message(int i, unsigned char *buf)
{
	int j;

	for (j = 0; j < KCM_MSGLEN; j++)
		buf[j] = (unsigned char)(i * 3 + j);
}

/*
 * --kcm-source PORT (on the peer): for every connection to PORT, NDGRAMS
 * KCM messages, one every 2 ms.  Runs until killed.
 */
static int kcm_source(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	unsigned char out[KCM_MSGLEN];
	int l, c, i, one = 1;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 4))
		die("KCM source");
	while ((c = accept(l, NULL, NULL)) >= 0) {
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		for (i = 0; i < NDGRAMS; i++) {
			kcm_message(i, out);
			if (write(c, out, sizeof(out)) != (ssize_t)sizeof(out))
				break;
			usleep(2000);
		}
		close(c);
	}
	die("accept");
	return 1;
}

/* A TCP connection to addr:port, tried for 20 s (the peer may be starting). */
static int tcp_connect(const char *addr, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int i, fd;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return -1;
	for (i = 0; i < 100; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)))
			return fd;
		if (fd >= 0)
			close(fd);
		usleep(200000);
	}
	return -1;
}

/*
 * A KCM psock (kcm_parse_func_strparser()) whose parser is the checker
 * returning KCM_MSGLEN, on a TCP connection to the peer's --kcm-source:
 * every message received whole on the KCM socket.  Over the virtio link
 * the receiving skbs hold headers and the first payload bytes in their
 * linear part, so the parser's window (strparser's head skb from where
 * skb->data is) is not empty, as it is over lo, where the payload is all
 * in page fragments.
 */
static void test_kcm(const char *mode, int parser, const char *peer)
{
	unsigned char want[KCM_MSGLEN], in[2 * KCM_MSGLEN];
	struct kcm_attach att;
	int s, kcm, i, got = 0;
	char what[96];
	__u64 st[NR_STATS];

	snprintf(what, sizeof(what), "%s: KCM parser", mode);
	s = tcp_connect(peer, KCM_PORT);
	kcm = socket(AF_KCM, SOCK_DGRAM, KCMPROTO_CONNECTED);
	if (s < 0 || kcm < 0) {
		tap_okf(false, "%s: a TCP connection to the peer's message source, a KCM socket (%s)",
		       what, strerror(errno));
		return;
	}
	stats_reset();
	att = (struct kcm_attach){ .fd = s, .bpf_fd = parser };
	if (ioctl(kcm, SIOCKCMATTACH, &att))
		die("SIOCKCMATTACH");
	for (i = 0; i < NDGRAMS; i++) {
		struct pollfd p = { .fd = kcm, .events = POLLIN };

		kcm_message(i, want);
		got += poll(&p, 1, 5000) == 1 &&
		       recv(kcm, in, sizeof(in), MSG_DONTWAIT) == KCM_MSGLEN &&
		       !memcmp(in, want, KCM_MSGLEN);
	}
	tap_okf(got == NDGRAMS, "%s: %d of %d messages of %d bytes from the peer received whole",
	       what, got, NDGRAMS, KCM_MSGLEN);
	check_stats(what, NDGRAMS, false, false);
	stats_read(st);
	tap_okf(st[S_CHECKED] > 0, "%s: %llu windows not empty, their bytes checked", what,
	       (unsigned long long)st[S_CHECKED]);
	close(kcm);
	close(s);
}

/* ---- main ---- */

static void test_capbpf(bool series)
{
	int fd = LOAD(BPF_PROG_TYPE_SOCKET_FILTER, probe_insns);

	if (fd < 0 && series)
		print_log();
	tap_okf((fd >= 0) == series, "CAP_BPF without CAP_PERFMON: a read at a constant offset "
	       "is %s", series ? "accepted" : "refused");
	if (fd >= 0)
		close(fd);
	fd = LOAD(BPF_PROG_TYPE_SOCKET_FILTER, sub_insns);
	tap_okf(fd < 0 && errno == EACCES, "CAP_BPF without CAP_PERFMON: data_end - data refused");
	if (fd >= 0)
		close(fd);
	fd = LOAD(BPF_PROG_TYPE_SOCKET_FILTER, varoff_insns);
	tap_okf(fd < 0 && errno == EACCES,
	       "CAP_BPF without CAP_PERFMON: a variable offset refused");
	if (fd >= 0)
		close(fd);
}

/* Load the probe as uid 65534 (unprivileged BPF allowed meanwhile). */
static void test_unpriv(void)
{
	char old[16] = "2";
	int status = 0;
	FILE *f = fopen(UNPRIV_SYSCTL, "r");
	pid_t pid;

	if (!f || !fgets(old, sizeof(old), f))
		die(UNPRIV_SYSCTL);
	fclose(f);
	write_sysctl(UNPRIV_SYSCTL, "0");
	pid = fork();
	if (!pid) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		fd = LOAD(BPF_PROG_TYPE_SOCKET_FILTER, probe_insns);
		_exit(fd >= 0 ? 0 : errno == EACCES ? 1 : 3);
	}
	waitpid(pid, &status, 0);
	write_sysctl(UNPRIV_SYSCTL, old);
	tap_okf(WIFEXITED(status) && WEXITSTATUS(status) == 1,
	       "an unprivileged filter may not read data (EACCES)");
}

/* The checker on IF while cmd runs (TCP to and from the peer): GRO and
 * TSO give nonlinear skbs, whose window is their linear part only. */
static void test_gro(const char *ifname, int prog, const char *cmd)
{
	int p = packet_socket(SOCK_RAW, ifname, prog), rc;
	__u64 st[NR_STATS];

	stats_reset();
	rc = system(cmd);
	stats_read(st);
	printf("# %s: exit status %d\n", cmd, rc);
	check_stats("jit on: AF_PACKET SOCK_RAW on the peer's TCP", 100, false, false);
	tap_okf(st[S_NONLINEAR] > 0, "jit on: %llu nonlinear skbs, their window the linear part",
	       (unsigned long long)st[S_NONLINEAR]);
	close(p);
}

/*
 * The checker on IF while cmd sends count frames of a page or more with
 * only linear bytes of each in the skb's linear part (craft -l, over a
 * veth): every one nonlinear, its window exactly its linear part, and the
 * bytes at both ends of it those bpf_skb_load_bytes() reads.
 */
static void test_frames(const char *ifname, int prog, unsigned long count,
			unsigned long linear, const char *cmd)
{
	int p = packet_socket(SOCK_RAW, ifname, prog), rc, i;
	__u64 st[NR_STATS];
	char what[128];

	stats_reset();
	rc = system(cmd);
	for (i = 0; i < 20; i++) {	/* the receiving veth's backlog, 2 s at most */
		stats_read(st);
		if (st[S_PKTS] >= count)
			break;
		usleep(100000);
	}
	snprintf(what, sizeof(what), "jit on: AF_PACKET SOCK_RAW on %s, frames with %lu linear bytes",
		 ifname, linear);
	tap_okf(rc == 0, "%s: the sender exits 0 (%d)", what, rc);
	check_stats(what, count, true, false);
	tap_okf(st[S_NONLINEAR] == count && st[S_WINDOW] == count * linear,
	       "%s: all %lu nonlinear, their window %llu bytes in all", what, count,
	       (unsigned long long)st[S_WINDOW]);
	close(p);
}

/* ---- SCTP over UDP, where skb->cb[40..48) is live around the filter ---- */

#define SCTP_UDP_PORT	"/proc/sys/net/sctp/udp_port"
#define SCTP_ENCAP_PORT	"/proc/sys/net/sctp/encap_port"

/* Udp InDatagrams of /proc/net/snmp: a line of names, then one of values. */
static unsigned long long udp_in_datagrams(void)
{
	FILE *f = fopen("/proc/net/snmp", "r");
	unsigned long long v = 0;
	char line[1024];
	bool names = false;

	if (!f)
		die("/proc/net/snmp");
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Udp: ", 5))
			continue;
		if (names && sscanf(line, "Udp: %llu", &v) == 1)
			break;
		names = true;
	}
	fclose(f);
	return v;
}

/*
 * An SCTP association over UDP on lo (RFC 6951: net.sctp.udp_port 9899,
 * and encap_port 9899 for the client only), the listener with prog
 * attached.  sctp_udp_rcv() stores the UDP source port in
 * SCTP_INPUT_CB(skb)->encap_port, at skb->cb[40..42), before sctp_rcv()
 * runs the filter; the INIT's and the COOKIE ECHO's are read after it, as
 * the port to answer to (the listener has none of its own).  A runner
 * that computed data_end there without restoring it would send the INIT
 * ACK to another port and the association would never come up.
 */
static void test_sctp(const char *mode, int prog, bool checker)
{
	static int port = 9905;	/* a new one each time: the last may linger */
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port++),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 5 };
	struct pollfd pl = { .events = POLLIN };
	struct sctp_udpencaps encap = { .sue_address.ss_family = AF_INET };
	socklen_t len = sizeof(encap);
	unsigned long long udp = udp_in_datagrams();
	int one = 1, l, c, s = -1;
	bool up, got = false;
	char buf[64], what[96];

	snprintf(what, sizeof(what), "%s: SCTP over UDP, %s on the listener", mode,
		 checker ? "the checker" : "a filter that reads nothing");
	if (access(SCTP_UDP_PORT, W_OK)) {
		tap_okf(false, "%s: %s is there (CONFIG_IP_SCTP)", what, SCTP_UDP_PORT);
		return;
	}
	/* sockets copy both at creation */
	write_sysctl(SCTP_UDP_PORT, "9899");
	l = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	write_sysctl(SCTP_ENCAP_PORT, "9899");
	c = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	write_sysctl(SCTP_ENCAP_PORT, "0");
	if (l < 0 || c < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("SCTP sockets");
	attach(l, SOL_SOCKET, SO_ATTACH_BPF, prog);
	if (checker)
		stats_reset();
	up = !connect(c, (struct sockaddr *)&a, sizeof(a));
	if (!up)
		printf("# connect: %s\n", strerror(errno));
	pl.fd = l;
	if (up && send(c, "over udp", 8, 0) == 8 && poll(&pl, 1, 5000) == 1 &&
	    (s = accept(l, NULL, NULL)) >= 0 &&
	    !setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		got = recv(s, buf, sizeof(buf), 0) == 8 && !memcmp(buf, "over udp", 8);
	tap_okf(up && got, "%s: the association comes up, its message arrives", what);
	udp = udp_in_datagrams() - udp;
	if (s < 0 || getsockopt(s, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &encap, &len))
		encap.sue_port = 0;
	tap_okf(encap.sue_port == htons(9899) && udp >= 4,
	       "%s: over UDP, the listener's side answering to port %u (%llu datagrams)", what,
	       ntohs(encap.sue_port), udp);
	if (checker)
		check_stats(what, 2, false, true);
	if (s >= 0)
		close(s);
	close(c);
	close(l);
	write_sysctl(SCTP_UDP_PORT, "0");
}

/* test_capbpf() in a child without CAP_PERFMON and CAP_SYS_ADMIN. */
static void test_capbpf_child(bool series)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		if (syscall(SYS_capget, &h, d))
			die("capget");
		d[CAP_SYS_ADMIN / 32].effective &= ~(1u << CAP_SYS_ADMIN % 32);
		d[CAP_PERFMON / 32].effective &= ~(1u << CAP_PERFMON % 32);
		if (syscall(SYS_capset, &h, d))
			die("capset");
		test_capbpf(series);
		fflush(stdout);
		_exit(tap_failed);
	}
	waitpid(pid, &status, 0);
	tap_n += 3;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		tap_failed++;
		if (!WIFEXITED(status))
			tap_okf(false, "the CAP_BPF child exits");
	}
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name, *jit, *harden;
	} modes[] = {
		{ "jit off", "0", "0" }, { "jit on", "1", "0" }, { "jit hardened", "1", "2" },
	};
	struct {
		const char *ifname, *cmd;
		unsigned long count, linear;
	} frames[8];
	const char *ifname = NULL, *traffic = NULL, *kcm_peer = NULL;
	int fd, jmp, checker, kcm_parser, tail, accept_all, i, nframes = 0;
	bool series;
	__u32 zero = 0;
	size_t m;

	if (argc == 3 && !strcmp(argv[1], "--kcm-source"))
		return kcm_source(atoi(argv[2]));
	if (argc < 3 || strcmp(argv[1], "--series"))
		goto usage;
	series = !strcmp(argv[2], "yes");
	for (i = 3; i < argc;) {
		if (!strcmp(argv[i], "--iface") && i + 3 < argc &&
		    !strcmp(argv[i + 2], "--traffic")) {
			ifname = argv[i + 1];
			traffic = argv[i + 3];
			i += 4;
		} else if (!strcmp(argv[i], "--kcm-peer") && i + 1 < argc) {
			kcm_peer = argv[i + 1];
			i += 2;
		} else if (!strcmp(argv[i], "--frames") && i + 4 < argc && nframes < 8) {
			char *end1, *end2;

			frames[nframes].ifname = argv[i + 1];
			frames[nframes].count = strtoul(argv[i + 2], &end1, 0);
			frames[nframes].linear = strtoul(argv[i + 3], &end2, 0);
			frames[nframes++].cmd = argv[i + 4];
			if (*end1 || *end2 || end1 == argv[i + 2] || end2 == argv[i + 3])
				goto usage;
			i += 5;
		} else {
			goto usage;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");

	fd = LOAD(BPF_PROG_TYPE_SOCKET_FILTER, probe_insns);
	if (fd < 0 && series)
		print_log();
	tap_okf((fd >= 0) == series, "a root filter's read of data is %s",
	       series ? "accepted" : "refused");
	if (fd < 0 && !series)
		tap_okf(errno == EACCES, "refused as an invalid context access (EACCES)");
	if (fd >= 0)
		close(fd);
	test_unpriv();
	test_capbpf_child(series);
	accept_all = LOAD(BPF_PROG_TYPE_SOCKET_FILTER, accept_insns);
	if (accept_all < 0)
		die("load a filter that accepts everything");
	test_sctp("jit on", accept_all, false);
	close(accept_all);
	if (!series) {
		printf("1..%d\n", tap_n);
		return tap_failed ? 1 : 0;
	}

	stats_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "sk_direct", 4, 8 * NR_STATS, 1, NULL);
	if (stats_fd < 0)
		die("bpf_map_create");
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		const char *mode = modes[m].name;

		/* a prog array takes programs JITed as its first was, or not */
		jmp = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "sk_direct_jmp", 4, 4, 1, NULL);
		if (jmp < 0)
			die("bpf_map_create");
		write_sysctl(JIT_ENABLE, modes[m].jit);
		write_sysctl(JIT_HARDEN, modes[m].harden);
		checker = load_checker(stats_fd, -1);
		kcm_parser = load_checker(stats_fd, KCM_MSGLEN);
		tail = load_tail(jmp);
		if (checker < 0 || kcm_parser < 0 || tail < 0) {
			printf("# %s\n", strerror(errno));
			print_log();
			tap_okf(false, "%s: the checker and the tail-calling root load", mode);
			close(jmp);
			continue;
		}
		if (bpf_map_update_elem(jmp, &zero, &checker, BPF_ANY))
			die("prog array");
		test_udp(mode, checker, "");
		test_udp(mode, tail, ", tail-called from a root that does not read data_end");
		test_tcp(mode, checker);
		test_unix(mode, checker);
		test_packet(mode, checker, SOCK_RAW);
		test_packet(mode, checker, SOCK_DGRAM);
		test_reuseport(mode);
		test_fanout(mode, checker);
		test_sctp(mode, checker, true);
		test_tun(mode, checker);
		test_xt_bpf(mode, checker);
		if (kcm_peer)
			test_kcm(mode, kcm_parser, kcm_peer);
		if (ifname && m == 1)
			test_gro(ifname, checker, traffic);
		for (i = 0; m == 1 && i < nframes; i++)
			test_frames(frames[i].ifname, checker, frames[i].count, frames[i].linear,
				    frames[i].cmd);
		bpf_map_delete_elem(jmp, &zero);
		close(jmp);
		close(tail);
		close(kcm_parser);
		close(checker);
	}
	write_sysctl(JIT_ENABLE, "1");
	write_sysctl(JIT_HARDEN, "0");
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
usage:
	fprintf(stderr, "usage: sk_direct --series yes|no [--iface IF --traffic CMD]\n"
		"                 [--frames IF COUNT LINEAR CMD]... [--kcm-peer ADDR]\n"
		"       sk_direct --kcm-source PORT\n");
	return 2;
}
