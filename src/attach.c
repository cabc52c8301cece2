// SPDX-License-Identifier: GPL-2.0
/* The AF_PACKET socket the program runs on; see attach.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <pcap/pcap.h>
#include <sys/socket.h>

#include "attach.h"

/* Only a packet socket's creation needs a capability (CAP_NET_RAW). */
static int fail(int fd, char *err, size_t errlen, const char *what, const char *ifname)
{
	int saved = errno;

	if (fd < 0 && (saved == EPERM || saved == EACCES))
		snprintf(err, errlen, "%s%s: operation not permitted (needs CAP_NET_RAW)",
			 what, ifname);
	else
		snprintf(err, errlen, "%s%s: %s", what, ifname, strerror(saved));
	if (fd >= 0)
		close(fd);
	return -1;
}

int attach_socket(const char *ifname, int prog_fd, int promisc, char *err, size_t errlen)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC };
	int any = !strcmp(ifname, "any");
	int fd, ifindex = any ? 0 : (int)if_nametoindex(ifname);

	if (!ifindex && !any) {
		snprintf(err, errlen, "no such interface '%s'", ifname);
		return -1;
	}
	/* Protocol 0: nothing arrives until bind(), after the filter is on. */
	fd = socket(AF_PACKET, (any ? SOCK_DGRAM : SOCK_RAW) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(fd, err, errlen, "cannot open a packet socket", "");
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &prog_fd, sizeof(prog_fd))) {
		if (errno != ENOMEM)
			return fail(fd, err, errlen, "cannot attach the program to ", ifname);
		/* the socket's option memory, not the system's */
		snprintf(err, errlen, "cannot attach the program to %s: larger than a socket "
			 "takes (sysctl net.core.optmem_max; fewer or shorter expressions)",
			 ifname);
		close(fd);
		return -1;
	}
	sll.sll_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		return fail(fd, err, errlen, "cannot bind to ", ifname);
	mr.mr_ifindex = ifindex;
	if (promisc && !any && setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)))
		return fail(fd, err, errlen, "cannot make promiscuous: ", ifname);
	return fd;
}

int attach_default_ifname(char *buf, size_t size, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_if_t *all, *d;
	int found = 0;

	if (pcap_findalldevs(&all, ebuf)) {
		snprintf(err, errlen, "cannot list interfaces: %s", ebuf);
		return -1;
	}
	for (d = all; d && !found; d = d->next) {
		if ((d->flags & PCAP_IF_LOOPBACK) || !(d->flags & PCAP_IF_UP) ||
		    !if_nametoindex(d->name))
			continue;
		snprintf(buf, size, "%s", d->name);
		found = 1;
	}
	pcap_freealldevs(all);
	if (!found)
		snprintf(err, errlen, "no interface is up (use -i)");
	return found ? 0 : -1;
}

unsigned int attach_ifindex(int sock)
{
	struct sockaddr_ll sll = { 0 };
	socklen_t len = sizeof(sll);

	return getsockname(sock, (struct sockaddr *)&sll, &len) ? 0 : (unsigned int)sll.sll_ifindex;
}

/* A number (decimal or 0x-hex) in /sys/class/net/IFNAME/NAME. */
static int read_sys(const char *ifname, const char *name, unsigned long long *v)
{
	char path[96], buf[32], *end;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	*v = strtoull(buf, &end, 0);
	return end != buf && (*end == '\n' || !*end) ? 0 : -1;
}

static int read_stat(const char *ifname, const char *name, unsigned long long *v)
{
	char path[48];

	snprintf(path, sizeof(path), "statistics/%s", name);
	return read_sys(ifname, path, v);
}

int attach_if_counters(unsigned int ifindex, struct if_counters *c)
{
	char name[IF_NAMESIZE];

	if (!if_indextoname(ifindex, name))
		return -1;
	return read_stat(name, "rx_packets", &c->rx_packets) |
	       read_stat(name, "rx_bytes", &c->rx_bytes) |
	       read_stat(name, "rx_dropped", &c->rx_dropped) |
	       read_stat(name, "tx_packets", &c->tx_packets) |
	       read_stat(name, "tx_bytes", &c->tx_bytes);
}

unsigned int attach_loopback(const char *ifname)
{
	unsigned long long flags;

	if (!strcmp(ifname, "any"))
		return if_nametoindex("lo");
	if (strchr(ifname, '/') || read_sys(ifname, "flags", &flags) || !(flags & IFF_LOOPBACK))
		return 0;
	return if_nametoindex(ifname);
}
