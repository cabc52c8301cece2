// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c's rendering policy, without sockets: an exposition is made
 * when it is asked for (metrics_get()), once per update and format,
 * shared by every request; at most two of a format live (a slow reader
 * holding an older one: the latest is served again); the textfile is written at
 * the first update, not again within METRICS_TEXTFILE_GAP, and at the
 * last.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "parse.h"
#include "tap.h"

static struct expr x = { .text = "count" };

/* Totals of one row (count has one key, empty). */
static struct interval tot(unsigned long long packets)
{
	static unsigned char key[64];
	static struct row row;

	row = (struct row){ key, { packets, 60 * packets } };
	return (struct interval){ .final = 1, .rows = &row, .nrows = 1, .total = row.c };
}

/* The packets of the text format's (or OpenMetrics') total series in text. */
static long long packets_in(const char *text)
{
	const char *p = text ? strstr(text, "\nebpfcount_packets_total ") : NULL;

	return p ? atoll(p + strlen("\nebpfcount_packets_total ")) : -1;
}

static long long file_packets(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return packets_in(buf);
}

int main(void)
{
	struct health h = { .version = "test" };
	struct parse_error perr;
	struct exposition *e1, *e2, *e3, *om;
	struct interval t;
	const char *text, *text2;
	char err[256], dir[] = "/tmp/test_metrics.XXXXXX", path[64];
	struct metrics *m;
	size_t len;

	printf("1..14\n");
	if (parse_query(x.text, &x.q, &perr) || !mkdtemp(dir))
		return 1;
	layout_query(&x.q, 0, &x.lay);

	m = metrics_new(&x, 1, NULL, 1);
	tap_ok(!metrics_get(m, 0, &text, &len), "no exposition before the first update");
	t = tot(5);
	tap_ok(!metrics_update(m, &t, &h, 0, err, sizeof(err)), "update with 5 packets");
	e1 = metrics_get(m, 0, &text, &len);
	tap_okf(e1 && packets_in(text) == 5 && len == strlen(text),
		 "rendered when asked: 5 packets (%lld)", packets_in(text));
	e2 = metrics_get(m, 0, &text2, &len);
	tap_ok(e2 == e1 && text2 == text, "a second request shares the one rendering");
	om = metrics_get(m, 1, &text2, &len);
	tap_ok(om && om != e1 && strstr(text2, "# EOF\n"), "OpenMetrics is a rendering of its own");
	metrics_put(m, om);
	metrics_put(m, e2);
	t = tot(7);
	metrics_update(m, &t, &h, 0, err, sizeof(err));
	e2 = metrics_get(m, 0, &text2, &len);
	tap_okf(e2 && e2 != e1 && packets_in(text2) == 7,
		 "held by a slow reader: the new totals rendered beside it (%lld)",
		 packets_in(text2));
	tap_okf(packets_in(text) == 5, "the slow reader's text is still whole (%lld)",
		 packets_in(text));
	t = tot(9);
	metrics_update(m, &t, &h, 0, err, sizeof(err));
	e3 = metrics_get(m, 0, &text, &len);
	tap_okf(e3 == e2 && packets_in(text) == 7,
		 "two held: the latest again, never a third (%lld)", packets_in(text));
	metrics_put(m, e3);
	metrics_put(m, e1);
	e3 = metrics_get(m, 0, &text, &len);
	tap_okf(e3 && e3 != e2 && packets_in(text) == 9,
		 "the older one given back: the new totals (%lld)", packets_in(text));
	metrics_put(m, e2);
	metrics_put(m, e3);
	metrics_free(m);

	snprintf(path, sizeof(path), "%s/m.prom", dir);
	m = metrics_new(&x, 1, path, 0);
	t = tot(1);
	tap_ok(!metrics_update(m, &t, &h, 0, err, sizeof(err)) && file_packets(path) == 1,
		"the textfile is written at the first update");
	t = tot(2);
	metrics_update(m, &t, &h, 0, err, sizeof(err));
	tap_okf(file_packets(path) == 1, "not again within %.0f s (%lld)", METRICS_TEXTFILE_GAP,
		 file_packets(path));
	t = tot(3);
	metrics_update(m, &t, &h, 1, err, sizeof(err));
	tap_okf(file_packets(path) == 3, "the last update is written (%lld)", file_packets(path));
	usleep(METRICS_TEXTFILE_GAP * 1e6 + 50000);
	t = tot(4);
	metrics_update(m, &t, &h, 0, err, sizeof(err));
	tap_okf(file_packets(path) == 4, "after the gap, written again (%lld)", file_packets(path));
	tap_ok(!metrics_get(m, 0, &text, &len), "not serving: nothing kept for a server");
	metrics_free(m);
	unlink(path);
	rmdir(dir);
	return tap_failed != 0;
}
