/* SPDX-License-Identifier: GPL-2.0 */
/* TAP results of the guest test programs in tests/progs (one file each). */
#ifndef EBPFCOUNT_TESTS_PROGS_TAP_H
#define EBPFCOUNT_TESTS_PROGS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int n_test, n_fail;

/* "ok N - ..." or "not ok N - ...", flushed: the serial console may drop what waits. */
static void result(bool pass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void result(bool pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	n_fail += !pass;
	fflush(stdout);
}

#endif
