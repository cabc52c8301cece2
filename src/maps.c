// SPDX-License-Identifier: GPL-2.0
/* Per-CPU maps and their readout; see maps.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps.h"

#define MAPS_CHUNK 1024

/* A per-CPU value is round_up(value_size, 8) bytes for each possible CPU. */
static size_t val_size(const struct maps *m)
{
	return sizeof(struct counter) * m->ncpus;
}

static size_t batch_key_size(const struct maps *m)
{
	return m->lay->key_size < 8 ? 8 : m->lay->key_size;
}

void maps_strerror(const char *what, int err, char *buf, size_t size)
{
	if (err == EPERM)
		snprintf(buf, size, "%s: operation not permitted (needs CAP_BPF or CAP_SYS_ADMIN)",
			 what);
	else
		snprintf(buf, size, "%s: %s", what, strerror(err));
}

static int create_table(const struct layout *lay)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	unsigned int entries = lay->max_entries;

	if (lay->array)
		return bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "counts", 4,
				      sizeof(struct counter), entries, NULL);
	if (!entries) {
		entries = MAPS_DEFAULT_KEYS;
		opts.map_flags = BPF_F_NO_PREALLOC;
	}
	return bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, lay->tables ? "table" : "counts",
			      lay->key_size, sizeof(struct counter), entries, &opts);
}

/* A bounded hash: two tables, the first live in a one-slot array of maps. */
static int create_tables(struct maps *m)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	__u32 zero = 0;
	int i;

	for (i = 0; i < 2; i++) {
		m->table[i] = create_table(m->lay);
		if (m->table[i] < 0)
			return -1;
	}
	opts.inner_map_fd = m->table[0];
	m->fd[MAP_COUNTS] = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "counts", 4, 4, 1, &opts);
	if (m->fd[MAP_COUNTS] < 0)
		return -1;
	m->live = 0;
	return bpf_map_update_elem(m->fd[MAP_COUNTS], &zero, &m->table[0], BPF_ANY);
}

int maps_create(struct maps *m, const struct layout *lay, char *err, size_t errlen)
{
	int i;

	memset(m, 0, sizeof(*m));
	m->lay = lay;
	m->batch = -1;
	for (i = 0; i < NR_MAPS; i++)
		m->fd[i] = -1;
	m->table[0] = m->table[1] = -1;
	m->ncpus = libbpf_num_possible_cpus();
	if (m->ncpus < 1) {
		snprintf(err, errlen, "cannot count possible CPUs: %s", strerror(-m->ncpus));
		return -1;
	}
	if (lay->tables ? create_tables(m) : (m->fd[MAP_COUNTS] = create_table(lay)) < 0) {
		maps_strerror("cannot create the counts map", errno, err, errlen);
		maps_close(m);
		return -1;
	}
	m->fd[MAP_OVERFLOW] = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "overflow", 4,
					     sizeof(struct counter), 1, NULL);
	m->keys = calloc(MAPS_CHUNK, batch_key_size(m));
	m->vals = calloc(MAPS_CHUNK, val_size(m));
	m->cur = calloc(1, batch_key_size(m));
	if (m->fd[MAP_OVERFLOW] < 0 || !m->keys || !m->vals || !m->cur) {
		maps_strerror("cannot create the overflow map", m->fd[MAP_OVERFLOW] < 0 ?
			      errno : ENOMEM, err, errlen);
		maps_close(m);
		return -1;
	}
	return 0;
}

void maps_close(struct maps *m)
{
	int i;

	for (i = 0; i < NR_MAPS; i++)
		if (m->fd[i] >= 0)
			close(m->fd[i]);
	for (i = 0; i < 2; i++)
		if (m->table[i] >= 0)
			close(m->table[i]);
	free(m->keys);
	free(m->vals);
	free(m->cur);
	m->keys = m->vals = m->cur = NULL;
	m->fd[MAP_COUNTS] = m->fd[MAP_OVERFLOW] = m->table[0] = m->table[1] = -1;
}

static void sum_cpus(const struct maps *m, const void *vals, struct counter *sum)
{
	const struct counter *c = vals;
	int i;

	sum->packets = sum->bytes = 0;
	for (i = 0; i < m->ncpus; i++) {
		sum->packets += c[i].packets;
		sum->bytes += c[i].bytes;
	}
}

/* Hand one entry to fn, in the hash key layout. */
static int deliver(struct maps *m, const void *key, const void *vals, maps_entry_fn fn, void *ctx)
{
	unsigned char buf[LAYOUT_MAX_ROW];
	struct counter sum;

	sum_cpus(m, vals, &sum);
	if (!sum.packets && !sum.bytes)
		return 0;
	if (m->lay->array) {
		layout_key_from_index(m->lay, *(const __u32 *)key, buf);
		key = buf;
	}
	return fn(key, &sum, ctx);
}

/*
 * Every entry of map fd, by batches of MAPS_CHUNK; drain: deleting them
 * (no program uses the map meanwhile).
 */
static int read_batch(struct maps *m, int fd, int drain, maps_entry_fn fn, void *ctx)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int first = 1, err, i;
	__u32 n;

	do {
		n = MAPS_CHUNK;
		err = (drain ? bpf_map_lookup_and_delete_batch : bpf_map_lookup_batch)
			(fd, first ? NULL : m->cur, m->cur, m->keys, m->vals, &n, &opts);
		if (err && errno != ENOENT)
			return -errno;
		for (i = 0; i < (int)n; i++)
			if (deliver(m, (char *)m->keys + i * m->lay->key_size,
				    (char *)m->vals + i * val_size(m), fn, ctx))
				return -ECANCELED;
		first = 0;
	} while (!err);
	return 0;
}

/* The same one entry at a time, for kernels without batch operations. */
static int read_each(struct maps *m, int fd, int drain, maps_entry_fn fn, void *ctx)
{
	void *key = NULL;

	while (!bpf_map_get_next_key(fd, key, m->keys)) {
		memcpy(m->cur, m->keys, m->lay->key_size);
		key = drain ? NULL : m->cur;	/* a drained map starts over */
		if (bpf_map_lookup_elem(fd, m->cur, m->vals)) {
			if (drain)	/* would find the same key again */
				return -errno;
			continue;	/* deleted meanwhile: cannot happen here */
		}
		if (drain && bpf_map_delete_elem(fd, m->cur))
			return -errno;
		if (deliver(m, m->cur, m->vals, fn, ctx))
			return -ECANCELED;
	}
	return errno == ENOENT ? 0 : -errno;
}

/*
 * Put the empty table live; the update of an array of maps returns once
 * no program can still be counting in the table it replaced.  Returns
 * that table.
 */
static int swap_tables(struct maps *m)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(m->fd[MAP_COUNTS], &zero, &m->table[!m->live], BPF_ANY))
		return -errno;
	m->live = !m->live;
	return m->table[!m->live];
}

int maps_read(struct maps *m, maps_entry_fn fn, void *ctx, struct counter *overflow)
{
	int fd = m->fd[MAP_COUNTS], drain = m->lay->tables, err = -EINVAL;
	__u32 zero = 0;

	if (drain && (fd = swap_tables(m)) < 0)
		return fd;
	if (m->batch)
		err = read_batch(m, fd, drain, fn, ctx);
	if (m->batch < 0)
		m->batch = err != -EINVAL && err != -ENOTSUP && err != -524;
	if (!m->batch)
		err = read_each(m, fd, drain, fn, ctx);
	if (err)
		return err;
	if (bpf_map_lookup_elem(m->fd[MAP_OVERFLOW], &zero, m->vals))
		return -errno;
	sum_cpus(m, m->vals, overflow);
	return 0;
}
