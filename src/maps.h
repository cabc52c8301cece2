/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU maps the program counts in, and their readout: every entry
 * with its per-CPU counters summed.  The counters of an array or an
 * unbounded hash only grow; a bounded hash's live table is swapped for the
 * empty one and drained at each readout (codegen.h), so its entries are
 * the counts since the previous readout.
 */
#ifndef EBPFCOUNT_MAPS_H
#define EBPFCOUNT_MAPS_H

#include <stddef.h>

#include "layout.h"

struct vm;

/*
 * Who keeps the maps: the kernel (bpf(2) through libbpf) or the userspace
 * engine (vm.h).  Each returns 0 (create: the map's fd) or -errno.
 */
struct map_ops {
	int (*create)(void *ctx, enum bpf_map_type type, const char *name, __u32 key_size,
		      __u32 value_size, __u32 max_entries, __u32 flags, int inner_fd);
	int (*update)(void *ctx, int fd, const void *key, const void *value, __u64 flags);
	int (*lookup)(void *ctx, int fd, const void *key, void *value);
	int (*delete)(void *ctx, int fd, const void *key);
	int (*next_key)(void *ctx, int fd, const void *key, void *next);
	/* BPF_MAP_LOOKUP(_AND_DELETE)_BATCH; -ENOENT with the last entries */
	int (*batch)(void *ctx, int fd, int drain, void *in, void *out, void *keys,
		     void *values, __u32 *count);
	void (*close)(void *ctx, int fd);
	int (*ncpus)(void *ctx);	/* slots of a per-CPU value */
};

struct map_backend {
	const struct map_ops *ops;
	void *ctx;
};

/* The kernel's maps; the engine's maps. */
struct map_backend maps_kernel(void);
struct map_backend maps_engine(struct vm *vm);

struct maps {
	struct map_backend b;
	int fd[NR_MAPS];
	int table[2];		/* bounded hash: the two tables, else -1 */
	int live;		/* the table in the counts map */
	int ncpus;		/* possible CPUs: a per-CPU value has one slot each */
	const struct layout *lay;
	int batch;		/* 1: batch lookups work, 0: they do not, -1: untried */
	void *keys, *vals;	/* readout buffers for MAPS_CHUNK entries */
	void *cur;		/* get_next_key cursor */
};

/* Default bound of a hash counts map (allocated as keys appear). */
#define MAPS_DEFAULT_KEYS (1 << 20)

/*
 * Create the counts and overflow maps for lay (and a bounded hash's
 * tables) in b.  m->fd[] is then what layout_relocate() wants.
 */
int maps_create(struct maps *m, const struct layout *lay, struct map_backend b, char *err,
		size_t errlen);
void maps_close(struct maps *m);

/* Called for every entry with its key in the hash layout (see codegen.h). */
typedef int (*maps_entry_fn)(const unsigned char *key, const struct counter *sum, void *ctx);

/*
 * Read the counts map, then *overflow (which only grows).  The entries are
 * the counters since start, or, for a bounded hash (lay->tables), since
 * the previous read.
 */
int maps_read(struct maps *m, maps_entry_fn fn, void *ctx, struct counter *overflow);

/* One read of the kind a readout makes (the overflow counter): 0 or -errno. */
int maps_probe(struct maps *m);

/* Describe a bpf(2) failure, naming the missing capability on EPERM. */
void maps_strerror(const char *what, int err, char *buf, size_t size);

#endif
