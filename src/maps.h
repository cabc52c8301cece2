/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU maps the program counts in, and their readout: every entry
 * with its per-CPU counters summed.
 */
#ifndef EBPFCOUNT_MAPS_H
#define EBPFCOUNT_MAPS_H

#include <stddef.h>

#include "codegen.h"

struct maps {
	int fd[NR_MAPS];
	int ncpus;		/* possible CPUs: a per-CPU value has one slot each */
	const struct layout *lay;
	int batch;		/* 1: batch lookups work, 0: they do not, -1: untried */
	void *keys, *vals;	/* readout buffers for MAPS_CHUNK entries */
	void *cur;		/* get_next_key cursor */
};

/* Default bound of a hash counts map (allocated as keys appear). */
#define MAPS_DEFAULT_KEYS (1 << 20)

/* Create the counts and overflow maps; max_keys 0: unbounded default. */
int maps_create(struct maps *m, const struct layout *lay, unsigned int max_keys,
		char *err, size_t errlen);
void maps_close(struct maps *m);

/* Called for every entry with its key in the hash layout (see codegen.h). */
typedef int (*maps_entry_fn)(const unsigned char *key, const struct counter *sum, void *ctx);

/* Read the counts map; then *overflow. */
int maps_read(struct maps *m, maps_entry_fn fn, void *ctx, struct counter *overflow);

/* Describe a bpf(2) failure, naming the missing capability on EPERM. */
void maps_strerror(const char *what, int err, char *buf, size_t size);

#endif
