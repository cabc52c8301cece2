// SPDX-License-Identifier: GPL-2.0
/* Per-interval deltas of the map counters; see report.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* What is known of one key: its counters at the last two readouts. */
struct entry {
	struct counter last;
	struct counter now;
	int used;
	unsigned char key[];
};

struct report {
	const struct layout *lay;
	size_t entry_size;
	size_t cap, n;		/* open addressing; cap is a power of two */
	unsigned char *slots;
	struct counter overflow_last, overflow_now;
	struct counter retired;	/* since start, of keys no longer kept */
	struct row *rows;
	size_t rows_cap;
};

static struct entry *slot(struct report *r, size_t i)
{
	return (struct entry *)(r->slots + i * r->entry_size);
}

static uint64_t hash_key(const unsigned char *key, int n)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (n--)
		h = (h ^ *key++) * 0x100000001b3ULL;
	return h;
}

static int grow(struct report *r);

static void add(struct counter *to, const struct counter *c)
{
	to->packets += c->packets;
	to->bytes += c->bytes;
}

/*
 * The entry of key, added if new; NULL if it is new and there is no room.
 * The table grows at half full; without memory to grow, it fills up to
 * one free slot, which ends every probe.
 */
static struct entry *find(struct report *r, const unsigned char *key)
{
	struct entry *e;
	size_t i;

	if (2 * (r->n + 1) > r->cap)
		grow(r);
	i = hash_key(key, r->lay->row_size) & (r->cap - 1);
	for (e = slot(r, i); e->used; e = slot(r, i)) {
		if (!memcmp(e->key, key, r->lay->row_size))
			return e;
		i = (i + 1) & (r->cap - 1);
	}
	if (r->n + 1 >= r->cap)
		return NULL;
	e->used = 1;
	memcpy(e->key, key, r->lay->row_size);
	r->n++;
	return e;
}

static int idle(const struct entry *e)
{
	return e->now.packets == e->last.packets && e->now.bytes == e->last.bytes;
}

/*
 * Move the entries to a table of cap slots; drop_idle: leave out those
 * that did not count since the last readout, their totals retired.
 */
static int rebuild(struct report *r, size_t cap, int drop_idle)
{
	struct report old = *r;
	size_t i;

	r->cap = cap;
	r->slots = calloc(r->cap, r->entry_size);
	if (!r->slots) {
		*r = old;
		return -1;
	}
	r->n = 0;
	for (i = 0; i < old.cap; i++) {
		struct entry *from = slot(&old, i), *to;

		if (!from->used)
			continue;
		if (drop_idle && idle(from)) {
			add(&r->retired, &from->now);
			continue;
		}
		to = find(r, from->key);
		to->last = from->last;
		to->now = from->now;
	}
	free(old.slots);
	return 0;
}

static int grow(struct report *r)
{
	return rebuild(r, r->cap ? r->cap * 2 : 1024, 0);
}

struct report *report_new(const struct layout *lay)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->lay = lay;
	r->entry_size = (sizeof(struct entry) + lay->row_size + 7) & ~(size_t)7;
	if (grow(r)) {
		free(r);
		return NULL;
	}
	return r;
}

void report_free(struct report *r)
{
	if (!r)
		return;
	free(r->slots);
	free(r->rows);
	free(r);
}

static int take(const unsigned char *key, const struct counter *sum, void *ctx)
{
	struct report *r = ctx;
	unsigned char buf[LAYOUT_MAX_ROW];
	struct entry *e;

	/* key may point into the map buffers: copy before the table moves */
	memcpy(buf, key, r->lay->row_size);
	e = find(r, buf);
	if (!e) {
		/* A drained key is gone from the map: keep it in the totals. */
		if (r->lay->tables)
			add(&r->retired, sum);
		return -1;
	}
	if (r->lay->tables)	/* a drained table: counts since the last read */
		add(&e->now, sum);
	else
		e->now = *sum;
	return 0;
}

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct row *x = a, *y = b;
	const struct report *r = ctx;

	if (x->c.packets != y->c.packets)
		return x->c.packets < y->c.packets ? 1 : -1;
	if (x->c.bytes != y->c.bytes)
		return x->c.bytes < y->c.bytes ? 1 : -1;
	return memcmp(x->key, y->key, r->lay->row_size);
}

static struct counter diff(const struct counter *now, const struct counter *last)
{
	return (struct counter){ now->packets - last->packets, now->bytes - last->bytes };
}

/* Rows of every key whose counters moved (deltas) or ever counted. */
static int make_rows(struct report *r, struct interval *iv, int since_start)
{
	size_t i;

	if (r->rows_cap < r->n) {
		struct row *rows = malloc(r->cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		free(r->rows);
		r->rows = rows;
		r->rows_cap = r->cap;
	}
	iv->rows = r->rows;
	iv->nrows = 0;
	iv->total = iv->overflow;
	for (i = 0; i < r->cap; i++) {
		struct entry *e = slot(r, i);
		struct counter d = since_start ? e->now : diff(&e->now, &e->last);

		if (!e->used || (!d.packets && !d.bytes))
			continue;
		r->rows[iv->nrows++] = (struct row){ e->key, d };
		add(&iv->total, &d);
	}
	if (iv->nrows > 1)
		qsort_r(iv->rows, iv->nrows, sizeof(*iv->rows), cmp_rows, r);
	return 0;
}

/* The keys a hash's totals keep: --max-keys, or as many as its tables grow to. */
static size_t keys_kept(const struct layout *lay)
{
	return lay->max_entries ? (size_t)lay->max_entries : MAPS_DEFAULT_KEYS;
}

/*
 * The counters as they were at the end of the interval just reported: the
 * next interval's figures are the differences from them (the reads of
 * report_fold() and report_collect() add to now).
 */
static void interval_ends(struct report *r)
{
	size_t i;

	for (i = 0; i < r->cap; i++)
		slot(r, i)->last = slot(r, i)->now;
	r->overflow_last = r->overflow_now;
}

/* Add what the maps hold now to the counters: 0, or -ENOMEM or -errno. */
static int read_maps(struct report *r, struct maps *m)
{
	int err = maps_read(m, take, r, &r->overflow_now);

	return err == -ECANCELED ? -ENOMEM : err;
}

int report_drain(struct report *r, struct maps *m)
{
	int err;

	if (!r->lay->tables || !m->grows)
		return 0;
	err = read_maps(r, m);
	return err ? err : 1;
}

int report_fold(struct report *r, struct maps *m)
{
	struct counter ovf;
	int err;

	if (!r->lay->tables || !m->grows)
		return 0;
	err = maps_overflow(m, &ovf);
	if (err)
		return err;
	if (ovf.packets == r->overflow_now.packets && ovf.bytes == r->overflow_now.bytes)
		return 0;
	return report_drain(r, m);
}

int report_collect(struct report *r, struct maps *m, struct interval *iv)
{
	int err = read_maps(r, m);

	if (err)
		return err;
	/* a hash's bound bounds this table too: past it, forget idle keys */
	if (r->lay->tables && r->n > keys_kept(r->lay) && rebuild(r, r->cap, 1))
		return -ENOMEM;
	memset(iv, 0, sizeof(*iv));
	iv->overflow = diff(&r->overflow_now, &r->overflow_last);
	err = make_rows(r, iv, 0);
	interval_ends(r);
	return err;
}

int report_final(struct report *r, struct interval *iv)
{
	memset(iv, 0, sizeof(*iv));
	iv->final = 1;
	iv->overflow = r->overflow_now;
	add(&iv->overflow, &r->retired);
	return make_rows(r, iv, 1);
}
