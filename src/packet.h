/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet record that capture files give (capture.h), the user engine
 * runs (vm.h) and the kernel's test run takes (load.h): what a socket
 * filter's context shows of a packet.
 */
#ifndef EBPFCOUNT_PACKET_H
#define EBPFCOUNT_PACKET_H

#include <linux/types.h>

/* A packet as the program's context shows it. */
struct packet {
	const unsigned char *data;	/* the frame from L2, as AF_PACKET sees it */
	unsigned int len;		/* bytes at data, also __sk_buff.len */
	/* of those, the last ones outside the skb's linear part, which
	 * __sk_buff.data_end leaves out (0: a linear skb) */
	unsigned int nonlinear;
	/* __sk_buff fields; protocol and vlan_proto in network byte order */
	__u32 pkt_type;
	__u32 protocol;
	__u32 vlan_present;
	__u32 vlan_tci;
	__u32 vlan_proto;
	__u32 mark;
	__u32 ifindex;
	__u32 queue_mapping;
	__u32 hash;
	__u32 gso_segs;
	__u32 cb[5];
};

#endif
