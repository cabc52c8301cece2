/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP for the tests written in C (kselftest style), as tests/tap.sh is for
 * the shell tests and tests/tap.py for the Python ones: the host unit tests
 * (tests/unit) and the guest test programs (tests/progs).  Each result is
 * flushed: a guest's serial console may drop what waits in a buffer.
 *
 *	tap_ok(pass, "name");  tap_okf(pass, "%s: fmt", ...);
 *	tap_streq(got, want, "name");
 *	return tap_done();	(the plan, last; 1 if any failed)
 */
#ifndef EBPFCOUNT_TESTS_TAP_H
#define EBPFCOUNT_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int pass, const char *name)
{
	printf("%sok %d - %s\n", pass ? "" : "not ", ++tap_n, name);
	if (!pass)
		tap_failed++;
	fflush(stdout);
	return pass;
}

/* tap_ok() with a name made by printf. */
static inline __attribute__((format(printf, 2, 3))) int tap_okf(int pass, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	return tap_ok(pass, name);
}

static inline int tap_streq(const char *got, const char *want, const char *name)
{
	int pass = got && strcmp(got, want) == 0;

	tap_ok(pass, name);
	if (!pass)
		printf("#   got:\n%s\n#   want:\n%s\n", got ? got : "(null)", want);
	return pass;
}

/* The plan, after the results; the exit status. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
