/* SPDX-License-Identifier: GPL-2.0 */
/* Hand a generated program to the kernel's verifier. */
#ifndef EBPFCOUNT_LOAD_H
#define EBPFCOUNT_LOAD_H

#include <stddef.h>
#include <linux/bpf.h>

/*
 * Load the n instructions insns, their map references relocated
 * (layout_relocate()), as a socket filter.  verbose: print the verifier's
 * log on stderr.  Returns the program fd, or -1 with err holding the
 * reason and the log's tail.
 */
int load_program(const struct bpf_insn *insns, int n, int verbose, char *err, size_t errlen);

/* What the verifier lets this process's socket filters read, load_reads(): */
#define LOAD_READS_STACK	1	/* the stack at an offset held in a register */
#define LOAD_READS_PACKET	2	/* packet data, directly (kernel-patches/) */

/*
 * LOAD_READS_STACK when the verifier will allow variable-offset stack
 * reads (CAP_PERFMON or CAP_SYS_ADMIN in the effective set); probe: then,
 * if the JIT is on, ask the kernel, by loading a small program once,
 * whether it lets socket filters read packet data directly, and if it
 * does, LOAD_READS_PACKET too.
 */
int load_reads(int probe);

/*
 * The kernel's statistics of program prog_fd: its runs and the time spent
 * in them, counted while kernel.bpf_stats_enabled is 1.  0 or -errno.
 */
int load_prog_stats(int prog_fd, unsigned long long *runs, unsigned long long *ns);

struct packet;

/*
 * Run program prog_fd once on skb with BPF_PROG_TEST_RUN, so that it sees
 * what a live socket sees: the kernel takes the first 14 bytes it is
 * given for an Ethernet header and runs a socket filter from the bytes
 * after them, so a made-up header goes first, its destination chosen to
 * give skb->pkt_type (host, multicast or other host; the test run cannot
 * make a packet outgoing or broadcast).  A frame longer than a test run
 * takes is cut, and the rest counted in cb[0] (frame.h).  Returns 0, or
 * -errno with err filled (-EINVAL: the program returned other than 0).
 */
int load_test_run(int prog_fd, const struct packet *skb, char *err, size_t errlen);

/* Describe a bpf(2) failure, naming the missing capability on EPERM. */
void load_strerror(const char *what, int err, char *buf, size_t size);

#endif
