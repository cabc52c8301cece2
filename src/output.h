/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views of an interval: a table for people, JSON Lines and CSV for
 * scripts, Prometheus expositions for monitoring.  Printers come in one
 * table and share one key formatter.  With several expressions, each
 * says which one a row belongs to: the human table in its header, JSON
 * in "expr", CSV in an expr column, the expositions in an expr label.
 */
#ifndef EBPFCOUNT_OUTPUT_H
#define EBPFCOUNT_OUTPUT_H

#include <stdio.h>

#include "layout.h"
#include "report.h"

struct printer;

struct output {
	const struct expr *x;	/* the expressions counted */
	int nx;
	int numeric;		/* -n: numbers, no protocol or port names */
	int ifnames;		/* sll.ifindex: this host's interface names */
	size_t top;		/* rows per interval, 0: all */
	FILE *f;
	const struct printer *p;
	/* the expression printed (output_select()) */
	const struct query *q;
	const struct layout *lay;
	const char *expr;	/* its text, when there are several, else NULL */
	int cur;		/* its index */
	/* CSV: the key columns, and where each expression's keys go */
	const char *cols[MAX_EXPRS * MAX_KEYS];
	int ncols, col[MAX_EXPRS][MAX_KEYS];
};

/* Pick the printer called format ("human", "json", "csv", "none"); -1 if none. */
int output_init(struct output *o, const char *format);
/*
 * Or the printer of a Prometheus exposition (metrics.h): the text format
 * 0.0.4, or OpenMetrics 1.0.  It prints final intervals (the totals since
 * start) as the counter families ebpfcount_packets and ebpfcount_bytes.
 */
void output_init_exposition(struct output *o, int openmetrics);
/* Once, before the first interval (the CSV header). */
void output_begin(struct output *o);
/* The intervals iv[0..o->nx) of the expressions, in their order. */
void output_interval(struct output *o, const struct interval *iv);
/*
 * n intervals from time from to time to in which a capture file has no
 * record, in one line (the expositions have none).
 */
void output_gap(struct output *o, double from, double to, unsigned long long n);
/* Print what follows (output_key_text()) for expression i. */
void output_select(struct output *o, int i);
/*
 * Key field i of a row's key (hash layout) as the human printer writes
 * it: a name unless -n, "(absent)", "(truncated)".
 */
void output_key_text(const struct output *o, int i, const unsigned char *key, char *buf,
		     size_t size);
/* A rate as the human printer writes it: "40 pps", "192.00 kbit/s". */
void output_rate(double v, const char *unit, char *buf, size_t size);
/* Is this the JSON printer (errors are then also written as JSON)? */
int output_is_json(const struct output *o);
/*
 * s on one line for a person, control characters escaped as the human
 * printer escapes them, into buf (cut to size); returns the escaped
 * length of s's first pos bytes (pos past its end or < 0: of all of s).
 */
int output_human(const char *s, int pos, char *buf, size_t size);
/* Write s as a Prometheus label value, quoted. */
void output_label_value(FILE *f, const char *s);
/*
 * A metric family's HELP and TYPE lines (ebpfcount_NAME), in OpenMetrics
 * if om, else in the text format.  Its samples' names end in _total for
 * a counter, _info for an info; so do the family's in the text format,
 * which knows no info (a gauge there).
 */
void output_family(FILE *f, int om, const char *name, const char *type, const char *help);

#endif
