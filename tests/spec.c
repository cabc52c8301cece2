// SPDX-License-Identifier: GPL-2.0
/*
 * craft's spec language (spec.h): a spec parsed into struct spec, and the
 * frames it names built with correct lengths and checksums.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

#define NONE		SPEC_NONE
#define MAX_FRAME	SPEC_MAX_FRAME
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* What a kind of frame has; options name the features they need. */
enum {
	F_IP4	= 1 << 0,
	F_IP6	= 1 << 1,
	F_TCP	= 1 << 2,
	F_UDP	= 1 << 3,
	F_ICMP	= 1 << 4,
	F_ARP	= 1 << 5,
	F_RAW	= 1 << 6,
	F_IP	= F_IP4 | F_IP6,
	F_PORTS	= F_TCP | F_UDP,
	F_ADDR	= F_IP | F_ARP,
	F_ANY	= ~0,
};

struct spec_kind {
	const char *name;
	unsigned int feat;
	unsigned int etype;	/* EtherType */
	unsigned int proto;	/* IP protocol / IPv6 next header of L4 */
	unsigned int l4len;	/* L4 header bytes (ARP: its body) */
	unsigned int type;	/* default ICMP type */
	unsigned int len;	/* default frame length, 0: just the headers */
};

static const struct spec_kind kinds[] = {
	{ "udp4",  F_IP4 | F_UDP,  ETH_P_IP,   IPPROTO_UDP,    8,  0,   0 },
	{ "tcp4",  F_IP4 | F_TCP,  ETH_P_IP,   IPPROTO_TCP,    20, 0,   0 },
	{ "icmp4", F_IP4 | F_ICMP, ETH_P_IP,   IPPROTO_ICMP,   8,  8,   0 },
	{ "udp6",  F_IP6 | F_UDP,  ETH_P_IPV6, IPPROTO_UDP,    8,  0,   0 },
	{ "tcp6",  F_IP6 | F_TCP,  ETH_P_IPV6, IPPROTO_TCP,    20, 0,   0 },
	{ "icmp6", F_IP6 | F_ICMP, ETH_P_IPV6, IPPROTO_ICMPV6, 8,  128, 0 },
	{ "arp",   F_ARP,          ETH_P_ARP,  0,              28, 0,   0 },
	{ "raw",   F_RAW,          0x88b5,     0,              0,  0,   60 },
};

enum { FRAG_NONE, FRAG_FIRST, FRAG_LATER, FRAG_DF };
enum { EXT_NONE, EXT_HOP, EXT_DST };
#define IPOPT_NOP	1
#define IPOPT_EXP	30	/* RFC 4727 experiment, copy 0, class 0 */
#define FRAG_LATER_OFFSET 185	/* in 8-byte units: 1480 bytes */

static const char *const frag_names[] = {
	"none", "first", "later", "df", NULL
};
static const char *const ext_names[] = { "none", "hop", "dst", NULL };
static const unsigned int ext_nexthdr[] = {
	0, IPPROTO_HOPOPTS, IPPROTO_DSTOPTS
};

struct option_def {
	const char *name;
	unsigned int need;	/* features of the kinds it applies to */
	int (*parse)(struct spec *s, const struct option_def *o,
		     const char *val);
	size_t off;		/* field in struct spec */
	unsigned int min, max;	/* range, for parse_uint */
	const char *const *choices;	/* names, for parse_choice */
};

/* Decimal or 0x-prefixed hexadecimal, nothing else. */
int spec_number(const char *val, unsigned long *out)
{
	int base = 10;
	char *end;

	if (!strncmp(val, "0x", 2) || !strncmp(val, "0X", 2)) {
		base = 16;
		val += 2;
	}
	if (!(base == 16 ? isxdigit((unsigned char)*val) :
			   isdigit((unsigned char)*val)))
		return -1;
	errno = 0;
	*out = strtoul(val, &end, base);
	return errno || *end ? -1 : 0;
}

static unsigned int *field(struct spec *s, const struct option_def *o)
{
	return (unsigned int *)((char *)s + o->off);
}

static int parse_uint(struct spec *s, const struct option_def *o,
		      const char *val)
{
	unsigned long v;

	if (spec_number(val, &v) || v < o->min || v > o->max)
		return -1;
	*field(s, o) = v;
	return 0;
}

static int parse_choice(struct spec *s, const struct option_def *o,
			const char *val)
{
	unsigned int i;

	for (i = 0; o->choices[i]; i++) {
		if (!strcmp(val, o->choices[i])) {
			*field(s, o) = i;
			return 0;
		}
	}
	return -1;
}

static int parse_addr(struct spec *s, const struct option_def *o,
		      const char *val)
{
	int af = s->kind->feat & F_IP6 ? AF_INET6 : AF_INET;

	return inet_pton(af, val, (char *)s + o->off) == 1 ? 0 : -1;
}

static int parse_mac(struct spec *s, const struct option_def *o,
		     const char *val)
{
	uint8_t *mac = (uint8_t *)s + o->off;
	int end = 0;

	if (sscanf(val, "%2hhx:%2hhx:%2hhx:%2hhx:%2hhx:%2hhx%n", &mac[0],
		   &mac[1], &mac[2], &mac[3], &mac[4], &mac[5], &end) != 6)
		return -1;
	return val[end] ? -1 : 0;
}

static int parse_payload(struct spec *s, const struct option_def *o,
			 const char *val)
{
	size_t n = strlen(val), i;
	unsigned int b;

	(void)o;
	if (!n || n % 2 || n / 2 > sizeof(s->payload))
		return -1;
	for (i = 0; i < n; i += 2) {
		if (!isxdigit((unsigned char)val[i]) ||
		    !isxdigit((unsigned char)val[i + 1]) ||
		    sscanf(val + i, "%2x", &b) != 1)
			return -1;
		s->payload[i / 2] = b;
	}
	s->npayload = n / 2;
	return 0;
}

static const struct {
	char letter;
	unsigned int bit;
} tcp_flags[] = {
	{ 'F', 0x01 }, { 'S', 0x02 }, { 'R', 0x04 }, { 'P', 0x08 },
	{ 'A', 0x10 }, { 'U', 0x20 }, { 'E', 0x40 }, { 'C', 0x80 },
	{ 'N', 0x100 },
};

static int parse_flags(struct spec *s, const struct option_def *o,
		       const char *val)
{
	unsigned int bits = 0, i;
	const char *c;

	if (*val >= '0' && *val <= '9')
		return parse_uint(s, o, val);
	for (c = val; *c; c++) {
		for (i = 0; i < ARRAY_SIZE(tcp_flags); i++)
			if (tcp_flags[i].letter == *c)
				break;
		if (i == ARRAY_SIZE(tcp_flags))
			return -1;
		bits |= tcp_flags[i].bit;
	}
	if (c == val)
		return -1;
	s->flags = bits;
	return 0;
}

#define OPT(n, need, fn, f) \
	{ n, need, fn, offsetof(struct spec, f), 0, 0, NULL }
#define UINT(n, need, f, lo, hi) \
	{ n, need, parse_uint, offsetof(struct spec, f), lo, hi, NULL }
#define CHOICE(n, need, f, names) \
	{ n, need, parse_choice, offsetof(struct spec, f), 0, 0, names }

static const struct option_def options[] = {
	OPT("src", F_ADDR, parse_addr, src),
	OPT("dst", F_ADDR, parse_addr, dst),
	OPT("smac", F_ANY, parse_mac, smac),
	OPT("dmac", F_ANY, parse_mac, dmac),
	UINT("sport", F_PORTS, sport, 0, 65535),
	UINT("dport", F_PORTS, dport, 0, 65535),
	{ "flags", F_TCP, parse_flags, offsetof(struct spec, flags), 0, 0xfff,
	  NULL },
	UINT("type", F_ICMP, type, 0, 255),
	UINT("code", F_ICMP, code, 0, 255),
	UINT("ttl", F_IP, ttl, 0, 255),
	UINT("hlim", F_IP, ttl, 0, 255),
	UINT("tos", F_IP, tos, 0, 255),
	UINT("len", F_ANY, len, ETH_HLEN, MAX_FRAME),
	UINT("vlan", F_ANY, vlan, 0, 4095),
	UINT("svlan", F_ANY, svlan, 0, 4095),
	UINT("prio", F_ANY, prio, 0, 7),
	UINT("tpid", F_ANY, tpid, 0, 65535),
	UINT("stpid", F_ANY, stpid, 0, 65535),
	UINT("ipopts", F_IP4, ipopts, 0, 40),
	UINT("ihl", F_IP4, ihl, 0, 15),
	CHOICE("frag", F_IP4, frag, frag_names),
	CHOICE("ext", F_IP6, ext, ext_names),
	UINT("trunc", F_ANY, trunc, 1, MAX_FRAME),
	UINT("proto", F_IP, proto, 0, 255),
	UINT("etype", F_ANY, etype, 0, 65535),
	UINT("op", F_ARP, op, 0, 65535),
	UINT("srcrange", F_ADDR, srcrange, 1, 1u << 31),
	UINT("dstrange", F_ADDR, dstrange, 1, 1u << 31),
	UINT("sportrange", F_PORTS, sportrange, 1, 65536),
	UINT("n", F_ANY, n, 0, UINT_MAX),
	OPT("payload", F_ANY, parse_payload, payload),
};

static const struct spec_kind *find_kind(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

static const struct option_def *find_option(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(options); i++)
		if (!strcmp(options[i].name, name))
			return &options[i];
	return NULL;
}

static void spec_defaults(struct spec *s, const struct spec_kind *k, unsigned int n)
{
	static const uint8_t smac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x02 };
	static const uint8_t dmac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x01 };
	int af = k->feat & F_IP6 ? AF_INET6 : AF_INET;

	s->kind = k;
	memcpy(s->smac, smac, 6);
	memcpy(s->dmac, dmac, 6);
	inet_pton(af, af == AF_INET6 ? "2001:2::2" : "198.18.0.2", s->src);
	inet_pton(af, af == AF_INET6 ? "2001:2::1" : "198.18.0.1", s->dst);
	s->sport = 1000;
	s->dport = 2000;
	s->flags = 0x02;
	s->type = k->type;
	s->ttl = 64;
	s->len = k->len ? k->len : NONE;
	s->vlan = s->svlan = s->prio = s->trunc = s->proto = NONE;
	s->tpid = s->stpid = s->ihl = NONE;
	s->etype = k->etype;
	s->op = 1;
	s->srcrange = s->dstrange = s->sportrange = 1;
	s->n = n;
}

/* An error about s's text into err; returns -1. */
static int spec_error(const struct spec *s, char *err, size_t errlen,
		      const char *fmt, ...)
{
	size_t n = snprintf(err, errlen, "spec '%s': ", s->text);
	va_list ap;

	va_start(ap, fmt);
	if (n < errlen)
		vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_option(struct spec *s, char *opt, char *err, size_t errlen)
{
	const struct option_def *o;
	char *val = strchr(opt, '=');

	if (!val)
		return spec_error(s, err, errlen,
				  "option '%s' needs a value (key=value)", opt);
	*val++ = '\0';
	o = find_option(opt);
	if (!o)
		return spec_error(s, err, errlen, "unknown option '%s='", opt);
	if (!(o->need & s->kind->feat))
		return spec_error(s, err, errlen,
				  "option '%s=' does not apply to %s", opt,
				  s->kind->name);
	if (o->parse(s, o, val))
		return spec_error(s, err, errlen,
				  "bad value '%s' for option '%s='", val, opt);
	return 0;
}

static unsigned int ipopts_len(const struct spec *s)
{
	return (s->ipopts + 3) & ~3u;
}

static unsigned int l2_len(const struct spec *s)
{
	return ETH_HLEN + (s->vlan != NONE ? 4 : 0) + (s->svlan != NONE ? 4 : 0);
}

static unsigned int l3_len(const struct spec *s)
{
	if (s->kind->feat & F_IP4)
		return 20 + ipopts_len(s);
	if (s->kind->feat & F_IP6)
		return 40 + (s->ext ? 8 : 0);
	return 0;
}

static unsigned int l4_len(const struct spec *s)
{
	return s->frag == FRAG_LATER ? 0 : s->kind->l4len;
}

static unsigned int headers_len(const struct spec *s)
{
	return l2_len(s) + l3_len(s) + l4_len(s);
}

static unsigned int frame_len(const struct spec *s)
{
	return s->len != NONE ? s->len : headers_len(s);
}

static int spec_check(const struct spec *s, char *err, size_t errlen)
{
	if (s->prio != NONE && s->vlan == NONE)
		return spec_error(s, err, errlen, "option 'prio=' needs 'vlan='");
	if (s->tpid != NONE && s->vlan == NONE)
		return spec_error(s, err, errlen, "option 'tpid=' needs 'vlan='");
	if (s->svlan != NONE && s->vlan == NONE)
		return spec_error(s, err, errlen, "option 'svlan=' needs 'vlan='");
	if (s->stpid != NONE && s->svlan == NONE)
		return spec_error(s, err, errlen, "option 'stpid=' needs 'svlan='");
	if (s->len != NONE && s->len < headers_len(s))
		return spec_error(s, err, errlen,
				  "option 'len=%u' is shorter than the headers (%u bytes); use trunc=",
				  s->len, headers_len(s));
	if (headers_len(s) > MAX_FRAME)
		return spec_error(s, err, errlen, "frame longer than %u bytes",
				  MAX_FRAME);
	if (s->npayload && headers_len(s) + s->npayload > frame_len(s))
		return spec_error(s, err, errlen,
				  "option 'payload=' needs len= of at least %u",
				  headers_len(s) + s->npayload);
	if (s->trunc != NONE && s->trunc > frame_len(s))
		return spec_error(s, err, errlen,
				  "option 'trunc=%u' exceeds the frame length (%u bytes)",
				  s->trunc, frame_len(s));
	if (s->sport + s->sportrange - 1 > 65535)
		return spec_error(s, err, errlen,
				  "option 'sportrange=%u' takes the port past 65535",
				  s->sportrange);
	return 0;
}

int spec_parse(struct spec *s, const char *text, unsigned int n, char *err,
	       size_t errlen)
{
	char *copy = strdup(text), *save = NULL, *tok;
	const struct spec_kind *k;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->text = text;
	if (!copy)
		return spec_error(s, err, errlen, "out of memory");
	tok = strtok_r(copy, ",", &save);
	k = tok ? find_kind(tok) : NULL;
	if (!k) {
		spec_error(s, err, errlen,
			   "unknown kind '%s' (udp4 tcp4 icmp4 udp6 tcp6 icmp6 arp raw)",
			   tok ? tok : "");
		free(copy);
		return -1;
	}
	spec_defaults(s, k, n);
	while (!ret && (tok = strtok_r(NULL, ",", &save)))
		ret = parse_option(s, tok, err, errlen);
	free(copy);
	return ret ? ret : spec_check(s, err, errlen);
}

/* Frame building */

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

/* Add k to the last 32 bits of an address, big-endian. */
static void addr_add(uint8_t *a, size_t alen, uint32_t k)
{
	uint8_t *p = a + alen - 4;

	put32(p, ((uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]) + k);
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (; len > 1; p += 2, len -= 2)
		sum += p[0] << 8 | p[1];
	if (len)
		sum += p[0] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

struct layout {
	uint8_t src[16], dst[16];	/* addresses of this frame */
	size_t alen;
	unsigned int l3, l4, end;	/* offsets */
};

static unsigned int put_eth(const struct spec *s, uint8_t *p)
{
	memcpy(p, s->dmac, 6);
	memcpy(p + 6, s->smac, 6);
	if (s->svlan != NONE) {
		put16(p + 12, s->stpid != NONE ? s->stpid : ETH_P_8021AD);
		put16(p + 14, s->svlan);
		p += 4;
	}
	if (s->vlan != NONE) {
		put16(p + 12, s->tpid != NONE ? s->tpid : ETH_P_8021Q);
		put16(p + 14, (s->prio != NONE ? s->prio : 0) << 13 | s->vlan);
	}
	if (s->svlan != NONE)
		p -= 4;
	put16(p + l2_len(s) - 2, s->etype);
	return l2_len(s);
}

static unsigned int l4_proto(const struct spec *s)
{
	return s->proto != NONE ? s->proto : s->kind->proto;
}

/*
 * ipopts=N: an RFC 4727 experimental option (type 30, ignored by receivers)
 * N bytes long, then NOPs up to a multiple of 4; N = 1 is a lone NOP.  Four
 * NOPs in a row would be a tshark warning ("a router may have removed some
 * options").
 */
static void put_ip4_options(const struct spec *s, uint8_t *p)
{
	memset(p, IPOPT_NOP, ipopts_len(s));
	if (s->ipopts < 2)
		return;
	p[0] = IPOPT_EXP;
	p[1] = s->ipopts;
	memset(p + 2, 0, s->ipopts - 2);
}

static void put_ip4(const struct spec *s, const struct layout *l, uint8_t *p,
		    unsigned long long id)
{
	unsigned int hl = l3_len(s);

	p[0] = 0x40 | (s->ihl != NONE ? s->ihl : hl / 4);
	p[1] = s->tos;
	put16(p + 2, l->end - l->l3);
	put16(p + 4, id);
	if (s->frag == FRAG_FIRST)
		put16(p + 6, 0x2000);			/* MF, offset 0 */
	else if (s->frag == FRAG_LATER)
		put16(p + 6, FRAG_LATER_OFFSET);
	else if (s->frag == FRAG_DF)
		put16(p + 6, 0x4000);			/* DF, offset 0 */
	else
		put16(p + 6, 0);
	p[8] = s->ttl;
	p[9] = l4_proto(s);
	put16(p + 10, 0);
	memcpy(p + 12, l->src, 4);
	memcpy(p + 16, l->dst, 4);
	put_ip4_options(s, p + 20);
	put16(p + 10, csum_fold(csum_add(0, p, hl)));
}

static void put_ip6(const struct spec *s, const struct layout *l, uint8_t *p)
{
	put32(p, 0x60000000u | s->tos << 20);
	put16(p + 4, l->end - l->l3 - 40);
	p[6] = s->ext ? ext_nexthdr[s->ext] : l4_proto(s);
	p[7] = s->ttl;
	memcpy(p + 8, l->src, 16);
	memcpy(p + 24, l->dst, 16);
	if (s->ext) {
		p[40] = l4_proto(s);
		p[41] = 0;		/* 8 bytes */
		p[42] = 1;		/* PadN option */
		p[43] = 4;
		memset(p + 44, 0, 4);
	}
}

static void put_arp(const struct spec *s, const struct layout *l, uint8_t *p)
{
	put16(p, 1);			/* Ethernet */
	put16(p + 2, ETH_P_IP);
	p[4] = 6;
	p[5] = 4;
	put16(p + 6, s->op);
	memcpy(p + 8, s->smac, 6);
	memcpy(p + 14, l->src, 4);
	if (s->op == 1)
		memset(p + 18, 0, 6);
	else
		memcpy(p + 18, s->dmac, 6);
	memcpy(p + 24, l->dst, 4);
}

static void put_l4(const struct spec *s, unsigned long long i, uint8_t *p,
		   unsigned int len)
{
	unsigned int sport = s->sport + i % s->sportrange;

	if (s->kind->feat & F_PORTS) {
		put16(p, sport);
		put16(p + 2, s->dport);
	}
	if (s->kind->feat & F_UDP) {
		put16(p + 4, len);
		put16(p + 6, 0);
	} else if (s->kind->feat & F_TCP) {
		put32(p + 4, 1000 + i);			/* seq */
		put32(p + 8, s->flags & 0x10 ? 1 : 0);	/* ack */
		p[12] = 5 << 4 | (s->flags >> 8 & 0xf);
		p[13] = s->flags;
		put16(p + 14, 64240);			/* window */
		put16(p + 16, 0);
		put16(p + 18, 0);			/* urgent pointer */
	} else if (s->kind->feat & F_ICMP) {
		p[0] = s->type;
		p[1] = s->code;
		put16(p + 2, 0);
		put16(p + 4, 0x4242);			/* echo id */
		put16(p + 6, i);			/* echo seq */
	}
}

/* The checksum field's offset in the L4 header, 0 when there is none. */
static unsigned int l4_csum_off(const struct spec *s)
{
	if (s->kind->feat & F_UDP)
		return 6;
	if (s->kind->feat & F_TCP)
		return 16;
	if (s->kind->feat & F_ICMP)
		return 2;
	return 0;
}

static void l4_checksum(const struct spec *s, const struct layout *l,
			uint8_t *p)
{
	unsigned int len = l->end - l->l4, off = l4_csum_off(s);
	uint32_t sum = 0;
	uint16_t c;

	if (!off)
		return;
	if (s->kind->proto != IPPROTO_ICMP) {		/* pseudo-header */
		sum = csum_add(sum, l->src, l->alen);
		sum = csum_add(sum, l->dst, l->alen);
		sum += s->kind->proto + (len >> 16) + (len & 0xffff);
	}
	c = csum_fold(csum_add(sum, p, len));
	if (!c && (s->kind->feat & F_UDP))
		c = 0xffff;
	put16(p + off, c);
}

static void layout(const struct spec *s, unsigned long long i,
		   struct layout *l)
{
	l->alen = s->kind->feat & F_IP6 ? 16 : 4;
	memcpy(l->src, s->src, l->alen);
	memcpy(l->dst, s->dst, l->alen);
	addr_add(l->src, l->alen, i % s->srcrange);
	addr_add(l->dst, l->alen, i % s->dstrange);
	l->l3 = l2_len(s);
	l->l4 = l->l3 + l3_len(s);
	l->end = frame_len(s);
}

unsigned int spec_build(const struct spec *s, unsigned long long i,
			unsigned long long id, uint8_t *frame, size_t cap)
{
	struct layout l;
	unsigned int k;

	layout(s, i, &l);
	if (l.end > cap)
		return 0;
	for (k = 0; k < l.end; k++)
		frame[k] = k;				/* payload pattern */
	memcpy(frame + headers_len(s), s->payload, s->npayload);
	put_eth(s, frame);
	if (s->kind->feat & F_ARP)
		put_arp(s, &l, frame + l.l3);
	else if (s->kind->feat & F_IP6)
		put_ip6(s, &l, frame + l.l3);
	if (l4_len(s)) {
		put_l4(s, i, frame + l.l4, l.end - l.l4);
		l4_checksum(s, &l, frame + l.l4);
	}
	if (s->kind->feat & F_IP4)
		put_ip4(s, &l, frame + l.l3, id);
	return s->trunc != NONE ? s->trunc : l.end;
}

int spec_frame(const char *text, uint8_t *buf, size_t cap, char *err,
	       size_t errlen)
{
	struct spec s;
	unsigned int len;

	if (spec_parse(&s, text, 1, err, errlen))
		return -1;
	len = spec_build(&s, 0, 1, buf, cap);
	if (!len)
		return spec_error(&s, err, errlen,
				  "frame of %u bytes, room for %zu",
				  frame_len(&s), cap);
	return len;
}

void spec_help(FILE *f)
{
	fputs(
"SPEC is KIND[,key=value...], KIND one of udp4 tcp4 icmp4 udp6 tcp6 icmp6\n"
"arp raw (raw: Ethernet header and payload, EtherType 0x88b5, 60 bytes).\n"
"Numbers are decimal or 0x-prefixed hexadecimal.\n"
"  src=, dst=        IPv4 or IPv6 address (ARP: sender and target address);\n"
"                    default 198.18.0.2 -> 198.18.0.1, 2001:2::2 -> 2001:2::1\n"
"  smac=, dmac=      default 52:54:00:12:34:02 -> 52:54:00:12:34:01\n"
"  sport=, dport=    UDP/TCP ports, default 1000 -> 2000\n"
"  flags=            TCP flags, letters FSRPAUEC (N: NS) or a number;\n"
"                    default S\n"
"  type=, code=      ICMP/ICMPv6 type and code, default echo request\n"
"  ttl=, hlim=       IPv4 TTL / IPv6 hop limit (either name), default 64\n"
"  tos=              IPv4 TOS / IPv6 traffic class byte (DSCP and ECN)\n"
"  len=              total frame length (Ethernet header included), the\n"
"                    bytes after the headers are payload; default: headers\n"
"  vlan=ID, prio=P   insert an 802.1Q tag (TPID 0x8100) with VID and PCP\n"
"  svlan=ID          with vlan=, an outer 802.1ad tag (TPID 0x88a8) first\n"
"  tpid=N, stpid=N   another TPID for the tag of vlan= or of svlan=\n"
"  ipopts=N          an N-byte IPv4 option (RFC 4727 experimental type 30),\n"
"                    NOP-padded to a multiple of 4 bytes (max 40)\n"
"  ihl=N             IPv4 header length field N (0-15), whatever the\n"
"                    header's real length\n"
"  frag=first|later  IPv4 fragment: MF and offset 0, or offset 1480 with no\n"
"                    L4 header (the bytes after the IP header are payload);\n"
"  frag=df           not a fragment: DF set\n"
"  ext=hop|dst       IPv6 hop-by-hop or destination options header (8 bytes)\n"
"                    before the L4 header\n"
"  proto=N           IPv4 protocol / IPv6 next header naming the L4 header\n"
"                    (with ext=, the extension header's next header);\n"
"                    the L4 header is still the KIND's\n"
"  etype=N           EtherType (after the VLAN tag, if any)\n"
"  op=N              ARP operation, default 1 (request)\n"
"  trunc=N           cut the frame to N bytes after building it (lengths and\n"
"                    checksums describe the whole frame); -i needs N >= 14\n"
"  srcrange=K        add 0..K-1 to the source address, frame after frame,\n"
"  dstrange=K        cycling, for K distinct addresses (the same for the\n"
"  sportrange=K      destination address and the source port)\n"
"  n=COUNT           frames sent from this SPEC\n"
"  payload=HEX       the first payload bytes (up to 64; the rest, and all\n"
"                    without it: the byte's offset in the frame, mod 256)\n"
"Checksums (IPv4 header, TCP, UDP, ICMP, ICMPv6) are correct.\n",
	      f);
}
