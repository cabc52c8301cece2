// SPDX-License-Identifier: GPL-2.0
/*
 * malloc_fail.so: an LD_PRELOAD shim that makes one allocation fail, for
 * tests that sweep every allocation of a run (tests/host/66-nomem.t).
 *
 *   MALLOC_FAIL_AT=N   the Nth call of malloc, calloc or realloc (from 1)
 *                      returns NULL with ENOMEM; 0 or unset: none
 *   MALLOC_COUNT=FILE  at exit, write how many calls there were
 *
 * Only the calls from main() on count: those of the libraries'
 * constructors (GnuTLS's, which libmicrohttpd pulls in, makes ~1300 and
 * carries on without a word when one fails) are not the program's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

static unsigned long calls, fail_at;
static int ready, started;

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
			void (*)(void), void *);
static main_fn real_main;

static int counted_main(int argc, char **argv, char **envp)
{
	started = 1;
	return real_main(argc, argv, envp);
}

/* glibc calls main() through here, after the constructors have run. */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	start_fn next;

	*(void **)&next = dlsym(RTLD_NEXT, "__libc_start_main");
	real_main = main;
	return next(counted_main, argc, argv, init, fini, rtld_fini, stack_end);
}

static int fails(void)
{
	if (!started)
		return 0;
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
