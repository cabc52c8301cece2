// SPDX-License-Identifier: GPL-2.0
/* Giving up privileges after set-up; see privs.h. */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privs.h"

#ifndef CAP_BPF
#define CAP_BPF 39
#endif

int privs_user(const char *name, struct passwd **pw, char *err, size_t errlen)
{
	*pw = NULL;
	if (getuid() && geteuid())
		return 0;
	errno = 0;
	*pw = *name ? getpwnam(name) : NULL;
	if (*pw)
		return 0;
	/* glibc's lookups say ENOENT, ESRCH, EBADF or EPERM for "none" */
	if (!errno || errno == ENOENT || errno == ESRCH || errno == EBADF || errno == EPERM)
		snprintf(err, errlen, "-Z '%s': no such user", name);
	else
		snprintf(err, errlen, "-Z '%s': %s", name, strerror(errno));
	return -1;
}

static int become(const struct passwd *pw, char *err, size_t errlen)
{
	if (initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) || setuid(pw->pw_uid)) {
		snprintf(err, errlen, "-Z %s: cannot become %s: %s", pw->pw_name, pw->pw_name,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* Set the effective and permitted sets; inheritable is always empty. */
static int set_caps(__u64 eff, __u64 perm)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {
		{ .effective = (__u32)eff, .permitted = (__u32)perm },
		{ .effective = (__u32)(eff >> 32), .permitted = (__u32)(perm >> 32) },
	};

	return syscall(SYS_capset, &h, d);
}

static __u64 permitted(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	if (syscall(SYS_capget, &h, d))
		return 0;
	return d[0].permitted | (__u64)d[1].permitted << 32;
}

/*
 * The bounding set, the user (pw), the ambient set: what both privs_drop()
 * and the helper give up first.  Then the permitted set is still whole.
 */
static int drop_but_permitted(const struct passwd *pw, char *err, size_t errlen)
{
	int cap;

	/* The bounding set first: that needs CAP_SETPCAP (root has it; a
	 * user given capabilities usually does not, and keeps the set). */
	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	/* Through the change of user, the permitted set stays for now. */
	if (pw && (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || become(pw, err, errlen)))
		return -1;
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL) {
		snprintf(err, errlen, "cannot drop the ambient capabilities: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int privs_drop(const struct passwd *pw, int (*reads)(void *), void *ctx, int *kept,
	       char *err, size_t errlen)
{
	__u64 keep;

	*kept = 0;
	if (drop_but_permitted(pw, err, errlen))
		return -1;
	keep = permitted() & (1ULL << CAP_BPF | 1ULL << CAP_SYS_ADMIN);
	if (set_caps(0, keep))
		goto fail;
	if (keep && reads(ctx) == -EPERM) {
		*kept = 1;
		if (set_caps(keep, keep))
			goto fail;
		return 0;
	}
	if (!set_caps(0, 0))
		return 0;
fail:
	snprintf(err, errlen, "cannot drop the capabilities: %s", strerror(errno));
	return -1;
}

/* The helper's capability: CAP_BPF, else CAP_SYS_ADMIN; 0 if neither. */
static __u64 helper_caps(void)
{
	__u64 held = permitted();

	if (held & 1ULL << CAP_BPF)
		return 1ULL << CAP_BPF;
	return held & 1ULL << CAP_SYS_ADMIN;
}

static _Noreturn void helper(const struct passwd *pw, __u64 keep, int sock,
			     void (*serve)(int sock))
{
	char err[256];

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	signal(SIGINT, SIG_IGN);	/* a ^C is for the parent, which ends it */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (sock != 3 && (dup2(sock, 3) < 0 || close(sock)))
		_exit(1);
	close_range(4, ~0U, 0);
	if (drop_but_permitted(pw, err, sizeof(err)) || set_caps(keep, keep))
		_exit(1);
	serve(3);
	_exit(0);
}

int privs_helper(const struct passwd *pw, void (*serve)(int sock), int *sock, char *err,
		 size_t errlen)
{
	__u64 keep = helper_caps();
	pid_t parent = getpid(), pid;
	int s[2];

	*sock = -1;
	if (!keep)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s)) {
		snprintf(err, errlen, "cannot start the helper: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot start the helper: %s", strerror(errno));
		close(s[0]);
		close(s[1]);
		return -1;
	}
	if (!pid) {
		close(s[0]);
		if (getppid() != parent)	/* the parent died before PDEATHSIG was set */
			_exit(0);
		helper(pw, keep, s[1], serve);
	}
	close(s[1]);
	*sock = s[0];
	return 0;
}
