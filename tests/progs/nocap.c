// SPDX-License-Identifier: GPL-2.0
/*
 * nocap: run a command as root without some capabilities.
 *
 *   nocap CAP[,CAP...] CMD [ARG...]
 *
 * CAP is perfmon, sys_admin, bpf, net_raw, net_admin or a number.  They
 * leave the bounding set, so CMD, executed by root, does not get them
 * back.  The guest tests run ebpfcount with CAP_BPF and CAP_NET_RAW but
 * without CAP_PERFMON and CAP_SYS_ADMIN this way (busybox's setpriv has no
 * --bounding-set).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/capability.h>

static const struct {
	const char *name;
	int cap;
} caps[] = {
	{ "perfmon", 38 },	/* CAP_PERFMON, CAP_BPF: Linux 5.8 */
	{ "bpf", 39 },
	{ "sys_admin", CAP_SYS_ADMIN },
	{ "net_raw", CAP_NET_RAW },
	{ "net_admin", CAP_NET_ADMIN },
};

static int cap_of(const char *s)
{
	char *end;
	long n;
	size_t i;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if (!strcmp(s, caps[i].name))
			return caps[i].cap;
	n = strtol(s, &end, 10);
	return *s && !*end && n >= 0 && n <= 63 ? (int)n : -1;
}

int main(int argc, char **argv)
{
	char *list, *tok, *save = NULL;
	int cap;

	if (argc < 3) {
		fputs("usage: nocap CAP[,CAP...] CMD [ARG...]\n", stderr);
		return 2;
	}
	list = strdup(argv[1]);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		cap = cap_of(tok);
		if (cap < 0) {
			fprintf(stderr, "nocap: unknown capability '%s'\n", tok);
			return 2;
		}
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
			fprintf(stderr, "nocap: dropping %s: %s\n", tok, strerror(errno));
			return 1;
		}
	}
	free(list);
	execvp(argv[2], argv + 2);
	fprintf(stderr, "nocap: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
