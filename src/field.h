/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fields ebpfcount can count by, named as in Wireshark's display
 * filters.  One table describes where each field lives in a frame, how wide
 * it is and how it is printed; the parser, the code generator and the
 * printers all read it.
 */
#ifndef EBPFCOUNT_FIELD_H
#define EBPFCOUNT_FIELD_H

#include <stdint.h>

/* Where a field's offset is counted from, and what must be present. */
enum layer {
	LAYER_META,	/* struct __sk_buff: frame.len, vlan.id, sll.* */
	LAYER_ETH,	/* Ethernet header, offset 0 of the frame */
	LAYER_IP4,	/* IPv4 header */
	LAYER_IP6,	/* IPv6 header */
	LAYER_TCP,
	LAYER_UDP,
	LAYER_ICMP,
	LAYER_ICMP6,
};

/* How a field's value is printed. */
enum fmt {
	FMT_UINT,	/* decimal */
	FMT_HEX,	/* 0x-prefixed hexadecimal */
	FMT_MAC,
	FMT_IP4,
	FMT_IP6,
	FMT_IPPROTO,	/* number, or protocol name unless -n */
	FMT_PORT,	/* number, or service name unless -n */
	FMT_TCPFLAGS,	/* 0x-hex, or letters unless -n */
	FMT_PKTTYPE,	/* number, or its name unless -n */
	FMT_IFINDEX,	/* number, or the interface's name live unless -n */
};

/* How the program reads a field's value. */
enum field_read {
	READ_HEADER,	/* width bytes at off in its layer's header */
	READ_LENGTH,	/* the frame's length, 4 bytes */
	READ_VLAN,	/* the tag stripped into the skb, else an inline tag's TCI */
	READ_ETYPE,	/* the EtherType after the inline VLAN tags */
	READ_SKB,	/* the __sk_buff word at off */
};

#define FIELD_MAX_WIDTH 16

struct field {
	const char *name;	/* Wireshark display-filter name */
	enum layer layer;
	enum field_read read;
	uint8_t off;		/* byte offset in its layer's header */
	uint8_t width;		/* bytes taken from the frame */
	uint8_t mask[2];	/* mask of the first two bytes (0 or 0xff: none) */
	uint8_t shift;		/* right shift of the value when printed */
	uint8_t max_prefix;	/* prefix length allowed (0: none) */
	enum fmt fmt;
	const char *help;
};

/* The field called name, or NULL. */
const struct field *field_find(const char *name);
/* The table, for listings: n entries. */
const struct field *field_table(int *n);
/* The value of a key slot (width bytes, network order) as an integer. */
uint64_t field_value(const struct field *f, const uint8_t *bytes);
/* Is the field's first byte or two masked (not taken whole)? */
int field_masked(const struct field *f, int byte);
/* The layer a field needs, as a name for messages. */
const char *layer_name(enum layer l);

#endif
