// SPDX-License-Identifier: GPL-2.0
/* Capture files as a packet socket would show their packets; see capture.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <arpa/inet.h>

#include "capture.h"
#include "filter.h"

#define SLL_HLEN 16
#define SLL2_HLEN 20
#define MAX_FRAME (262144 + ETH_HLEN)

struct capture {
	pcap_t *p;
	int dlt;
	unsigned int snaplen;
	unsigned long records;
	long pos;		/* pcap (not pcapng) file: offset of the next record */
	unsigned char *frame;	/* an Ethernet header put in front of a payload */
};

static int supported(int dlt)
{
	return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2 ||
	       dlt == DLT_RAW || dlt == DLT_IPV4 || dlt == DLT_IPV6;
}

struct capture *capture_open(const char *path, char *err, size_t errlen)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct capture *c;
	pcap_t *p;
	int dlt;

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		if (!strncmp(errbuf, path, strlen(path)))
			snprintf(err, errlen, "%s", errbuf);	/* it names the file */
		else
			snprintf(err, errlen, "%s: %s", path, errbuf);
		return NULL;
	}
	dlt = pcap_datalink(p);
	if (!supported(dlt)) {
		snprintf(err, errlen, "%s: link type %s (%s) is not supported (Ethernet, Linux "
			 "cooked v1/v2 and raw IP are)", path,
			 pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "unknown",
			 pcap_datalink_val_to_description_or_dlt(dlt));
		pcap_close(p);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->frame = malloc(MAX_FRAME);
	if (!c || !c->frame) {
		snprintf(err, errlen, "out of memory");
		free(c);
		pcap_close(p);
		return NULL;
	}
	c->p = p;
	c->dlt = dlt;
	c->snaplen = pcap_snapshot(p);
	/* A pcap file's records follow its 24-byte header (pcapng's blocks do
	 * not); a pipe has no offsets. */
	c->pos = ftell(pcap_file(p));
	if (c->pos != 24)
		c->pos = -1;
	return c;
}

void capture_close(struct capture *c)
{
	if (!c)
		return;
	pcap_close(c->p);
	free(c->frame);
	free(c);
}

const char *capture_linktype(const struct capture *c)
{
	return pcap_datalink_val_to_name(c->dlt);
}

int capture_has_ethernet(const struct capture *c)
{
	return c->dlt == DLT_EN10MB;
}

unsigned long capture_records(const struct capture *c)
{
	return c->records;
}

static unsigned int be16(const unsigned char *p)
{
	return p[0] << 8 | p[1];
}

/* The frame: an Ethernet header (src may be NULL) with type, then n bytes. */
static void ether(struct capture *c, struct vm_skb *skb, const unsigned char *src,
		  unsigned int type, const unsigned char *payload, unsigned int n)
{
	unsigned char *f = c->frame;

	memset(f, 0, 12);
	if (src)
		memcpy(f + 6, src, 6);
	f[12] = type >> 8;
	f[13] = type & 0xff;
	memcpy(f + ETH_HLEN, payload, n);
	skb->data = f;
	skb->len = ETH_HLEN + n;
	skb->protocol = htons(type);
}

static void cooked(struct capture *c, struct vm_skb *skb, const unsigned char *d,
		   unsigned int caplen)
{
	const unsigned char *addr;
	unsigned int hlen, halen, type;

	if (c->dlt == DLT_LINUX_SLL) {
		hlen = SLL_HLEN;
		if (caplen < hlen)
			return;
		skb->pkt_type = be16(d);
		halen = be16(d + 4);
		addr = d + 6;
		type = be16(d + 14);
	} else {
		hlen = SLL2_HLEN;
		if (caplen < hlen)
			return;
		type = be16(d);
		skb->ifindex = (unsigned int)d[4] << 24 | d[5] << 16 | d[6] << 8 | d[7];
		skb->pkt_type = d[10];
		halen = d[11];
		addr = d + 12;
	}
	ether(c, skb, halen == ETH_ALEN ? addr : NULL, type, d + hlen, caplen - hlen);
}

static void raw_ip(struct capture *c, struct vm_skb *skb, const unsigned char *d,
		   unsigned int caplen)
{
	unsigned int version = caplen ? d[0] >> 4 : 0;

	ether(c, skb, NULL, version == 4 ? ETH_P_IP : version == 6 ? ETH_P_IPV6 : 0, d, caplen);
}

/*
 * libpcap cuts a record longer than the file's snapshot length down to it
 * and skips the rest: in a pcap file, the record's own length is where
 * the next one starts.
 */
static int oversized(struct capture *c, unsigned int caplen, char *err, size_t errlen)
{
	long pos = c->pos >= 0 ? ftell(pcap_file(c->p)) : -1, stored = caplen;

	if (pos >= 0) {
		stored = pos - c->pos - 16;	/* a pcap record header is 16 bytes */
		c->pos = pos;
	}
	if (stored <= (long)c->snaplen && caplen <= MAX_FRAME - ETH_HLEN)
		return 0;
	snprintf(err, errlen, "record %lu: %ld bytes captured, more than the file's snapshot "
		 "length of %u", c->records + 1, stored, c->snaplen);
	return 1;
}

int capture_next(struct capture *c, struct vm_skb *skb, long long *ts, char *err,
		 size_t errlen)
{
	struct pcap_pkthdr *h;
	const unsigned char *d;
	int ret = pcap_next_ex(c->p, &h, &d);

	if (ret == PCAP_ERROR_BREAK)
		return 0;
	if (ret != 1) {
		snprintf(err, errlen, "%s", pcap_geterr(c->p));	/* as tcpdump's */
		err[strcspn(err, "\r\n")] = '\0';
		return -1;
	}
	if (oversized(c, h->caplen, err, errlen))
		return -1;
	/* tv_usec holds ns */
	if (__builtin_mul_overflow((long long)h->ts.tv_sec, 1000000000LL, ts) ||
	    __builtin_add_overflow(*ts, (long long)h->ts.tv_usec, ts)) {
		snprintf(err, errlen, "record %lu: time stamp out of range", c->records + 1);
		return -1;
	}
	c->records++;
	memset(skb, 0, sizeof(*skb));
	if (c->dlt == DLT_EN10MB) {
		skb->data = d;
		skb->len = h->caplen;
		skb->protocol = h->caplen >= ETH_HLEN ? htons(be16(d + 12)) : 0;
	} else if (c->dlt == DLT_LINUX_SLL || c->dlt == DLT_LINUX_SLL2) {
		skb->data = d;
		cooked(c, skb, d, h->caplen);
	} else {
		raw_ip(c, skb, d, h->caplen);
	}
	skb->gso_segs = 1;
	skb->cb[0] = h->len - skb->len;	/* modulo 2^32: the program adds it so */
	return 1;
}
