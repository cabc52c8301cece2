// SPDX-License-Identifier: GPL-2.0
/*
 * report.c without maps: report_collect() reads the counters through
 * maps_read(), which needs bpf(2), so this test compiles report.c itself
 * with maps_read renamed to fake_maps_read (a table of cumulative
 * counters) and its public functions renamed so that they do not clash
 * with build/obj/report.o, which the Makefile links in too.
 *
 * Checked: the first interval gives the counters themselves, later ones
 * the differences, keys that did not move are left out, new keys appear,
 * rows are sorted by packets, bytes, then key, the total is rows plus
 * overflow, the final figures are the counters since start, the table
 * grows past its first 1024 slots, a bounded hash's drained counts add up
 * and its keys are forgotten past the bound, a fold within an interval
 * adds to it, and a read error is returned.
 */
#define maps_read fake_maps_read
#define maps_overflow fake_maps_overflow
#define report_new test_report_new
#define report_free test_report_free
#define report_collect test_report_collect
#define report_fold test_report_fold
#define report_drain test_report_drain
#define report_final test_report_final
#include "../../src/report.c"

#include <stdio.h>

#include "tap.h"

#define MAXE 3000

/* What the fake map holds: cumulative counters per key. */
static struct {
	unsigned char key[16];
	struct counter c;
} map[MAXE];
static int map_n, map_err;
static struct counter map_overflow;

int fake_maps_read(struct maps *m, maps_entry_fn fn, void *ctx, struct counter *overflow)
{
	int i;

	(void)m;
	if (map_err)
		return map_err;
	for (i = 0; i < map_n; i++)
		if (fn(map[i].key, &map[i].c, ctx))
			return -ECANCELED;
	*overflow = map_overflow;
	return 0;
}

int fake_maps_overflow(struct maps *m, struct counter *overflow)
{
	(void)m;
	if (map_err)
		return map_err;
	*overflow = map_overflow;
	return 0;
}

/* Key of a 'count by udp.dstport' row: status byte, then the port. */
static void set(int i, unsigned int port, unsigned long long packets, unsigned long long bytes)
{
	memset(map[i].key, 0, sizeof(map[i].key));
	map[i].key[2] = port >> 8;
	map[i].key[3] = port;
	map[i].c = (struct counter){ packets, bytes };
	if (i >= map_n)
		map_n = i + 1;
}

static unsigned int port_of(const struct row *r)
{
	return r->key[2] << 8 | r->key[3];
}

/* The rows as "port:packets/bytes ...", then "| overflow | total". */
static void rows_text(const struct interval *iv, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < iv->nrows && len < size; i++)
		len += snprintf(buf + len, size - len, "%u:%llu/%llu ", port_of(&iv->rows[i]),
				iv->rows[i].c.packets, iv->rows[i].c.bytes);
	if (len < size)
		snprintf(buf + len, size - len, "| %llu/%llu | %llu/%llu%s", iv->overflow.packets,
			 iv->overflow.bytes, iv->total.packets, iv->total.bytes,
			 iv->final ? " final" : "");
}

static void expect(struct report *r, int final, const char *want, const char *name)
{
	struct interval iv;
	char buf[512];

	if (final) {
		report_final(r, &iv);
	} else if (report_collect(r, NULL, &iv)) {
		tap_ok(0, name);
		return;
	}
	rows_text(&iv, buf, sizeof(buf));
	tap_streq(buf, want, name);
}

static void check_deltas(const struct layout *lay)
{
	struct report *r = report_new(lay);

	map_n = 0;
	map_overflow = (struct counter){ 0, 0 };
	set(0, 53, 10, 1000);
	set(1, 443, 20, 3000);
	set(2, 80, 10, 2000);
	set(3, 22, 10, 1000);
	expect(r, 0, "443:20/3000 80:10/2000 22:10/1000 53:10/1000 | 0/0 | 50/7000",
	       "first interval: the counters, by packets, bytes, then key");

	set(0, 53, 15, 1500);
	set(4, 123, 1, 90);
	map_overflow = (struct counter){ 2, 120 };
	expect(r, 0, "53:5/500 123:1/90 | 2/120 | 8/710",
	       "second: differences; still keys left out; a new key");

	expect(r, 0, "| 0/0 | 0/0", "third: nothing moved, no rows");

	set(1, 443, 21, 3100);
	map_overflow = (struct counter){ 3, 180 };
	expect(r, 0, "443:1/100 | 1/60 | 2/160", "fourth: overflow differences");

	expect(r, 1, "443:21/3100 53:15/1500 80:10/2000 22:10/1000 123:1/90 | 3/180 | 60/7870 final",
	       "final: counters since start, every key");
	report_free(r);
}

static void check_growth(const struct layout *lay)
{
	struct report *r = report_new(lay);
	unsigned long long packets = 0;
	struct interval iv;
	int i, ok = 1;

	map_n = 0;
	map_overflow = (struct counter){ 0, 0 };
	for (i = 0; i < MAXE; i++)
		set(i, i, i + 1, 100);
	ok = !report_collect(r, NULL, &iv) && iv.nrows == MAXE;
	for (i = 0; ok && i < MAXE; i++) {
		ok = port_of(&iv.rows[i]) == (unsigned int)(MAXE - 1 - i) &&
		     iv.rows[i].c.packets == (unsigned long long)(MAXE - i);
		packets += iv.rows[i].c.packets;
	}
	ok = ok && packets == iv.total.packets && iv.total.bytes == 100ULL * MAXE;
	tap_ok(ok, "3000 keys: the table grows, every row once, sorted");

	for (i = 0; i < MAXE; i += 2)
		set(i, i, i + 2, 150);
	ok = !report_collect(r, NULL, &iv) && iv.nrows == MAXE / 2 &&
	     iv.total.packets == MAXE / 2 && iv.total.bytes == 50ULL * MAXE / 2;
	tap_ok(ok, "3000 keys: the next interval, half of them moved");
	report_free(r);
}

/*
 * A hash's tables (--max-keys 2): the maps give each interval's counts
 * (drained tables), which the report adds up; past 2 keys it forgets the
 * keys that did not count in the last interval, their totals in the final
 * overflow.
 */
static void check_drained(const struct layout *unbounded)
{
	struct layout lay = *unbounded;
	struct report *r;

	lay.tables = 1;
	lay.max_entries = 2;
	r = report_new(&lay);
	map_n = 0;
	map_overflow = (struct counter){ 1, 60 };
	set(0, 53, 10, 1000);
	set(1, 443, 20, 3000);
	expect(r, 0, "443:20/3000 53:10/1000 | 1/60 | 31/4060",
	       "bounded, first interval: the table's counts");
	set(0, 53, 5, 500);
	map_n = 1;
	map_overflow = (struct counter){ 4, 240 };
	expect(r, 0, "53:5/500 | 3/180 | 8/680", "bounded: the next interval's counts as they are");
	set(0, 80, 7, 700);
	set(1, 22, 1, 100);
	map_overflow = (struct counter){ 4, 240 };
	expect(r, 0, "80:7/700 22:1/100 | 0/0 | 8/800",
	       "bounded: new keys; the table keeps only those of the interval");
	map_n = 0;
	expect(r, 1, "80:7/700 22:1/100 | 39/4740 | 47/5540 final",
	       "bounded, final: kept keys; the forgotten keys' totals in the overflow");
	report_free(r);
}

/*
 * Tables that grow: a fold within the interval reads the drained counts
 * into it when the overflow moved (the tables grow then), and only then;
 * the interval's figures are those of both reads.
 */
static void check_fold(const struct layout *unbounded)
{
	struct layout lay = *unbounded;
	struct maps m = { .grows = 1 };
	struct report *r;

	lay.tables = 1;
	r = report_new(&lay);
	map_n = 0;
	map_overflow = (struct counter){ 0, 0 };
	set(0, 53, 10, 1000);
	expect(r, 0, "53:10/1000 | 0/0 | 10/1000", "grows, first interval");
	set(0, 53, 4, 400);
	tap_ok(test_report_fold(r, &m) == 0, "grows: no fold while nothing overflows");
	map_overflow = (struct counter){ 3, 300 };
	tap_ok(test_report_fold(r, &m) == 1, "grows: a fold when the overflow moved");
	set(0, 53, 2, 200);
	set(1, 443, 6, 600);
	tap_ok(test_report_fold(r, &m) == 0, "grows: no second fold for the same overflow");
	map_overflow = (struct counter){ 3, 300 };
	expect(r, 0, "53:6/600 443:6/600 | 3/300 | 15/1500",
	       "grows: the interval holds the folded read and the last one");
	m.grows = 0;
	map_overflow = (struct counter){ 9, 900 };
	tap_ok(test_report_fold(r, &m) == 0, "tables that do not grow are not folded");
	report_free(r);
}

static void check_error(const struct layout *lay)
{
	struct report *r = report_new(lay);
	struct interval iv;

	map_err = -EPERM;
	tap_ok(report_collect(r, NULL, &iv) == -EPERM, "a read error is returned");
	map_err = 0;
	report_free(r);
}

int main(void)
{
	struct parse_error perr;
	struct layout lay;
	struct query q;

	parse_query("count by udp.dstport", &q, &perr);
	layout_query(&q, 0, &lay);
	tap_ok(lay.row_size == 4 && lay.val_off[0] == 2 && lay.tables && !lay.max_entries,
		"udp.dstport rows: 4 bytes, port at 2, in tables that grow");
	/* counters that only grow, as an array's, in the same rows */
	lay.tables = 0;
	check_deltas(&lay);
	check_growth(&lay);
	check_drained(&lay);
	check_fold(&lay);
	check_error(&lay);
	return tap_done();
}
