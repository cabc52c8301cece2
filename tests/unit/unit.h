/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP for the host unit tests (after kselftest.h). */
#ifndef EBPFCOUNT_UNIT_H
#define EBPFCOUNT_UNIT_H

#include <stdarg.h>
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

/* unit_ok() with a name made by printf. */
static inline __attribute__((format(printf, 2, 3))) int unit_okf(int pass, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	return unit_ok(pass, name);
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
