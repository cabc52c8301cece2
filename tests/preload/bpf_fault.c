// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_fault.so: an LD_PRELOAD shim for the guest fault tests.  libbpf
 * makes every bpf(2) call through syscall(3); this syscall() logs them
 * and fails one on demand, so a test can see what ebpfcount does when the
 * kernel refuses a program or a readout fails.
 *
 *   BPF_FAULT_LOG=FILE    append the command number of every bpf(2) call
 *                         (BPF_PROG_LOAD: and the program's instructions)
 *   BPF_FAULT_CMD=N       the command to fail (e.g. 1 BPF_MAP_LOOKUP_ELEM,
 *                         5 BPF_PROG_LOAD)
 *   BPF_FAULT_AFTER_READ=1  fail it only after a batch lookup returned
 *                         entries (the readout that read them then fails)
 *   BPF_FAULT_ERRNO=E     with errno E (default EIO), without calling the
 *                         kernel
 *   BPF_FAULT_OLD_UNPRIV=1  refuse every command with EPERM unless CAP_BPF
 *                         or CAP_SYS_ADMIN is effective, as kernels before
 *                         5.19 do when kernel.unprivileged_bpf_disabled is set
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : def;
}

static int entries_read;

static int should_fail(long cmd)
{
	if (!getenv("BPF_FAULT_CMD") || cmd != env_long("BPF_FAULT_CMD", -1))
		return 0;
	return !env_long("BPF_FAULT_AFTER_READ", 0) || entries_read;
}

static long (*real)(long, ...);

/* CAP_BPF (39) or CAP_SYS_ADMIN in the effective set. */
static int bpf_capable(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	if (real(SYS_capget, &h, d))
		return 0;
	return (d[1].effective & 1u << (39 - 32)) || (d[0].effective & 1u << CAP_SYS_ADMIN);
}

/* A line per call: the command, and for BPF_PROG_LOAD the program's length. */
static void log_call(long cmd, const void *attr)
{
	const char *path = getenv("BPF_FAULT_LOG");
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	if (cmd == BPF_PROG_LOAD)
		fprintf(f, "%ld %u\n", cmd, ((const union bpf_attr *)attr)->insn_cnt);
	else
		fprintf(f, "%ld\n", cmd);
	fclose(f);
}

long syscall(long nr, ...)
{
	long a[6], ret;
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_bpf) {
		log_call(a[0], (const void *)a[1]);
		if (env_long("BPF_FAULT_OLD_UNPRIV", 0) && !bpf_capable()) {
			errno = EPERM;
			return -1;
		}
		if (should_fail(a[0])) {
			errno = (int)env_long("BPF_FAULT_ERRNO", EIO);
			return -1;
		}
	}
	ret = real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (nr == SYS_bpf && (a[0] == BPF_MAP_LOOKUP_BATCH ||
			      a[0] == BPF_MAP_LOOKUP_AND_DELETE_BATCH) &&
	    ((const union bpf_attr *)a[1])->batch.count)
		entries_read = 1;
	return ret;
}
