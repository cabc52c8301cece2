/* SPDX-License-Identifier: GPL-2.0 */
/*
 * craft's spec language, the one frame builder of the tests: a spec such as
 * "tcp4,dport=443,vlan=42,trunc=30" names an Ethernet frame (see
 * spec_help() for the language).  craft sends or writes the frames; the
 * unit tests and the fuzzers build theirs from specs in memory.
 *
 *	struct spec s;
 *	if (spec_parse(&s, "udp4,dport=53", 1, err, sizeof(err))) ...
 *	len = spec_build(&s, i, id, buf, sizeof(buf));	frame i of s
 *	len = spec_frame("arp", buf, sizeof(buf), err, sizeof(err));
 */
#ifndef EBPFCOUNT_TESTS_SPEC_H
#define EBPFCOUNT_TESTS_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SPEC_MAX_FRAME	65535
#define SPEC_NONE	0xffffffffu	/* option not given */

struct spec_kind;

struct spec {
	const char *text;
	const struct spec_kind *kind;
	uint8_t smac[6], dmac[6];
	uint8_t src[16], dst[16];	/* IPv4 uses the first 4 bytes */
	unsigned int sport, dport, flags, type, code, ttl, tos, len, ihl;
	unsigned int vlan, svlan, prio, tpid, stpid, ipopts, frag, ext, trunc;
	unsigned int proto, etype, op, srcrange, dstrange, sportrange, n;
	uint8_t payload[64];		/* payload=: the first payload bytes */
	unsigned int npayload;
	unsigned long long sent;	/* for the caller: frames sent so far */
};

/* Parse text (kept by pointer) into s, with n frames unless it says n=. */
int spec_parse(struct spec *s, const char *text, unsigned int n, char *err,
	       size_t errlen);

/*
 * Build frame i of s into buf; id is the IPv4 identification.  Returns the
 * frame's length after trunc=, 0 if the whole frame does not fit in cap.
 */
unsigned int spec_build(const struct spec *s, unsigned long long i,
			unsigned long long id, uint8_t *buf, size_t cap);

/* The first frame of text into buf: its length, or -1 with err set. */
int spec_frame(const char *text, uint8_t *buf, size_t cap, char *err,
	       size_t errlen);

/* Decimal or 0x-prefixed hexadecimal, nothing else: 0, or -1. */
int spec_number(const char *val, unsigned long *out);

/* The language, for a usage text. */
void spec_help(FILE *f);

#endif
