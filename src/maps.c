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

static int create_counts(const struct layout *lay, unsigned int max_keys)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);

	if (lay->array)
		return bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "counts", 4,
				      sizeof(struct counter), lay->max_entries, NULL);
	if (!max_keys) {
		max_keys = MAPS_DEFAULT_KEYS;
		opts.map_flags = BPF_F_NO_PREALLOC;
	}
	return bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "counts", lay->key_size,
			      sizeof(struct counter), max_keys, &opts);
}

int maps_create(struct maps *m, const struct layout *lay, unsigned int max_keys,
		char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->lay = lay;
	m->batch = -1;
	m->fd[MAP_OVERFLOW] = -1;
	m->ncpus = libbpf_num_possible_cpus();
	if (m->ncpus < 1) {
		snprintf(err, errlen, "cannot count possible CPUs: %s", strerror(-m->ncpus));
		return -1;
	}
	m->fd[MAP_COUNTS] = create_counts(lay, max_keys);
	if (m->fd[MAP_COUNTS] < 0) {
		maps_strerror("cannot create the counts map", errno, err, errlen);
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
	free(m->keys);
	free(m->vals);
	free(m->cur);
	m->keys = m->vals = m->cur = NULL;
	m->fd[MAP_COUNTS] = m->fd[MAP_OVERFLOW] = -1;
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
	unsigned char buf[8 + 8 * MAX_KEYS * 2];
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

static int read_batch(struct maps *m, maps_entry_fn fn, void *ctx)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int first = 1, err, i;
	__u32 n;

	do {
		n = MAPS_CHUNK;
		err = bpf_map_lookup_batch(m->fd[MAP_COUNTS], first ? NULL : m->cur, m->cur,
					   m->keys, m->vals, &n, &opts);
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

static int read_each(struct maps *m, maps_entry_fn fn, void *ctx)
{
	void *key = NULL;

	while (!bpf_map_get_next_key(m->fd[MAP_COUNTS], key, m->keys)) {
		memcpy(m->cur, m->keys, m->lay->key_size);
		key = m->cur;
		if (bpf_map_lookup_elem(m->fd[MAP_COUNTS], key, m->vals))
			continue;	/* deleted meanwhile: cannot happen here */
		if (deliver(m, key, m->vals, fn, ctx))
			return -ECANCELED;
	}
	return errno == ENOENT ? 0 : -errno;
}

int maps_read(struct maps *m, maps_entry_fn fn, void *ctx, struct counter *overflow)
{
	__u32 zero = 0;
	int err = -EINVAL;

	if (m->batch)
		err = read_batch(m, fn, ctx);
	if (m->batch < 0)
		m->batch = err != -EINVAL && err != -ENOTSUP && err != -524;
	if (!m->batch)
		err = read_each(m, fn, ctx);
	if (err)
		return err;
	if (bpf_map_lookup_elem(m->fd[MAP_OVERFLOW], &zero, m->vals))
		return -errno;
	sum_cpus(m, m->vals, overflow);
	return 0;
}
