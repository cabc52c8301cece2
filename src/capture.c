// SPDX-License-Identifier: GPL-2.0
/* Capture files as a packet socket would show their packets; see capture.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>

#include "capture.h"

#define SLL_HLEN 16
#define SLL2_HLEN 20
#define MAX_FRAME (262144 + ETH_HLEN)
#define READ_SIZE (1 << 20)	/* a file is read a MiB at a time */

struct capture {
	pcap_t *p;
	struct capture_io *io;	/* the stream's, which closes it */
	char *path;
	char *buf;		/* the stdio buffer of a file (not of a pipe) */
	int dlt;
	unsigned long records;
	unsigned char *frame;	/* an Ethernet header put in front of a payload */
	size_t frame_size;	/* grown as records need, up to MAX_FRAME */
};

static int supported(int dlt)
{
	return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2 ||
	       dlt == DLT_RAW || dlt == DLT_IPV4 || dlt == DLT_IPV6;
}

/*
 * The stream libpcap reads: the file, or standard input for "-", read a
 * MiB at a time (a pipe is asked to hold as much).  A pipe is waited on with
 * the stop signals unblocked, so that one of them ends the reading at once
 * (capture_stop_on()) instead of at the writer's next write.
 */
struct capture_io {
	int fd;
	int pipe;			/* not a regular file: reads may block */
	const volatile sig_atomic_t *stop;
	sigset_t signals;
};

static ssize_t io_read(void *cookie, char *buf, size_t size)
{
	struct capture_io *io = cookie;
	struct pollfd p = { .fd = io->fd, .events = POLLIN };
	sigset_t old;
	ssize_t n;
	int r = 1;

	if (io->pipe && io->stop) {
		sigprocmask(SIG_BLOCK, &io->signals, &old);
		do
			r = *io->stop ? 0 : ppoll(&p, 1, NULL, &old);
		while (r < 0 && errno == EINTR);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (!r)
			return 0;	/* stopped: as at the end of the file */
	}
	do
		n = read(io->fd, buf, size);
	while (n < 0 && errno == EINTR);
	return n;
}

static int io_close(void *cookie)
{
	struct capture_io *io = cookie;
	int err = close(io->fd);

	free(io);
	return err;
}

static FILE *open_file(const char *path, struct capture_io **iop, char **buf)
{
	static const cookie_io_functions_t fns = { .read = io_read, .close = io_close };
	struct capture_io *io = calloc(1, sizeof(*io));
	struct stat st;
	FILE *f = NULL;
	size_t size;

	*buf = NULL;
	*iop = io;
	if (!io) {
		errno = ENOMEM;
		return NULL;
	}
	io->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) :
		 fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
	if (io->fd >= 0 && !fstat(io->fd, &st)) {
		io->pipe = !S_ISREG(st.st_mode);
		/* a pipe that holds a MiB, if it may, is read a MiB at a time
		 * when the writer is ahead (as it is when we are the slower) */
		if (S_ISFIFO(st.st_mode))
			fcntl(io->fd, F_SETPIPE_SZ, READ_SIZE);
		f = fopencookie(io, "rb", fns);
	}
	if (!f) {
		if (io->fd >= 0)
			close(io->fd);
		free(io);
		return NULL;
	}
	/* a small file's buffer no larger than it */
	size = io->pipe || st.st_size >= READ_SIZE ? READ_SIZE :
	       st.st_size < BUFSIZ ? BUFSIZ : (size_t)st.st_size;
	*buf = malloc(size);
	if (*buf)
		setvbuf(f, *buf, _IOFBF, size);
	return f;
}

struct capture *capture_open(const char *path, char *err, size_t errlen)
{
	char errbuf[PCAP_ERRBUF_SIZE], *buf;
	struct capture_io *io;
	struct capture *c;
	pcap_t *p;
	FILE *f;
	int dlt;

	f = open_file(path, &io, &buf);
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		fclose(f);
		free(buf);
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
		free(buf);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->path = strdup(path);
	if (!c || !c->path) {
		snprintf(err, errlen, "out of memory");
		free(c);
		pcap_close(p);
		free(buf);
		return NULL;
	}
	c->p = p;
	c->io = io;
	c->buf = buf;
	c->dlt = dlt;
	return c;
}

void capture_stop_on(struct capture *c, const volatile sig_atomic_t *stop,
		     const sigset_t *signals)
{
	c->io->stop = stop;
	c->io->signals = *signals;
}

void capture_close(struct capture *c)
{
	if (!c)
		return;
	pcap_close(c->p);	/* and the file, which used buf */
	free(c->buf);
	free(c->path);
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

/*
 * The frame: an Ethernet header (src may be NULL) with type, then n bytes
 * (n <= MAX_FRAME - ETH_HLEN).  0, or -1 without memory.
 */
static int ether(struct capture *c, struct packet *skb, const unsigned char *src,
		 unsigned int type, const unsigned char *payload, unsigned int n)
{
	unsigned char *f = c->frame;

	if (c->frame_size < ETH_HLEN + n) {
		size_t size = c->frame_size ? c->frame_size : 2048;

		while (size < ETH_HLEN + n)
			size *= 2;
		size = size < MAX_FRAME ? size : MAX_FRAME;
		f = realloc(c->frame, size);
		if (!f)
			return -1;
		c->frame = f;
		c->frame_size = size;
	}
	memset(f, 0, 12);
	if (src)
		memcpy(f + 6, src, 6);
	f[12] = type >> 8;
	f[13] = type & 0xff;
	memcpy(f + ETH_HLEN, payload, n);
	skb->data = f;
	skb->len = ETH_HLEN + n;
	skb->protocol = htons(type);
	return 0;
}

static int cooked(struct capture *c, struct packet *skb, const unsigned char *d,
		  unsigned int caplen)
{
	const unsigned char *addr;
	unsigned int hlen, halen, type;

	if (c->dlt == DLT_LINUX_SLL) {
		hlen = SLL_HLEN;
		if (caplen < hlen)
			return 0;
		skb->pkt_type = be16(d);
		halen = be16(d + 4);
		addr = d + 6;
		type = be16(d + 14);
	} else {
		hlen = SLL2_HLEN;
		if (caplen < hlen)
			return 0;
		type = be16(d);
		skb->ifindex = (unsigned int)d[4] << 24 | d[5] << 16 | d[6] << 8 | d[7];
		skb->pkt_type = d[10];
		halen = d[11];
		addr = d + 12;
	}
	return ether(c, skb, halen == ETH_ALEN ? addr : NULL, type, d + hlen, caplen - hlen);
}

static int raw_ip(struct capture *c, struct packet *skb, const unsigned char *d,
		  unsigned int caplen)
{
	unsigned int version = caplen ? d[0] >> 4 : 0;

	return ether(c, skb, NULL, version == 4 ? ETH_P_IP : version == 6 ? ETH_P_IPV6 : 0, d,
		     caplen);
}

void capture_time_error(const struct capture *c, unsigned long record, char *err,
			size_t errlen)
{
	snprintf(err, errlen, "%s: record %lu: time stamp out of range", c->path, record);
}

unsigned long long capture_intervals(long long start, long long step, long long ts)
{
	unsigned long long d;

	/* the builtins compute as if in infinite precision: no overflow */
	if (__builtin_sub_overflow(ts, start, &d))
		return 0;	/* before start */
	return d / step;
}

int capture_interval_end(long long start, long long step, unsigned long long n,
			 long long *end)
{
	unsigned long long span;

	if (__builtin_mul_overflow(n, step, &span) || __builtin_add_overflow(start, span, end))
		return -1;
	return 0;
}

int capture_next(struct capture *c, struct packet *skb, long long *ts, char *err,
		 size_t errlen)
{
	struct pcap_pkthdr *h;
	const unsigned char *d;
	int ret = pcap_next_ex(c->p, &h, &d);

	if (ret == PCAP_ERROR_BREAK)
		return 0;
	if (ret != 1) {
		/* as tcpdump's, after the file's name */
		snprintf(err, errlen, "%s: %s", c->path, pcap_geterr(c->p));
		err[strcspn(err, "\r\n")] = '\0';
		return -1;
	}
	/* libpcap cuts a record longer than the snapshot length down to it
	 * and refuses one longer than its largest for the link type */
	if (h->caplen > MAX_FRAME - ETH_HLEN) {
		snprintf(err, errlen, "%s: record %lu: %u bytes captured, more than %d",
			 c->path, c->records + 1, h->caplen, MAX_FRAME - ETH_HLEN);
		return -1;
	}
	/* tv_usec holds ns */
	if (__builtin_mul_overflow((long long)h->ts.tv_sec, 1000000000LL, ts) ||
	    __builtin_add_overflow(*ts, (long long)h->ts.tv_usec, ts)) {
		capture_time_error(c, c->records + 1, err, errlen);
		return -1;
	}
	c->records++;
	memset(skb, 0, sizeof(*skb));
	if (c->dlt == DLT_EN10MB) {
		skb->data = d;
		skb->len = h->caplen;
		skb->protocol = h->caplen >= ETH_HLEN ? htons(be16(d + 12)) : 0;
	} else {
		if (c->dlt == DLT_LINUX_SLL || c->dlt == DLT_LINUX_SLL2) {
			skb->data = d;
			ret = cooked(c, skb, d, h->caplen);
		} else {
			ret = raw_ip(c, skb, d, h->caplen);
		}
		if (ret) {
			snprintf(err, errlen, "%s: record %lu: out of memory", c->path,
				 c->records);
			return -1;
		}
	}
	skb->gso_segs = 1;
	skb->cb[0] = h->len - skb->len;	/* modulo 2^32: the program adds it so */
	return 1;
}
