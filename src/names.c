// SPDX-License-Identifier: GPL-2.0
/* Value-to-name tables, in the manner of tcpdump's struct tok. */
#include <stdio.h>
#include <string.h>
#include <linux/if_packet.h>

#include "names.h"

struct tok {
	unsigned int v;
	const char *s;
};

static const struct tok ipprotos[] = {
	{ 0, "hopopt" }, { 1, "icmp" }, { 2, "igmp" }, { 4, "ipip" }, { 6, "tcp" },
	{ 17, "udp" }, { 41, "ipv6" }, { 43, "ipv6-route" }, { 44, "ipv6-frag" },
	{ 47, "gre" }, { 50, "esp" }, { 51, "ah" }, { 58, "icmpv6" },
	{ 59, "ipv6-nonxt" }, { 60, "ipv6-opts" }, { 89, "ospf" }, { 103, "pim" },
	{ 112, "vrrp" }, { 132, "sctp" }, { 136, "udplite" },
};

static const struct tok ports[] = {
	{ 20, "ftp-data" }, { 21, "ftp" }, { 22, "ssh" }, { 23, "telnet" },
	{ 25, "smtp" }, { 53, "domain" }, { 67, "bootps" }, { 68, "bootpc" },
	{ 69, "tftp" }, { 80, "http" }, { 110, "pop3" }, { 123, "ntp" },
	{ 143, "imap" }, { 161, "snmp" }, { 179, "bgp" }, { 389, "ldap" },
	{ 443, "https" }, { 514, "syslog" }, { 546, "dhcpv6-client" },
	{ 547, "dhcpv6-server" }, { 587, "submission" }, { 853, "domain-s" },
	{ 993, "imaps" }, { 3306, "mysql" }, { 5201, "iperf3" }, { 5432, "postgresql" },
	{ 6379, "redis" }, { 8080, "http-alt" },
};

#define TOK(table, v) tok2str(table, sizeof(table) / sizeof(table[0]), v)

static const char *tok2str(const struct tok *t, size_t n, unsigned int v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].v == v)
			return t[i].s;
	return NULL;
}

const char *ipproto_name(unsigned int proto)
{
	return TOK(ipprotos, proto);
}

const char *port_name(unsigned int port)
{
	return TOK(ports, port);
}

void tcpflags_str(unsigned int flags, char *buf, size_t size)
{
	static const struct tok bits[] = {
		{ 0x002, "S" }, { 0x001, "F" }, { 0x004, "R" }, { 0x008, "P" },
		{ 0x010, "." }, { 0x020, "U" }, { 0x040, "E" }, { 0x080, "W" },
		{ 0x100, "e" },
	};
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]) && len + 2 < size; i++)
		if (flags & bits[i].v)
			buf[len++] = bits[i].s[0], buf[len] = '\0';
	if (!len && flags)
		snprintf(buf, size, "0x%04x", flags);	/* reserved bits only */
	else if (!len)
		snprintf(buf, size, "none");
}

const char *pkttype_name(unsigned int type)
{
	static const char *const names[] = {
		[PACKET_HOST] = "host", [PACKET_BROADCAST] = "broadcast",
		[PACKET_MULTICAST] = "multicast", [PACKET_OTHERHOST] = "otherhost",
		[PACKET_OUTGOING] = "outgoing", [PACKET_LOOPBACK] = "loopback",
		[PACKET_USER] = "user", [PACKET_KERNEL] = "kernel",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}
