// SPDX-License-Identifier: GPL-2.0
/* The field table; see field.h. */
#include <stddef.h>
#include <string.h>
#include <linux/bpf.h>

#include "field.h"

#define F(NAME, LAYER, OFF, WIDTH, FMT, HELP) \
	{ .name = NAME, .layer = LAYER, .off = OFF, .width = WIDTH, .fmt = FMT, .help = HELP }

static const struct field fields[] = {
	{ .name = "frame.len", .layer = LAYER_META, .read = READ_LENGTH, .width = 4,
	  .fmt = FMT_UINT, .help = "frame length in bytes (skb length)" },
	F("eth.dst", LAYER_ETH, 0, 6, FMT_MAC, "Ethernet destination"),
	F("eth.src", LAYER_ETH, 6, 6, FMT_MAC, "Ethernet source"),
	{ .name = "eth.type", .layer = LAYER_ETH, .read = READ_ETYPE, .off = 12, .width = 2,
	  .fmt = FMT_HEX, .help = "EtherType, after the VLAN tags" },
	{ .name = "vlan.id", .layer = LAYER_META, .read = READ_VLAN, .off = 2, .width = 2, .mask = { 0x0f, 0xff },
	  .fmt = FMT_UINT, .help = "802.1Q VLAN identifier" },
	{ .name = "ip.src", .layer = LAYER_IP4, .off = 12, .width = 4, .max_prefix = 32,
	  .fmt = FMT_IP4, .help = "IPv4 source address (ip.src/N: prefix)" },
	{ .name = "ip.dst", .layer = LAYER_IP4, .off = 16, .width = 4, .max_prefix = 32,
	  .fmt = FMT_IP4, .help = "IPv4 destination address (ip.dst/N: prefix)" },
	F("ip.proto", LAYER_IP4, 9, 1, FMT_IPPROTO, "IPv4 protocol"),
	F("ip.ttl", LAYER_IP4, 8, 1, FMT_UINT, "IPv4 time to live"),
	{ .name = "ip.dsfield.dscp", .layer = LAYER_IP4, .off = 1, .width = 1, .mask = { 0xfc },
	  .shift = 2, .fmt = FMT_UINT, .help = "IPv4 differentiated services code point" },
	{ .name = "ipv6.src", .layer = LAYER_IP6, .off = 8, .width = 16, .max_prefix = 128,
	  .fmt = FMT_IP6, .help = "IPv6 source address (ipv6.src/N: prefix)" },
	{ .name = "ipv6.dst", .layer = LAYER_IP6, .off = 24, .width = 16, .max_prefix = 128,
	  .fmt = FMT_IP6, .help = "IPv6 destination address (ipv6.dst/N: prefix)" },
	F("ipv6.nxt", LAYER_IP6, 6, 1, FMT_IPPROTO, "IPv6 next header"),
	F("tcp.srcport", LAYER_TCP, 0, 2, FMT_PORT, "TCP source port"),
	F("tcp.dstport", LAYER_TCP, 2, 2, FMT_PORT, "TCP destination port"),
	{ .name = "tcp.flags", .layer = LAYER_TCP, .off = 12, .width = 2, .mask = { 0x0f, 0xff },
	  .fmt = FMT_TCPFLAGS, .help = "TCP flags" },
	F("udp.srcport", LAYER_UDP, 0, 2, FMT_PORT, "UDP source port"),
	F("udp.dstport", LAYER_UDP, 2, 2, FMT_PORT, "UDP destination port"),
	F("icmp.type", LAYER_ICMP, 0, 1, FMT_UINT, "ICMP type"),
	F("icmp.code", LAYER_ICMP, 1, 1, FMT_UINT, "ICMP code"),
	F("icmpv6.type", LAYER_ICMP6, 0, 1, FMT_UINT, "ICMPv6 type"),
	{ .name = "sll.pkttype", .layer = LAYER_META, .read = READ_SKB,
	  .off = offsetof(struct __sk_buff, pkt_type), .width = 1, .fmt = FMT_PKTTYPE,
	  .help = "packet type: host, broadcast, multicast, otherhost, outgoing" },
	{ .name = "sll.ifindex", .layer = LAYER_META, .read = READ_SKB,
	  .off = offsetof(struct __sk_buff, ifindex), .width = 4, .fmt = FMT_IFINDEX,
	  .help = "interface index (live: its name unless -n)" },
};

const struct field *field_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

const struct field *field_table(int *n)
{
	*n = sizeof(fields) / sizeof(fields[0]);
	return fields;
}

int field_masked(const struct field *f, int byte)
{
	return byte < 2 && f->mask[byte] != 0 && f->mask[byte] != 0xff;
}

uint64_t field_value(const struct field *f, const uint8_t *bytes)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < f->width && i < 8; i++)
		v = v << 8 | bytes[i];
	return v >> f->shift;
}

const char *layer_name(enum layer l)
{
	static const char *const names[] = {
		[LAYER_META] = "frame", [LAYER_ETH] = "eth", [LAYER_IP4] = "ip",
		[LAYER_IP6] = "ipv6", [LAYER_TCP] = "tcp", [LAYER_UDP] = "udp",
		[LAYER_ICMP] = "icmp", [LAYER_ICMP6] = "icmpv6",
	};

	return names[l];
}
