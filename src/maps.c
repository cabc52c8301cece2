// SPDX-License-Identifier: GPL-2.0
/* Per-CPU maps and their readout; see maps.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "load.h"
#include "maps.h"
#include "privs.h"
#include "vm.h"

#define MAPS_CHUNK 1024

/* ---- the kernel's maps ---- */

static int k_ret(int ret)
{
	return ret < 0 ? -errno : ret;
}

/*
 * The helper that creates bigger tables once this process has no
 * privileges left (maps_helper()): its end of the socket, or -1.  A
 * request is a struct table_req; the answer an int, 0 or -errno, with the
 * table's descriptor (SCM_RIGHTS) on 0.
 */
static int helper_sock = -1;

struct table_req {
	__u32 key_size, max_entries;
};

/* The helper's side: one of a hash's tables, as create_table() makes them. */
static void serve_tables(int sock)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct table_req req;
	int ret;

	while (recv(sock, &req, sizeof(req), 0) == sizeof(req)) {
		struct iovec iov = { .iov_base = &ret, .iov_len = sizeof(ret) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

		ret = -EINVAL;
		if (req.key_size && req.key_size <= LAYOUT_MAX_ROW && req.max_entries &&
		    req.max_entries <= MAPS_DEFAULT_KEYS)
			ret = k_ret(bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "table", req.key_size,
						   sizeof(struct counter), req.max_entries, NULL));
		if (ret >= 0) {
			msg.msg_control = u.buf;
			msg.msg_controllen = sizeof(u.buf);
			CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
			CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
			CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), &ret, sizeof(int));
		}
		if (sendmsg(sock, &msg, 0) < 0)
			break;
		if (ret >= 0)
			close(ret);
	}
}

/* Ask the helper for a table: its fd, or -errno. */
static int helper_table(__u32 key_size, __u32 max_entries)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct table_req req = { key_size, max_entries };
	int ret, fd = -1;
	struct iovec iov = { .iov_base = &ret, .iov_len = sizeof(ret) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;

	if (send(helper_sock, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req))
		return -errno;
	if (recvmsg(helper_sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(ret))
		return -EPIPE;	/* the helper is gone */
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	if (ret >= 0 && fd < 0)
		return -EPROTO;
	return ret < 0 ? ret : fd;
}

int maps_helper(const struct passwd *pw, char *err, size_t errlen)
{
	return helper_sock >= 0 ? 0 : privs_helper(pw, serve_tables, &helper_sock, err, errlen);
}

static int k_create(void *ctx, enum bpf_map_type type, const char *name, __u32 key_size,
		    __u32 value_size, __u32 max_entries, __u32 flags, int inner_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);
	int fd;

	(void)ctx;
	if (inner_fd >= 0)
		opts.inner_map_fd = inner_fd;
	fd = k_ret(bpf_map_create(type, name, key_size, value_size, max_entries, &opts));
	/* without privileges now: a table, from the helper that kept them */
	if (fd == -EPERM && helper_sock >= 0 && type == BPF_MAP_TYPE_PERCPU_HASH && !flags &&
	    inner_fd < 0 && value_size == sizeof(struct counter))
		fd = helper_table(key_size, max_entries);
	return fd;
}

static int k_update(void *ctx, int fd, const void *key, const void *value, __u64 flags)
{
	(void)ctx;
	return k_ret(bpf_map_update_elem(fd, key, value, flags));
}

static int k_lookup(void *ctx, int fd, const void *key, void *value)
{
	(void)ctx;
	return k_ret(bpf_map_lookup_elem(fd, key, value));
}

static int k_delete(void *ctx, int fd, const void *key)
{
	(void)ctx;
	return k_ret(bpf_map_delete_elem(fd, key));
}

static int k_next_key(void *ctx, int fd, const void *key, void *next)
{
	(void)ctx;
	return k_ret(bpf_map_get_next_key(fd, key, next));
}

static int k_batch(void *ctx, int fd, int drain, void *in, void *out, void *keys, void *values,
		   __u32 *count)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	(void)ctx;
	return k_ret((drain ? bpf_map_lookup_and_delete_batch : bpf_map_lookup_batch)
		     (fd, in, out, keys, values, count, &opts));
}

static void k_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

static int k_ncpus(void *ctx)
{
	(void)ctx;
	return libbpf_num_possible_cpus();
}

static const struct map_ops kernel_ops = {
	.create = k_create, .update = k_update, .lookup = k_lookup, .delete = k_delete,
	.next_key = k_next_key, .batch = k_batch, .close = k_close, .ncpus = k_ncpus,
};

struct map_backend maps_kernel(void)
{
	return (struct map_backend){ .ops = &kernel_ops };
}

/* ---- the engine's maps ---- */

static int e_create(void *ctx, enum bpf_map_type type, const char *name, __u32 key_size,
		    __u32 value_size, __u32 max_entries, __u32 flags, int inner_fd)
{
	int fd, err;

	(void)name, (void)flags;
	fd = vm_map_create(ctx, type, key_size, value_size, max_entries);
	if (fd < 0 || inner_fd < 0)
		return fd;
	err = vm_map_set_inner(ctx, fd, inner_fd);
	if (err)
		vm_map_close(ctx, fd);
	return err ? err : fd;
}

static int e_update(void *ctx, int fd, const void *key, const void *value, __u64 flags)
{
	return vm_map_update(ctx, fd, key, value, flags);
}

static int e_lookup(void *ctx, int fd, const void *key, void *value)
{
	return vm_map_lookup(ctx, fd, key, value);
}

static int e_delete(void *ctx, int fd, const void *key)
{
	return vm_map_delete(ctx, fd, key);
}

static int e_next_key(void *ctx, int fd, const void *key, void *next)
{
	return vm_map_next_key(ctx, fd, key, next);
}

static int e_batch(void *ctx, int fd, int drain, void *in, void *out, void *keys, void *values,
		   __u32 *count)
{
	return vm_map_batch(ctx, fd, drain, in, out, keys, values, count);
}

static void e_close(void *ctx, int fd)
{
	vm_map_close(ctx, fd);
}

static int e_ncpus(void *ctx)
{
	(void)ctx;
	return 1;
}

static const struct map_ops engine_ops = {
	.create = e_create, .update = e_update, .lookup = e_lookup, .delete = e_delete,
	.next_key = e_next_key, .batch = e_batch, .close = e_close, .ncpus = e_ncpus,
};

struct map_backend maps_engine(struct vm *vm)
{
	return (struct map_backend){ .ops = &engine_ops, .ctx = vm };
}

/* ---- the counts ---- */

/* A per-CPU value is round_up(value_size, 8) bytes for each possible CPU. */
static size_t val_size(const struct maps *m)
{
	return sizeof(struct counter) * m->ncpus;
}

static size_t batch_key_size(const struct maps *m)
{
	return m->lay->key_size < 8 ? 8 : m->lay->key_size;
}

/* A per-CPU array, or one of a hash's tables (preallocated: see maps.h). */
static int create_table(struct maps *m, unsigned int entries)
{
	const struct layout *lay = m->lay;

	if (lay->array)
		return m->b.ops->create(m->b.ctx, BPF_MAP_TYPE_PERCPU_ARRAY, "counts", 4,
					sizeof(struct counter), lay->max_entries, 0, -1);
	return m->b.ops->create(m->b.ctx, BPF_MAP_TYPE_PERCPU_HASH, "table", lay->key_size,
				sizeof(struct counter), entries, 0, -1);
}

/* A hash: two tables, the first live in a one-slot array of maps. */
static int create_tables(struct maps *m)
{
	unsigned int size = m->lay->max_entries;
	__u32 zero = 0;
	int i;

	m->grows = !size;
	if (!size)
		size = MAPS_START_KEYS;
	for (i = 0; i < 2; i++) {
		m->table[i] = create_table(m, size);
		if (m->table[i] < 0)
			return m->table[i];
		m->size[i] = size;
	}
	m->fd[MAP_COUNTS] = m->b.ops->create(m->b.ctx, BPF_MAP_TYPE_ARRAY_OF_MAPS, "counts", 4,
					     4, 1, 0, m->table[0]);
	if (m->fd[MAP_COUNTS] < 0)
		return m->fd[MAP_COUNTS];
	m->live = 0;
	return m->b.ops->update(m->b.ctx, m->fd[MAP_COUNTS], &zero, &m->table[0], BPF_ANY);
}

int maps_create(struct maps *m, const struct layout *lay, struct map_backend b, char *err,
		size_t errlen)
{
	int i, ret;

	memset(m, 0, sizeof(*m));
	m->b = b;
	m->lay = lay;
	m->batch = -1;
	for (i = 0; i < NR_MAPS; i++)
		m->fd[i] = -1;
	m->table[0] = m->table[1] = -1;
	m->ncpus = b.ops->ncpus(b.ctx);
	if (m->ncpus < 1) {
		snprintf(err, errlen, "cannot count possible CPUs: %s", strerror(-m->ncpus));
		return -1;
	}
	ret = lay->tables ? create_tables(m) : (m->fd[MAP_COUNTS] = create_table(m, 0));
	if (ret < 0) {
		load_strerror("cannot create the counts map", -ret, err, errlen);
		maps_close(m);
		return -1;
	}
	m->fd[MAP_OVERFLOW] = b.ops->create(b.ctx, BPF_MAP_TYPE_PERCPU_ARRAY, "overflow", 4,
					    sizeof(struct counter), 1, 0, -1);
	m->keys = calloc(MAPS_CHUNK, batch_key_size(m));
	m->vals = calloc(MAPS_CHUNK, val_size(m));
	m->cur = calloc(1, batch_key_size(m));
	if (m->fd[MAP_OVERFLOW] < 0)
		load_strerror("cannot create the overflow map", -m->fd[MAP_OVERFLOW], err, errlen);
	else if (!m->keys || !m->vals || !m->cur)
		snprintf(err, errlen, "out of memory");
	else
		return 0;
	maps_close(m);
	return -1;
}

void maps_close(struct maps *m)
{
	int i;

	for (i = 0; i < NR_MAPS; i++)
		if (m->fd[i] >= 0)
			m->b.ops->close(m->b.ctx, m->fd[i]);
	for (i = 0; i < 2; i++)
		if (m->table[i] >= 0)
			m->b.ops->close(m->b.ctx, m->table[i]);
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

	m->nread++;
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
 * (no program uses the map meanwhile).  When fn fails, the other entries
 * still go to it (a drained entry is gone once read), then -ECANCELED.
 */
static int read_batch(struct maps *m, int fd, int drain, maps_entry_fn fn, void *ctx)
{
	int first = 1, failed = 0, err, i;
	__u32 n;

	do {
		n = MAPS_CHUNK;
		err = m->b.ops->batch(m->b.ctx, fd, drain, first ? NULL : m->cur, m->cur, m->keys,
				      m->vals, &n);
		if (err && err != -ENOENT)
			return err;
		for (i = 0; i < (int)n; i++)
			failed |= deliver(m, (char *)m->keys + i * m->lay->key_size,
					  (char *)m->vals + i * val_size(m), fn, ctx);
		first = 0;
	} while (!err);
	return failed ? -ECANCELED : 0;
}

/* The same one entry at a time, for kernels without batch operations. */
static int read_each(struct maps *m, int fd, int drain, maps_entry_fn fn, void *ctx)
{
	const struct map_ops *ops = m->b.ops;
	void *key = NULL;
	int failed = 0, err;

	while (!(err = ops->next_key(m->b.ctx, fd, key, m->keys))) {
		memcpy(m->cur, m->keys, m->lay->key_size);
		key = drain ? NULL : m->cur;	/* a drained map starts over */
		err = ops->lookup(m->b.ctx, fd, m->cur, m->vals);
		if (err) {
			if (drain)	/* would find the same key again */
				return err;
			continue;	/* deleted meanwhile: cannot happen here */
		}
		if (drain && (err = ops->delete(m->b.ctx, fd, m->cur)))
			return err;
		failed |= deliver(m, m->cur, m->vals, fn, ctx);
	}
	if (err != -ENOENT)
		return err;
	return failed ? -ECANCELED : 0;
}

/*
 * Put the empty table live; the update of an array of maps returns once
 * no program can still be counting in the table it replaced.  Returns
 * that table.
 */
static int swap_tables(struct maps *m)
{
	__u32 zero = 0;
	int err = m->b.ops->update(m->b.ctx, m->fd[MAP_COUNTS], &zero, &m->table[!m->live],
				   BPF_ANY);

	if (err)
		return err;
	m->live = !m->live;
	return m->table[!m->live];
}

/* Every entry of map fd to fn (m->nread of them): 0, -ECANCELED or -errno. */
static int read_map(struct maps *m, int fd, int drain, maps_entry_fn fn, void *ctx)
{
	int err = -EINVAL;

	m->nread = 0;
	if (m->batch)
		err = read_batch(m, fd, drain, fn, ctx);
	if (m->batch < 0)
		m->batch = err != -EINVAL && err != -ENOTSUP && err != -524;
	if (!m->batch)
		err = read_each(m, fd, drain, fn, ctx);
	return err;
}

/*
 * The size for a table that held rows keys in an interval where over
 * packets overflowed: room for twice as many keys, at least twice and at
 * most 16 times its size, a power of two, and no more than the largest.
 */
static unsigned int next_size(unsigned int size, __u64 rows, __u64 over)
{
	__u64 want = 1;

	while (want < 2 * (rows + over))
		want <<= 1;
	if (want < 2ULL * size)
		want = 2ULL * size;
	if (want > 16ULL * size)
		want = 16ULL * size;
	return want < MAPS_DEFAULT_KEYS ? want : MAPS_DEFAULT_KEYS;
}

/* Replace table t, which is not live, by an empty one of size entries. */
static int replace(struct maps *m, int t, unsigned int size)
{
	int fd = create_table(m, size);

	if (fd < 0)
		return fd;
	m->b.ops->close(m->b.ctx, m->table[t]);
	m->table[t] = fd;
	m->size[t] = size;
	return 0;
}

/*
 * The table just drained held rows keys, and over packets overflowed since
 * the previous readout.  If it was more than half full, or too small for
 * the keys that did not fit (or smaller than the other): a bigger one
 * takes its place and goes live, the other is drained to fn as well and
 * replaced too.  If the kernel refuses the bigger table, both stay and
 * m->refused says why (once: they grow no more).
 */
static int grow(struct maps *m, __u64 rows, __u64 over, maps_entry_fn fn, void *ctx)
{
	int t = !m->live, fd, err;
	unsigned int size = m->size[t];

	if (!m->grows || size >= MAPS_DEFAULT_KEYS ||
	    (2 * rows <= size && !over && size >= m->size[!t]))
		return 0;
	size = next_size(size, rows, over);
	if (size < m->size[!t])
		size = m->size[!t];
	m->grew_from = m->size[t];
	err = replace(m, t, size);
	if (err) {
		m->grows = 0;
		m->refused = err;
		m->grew_from = 0;
		return 0;
	}
	m->grew_to = size;
	fd = swap_tables(m);
	if (fd < 0)
		return fd;
	err = read_map(m, fd, 1, fn, ctx);
	/* Failing that, the other table grows when it is drained next. */
	if (!err)
		replace(m, !m->live, size);
	return err;
}

/*
 * Nothing counted in the live table since it went live?  Then it stays,
 * and nothing is drained: a swap waits for an RCU grace period (most of
 * an idle readout's cost).  A key counted just after this look is simply
 * read at the next readout.
 */
static int live_empty(struct maps *m)
{
	return m->b.ops->next_key(m->b.ctx, m->table[m->live], NULL, m->keys) == -ENOENT;
}

int maps_overflow(struct maps *m, struct counter *overflow)
{
	__u32 zero = 0;
	int err = m->b.ops->lookup(m->b.ctx, m->fd[MAP_OVERFLOW], &zero, m->vals);

	if (!err)
		sum_cpus(m, m->vals, overflow);
	return err;
}

int maps_read(struct maps *m, maps_entry_fn fn, void *ctx, struct counter *overflow)
{
	int fd = m->fd[MAP_COUNTS], drain = m->lay->tables, err = 0, ret;
	__u64 rows;

	m->grew_from = m->grew_to = 0;
	m->refused = 0;
	m->nread = 0;
	if (!drain || !live_empty(m)) {
		if (drain && (fd = swap_tables(m)) < 0)
			return fd;
		err = read_map(m, fd, drain, fn, ctx);
	}
	if (err && err != -ECANCELED)
		return err;
	rows = m->nread;
	/* the overflow too: after a failed entry, what was read still counts */
	ret = maps_overflow(m, overflow);
	if (ret)
		return ret;
	if (!err && drain)
		err = grow(m, rows, overflow->packets - m->overflow_seen, fn, ctx);
	m->overflow_seen = overflow->packets;
	return err;
}

int maps_probe(struct maps *m)
{
	struct counter c;

	return maps_overflow(m, &c);
}
