// SPDX-License-Identifier: GPL-2.0
/*
 * maps.c without a kernel: its libbpf calls are renamed to fakes that keep
 * maps in memory (this test must not call bpf(2) on the host), and its
 * public functions are renamed so as not to clash with build/obj/maps.o.
 *
 * Checked: a map that is not drained (an array's counters) is read with
 * batch lookups, or one key at a time when the kernel has no batch
 * operations (the fallback is chosen once); per-CPU values are summed; a
 * hash's readout swaps the live table for the empty one, drains the old
 * one with either method and leaves it empty; the overflow counter is
 * summed too.  Tables without --max-keys start at MAPS_START_KEYS entries,
 * preallocated; a readout after keys overflowed or with the drained table
 * more than half full replaces both by bigger ones (the other one drained
 * in the same readout), none with --max-keys, and, when the kernel refuses
 * a bigger table, keeps them, says why once and loses no entry.
 */
#define bpf_map_create fake_map_create
#define bpf_map_update_elem fake_update_elem
#define bpf_map_lookup_elem fake_lookup_elem
#define bpf_map_delete_elem fake_delete_elem
#define bpf_map_get_next_key fake_get_next_key
#define bpf_map_lookup_batch fake_lookup_batch
#define bpf_map_lookup_and_delete_batch fake_lookup_and_delete_batch
#define libbpf_num_possible_cpus fake_num_possible_cpus
#define maps_create test_maps_create
#define maps_close test_maps_close
#define maps_read test_maps_read
#define maps_probe test_maps_probe
#define maps_overflow test_maps_overflow
#define maps_kernel test_maps_kernel
#define maps_engine test_maps_engine
#define maps_helper test_maps_helper
#include "../../src/maps.c"

#include "tap.h"

#define NCPUS 2
#define FD_BASE 1000		/* fds nothing has open: close() fails harmlessly */
#define MAXM 8
#define MAXE 64

static struct fmap {
	enum bpf_map_type type;
	__u32 key_size, n, max_entries, flags;
	unsigned char keys[MAXE][16];
	struct counter vals[MAXE][NCPUS];
	__u32 inner;		/* array of maps: the fd in slot 0 */
} fmaps[MAXM];
static int nfmaps, have_batch, batch_calls, each_calls;
static int refuse;		/* map creation fails with -refuse */

static struct fmap *fmap(int fd)
{
	return fd >= FD_BASE && fd < FD_BASE + nfmaps ? &fmaps[fd - FD_BASE] : NULL;
}

static int fail(int err)
{
	errno = err;
	return -err;
}

int fake_num_possible_cpus(void)
{
	return NCPUS;
}

int fake_map_create(enum bpf_map_type type, const char *name, __u32 key_size, __u32 value_size,
		    __u32 max_entries, const struct bpf_map_create_opts *opts)
{
	(void)name, (void)value_size;
	if (nfmaps == MAXM)
		return fail(ENOMEM);
	if (refuse)
		return fail(refuse);
	fmaps[nfmaps] = (struct fmap){ .type = type, .key_size = key_size,
				       .max_entries = max_entries, .flags = opts->map_flags };
	return FD_BASE + nfmaps++;
}

static int find(struct fmap *m, const void *key)
{
	__u32 i;

	for (i = 0; i < m->n; i++)
		if (!memcmp(m->keys[i], key, m->key_size))
			return i;
	return -1;
}

int fake_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	struct fmap *m = fmap(fd);

	(void)key, (void)flags;
	if (!m || m->type != BPF_MAP_TYPE_ARRAY_OF_MAPS)
		return fail(EINVAL);
	m->inner = *(const __u32 *)value;
	return 0;
}

int fake_lookup_elem(int fd, const void *key, void *value)
{
	struct fmap *m = fmap(fd);
	int i = m ? find(m, key) : -1;

	if (i < 0)
		return fail(ENOENT);
	memcpy(value, m->vals[i], sizeof(m->vals[i]));
	return 0;
}

int fake_delete_elem(int fd, const void *key)
{
	struct fmap *m = fmap(fd);
	int i = m ? find(m, key) : -1;

	if (i < 0)
		return fail(ENOENT);
	m->n--;
	memmove(m->keys[i], m->keys[i + 1], (m->n - i) * sizeof(m->keys[0]));
	memmove(m->vals[i], m->vals[i + 1], (m->n - i) * sizeof(m->vals[0]));
	return 0;
}

int fake_get_next_key(int fd, const void *key, void *next)
{
	struct fmap *m = fmap(fd);
	int i = key ? find(m, key) + 1 : 0;

	each_calls++;
	if (!m || i < 0 || (__u32)i >= m->n)
		return fail(ENOENT);
	memcpy(next, m->keys[i], m->key_size);
	return 0;
}

/* One entry per call, the cursor an index, to exercise the loop. */
static int batch(int fd, void *in, void *out, void *keys, void *values, __u32 *count,
		 int delete)
{
	struct fmap *m = fmap(fd);
	__u32 at = in ? *(__u32 *)in : 0;

	batch_calls++;
	if (!have_batch)
		return fail(EINVAL);
	*count = 0;
	if (at >= m->n)
		return fail(ENOENT);
	memcpy(keys, m->keys[at], m->key_size);
	memcpy(values, m->vals[at], sizeof(m->vals[at]));
	*count = 1;
	if (delete)
		fake_delete_elem(fd, m->keys[at]);
	else
		at++;
	*(__u32 *)out = at;
	return 0;
}

int fake_lookup_batch(int fd, void *in, void *out, void *keys, void *values, __u32 *count,
		      const struct bpf_map_batch_opts *opts)
{
	(void)opts;
	return batch(fd, in, out, keys, values, count, 0);
}

int fake_lookup_and_delete_batch(int fd, void *in, void *out, void *keys, void *values,
				 __u32 *count, const struct bpf_map_batch_opts *opts)
{
	(void)opts;
	return batch(fd, in, out, keys, values, count, 1);
}

/* Entry i of map fd: key {i, 0...}, counters i + 1 and 100 * (i + 1) per CPU. */
static void fill(int fd, int n)
{
	struct fmap *m = fmap(fd);
	int i, c;

	for (i = 0; i < n; i++) {
		memset(m->keys[i], 0, sizeof(m->keys[i]));
		m->keys[i][0] = i;
		for (c = 0; c < NCPUS; c++)
			m->vals[i][c] = (struct counter){ i + 1, 100 * (i + 1) };
	}
	m->n = n;
}

static unsigned long long seen_packets, seen_bytes;
static int seen;

static int count_entry(const unsigned char *key, const struct counter *sum, void *ctx)
{
	(void)key, (void)ctx;
	seen++;
	seen_packets += sum->packets;
	seen_bytes += sum->bytes;
	return 0;
}

/* Read m, expecting n entries of fill() and its overflow. */
static int read_all(struct maps *m, int n)
{
	struct counter ovf;
	int want = n * (n + 1) / 2 * NCPUS;

	seen = 0;
	seen_packets = seen_bytes = 0;
	return !test_maps_read(m, count_entry, NULL, &ovf) && seen == n &&
	       seen_packets == (unsigned long long)want && seen_bytes == 100ULL * want &&
	       ovf.packets == 3 * NCPUS && ovf.bytes == 300 * NCPUS;
}

static void setup(struct maps *m, struct layout *lay, int tables, int batch_ok)
{
	struct fmap *ovf;
	char err[128];
	int c;

	nfmaps = 0;
	have_batch = batch_ok;
	memset(lay, 0, sizeof(*lay));
	lay->nkeys = 1;
	lay->val_off[0] = 4;
	lay->key_size = lay->row_size = 8;
	lay->max_entries = tables == 1 ? 16 : 0;	/* 2: tables that grow */
	lay->tables = !!tables;
	if (test_maps_create(m, lay, test_maps_kernel(), err, sizeof(err)))
		printf("#   %s\n", err);
	ovf = fmap(m->fd[MAP_OVERFLOW]);
	ovf->n = 1;
	memset(ovf->keys[0], 0, sizeof(ovf->keys[0]));
	for (c = 0; c < NCPUS; c++)
		ovf->vals[0][c] = (struct counter){ 3, 300 };
}

static void check_cumulative(int batch_ok)
{
	const char *how = batch_ok ? "batch lookups" : "get_next_key (no batch operations)";
	struct layout lay;
	struct maps m;
	char name[160];
	int ok;

	setup(&m, &lay, 0, batch_ok);
	fill(m.fd[MAP_COUNTS], 5);
	batch_calls = each_calls = 0;
	ok = read_all(&m, 5) && fmap(m.fd[MAP_COUNTS])->n == 5;
	snprintf(name, sizeof(name), "not drained, %s: every entry once, CPUs summed", how);
	tap_ok(ok && (batch_ok ? !each_calls : each_calls > 0), name);
	batch_calls = 0;
	ok = read_all(&m, 5);
	snprintf(name, sizeof(name), "not drained, %s: again, the method chosen once", how);
	tap_ok(ok && (batch_ok ? batch_calls > 0 : !batch_calls), name);
	test_maps_close(&m);
}

static void check_drained(int batch_ok)
{
	const char *how = batch_ok ? "lookup-and-delete batches" : "get_next_key and delete";
	struct layout lay;
	struct maps m;
	char name[160];
	int first, second, ok;

	setup(&m, &lay, 1, batch_ok);
	first = m.table[0];
	second = m.table[1];
	ok = fmap(m.fd[MAP_COUNTS])->inner == (__u32)first;
	fill(first, 6);
	ok = ok && read_all(&m, 6) && fmap(m.fd[MAP_COUNTS])->inner == (__u32)second &&
	     fmap(first)->n == 0;
	snprintf(name, sizeof(name), "bounded, %s: the empty table goes live, the other drained",
		 how);
	tap_ok(ok, name);
	fill(second, 3);
	ok = read_all(&m, 3) && fmap(m.fd[MAP_COUNTS])->inner == (__u32)first &&
	     fmap(second)->n == 0;
	snprintf(name, sizeof(name), "bounded, %s: and back at the next readout", how);
	tap_ok(ok, name);
	test_maps_close(&m);
}

/* The tables without --max-keys: how they start, grow, and stop growing. */
static void check_growth(int batch_ok)
{
	const char *how = batch_ok ? "batches" : "one at a time";
	struct fmap *ovf;
	struct layout lay;
	struct maps m;
	char name[160];
	int first, second, ok, c;

	setup(&m, &lay, 2, batch_ok);
	first = m.table[0];
	second = m.table[1];
	ok = m.grows && fmap(first)->max_entries == MAPS_START_KEYS &&
	     fmap(second)->max_entries == MAPS_START_KEYS && !fmap(first)->flags &&
	     !fmap(second)->flags;
	snprintf(name, sizeof(name), "growing, %s: two preallocated tables of %d entries", how,
		 MAPS_START_KEYS);
	tap_ok(ok, name);
	/* 6 keys in the live table, 6 packets of overflow: it grows; the 3
	 * keys counted in the other table meanwhile are read too */
	fill(first, 6);
	fill(second, 3);
	seen = 0;
	seen_packets = 0;
	{
		struct counter o;

		ok = !test_maps_read(&m, count_entry, NULL, &o) && seen == 9 &&
		     seen_packets == (21 + 6) * NCPUS;
	}
	ok = ok && m.grew_from == MAPS_START_KEYS &&
	     m.grew_to == 2 * MAPS_START_KEYS && !m.refused &&
	     m.size[0] == 2 * MAPS_START_KEYS && m.size[1] == 2 * MAPS_START_KEYS &&
	     fmap(m.table[0])->max_entries == 2 * MAPS_START_KEYS &&
	     fmap(m.table[1])->max_entries == 2 * MAPS_START_KEYS &&
	     !fmap(m.table[0])->flags && !fmap(m.table[1])->flags &&
	     m.table[0] != first && m.table[1] != second &&
	     fmap(m.fd[MAP_COUNTS])->inner == (__u32)m.table[m.live] &&
	     !fmap(m.table[0])->n && !fmap(m.table[1])->n;
	snprintf(name, sizeof(name), "growing, %s: after an overflow, both tables twice as big, "
		 "one live, both empty", how);
	tap_ok(ok, name);
	/* the overflow as before, a few keys: it stays */
	fill(m.table[m.live], 3);
	first = m.table[0];
	ok = read_all(&m, 3) && !m.grew_to && m.table[0] == first &&
	     m.size[0] == 2 * MAPS_START_KEYS;
	snprintf(name, sizeof(name), "growing, %s: no overflow since, few keys: same tables", how);
	tap_ok(ok, name);
	/* more overflow, the kernel refuses: every entry still read */
	ovf = fmap(m.fd[MAP_OVERFLOW]);
	for (c = 0; c < NCPUS; c++)
		ovf->vals[0][c] = (struct counter){ 4, 400 };
	fill(m.table[m.live], 5);
	refuse = EINVAL;
	seen = 0;
	{
		struct counter o;

		ok = !test_maps_read(&m, count_entry, NULL, &o) && seen == 5 && !m.grew_to &&
		     m.refused == -EINVAL && !m.grows && m.size[0] == 2 * MAPS_START_KEYS &&
		     m.table[0] == first;
	}
	refuse = 0;
	snprintf(name, sizeof(name), "growing, %s: refused: the tables stay, why said once, "
		 "every entry read", how);
	tap_ok(ok, name);
	fill(m.table[m.live], 2);
	for (c = 0; c < NCPUS; c++)
		ovf->vals[0][c] = (struct counter){ 9, 900 };
	seen = 0;
	{
		struct counter o;

		ok = !test_maps_read(&m, count_entry, NULL, &o) && seen == 2 && !m.grew_to &&
		     !m.refused;
	}
	snprintf(name, sizeof(name), "growing, %s: and not tried again", how);
	tap_ok(ok, name);
	test_maps_close(&m);

	setup(&m, &lay, 1, batch_ok);
	fill(m.table[0], 6);
	ok = !m.grows && read_all(&m, 6) && !m.grew_to && m.size[0] == 16 && m.size[1] == 16;
	snprintf(name, sizeof(name), "--max-keys, %s: overflow, but the tables stay", how);
	tap_ok(ok, name);
	test_maps_close(&m);
}

int main(void)
{
	check_cumulative(1);
	check_cumulative(0);
	check_drained(1);
	check_drained(0);
	check_growth(1);
	check_growth(0);
	return tap_done();
}
