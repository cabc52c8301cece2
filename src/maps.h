/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU maps the program counts in, and their readout: every entry
 * with its per-CPU counters summed.  The counters of an array only grow; a
 * hash's live table is swapped for the empty one and drained at each
 * readout (layout.h), so its entries are the counts since the previous
 * readout.
 *
 * A hash without a bound (no --max-keys) starts with tables of
 * MAPS_START_KEYS entries.  When a readout finds that the table it drained
 * was more than half full or that keys overflowed meanwhile, both tables
 * are replaced by bigger ones (up to MAPS_DEFAULT_KEYS): the drained one
 * first, which then goes live, then the other, drained in the same
 * readout.  The program stays: a hash's size is not part of what an array
 * of maps checks of its inner maps (Linux 5.10 on).  A kernel that refuses
 * the bigger table keeps the tables as they are; no count is lost either
 * way.
 */
#ifndef EBPFCOUNT_MAPS_H
#define EBPFCOUNT_MAPS_H

#include <stddef.h>

#include "layout.h"

struct passwd;
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
	int table[2];		/* a hash's two tables, else -1 */
	unsigned int size[2];	/* their entries */
	int live;		/* the table in the counts map */
	int grows;		/* 1: the tables grow when they fill up */
	__u64 overflow_seen;	/* overflow packets as of the previous readout */
	/* What the last readout did to the tables' size, for -v: */
	unsigned int grew_from, grew_to;	/* grown: from, to entries; else 0 */
	int refused;		/* -errno: no bigger table (the tables grow no more) */
	int ncpus;		/* possible CPUs: a per-CPU value has one slot each */
	const struct layout *lay;
	int batch;		/* 1: batch lookups work, 0: they do not, -1: untried */
	void *keys, *vals;	/* readout buffers for MAPS_CHUNK entries */
	void *cur;		/* get_next_key cursor */
	unsigned int nread;	/* entries found by the last read of a map */
};

/* A hash without --max-keys: its tables' first size, and their largest. */
#define MAPS_START_KEYS 1024
#define MAPS_DEFAULT_KEYS (1 << 20)

/*
 * Create the counts and overflow maps for lay (and a hash's tables) in b.  m->fd[] is then what layout_relocate() wants.
 */
int maps_create(struct maps *m, const struct layout *lay, struct map_backend b, char *err,
		size_t errlen);
void maps_close(struct maps *m);

/* Called for every entry with its key in the hash layout (see codegen.h). */
typedef int (*maps_entry_fn)(const unsigned char *key, const struct counter *sum, void *ctx);

/*
 * Read the counts map, then *overflow (which only grows).  The entries are
 * the counters since start, or, for a hash (lay->tables), since the
 * previous read; a hash's tables may grow meanwhile (see above).
 */
int maps_read(struct maps *m, maps_entry_fn fn, void *ctx, struct counter *overflow);

/* One read of the kind a readout makes (the overflow counter): 0 or -errno. */
int maps_probe(struct maps *m);

/* The overflow counter as it is now, without reading the rows: 0 or -errno. */
int maps_overflow(struct maps *m, struct counter *overflow);

/*
 * The kernel's tables grow after the privileges are dropped (privs.h),
 * when creating a map needs CAP_BPF: call this before, and the kernel's
 * maps get bigger tables from a helper process that keeps only that
 * capability (none if there is none to keep).  0, or -1 with err filled.
 */
int maps_helper(const struct passwd *pw, char *err, size_t errlen);

#endif
