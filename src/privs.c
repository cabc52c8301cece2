// SPDX-License-Identifier: GPL-2.0
/* Giving up privileges after set-up; see privs.h. */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privs.h"

static int become(const char *user, char *err, size_t errlen)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		snprintf(err, errlen, "-Z %s: %s", user, errno ? strerror(errno) : "no such user");
		return -1;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) || setuid(pw->pw_uid)) {
		snprintf(err, errlen, "-Z %s: cannot become %s: %s%s", user, pw->pw_name,
			 strerror(errno),
			 errno == EPERM ? " (needs CAP_SETUID and CAP_SETGID)" : "");
		return -1;
	}
	return 0;
}

int privs_drop(const char *user, char *err, size_t errlen)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
	int cap;

	/* The bounding set first: that needs CAP_SETPCAP (root has it; a
	 * user given capabilities usually does not, and keeps the set). */
	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	if (user && become(user, err, errlen))
		return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL) {
		snprintf(err, errlen, "cannot drop the ambient capabilities: %s", strerror(errno));
		return -1;
	}
	if (syscall(SYS_capset, &h, none)) {
		snprintf(err, errlen, "cannot drop the capabilities: %s", strerror(errno));
		return -1;
	}
	return 0;
}
