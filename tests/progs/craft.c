// SPDX-License-Identifier: GPL-2.0
/*
 * craft: build Ethernet frames from short templates and send them through an
 * AF_PACKET socket, paced so that none is lost, or write them to a pcap file.
 * Exact-count tests of ebpfcount use it to know what went over the wire; see
 * usage() and tests/spec.h for the template language.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "spec.h"

#define MAX_FRAME	SPEC_MAX_FRAME
#define NONE		SPEC_NONE
#define RETRY_USEC	200		/* sleep before resending on ENOBUFS */
#define RETRY_MAX	50000		/* ~10 s of retries, then give up */

struct output {
	const char *ifname;
	const char *file;
	int fd;
	struct sockaddr_ll sll;
	pcap_t *dead;
	pcap_dumper_t *dump;
	unsigned int every, usec;	/* pacing */
	unsigned int linear;		/* -l, NONE without */
	unsigned long long frames, bytes;
	unsigned long long retries;	/* resends after ENOBUFS/EAGAIN */
};

static uint8_t frame[MAX_FRAME];

static void usage(FILE *f)
{
	fputs(
"usage: craft [-i IFACE [-l LINEAR] | -w FILE.pcap] [-c COUNT] [-g EVERY:USEC] [-q]\n"
"             SPEC...\n"
"\n"
"Build Ethernet frames from templates and send them through an AF_PACKET\n"
"socket on IFACE, or write them to a pcap file (\"-\": standard output).\n"
"Frames go out in sequence: all frames of the first SPEC, then the second...\n"
"\n"
"  -i IFACE       send on IFACE (SOCK_RAW, needs CAP_NET_RAW)\n"
"  -w FILE        write a pcap file (DLT_EN10MB) instead of sending\n"
"  -c COUNT       frames per SPEC unless it says n= (default 1)\n"
"  -g EVERY:USEC  with -i, sleep USEC microseconds after every EVERY frames\n"
"                 (default 20:2000, which loses nothing between two TCG\n"
"                 guests; 0:0 sends as fast as possible)\n"
"  -l LINEAR      with -i, put only LINEAR bytes (14 at least) of a frame of\n"
"                 a page or more in the socket buffer's linear part, the rest\n"
"                 in page fragments (PACKET_VNET_HDR's hdr_len): a receiver\n"
"                 on the other end of a veth sees headers outside the linear\n"
"                 part\n"
"  -q             no summary on stderr\n"
"  -h             this help\n"
"\n",
	      f);
	spec_help(f);
	fputs("\n"
"At the end, unless -q, craft prints \"craft: sent N frames (B bytes)\" and\n"
"a line per SPEC with its count on stderr.  A frame the kernel refuses\n"
"with ENOBUFS or EAGAIN is sent again after 200 us (for up to ~10 s), and\n"
"the number of such resends is reported.  Exit status 1 on any error.\n",
	      f);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("craft: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Output */

static void open_socket(struct output *o)
{
	int ifindex = if_nametoindex(o->ifname);

	if (!ifindex)
		die("unknown interface '%s'", o->ifname);
	/* Protocol 0: this socket receives nothing. */
	o->fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (o->fd < 0)
		die("socket(AF_PACKET): %s", strerror(errno));
	o->sll.sll_family = AF_PACKET;
	o->sll.sll_ifindex = ifindex;
	o->sll.sll_halen = ETH_ALEN;
	if (bind(o->fd, (struct sockaddr *)&o->sll, sizeof(o->sll)))
		die("bind to '%s': %s", o->ifname, strerror(errno));
	if (o->linear != NONE) {
		int one = 1;

		if (setsockopt(o->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)))
			die("PACKET_VNET_HDR: %s", strerror(errno));
	}
}

static void open_pcap(struct output *o)
{
	o->dead = pcap_open_dead(DLT_EN10MB, MAX_FRAME);
	if (!o->dead)
		die("pcap_open_dead failed");
	o->dump = pcap_dump_open(o->dead, o->file);
	if (!o->dump)
		die("%s", pcap_geterr(o->dead));
}

static void sleep_usec(unsigned int usec)
{
	struct timespec ts = {
		.tv_sec = usec / 1000000,
		.tv_nsec = usec % 1000000 * 1000L,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static void send_frame(struct output *o, const uint8_t *f, unsigned int len)
{
	/* -l: no checksum offload, no GSO, hdr_len bytes in the linear part
	 * (the kernel refuses a hdr_len longer than the frame) */
	struct virtio_net_hdr vnet = { .hdr_len = htole16(o->linear < len ? o->linear : len) };
	struct iovec iov[2] = {
		{ .iov_base = &vnet, .iov_len = sizeof(vnet) },
		{ .iov_base = (void *)f, .iov_len = len },
	};
	struct msghdr msg = {
		.msg_name = &o->sll,
		.msg_namelen = sizeof(o->sll),
		.msg_iov = o->linear != NONE ? iov : iov + 1,
		.msg_iovlen = o->linear != NONE ? 2 : 1,
	};
	ssize_t want = len + (o->linear != NONE ? sizeof(vnet) : 0), n;
	unsigned int tries = 0;

	memcpy(o->sll.sll_addr, f, ETH_ALEN);
	for (;;) {
		n = sendmsg(o->fd, &msg, 0);
		if (n == want)
			break;
		if (n >= 0)
			die("sendmsg on '%s': sent %zd of %zd bytes", o->ifname,
			    n, want);
		if (errno == EINTR)
			continue;
		if ((errno != ENOBUFS && errno != EAGAIN) ||
		    ++tries > RETRY_MAX)
			die("sendmsg on '%s' (frame %llu, %u bytes): %s",
			    o->ifname, o->frames + 1, len, strerror(errno));
		o->retries++;
		sleep_usec(RETRY_USEC);
	}
	if (o->every && (o->frames + 1) % o->every == 0)
		sleep_usec(o->usec);
}

static void dump_frame(struct output *o, const uint8_t *f, unsigned int len)
{
	struct pcap_pkthdr h = { .caplen = len, .len = len };

	gettimeofday(&h.ts, NULL);
	pcap_dump((u_char *)o->dump, &h, f);
}

static void emit_frame(struct output *o, const uint8_t *f, unsigned int len)
{
	if (o->dump)
		dump_frame(o, f, len);
	else
		send_frame(o, f, len);
	o->frames++;
	o->bytes += len;
}

static void close_output(struct output *o)
{
	if (o->dump) {
		if (pcap_dump_flush(o->dump))
			die("writing '%s': %s", o->file, strerror(errno));
		pcap_dump_close(o->dump);
		pcap_close(o->dead);
	} else if (close(o->fd)) {
		die("close: %s", strerror(errno));
	}
}

/* AF_PACKET refuses frames shorter than the link-layer header. */
static void check_sendable(const struct spec *specs, int nspecs)
{
	int j;

	for (j = 0; j < nspecs; j++)
		if (specs[j].trunc != NONE && specs[j].trunc < ETH_HLEN)
			die("spec '%s': trunc=%u is shorter than an Ethernet header; the kernel refuses it on -i",
			    specs[j].text, specs[j].trunc);
}

static void run(struct output *o, struct spec *specs, int nspecs)
{
	unsigned int len;
	int j;

	for (j = 0; j < nspecs; j++) {
		struct spec *s = &specs[j];

		for (s->sent = 0; s->sent < s->n; s->sent++) {
			len = spec_build(s, s->sent, o->frames + 1, frame, sizeof(frame));
			emit_frame(o, frame, len);
		}
	}
}

static void summary(const struct output *o, const struct spec *specs,
		    int nspecs)
{
	int j;

	fprintf(stderr, "craft: sent %llu frames (%llu bytes)\n", o->frames,
		o->bytes);
	if (o->retries)
		fprintf(stderr, "craft: %llu resends after ENOBUFS/EAGAIN\n",
			o->retries);
	for (j = 0; j < nspecs; j++)
		fprintf(stderr, "craft:   %llu  %s\n", specs[j].sent,
			specs[j].text);
}

static void parse_pacing(struct output *o, const char *arg)
{
	unsigned long every, usec;
	char *copy = strdup(arg), *colon;

	if (!copy)
		die("out of memory");
	colon = strchr(copy, ':');
	if (!colon)
		die("bad -g '%s': want EVERY:USEC", arg);
	*colon = '\0';
	if (spec_number(copy, &every) || spec_number(colon + 1, &usec) ||
	    every > UINT_MAX || usec > UINT_MAX)
		die("bad -g '%s': want EVERY:USEC", arg);
	o->every = every;
	o->usec = usec;
	free(copy);
}

int main(int argc, char **argv)
{
	struct output o = { .fd = -1, .every = 20, .usec = 2000, .linear = NONE };
	unsigned long linear;
	unsigned long count = 1;
	struct spec *specs;
	char err[256];
	int c, j, quiet = 0;

	while ((c = getopt(argc, argv, "i:w:c:g:l:qh")) != -1) {
		switch (c) {
		case 'i':
			o.ifname = optarg;
			break;
		case 'w':
			o.file = optarg;
			break;
		case 'c':
			if (spec_number(optarg, &count) || count > UINT_MAX)
				die("bad -c '%s'", optarg);
			break;
		case 'g':
			parse_pacing(&o, optarg);
			break;
		case 'l':
			if (spec_number(optarg, &linear) || linear < ETH_HLEN ||
			    linear > MAX_FRAME)
				die("bad -l '%s': want %d to %d", optarg, ETH_HLEN, MAX_FRAME);
			o.linear = linear;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (!o.ifname == !o.file)
		die("need exactly one of -i IFACE and -w FILE (see -h)");
	if (o.file && o.linear != NONE)
		die("-l applies to -i only");
	if (optind == argc)
		die("no SPEC given (see -h)");
	specs = calloc(argc - optind, sizeof(*specs));
	if (!specs)
		die("out of memory");
	for (j = optind; j < argc; j++)
		if (spec_parse(&specs[j - optind], argv[j], count, err, sizeof(err)))
			die("%s", err);
	if (o.ifname) {
		check_sendable(specs, argc - optind);
		open_socket(&o);
	} else {
		open_pcap(&o);
	}
	run(&o, specs, argc - optind);
	close_output(&o);
	if (!quiet)
		summary(&o, specs, argc - optind);
	free(specs);
	return 0;
}
