/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Least privilege: once the socket, the maps and the program exist, the
 * descriptors are all ebpfcount needs; reading a map through its fd asks
 * for no capability.
 */
#ifndef EBPFCOUNT_PRIVS_H
#define EBPFCOUNT_PRIVS_H

#include <stddef.h>

/*
 * Become user (when not NULL: its groups, gid and uid, as tcpdump -Z),
 * then drop every capability: effective, permitted, inheritable and
 * ambient, and the bounding set where that is allowed.  Returns 0, or -1
 * with err filled.
 */
int privs_drop(const char *user, char *err, size_t errlen);

#endif
