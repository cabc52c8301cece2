/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP for the host unit tests (after kselftest.h). */
#ifndef EBPFCOUNT_UNIT_H
#define EBPFCOUNT_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_n, unit_failed;

static inline int unit_ok(int pass, const char *name)
{
	printf("%sok %d - %s\n", pass ? "" : "not ", ++unit_n, name);
	if (!pass)
		unit_failed++;
	return pass;
}

static inline int unit_streq(const char *got, const char *want, const char *name)
{
	int pass = got && strcmp(got, want) == 0;

	unit_ok(pass, name);
	if (!pass)
		printf("#   got:\n%s\n#   want:\n%s\n", got ? got : "(null)", want);
	return pass;
}

static inline int unit_done(void)
{
	printf("1..%d\n", unit_n);
	return unit_failed ? 1 : 0;
}

#endif
