// SPDX-License-Identifier: GPL-2.0
/* pcap filter expressions to classic BPF with libpcap; see filter.h. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "filter.h"

#define FILTER_SNAPLEN 262144

_Static_assert(sizeof(struct pcap_bpf_insn) == sizeof(struct sock_filter),
	       "libpcap and Linux classic instructions differ");

/* An activated Ethernet handle on ifname, or NULL. */
static pcap_t *open_live(const char *ifname)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_create(ifname, errbuf);

	if (!p)
		return NULL;
	if (pcap_activate(p) < 0 || pcap_datalink(p) != DLT_EN10MB) {
		pcap_close(p);
		return NULL;
	}
	return p;
}

static void one_line(char *err, size_t errlen, const char *msg)
{
	if (!errlen)
		return;
	snprintf(err, errlen, "%s", msg);
	err[strcspn(err, "\r\n")] = '\0';
}

/* The clause's terms: its and/or operators, plus one (and more). */
static unsigned int terms(const char *expr)
{
	static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_.-:";
	unsigned int n = 1;
	size_t w;

	while (*expr) {
		w = strspn(expr, word);
		if ((w == 2 && !strncasecmp(expr, "or", 2)) ||
		    (w == 3 && !strncasecmp(expr, "and", 3)) ||
		    (!w && (!strncmp(expr, "&&", 2) || !strncmp(expr, "||", 2))))
			n++, w = 2;
		expr += w ? w : 1;
	}
	return n;
}

/*
 * Compile expr on p, optimized; -1 with libpcap's message, or ours for a
 * clause too long (FILTER_MAX_TERMS, FILTER_MAX_UNOPTIMIZED).  Within the
 * term bound the unoptimized program takes seconds at most to build (512
 * `port` terms: about 3 s here), the optimizer minutes more beyond it.
 */
static int compile(pcap_t *p, struct bpf_program *prog, const char *expr, char *err,
		   size_t errlen)
{
	unsigned int n = terms(expr);

	if (n > FILTER_MAX_TERMS) {
		snprintf(err, errlen, "the where clause is too long: %u terms, at most %d", n,
			 FILTER_MAX_TERMS);
		return -1;
	}
	if (pcap_compile(p, prog, expr, 0, PCAP_NETMASK_UNKNOWN))
		goto fail;
	n = prog->bf_len;
	pcap_freecode(prog);
	if (n > FILTER_MAX_UNOPTIMIZED) {
		snprintf(err, errlen, "the where clause is too long: %u classic instructions "
			 "before libpcap optimizes them, at most %d", n, FILTER_MAX_UNOPTIMIZED);
		return -1;
	}
	if (!pcap_compile(p, prog, expr, 1, PCAP_NETMASK_UNKNOWN))
		return 0;
fail:
	one_line(err, errlen, pcap_geterr(p));
	return -1;
}

int filter_compile(const char *expr, const char *ifname,
		   struct bpf_program *prog, char *err, size_t errlen)
{
	pcap_t *p = ifname ? open_live(ifname) : NULL;
	int ret = 0;

	if (!p)
		p = pcap_open_dead(DLT_EN10MB, FILTER_SNAPLEN);
	if (!p) {
		one_line(err, errlen, "pcap_open_dead failed");
		return -1;
	}
	ret = compile(p, prog, expr, err, errlen);
	pcap_close(p);
	return ret;
}

int filter_check_linktype(const char *expr, const char *linktype, char *err, size_t errlen)
{
	int dlt = pcap_datalink_name_to_val(linktype), ret = 0;
	struct bpf_program prog;
	pcap_t *p;

	p = dlt < 0 ? NULL : pcap_open_dead(dlt, FILTER_SNAPLEN);
	if (!p) {
		snprintf(err, errlen, "no libpcap handle for link type %s", linktype);
		return -1;
	}
	/* A clause that no packet of the type can match counts nothing
	 * (tcpdump refuses it, but the same expression may be given for
	 * files of several types). */
	if (!compile(p, &prog, expr, err, errlen))
		pcap_freecode(&prog);
	else if (!strstr(err, "rejects all packets"))
		ret = -1;
	pcap_close(p);
	return ret;
}

void filter_free(struct bpf_program *prog)
{
	pcap_freecode(prog);
}
