/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcap filter expressions compiled by libpcap into classic BPF, for
 * cbpf_translate().
 *
 * <pcap/bpf.h> and <linux/bpf.h> both define struct bpf_insn; this header
 * renames libpcap's to struct pcap_bpf_insn, so include it (not <pcap.h>)
 * in files that also include <linux/bpf.h>, in either order.
 */
#ifndef EBPFCOUNT_FILTER_H
#define EBPFCOUNT_FILTER_H

#include <stddef.h>
#include <linux/filter.h>

#define bpf_insn pcap_bpf_insn
#include <pcap/pcap.h>
#undef bpf_insn

/*
 * The longest where clause libpcap is asked to compile: it takes time
 * about the square of the clause's length to generate the classic
 * program, the cube to optimize it (here, 500 `port N` terms: 2.4 s and
 * 16 s; 1,000: 11 s and over a minute, to exceed BPF_MAXINSNS).  Beyond
 * FILTER_MAX_TERMS terms (and/or operators plus one) a clause is refused
 * at once; beyond FILTER_MAX_UNOPTIMIZED unoptimized instructions, before
 * it is optimized.  Longer lists fit as ranges (portrange, net).
 */
#define FILTER_MAX_TERMS	512
#define FILTER_MAX_UNOPTIMIZED	(4 * BPF_MAXINSNS)

/*
 * Compile expr with optimization and an unknown netmask.  With ifname,
 * on a live handle of that interface if it activates and is Ethernet:
 * only then does libpcap emit the ancillary VLAN loads that match on a
 * Linux socket, where the kernel has moved the outer tag into
 * skb->vlan_tci (and `ifindex N` compiles).  Otherwise, or with ifname
 * NULL, for a DLT_EN10MB handle that captures nothing.
 * Returns 0, or -1 with libpcap's message (one line) in err, or ours for
 * a clause longer than FILTER_MAX_UNOPTIMIZED.
 */
int filter_compile(const char *expr, const char *ifname,
		   struct bpf_program *prog, char *err, size_t errlen);
void filter_free(struct bpf_program *prog);
/*
 * Does expr compile for a capture of link type linktype (libpcap's name:
 * LINUX_SLL, RAW, ...)?  Its frames are counted as Ethernet frames (see
 * capture.h), but what tcpdump refuses for the file (ether host on a
 * cooked capture) is refused: 0, or -1 with libpcap's message in err.
 * One that no packet of the type can match (ip6 on raw IPv4) is not: it
 * counts nothing.
 */
int filter_check_linktype(const char *expr, const char *linktype, char *err, size_t errlen);

/* The classic instructions of prog, as cbpf_translate() takes them. */
static inline const struct sock_filter *filter_insns(const struct bpf_program *prog)
{
	return (const struct sock_filter *)prog->bf_insns;
}

#endif
