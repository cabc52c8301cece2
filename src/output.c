// SPDX-License-Identifier: GPL-2.0
/* Human, JSON Lines and CSV printers; see output.h and ebpfcount(8). */
#include <arpa/inet.h>
#include <limits.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "names.h"
#include "json.h"
#include "output.h"

struct printer {
	const char *name;
	void (*begin)(struct output *o);
	void (*interval)(struct output *o, const struct interval *iv);
	void (*gap)(struct output *o, double from, double to, unsigned long long n);
	int exposition;		/* 0: -F, 1: Prometheus text 0.0.4, 2: OpenMetrics */
};

enum style { STYLE_HUMAN, STYLE_CSV };	/* JSON: json_key_value() */

static const char *const missing_names[] = {
	[KEY_ABSENT] = "absent", [KEY_TRUNCATED] = "truncated",
};

static int is_string(enum fmt f)
{
	return f == FMT_MAC || f == FMT_IP4 || f == FMT_IP6;
}

static void fmt_addr(const struct key *k, const unsigned char *v, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	int n;

	if (k->field->fmt == FMT_MAC) {
		snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x",
			 v[0], v[1], v[2], v[3], v[4], v[5]);
		return;
	}
	inet_ntop(k->field->fmt == FMT_IP4 ? AF_INET : AF_INET6, v, a, sizeof(a));
	n = snprintf(buf, size, "%s", a);
	if (k->prefix)
		snprintf(buf + n, size - n, "/%d", k->prefix);
}

/* A name for the value, when the human view wants one. */
static const char *value_name(const struct output *o, enum fmt f, unsigned long long v,
			      char *buf, size_t size)
{
	char ifname[IF_NAMESIZE];
	const char *s = NULL;

	if (f == FMT_IPPROTO)
		s = ipproto_name(v);
	else if (f == FMT_PORT)
		s = port_name(v);
	else if (f == FMT_TCPFLAGS)
		tcpflags_str(v, buf, size), s = buf;
	else if (f == FMT_PKTTYPE)
		s = pkttype_name(v);
	else if (f == FMT_IFINDEX && o->ifnames && v && v <= UINT_MAX &&
		 if_indextoname(v, ifname))
		snprintf(buf, size, "%s", ifname), s = buf;
	return s;
}

static void fmt_number(const struct output *o, const struct field *f, unsigned long long v,
		       enum style st, char *buf, size_t size)
{
	char name[24];
	const char *s = st == STYLE_HUMAN && !o->numeric ?
			value_name(o, f->fmt, v, name, sizeof(name)) : NULL;

	if (s)
		snprintf(buf, size, "%s", s);
	else if ((f->fmt == FMT_HEX || f->fmt == FMT_TCPFLAGS) && st == STYLE_HUMAN)
		snprintf(buf, size, "0x%04llx", v);
	else
		snprintf(buf, size, "%llu", v);
}

/* Key field i of a row, as the style writes it. */
static void key_text(const struct output *o, int i, const unsigned char *key, enum style st,
		     char *buf, size_t size)
{
	const struct key *k = &o->q->keys[i];
	const unsigned char *v = key + o->lay->val_off[i];

	if (key[i] != KEY_PRESENT)
		snprintf(buf, size, "%s", st == STYLE_CSV ? "" :
			 key[i] == KEY_ABSENT ? "(absent)" : "(truncated)");
	else if (!is_string(k->field->fmt))
		fmt_number(o, k->field, field_value(k->field, v), st, buf, size);
	else
		fmt_addr(k, v, buf, size);
}

void output_key_text(const struct output *o, int i, const unsigned char *key, char *buf,
		     size_t size)
{
	key_text(o, i, key, STYLE_HUMAN, buf, size);
}

/* "truncated" if a key is, else "absent" if a key is, else NULL. */
static const char *row_missing(const struct output *o, const unsigned char *key)
{
	int i, worst = KEY_PRESENT;

	for (i = 0; i < o->q->nkeys; i++)
		if (key[i] > worst)
			worst = key[i];
	return worst == KEY_PRESENT ? NULL : missing_names[worst];
}

static size_t shown(const struct output *o, const struct interval *iv)
{
	return o->top && o->top < iv->nrows ? o->top : iv->nrows;
}

/*
 * The rows --top leaves out, summed: printed in every format, so that the
 * rows shown, these and the overflow add up to the total.  Their number.
 */
static size_t others(const struct output *o, const struct interval *iv, struct counter *c)
{
	size_t i;

	*c = (struct counter){ 0 };
	for (i = shown(o, iv); i < iv->nrows; i++) {
		c->packets += iv->rows[i].c.packets;
		c->bytes += iv->rows[i].c.bytes;
	}
	return iv->nrows - shown(o, iv);
}

/* human */

static int col_width(const struct key *k)
{
	static const int widths[FMT_IFINDEX + 1] = {
		[FMT_MAC] = 17, [FMT_IP4] = 18, [FMT_IP6] = 43,
	};
	int w = widths[k->field->fmt] ? widths[k->field->fmt] : 11;
	int n = strlen(k->field->name);

	return n > w ? n : w;
}

void output_rate(double v, const char *unit, char *buf, size_t size)
{
	static const char *const prefixes[] = { "", "k", "M", "G", "T" };
	int i = 0;

	while (v >= 1000 && i < 4)
		v /= 1000, i++;
	snprintf(buf, size, "%.*f %s%s", i ? 2 : 0, v, prefixes[i], unit);
}

static void human_row(struct output *o, const unsigned char *key, const char *label,
		      const struct counter *c, double secs)
{
	char buf[64], pps[24], bps[24];
	int i;

	for (i = 0; i < o->q->nkeys; i++) {
		if (key)
			key_text(o, i, key, STYLE_HUMAN, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%s", i ? "" : label);
		fprintf(o->f, "  %-*s", col_width(&o->q->keys[i]), buf);
	}
	if (!o->q->nkeys)
		fprintf(o->f, "  %-11s", key ? "all" : label);
	fprintf(o->f, " %12llu %14llu", c->packets, c->bytes);
	if (secs > 0) {
		output_rate(c->packets / secs, "pps", pps, sizeof(pps));
		output_rate(c->bytes * 8 / secs, "bit/s", bps, sizeof(bps));
		fprintf(o->f, " %12s %14s", pps, bps);
	}
	fputc('\n', o->f);
}

/*
 * A time as HH:MM:SS.mmm, local: rounded to the millisecond as %.3f
 * rounds, and floored (so also before 1970).
 */
static void fmt_clock(double time, char *buf, size_t size)
{
	long long ms = (long long)floor(time * 1000 + 0.5), s = ms / 1000;
	char hms[32];
	time_t t;

	if (ms % 1000 < 0)
		s--;
	t = s;
	strftime(hms, sizeof(hms), "%H:%M:%S", localtime(&t));
	snprintf(buf, size, "%s.%03lld", hms, ms - s * 1000);
}

/*
 * c as a person reads it on one line: itself, or a control character
 * escaped (\n, \r, \t, \xHH), as JSON, CSV and the expositions escape or
 * quote them.  Its length in out.
 */
static int human_char(unsigned char c, char out[5])
{
	if (c == '\n' || c == '\r' || c == '\t')
		return snprintf(out, 5, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
	if (c < 0x20 || c == 0x7f)
		return snprintf(out, 5, "\\x%02x", c);
	out[0] = c;
	out[1] = '\0';
	return 1;
}

static void human_string(FILE *f, const char *s)
{
	char e[5];

	for (; *s; s++) {
		human_char(*s, e);
		fputs(e, f);
	}
}

int output_human(const char *s, int pos, char *buf, size_t size)
{
	size_t len = 0, end = 0;	/* end: of what fits in buf, no escape cut */
	int at = -1, i, n;
	char e[5];

	for (i = 0; s[i]; i++) {
		if (i == pos)
			at = len;
		n = human_char(s[i], e);
		if (end == len && len + n < size) {
			memcpy(buf + len, e, n);
			end += n;
		}
		len += n;
	}
	if (size)
		buf[end] = '\0';
	return at < 0 ? (int)len : at;
}

static void human_header(struct output *o, const struct interval *iv)
{
	char when[48];
	int i;

	fmt_clock(iv->time, when, sizeof(when));
	if (iv->final)
		fprintf(o->f, "total since start: %llu packets, %llu bytes",
			iv->total.packets, iv->total.bytes);
	else
		fprintf(o->f, "%s  %.3f s  %llu packets  %llu bytes", when, iv->secs,
			iv->total.packets, iv->total.bytes);
	if (o->expr) {
		fputs("  ", o->f);
		human_string(o->f, o->expr);
	}
	fputc('\n', o->f);
	for (i = 0; i < o->q->nkeys; i++)
		fprintf(o->f, "  %-*s", col_width(&o->q->keys[i]), o->q->keys[i].field->name);
	if (!o->q->nkeys)
		fprintf(o->f, "  %-11s", "");
	fprintf(o->f, " %12s %14s", "packets", "bytes");
	fprintf(o->f, iv->final ? "\n" : " %12s %14s\n", "rate", "bit rate");
}

static void human_interval(struct output *o, const struct interval *iv)
{
	double secs = iv->final ? 0 : iv->secs;
	size_t i;

	struct counter rest;
	size_t n = others(o, iv, &rest);
	char label[48];

	human_header(o, iv);
	for (i = 0; i < shown(o, iv); i++)
		human_row(o, iv->rows[i].key, NULL, &iv->rows[i].c, secs);
	if (n) {
		snprintf(label, sizeof(label), "(%zu more %s)", n, n == 1 ? "key" : "keys");
		human_row(o, NULL, label, &rest, secs);
	}
	if (iv->overflow.packets || iv->overflow.bytes)
		human_row(o, NULL, "(overflow)", &iv->overflow, secs);
	fputc('\n', o->f);
}

static void human_gap(struct output *o, double from, double to, unsigned long long n)
{
	char when[48];

	fmt_clock(to, when, sizeof(when));
	fprintf(o->f, "%s  %.3f s  no packets in %llu intervals\n\n", when, to - from, n);
}

/* JSON Lines, through json.h */

/* Key field i of a row: a JSON number, string or null. */
static void json_key_value(struct json *j, const struct output *o, int i, const unsigned char *key)
{
	const struct key *k = &o->q->keys[i];
	const unsigned char *v = key + o->lay->val_off[i];
	char a[56];

	json_key(j, k->field->name);
	if (key[i] != KEY_PRESENT) {
		json_null(j);
	} else if (is_string(k->field->fmt)) {
		fmt_addr(k, v, a, sizeof(a));
		json_string(j, a);
	} else {
		json_uint(j, field_value(k->field, v));
	}
}

static void json_row(struct json *j, const struct output *o, const struct row *r)
{
	const char *missing = row_missing(o, r->key);
	int i;

	json_object(j);
	for (i = 0; i < o->q->nkeys; i++)
		json_key_value(j, o, i, r->key);
	if (missing) {
		json_key(j, "missing");
		json_string(j, missing);
	}
	json_key(j, "packets");
	json_uint(j, r->c.packets);
	json_key(j, "bytes");
	json_uint(j, r->c.bytes);
	json_end(j);
}

static void json_interval(struct output *o, const struct interval *iv)
{
	struct counter rest;
	size_t i, n = others(o, iv, &rest);
	struct json j;

	json_open(&j, o->f);
	json_object(&j);
	json_key(&j, "time");
	json_secs(&j, iv->time);
	json_key(&j, "interval");
	json_secs(&j, iv->secs);
	if (o->expr) {
		json_key(&j, "expr");
		json_string(&j, o->expr);
	}
	if (iv->final) {
		json_key(&j, "final");
		json_bool(&j, 1);
	}
	json_key(&j, "rows");
	json_array(&j);
	for (i = 0; i < shown(o, iv); i++)
		json_row(&j, o, &iv->rows[i]);
	json_end(&j);
	if (n) {
		json_key(&j, "others");
		json_object(&j);
		json_key(&j, "keys");
		json_uint(&j, n);
		json_key(&j, "packets");
		json_uint(&j, rest.packets);
		json_key(&j, "bytes");
		json_uint(&j, rest.bytes);
		json_end(&j);
	}
	json_counter(&j, "overflow", iv->overflow.packets, iv->overflow.bytes);
	json_counter(&j, "total", iv->total.packets, iv->total.bytes);
	json_close(&j);
}

static void json_gap(struct output *o, double from, double to, unsigned long long n)
{
	struct json j;

	json_open(&j, o->f);
	json_object(&j);
	json_key(&j, "time");
	json_secs(&j, to);
	json_key(&j, "interval");
	json_secs(&j, to - from);
	json_key(&j, "empty_intervals");
	json_uint(&j, n);
	json_key(&j, "from");
	json_secs(&j, from);
	json_key(&j, "to");
	json_secs(&j, to);
	json_close(&j);
}

/* CSV */

/*
 * The key columns: the fields of every expression, in the order they come
 * (an expression names a field once at most, parse.c).
 */
static void csv_columns(struct output *o)
{
	int i, j, c;

	o->ncols = 0;
	for (i = 0; i < o->nx; i++) {
		for (j = 0; j < o->x[i].q.nkeys; j++) {
			const char *name = o->x[i].q.keys[j].field->name;

			for (c = 0; c < o->ncols && strcmp(o->cols[c], name); c++)
				;
			if (c == o->ncols)
				o->cols[o->ncols++] = name;
			o->col[i][j] = c;
		}
	}
}

static void csv_begin(struct output *o)
{
	int i;

	csv_columns(o);
	fprintf(o->f, "time,interval,final,%skind", o->nx > 1 ? "expr," : "");
	for (i = 0; i < o->ncols; i++)
		fprintf(o->f, ",%s", o->cols[i]);
	fprintf(o->f, ",missing,packets,bytes\n");
}

/* s as a CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_string(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++)
		fprintf(f, *s == '"' ? "\"\"" : "%c", *s);
	fputc('"', f);
}

/* One line of csv_begin()'s columns; cols NULL: no key. */
static void csv_fields(struct output *o, double time, double secs, int final, const char *expr,
		       const char *kind, char (*cols)[64], const char *missing,
		       const struct counter *c)
{
	int i;

	fprintf(o->f, "%.3f,%.3f,%d,", time, secs, final);
	if (o->nx > 1) {
		csv_string(o->f, expr);
		fputc(',', o->f);
	}
	fputs(kind, o->f);
	for (i = 0; i < o->ncols; i++)
		fprintf(o->f, ",%s", cols ? cols[i] : "");
	fprintf(o->f, ",%s,%llu,%llu\n", missing, c->packets, c->bytes);
}

static void csv_line(struct output *o, const struct interval *iv, const char *kind,
		     const unsigned char *key, const struct counter *c)
{
	const char *missing = key ? row_missing(o, key) : NULL;
	char buf[MAX_EXPRS * MAX_KEYS][64];
	int i;

	for (i = 0; i < o->ncols; i++)
		buf[i][0] = '\0';
	for (i = 0; key && i < o->q->nkeys; i++)
		key_text(o, i, key, STYLE_CSV, buf[o->col[o->cur][i]], sizeof(buf[0]));
	csv_fields(o, iv->time, iv->secs, iv->final, o->expr, kind, buf, missing ? missing : "",
		   c);
}

static void csv_interval(struct output *o, const struct interval *iv)
{
	struct counter rest;
	size_t i;

	for (i = 0; i < shown(o, iv); i++)
		csv_line(o, iv, "row", iv->rows[i].key, &iv->rows[i].c);
	if (others(o, iv, &rest))
		csv_line(o, iv, "others", NULL, &rest);
	csv_line(o, iv, "overflow", NULL, &iv->overflow);
	csv_line(o, iv, "total", NULL, &iv->total);
}

/* No expression and no key: the count in the missing column. */
static void csv_gap(struct output *o, double from, double to, unsigned long long n)
{
	char count[24];

	snprintf(count, sizeof(count), "%llu", n);
	csv_fields(o, to, to - from, 0, "", "empty", NULL, count, &(struct counter){ 0 });
}

/*
 * Prometheus: the totals since start (a final interval) as two counter
 * families, one series per key, labelled by the key fields (dots become
 * underscores, values as JSON and CSV write them); a key field that is
 * missing is "(absent)" or "(truncated)" and the series has a missing
 * label; the overflow is a series of its own, so that the series add up
 * to the total.
 */

void output_label_value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fprintf(f, "\\n");
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void label_name(FILE *f, const char *field)
{
	for (; *field; field++)
		fputc(*field == '.' ? '_' : *field, f);
}

/* The labels of a row's key, or of the overflow (key NULL). */
static void expo_labels(struct output *o, const unsigned char *key)
{
	const char *missing = key ? row_missing(o, key) : NULL;
	const char *sep = "{";
	char buf[64];
	int i;

	if (o->expr) {
		fprintf(o->f, "{expr=");
		output_label_value(o->f, o->expr);
		sep = ",";
	}
	for (i = 0; key && i < o->q->nkeys; i++) {
		/* a missing field says how, as the human view does: two keys
		 * missing in different fields stay two series */
		key_text(o, i, key, key[i] == KEY_PRESENT ? STYLE_CSV : STYLE_HUMAN, buf,
			 sizeof(buf));
		fputs(sep, o->f);
		label_name(o->f, o->q->keys[i].field->name);
		fputc('=', o->f);
		output_label_value(o->f, buf);
		sep = ",";
	}
	if (missing || !key) {
		fprintf(o->f, "%s%s=\"%s\"", sep, key ? "missing" : "overflow",
			key ? missing : "true");
		sep = ",";
	}
	if (*sep == ',')
		fputc('}', o->f);
}

void output_family(FILE *f, int om, const char *name, const char *type, const char *help)
{
	const char *suffix = "";

	if (!om && !strcmp(type, "counter"))
		suffix = "_total";
	if (!om && !strcmp(type, "info"))
		suffix = "_info", type = "gauge";
	fprintf(f, "# HELP ebpfcount_%s%s %s\n", name, suffix, help);
	fprintf(f, "# TYPE ebpfcount_%s%s %s\n", name, suffix, type);
}

static void expo_family(struct output *o, const struct interval *iv, const char *name,
			const char *help, int bytes)
{
	const struct counter *c;
	size_t i;
	int x;

	output_family(o->f, o->p->exposition == 2, name, "counter", help);
	for (x = 0; x < o->nx; x++) {
		output_select(o, x);
		for (i = 0; i < iv[x].nrows; i++) {
			c = &iv[x].rows[i].c;
			fprintf(o->f, "ebpfcount_%s_total", name);
			expo_labels(o, iv[x].rows[i].key);
			fprintf(o->f, " %llu\n", bytes ? c->bytes : c->packets);
		}
		c = &iv[x].overflow;
		fprintf(o->f, "ebpfcount_%s_total", name);
		expo_labels(o, NULL);
		fprintf(o->f, " %llu\n", bytes ? c->bytes : c->packets);
	}
}

static void expo_interval(struct output *o, const struct interval *iv)
{
	expo_family(o, iv, "packets", "Packets counted per key since ebpfcount started.", 0);
	expo_family(o, iv, "bytes", "Bytes counted per key since ebpfcount started.", 1);
}

static void no_begin(struct output *o)
{
	(void)o;
}

static void no_interval(struct output *o, const struct interval *iv)
{
	(void)o, (void)iv;
}

static void no_gap(struct output *o, double from, double to, unsigned long long n)
{
	(void)o, (void)from, (void)to, (void)n;
}

static const struct printer printers[] = {
	{ "human", no_begin, human_interval, human_gap, 0 },
	{ "json", no_begin, json_interval, json_gap, 0 },
	{ "csv", csv_begin, csv_interval, csv_gap, 0 },
	{ "none", no_begin, no_interval, no_gap, 0 },
	{ "prometheus", no_begin, expo_interval, no_gap, 1 },
	{ "openmetrics", no_begin, expo_interval, no_gap, 2 },
};

static int init(struct output *o, const char *format, int exposition)
{
	size_t i;

	for (i = 0; i < sizeof(printers) / sizeof(printers[0]); i++)
		if (printers[i].exposition == exposition && !strcmp(printers[i].name, format)) {
			o->p = &printers[i];
			return 0;
		}
	return -1;
}

int output_init(struct output *o, const char *format)
{
	return init(o, format, 0);
}

void output_init_exposition(struct output *o, int openmetrics)
{
	init(o, openmetrics ? "openmetrics" : "prometheus", openmetrics ? 2 : 1);
}

void output_begin(struct output *o)
{
	output_select(o, 0);
	o->p->begin(o);
}

void output_select(struct output *o, int i)
{
	o->cur = i;
	o->q = &o->x[i].q;
	o->lay = &o->x[i].lay;
	o->expr = o->nx > 1 ? o->x[i].text : NULL;
}

void output_interval(struct output *o, const struct interval *iv)
{
	int i;

	if (o->p->exposition) {
		o->p->interval(o, iv);	/* a family's series all together */
	} else {
		for (i = 0; i < o->nx; i++) {
			output_select(o, i);
			o->p->interval(o, &iv[i]);
		}
	}
	fflush(o->f);
}

void output_gap(struct output *o, double from, double to, unsigned long long n)
{
	o->p->gap(o, from, to, n);
	fflush(o->f);
}

int output_is_json(const struct output *o)
{
	return o->p == &printers[1];
}
