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
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/bpf.h>
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
	static long (*real)(long, ...);
	long a[6], ret;
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_bpf) {
		log_call(a[0], (const void *)a[1]);
		if (should_fail(a[0])) {
			errno = (int)env_long("BPF_FAULT_ERRNO", EIO);
			return -1;
		}
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	ret = real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (nr == SYS_bpf && (a[0] == BPF_MAP_LOOKUP_BATCH ||
			      a[0] == BPF_MAP_LOOKUP_AND_DELETE_BATCH) &&
	    ((const union bpf_attr *)a[1])->batch.count)
		entries_read = 1;
	return ret;
}
