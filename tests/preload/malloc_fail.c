// SPDX-License-Identifier: GPL-2.0
/*
 * malloc_fail.so: an LD_PRELOAD shim that makes one allocation fail, for
 * tests that sweep every allocation of a run (tests/host/66-nomem.t).
 *
 *   MALLOC_FAIL_AT=N   the Nth call of malloc, calloc or realloc (from 1)
 *                      returns NULL with ENOMEM; 0 or unset: none
 *   MALLOC_COUNT=FILE  at exit, write how many calls there were
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

static unsigned long calls, fail_at;
static int ready;

static int fails(void)
{
	if (!ready) {
		const char *s = getenv("MALLOC_FAIL_AT");

		ready = 1;
		fail_at = s ? strtoul(s, NULL, 10) : 0;
	}
	if (++calls != fail_at)
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t size)
{
	return fails() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	return fails() ? NULL : __libc_realloc(p, size);
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("MALLOC_COUNT");
	FILE *f;

	fail_at = 0;
	if (path && (f = fopen(path, "w"))) {
		fprintf(f, "%lu\n", calls);
		fclose(f);
	}
}
