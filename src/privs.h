/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Least privilege: once the socket, the maps and the program exist, the
 * descriptors are all ebpfcount needs; reading a map through its fd asks
 * for no capability.
 */
#ifndef EBPFCOUNT_PRIVS_H
#define EBPFCOUNT_PRIVS_H

#include <stddef.h>

struct passwd;

/*
 * Look up -Z's user before anything is set up: 0, or -1 with err filled.
 * Only root changes user (as tcpdump): for others, *pw stays NULL.
 */
int privs_user(const char *name, struct passwd **pw, char *err, size_t errlen);

/*
 * Become pw (when not NULL: its groups, gid and uid, as tcpdump -Z), then
 * drop every capability: effective, permitted, inheritable and ambient,
 * and the bounding set where that is allowed.  Except where the kernel
 * still wants one for reading: reads() is tried without any, and if it
 * fails with EPERM (before Linux 5.19, kernel.unprivileged_bpf_disabled
 * refuses every bpf(2) command without CAP_BPF or CAP_SYS_ADMIN), those
 * two, where held, stay; *kept says so.  Returns 0, or -1 with err filled.
 */
int privs_drop(const struct passwd *pw, int (*reads)(void *), void *ctx, int *kept,
	       char *err, size_t errlen);

/*
 * Before privs_drop(): fork a helper that keeps what creating a BPF map
 * needs (CAP_BPF, or CAP_SYS_ADMIN where that is all there is) and
 * nothing else.  It becomes pw as privs_drop() does, closes every
 * descriptor but its end of a SOCK_SEQPACKET pair, ignores the terminal's
 * signals, runs serve(its end) and exits; it dies with this process.
 * *sock: this process's end, or -1 when there is no such capability to
 * keep (no helper).  Returns 0, or -1 with err filled.
 */
int privs_helper(const struct passwd *pw, void (*serve)(int sock), int *sock, char *err,
		 size_t errlen);

#endif
