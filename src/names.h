/* SPDX-License-Identifier: GPL-2.0 */
/* Names of protocols, ports and TCP flags, for the human view. */
#ifndef EBPFCOUNT_NAMES_H
#define EBPFCOUNT_NAMES_H

#include <stddef.h>

/* "tcp" for 6, or NULL. */
const char *ipproto_name(unsigned int proto);
/* "https" for 443, or NULL. */
const char *port_name(unsigned int port);
/* "outgoing" for PACKET_OUTGOING (linux/if_packet.h), or NULL. */
const char *pkttype_name(unsigned int type);
/* tcpdump's letters for the flags ("S.", "FP." ...), "none" for 0, hex for
 * reserved bits alone. */
void tcpflags_str(unsigned int flags, char *buf, size_t size);

#endif
