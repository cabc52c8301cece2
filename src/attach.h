/* SPDX-License-Identifier: GPL-2.0 */
/* The AF_PACKET socket the program runs on. */
#ifndef EBPFCOUNT_ATTACH_H
#define EBPFCOUNT_ATTACH_H

#include <stddef.h>

/*
 * Open a raw packet socket on ifname with prog_fd attached (SO_ATTACH_BPF)
 * before it is bound, so that no packet passes unfiltered.  promisc: put
 * the interface in promiscuous mode while the socket is open.  "any": a
 * cooked socket on every interface (frame.h), never promiscuous, as for
 * tcpdump -i any.  Returns the socket, or -1 with err filled in.
 */
int attach_socket(const char *ifname, int prog_fd, int promisc, char *err, size_t errlen);

/* The index of the interface socket sock is bound to. */
unsigned int attach_ifindex(int sock);

/* The interface's own counters, as `ip -s link` shows them. */
struct if_counters {
	unsigned long long rx_packets, rx_bytes, rx_dropped, tx_packets, tx_bytes;
};

/* Read them for interface ifindex (sysfs); 0, or -1 if it is gone. */
int attach_if_counters(unsigned int ifindex, struct if_counters *c);

/*
 * The index of the loopback whose packets a socket on ifname sees: lo's
 * for "any", ifname's if it is a loopback (IFF_LOOPBACK); else 0.
 */
unsigned int attach_loopback(const char *ifname);

/* The first interface that is up and not a loopback, as tcpdump picks. */
int attach_default_ifname(char *buf, size_t size, char *err, size_t errlen);

#endif
