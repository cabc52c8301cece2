/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A capture file (pcap, microsecond or nanosecond, or pcapng, through
 * libpcap), read one record at a time, each shown as a packet socket on an
 * Ethernet interface shows its packets: from an Ethernet header on.
 *
 *   Ethernet          the record as it is; a VLAN tag stays inline
 *   Linux cooked v1/2 an Ethernet header (no destination; the source when
 *                     the cooked address is 6 bytes) with the cooked
 *                     protocol, then the payload; the cooked packet type
 *                     becomes __sk_buff.pkt_type (inbound/outbound), SLL2's
 *                     interface index __sk_buff.ifindex
 *   raw IPv4/IPv6     an Ethernet header (no addresses) with the EtherType
 *                     of the IP version, then the record
 *
 * The bytes of the packet that the program does not see (beyond the
 * snapshot length, or the difference a replaced link-layer header makes)
 * go to __sk_buff.cb[0] (frame.h), so that the program counts the
 * record's original length.
 */
#ifndef EBPFCOUNT_CAPTURE_H
#define EBPFCOUNT_CAPTURE_H

#include <signal.h>
#include <stddef.h>

#include "packet.h"

struct capture;

/*
 * Open path ("-": standard input).  NULL with err filled when it cannot be
 * read, is not a capture file, or has a link type not listed above.
 */
struct capture *capture_open(const char *path, char *err, size_t errlen);
void capture_close(struct capture *c);
/*
 * Reading from a pipe: when one of signals comes and sets *stop, the wait
 * for more input ends and capture_next() sees the end of the file (or a
 * record cut short), as soon as the handler ran.
 */
void capture_stop_on(struct capture *c, const volatile sig_atomic_t *stop,
		     const sigset_t *signals);

/* The file's link type, as libpcap names it (EN10MB, LINUX_SLL, ...). */
const char *capture_linktype(const struct capture *c);
/* Does the program see the file's own Ethernet addresses? */
int capture_has_ethernet(const struct capture *c);

/*
 * The next record, into skb (valid until the next call) and *ts (capture
 * time, nanoseconds since the epoch).  Returns 1; 0 at the end of the file; -1 with err filled,
 * after the file's name (a file cut in the middle of a record, a time
 * stamp out of range).  A record longer than the file's snapshot length is
 * read as libpcap gives it, cut to that length, as tcpdump and tshark read
 * it.  The file is read a MiB per read(2) (a pipe, as much as it holds).
 */
int capture_next(struct capture *c, struct packet *skb, long long *ts, char *err,
		 size_t errlen);

/*
 * Capture times are nanoseconds since the epoch, as a long long: from 1677
 * to 2262.  The intervals of a file are step ns long from the first
 * record's time, start; interval n (from 1) ends at start + n * step.
 * capture_intervals(): how many end at or before ts, that is (ts - start)
 * / step; 0 for a time before start (a record that goes back in time
 * counts in the current interval).  Exact for any two times.
 */
unsigned long long capture_intervals(long long start, long long step, long long ts);
/* The end of interval n in *end: 0, or -1 if it is past the largest time. */
int capture_interval_end(long long start, long long step, unsigned long long n,
			 long long *end);
/* Fill err: record's time stamp is out of range (as capture_next() says it). */
void capture_time_error(const struct capture *c, unsigned long record, char *err,
			size_t errlen);

/* Records read so far. */
unsigned long capture_records(const struct capture *c);

#endif
