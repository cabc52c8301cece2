// SPDX-License-Identifier: GPL-2.0
/* The live view on a terminal; see view.h and ebpfcount(8). */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "view.h"

#define H VIEW_HISTORY
#define TOP 7			/* screen lines above the keys */
#define TABS (TOP - 2)		/* the line of the tabs, with several expressions */

/* A key the view follows: its counts in the last H intervals. */
struct line {
	const unsigned char *key;	/* in its picture's keys */
	struct counter hist[H];		/* oldest first; hist[H - 1]: the last interval */
};

/* What the view knows after an interval: what it shows, or showed when paused. */
struct picture {
	double time, secs;		/* the interval's end and length; secs 0: none yet */
	struct counter total;		/* in the interval */
	struct counter since;		/* since start, */
	double since_secs;		/* over that many seconds */
	struct counter overflow[H];	/* as a line's hist */
	int link;			/* the interface's counters are known: */
	struct if_counters d, dsince;	/* their deltas over the interval, since start */
	size_t more;			/* keys of the interval not followed */
	struct line *lines;		/* n of them, sorted by key */
	size_t n;
	size_t *order;			/* the lines as shown */
	int sorted;			/* order is by: 0 packets, 1 bytes, -1 not yet */
	unsigned char *keys;		/* the lines' keys, row_size bytes each */
};

/* An expression's tab: its pictures, and how they are shown. */
struct tab {
	const char *text;		/* the expression */
	size_t row_size;		/* of its keys */
	struct picture *cur;		/* the last interval's */
	struct picture *shown;		/* cur, or the one paused on */
	int by_bytes;			/* s: sort by bytes */
	size_t first;			/* the item at the top of the list */
};

struct view {
	const struct output *o;		/* &out */
	struct output out;		/* the caller's, on the expression shown */
	const char *ifname;
	int loopback;			/* every packet is received and sent */
	SCREEN *screen;
	int utf8;			/* the locale's: UTF-8 sparklines */
	int paused;			/* p: every tab stays on its picture */
	struct tab tab[MAX_EXPRS];	/* one per expression, o->nx */
	struct tab *t;			/* the one shown */
	int have_c;			/* the interface's counters: */
	struct if_counters c0, c;	/* at start, at the last interval */
};

static struct view *active;	/* for the exit handler */

static void picture_free(struct picture *f)
{
	if (!f)
		return;
	free(f->lines);
	free(f->order);
	free(f->keys);
	free(f);
}

static int row_cmp_key(const void *a, const void *b, void *ctx)
{
	return memcmp(((const struct row *)a)->key, ((const struct row *)b)->key,
		      *(const size_t *)ctx);
}

static unsigned long long metric(const struct counter *c, int bytes)
{
	return bytes ? c->bytes : c->packets;
}

/* The packets (or bytes) of hist[from] to the last interval. */
static unsigned long long window(const struct counter *hist, int from, int bytes)
{
	unsigned long long s = 0;
	int i;

	for (i = from; i < H; i++)
		s += metric(&hist[i], bytes);
	return s;
}

struct order_ctx {
	const struct picture *f;
	size_t row_size;
	int bytes;
};

/* The busiest of the last interval first, then of the window, then by key. */
static int cmp_shown(const void *a, const void *b, void *ctx)
{
	const struct order_ctx *oc = ctx;
	const struct line *x = &oc->f->lines[*(const size_t *)a];
	const struct line *y = &oc->f->lines[*(const size_t *)b];
	unsigned long long u, w;

	u = metric(&x->hist[H - 1], oc->bytes), w = metric(&y->hist[H - 1], oc->bytes);
	if (u != w)
		return u < w ? 1 : -1;
	u = metric(&x->hist[H - 1], !oc->bytes), w = metric(&y->hist[H - 1], !oc->bytes);
	if (u != w)
		return u < w ? 1 : -1;
	u = window(x->hist, 0, oc->bytes), w = window(y->hist, 0, oc->bytes);
	if (u != w)
		return u < w ? 1 : -1;
	return memcmp(x->key, y->key, oc->row_size);
}

static void sort_shown(const struct tab *t, struct picture *f)
{
	struct order_ctx oc = { f, t->row_size, t->by_bytes };
	size_t i;

	if (f->sorted == t->by_bytes)
		return;
	for (i = 0; i < f->n; i++)
		f->order[i] = i;
	if (f->n)	/* the first picture has no order array */
		qsort_r(f->order, f->n, sizeof(*f->order), cmp_shown, &oc);
	f->sorted = t->by_bytes;
}

/* A line for key, its history that of from (shifted by an interval) then c. */
static void add_line(struct picture *f, size_t row_size, const unsigned char *key,
		     const struct line *from, const struct counter *c)
{
	struct line *l = &f->lines[f->n];

	memcpy(f->keys + f->n * row_size, key, row_size);
	l->key = f->keys + f->n * row_size;
	memset(l->hist, 0, sizeof(l->hist));
	if (from)
		memcpy(l->hist, from->hist + 1, (H - 1) * sizeof(*l->hist));
	if (c)
		l->hist[H - 1] = *c;
	f->n++;
}

static struct if_counters if_delta(const struct if_counters *a, const struct if_counters *b)
{
	return (struct if_counters){ a->rx_packets - b->rx_packets, a->rx_bytes - b->rx_bytes,
				     a->rx_dropped - b->rx_dropped, a->tx_packets - b->tx_packets,
				     a->tx_bytes - b->tx_bytes };
}

/*
 * The picture after tab t's last with its interval iv: the busiest keys of
 * iv (as many as --top or VIEW_KEYS), and the last picture's keys that
 * counted in the last H intervals, merged by key; no interface counters
 * yet (set_link()).  NULL out of memory.
 */
static struct picture *fold(const struct view *v, const struct tab *t, const struct interval *iv)
{
	const struct picture *old = t->cur;
	size_t rs = t->row_size, cap = v->o->top ? v->o->top : VIEW_KEYS;
	size_t nnew = iv->nrows < cap ? iv->nrows : cap, most = nnew + old->n, i = 0, j = 0;
	struct picture *f = calloc(1, sizeof(*f));
	struct row *rows = malloc((nnew ? nnew : 1) * sizeof(*rows));

	if (f) {
		f->lines = malloc((most ? most : 1) * sizeof(*f->lines));
		f->order = malloc((most ? most : 1) * sizeof(*f->order));
		f->keys = malloc((most ? most : 1) * rs);
	}
	if (!rows || !f || !f->lines || !f->order || !f->keys) {
		free(rows);
		picture_free(f);
		return NULL;
	}
	if (nnew) {	/* (no rows: iv->rows may be NULL) */
		memcpy(rows, iv->rows, nnew * sizeof(*rows));
		qsort_r(rows, nnew, sizeof(*rows), row_cmp_key, &rs);
	}
	while (i < nnew || j < old->n) {
		const struct line *prev = j < old->n ? &old->lines[j] : NULL;
		int d = i == nnew ? 1 : !prev ? -1 : memcmp(rows[i].key, prev->key, rs);

		if (d < 0) {		/* a new key */
			add_line(f, rs, rows[i].key, NULL, &rows[i].c);
			i++;
		} else if (d > 0) {	/* a key that did not count: while in the window */
			if (window(prev->hist, 1, 0) || window(prev->hist, 1, 1))
				add_line(f, rs, prev->key, prev, NULL);
			j++;
		} else {
			add_line(f, rs, rows[i].key, prev, &rows[i].c);
			i++, j++;
		}
	}
	free(rows);
	f->sorted = -1;
	f->time = iv->time;
	f->secs = iv->secs;
	f->total = iv->total;
	f->since.packets = old->since.packets + iv->total.packets;
	f->since.bytes = old->since.bytes + iv->total.bytes;
	f->since_secs = old->since_secs + iv->secs;
	memcpy(f->overflow, old->overflow + 1, (H - 1) * sizeof(*f->overflow));
	f->overflow[H - 1] = iv->overflow;
	f->more = iv->nrows - nnew;
	return f;
}

/*
 * The interface's counters c at the end of an interval (NULL: unknown,
 * and from then on) into the interval's pictures f[0..n), one per tab.
 */
static void set_link(struct view *v, struct picture *const *f, int n, const struct if_counters *c)
{
	int i;

	v->have_c = v->have_c && c;
	if (!v->have_c)
		return;
	for (i = 0; i < n; i++) {
		f[i]->link = 1;
		f[i]->d = if_delta(c, &v->c);
		f[i]->dsince = if_delta(c, &v->c0);
	}
	v->c = *c;
}

/* Write s at line y from column x, cut at the right edge. */
static void put(int y, int x, const char *s)
{
	if (y >= 0 && y < LINES && x < COLS)
		mvaddnstr(y, x, s, COLS - x);
}

/* The interface's counters, and how many of them were counted. */
static void link_line(const struct view *v, int y, const struct if_counters *d,
		      unsigned long long counted)
{
	char buf[256];
	int n;

	n = snprintf(buf, sizeof(buf), "  %s: %llu received, %llu sent", v->ifname,
		     d->rx_packets, d->tx_packets);
	/* without a where clause every packet in either direction counts,
	 * once: a loopback's are each received and sent */
	if (!v->o->q->filter)
		snprintf(buf + n, sizeof(buf) - n, "; counted %llu of %llu", counted,
			 d->rx_packets + (v->loopback ? 0 : d->tx_packets));
	put(y, 0, buf);
}

static void header(const struct view *v, const struct picture *f)
{
	char buf[256], text[200], pps[24], bps[24], when[16] = "";
	time_t t = (time_t)floor(f->time);
	int n;

	if (f->secs > 0)
		strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	output_human(v->t->text, -1, text, sizeof(text));
	snprintf(buf, sizeof(buf), "ebpfcount on %s: %s", v->ifname, text);
	attron(A_BOLD);
	put(0, 0, buf);
	attroff(A_BOLD);
	n = snprintf(buf, sizeof(buf), "  sorted by %s  %s", v->t->by_bytes ? "bytes" : "packets",
		     when);
	if (v->paused) {
		attron(A_REVERSE);
		put(0, COLS - n - 8, " PAUSED ");
		attroff(A_REVERSE);
	}
	put(0, COLS - n, buf);
	if (f->secs <= 0) {
		put(1, 0, "waiting for the first interval");
		return;
	}
	output_rate(f->total.packets / f->secs, "pps", pps, sizeof(pps));
	output_rate(f->total.bytes * 8 / f->secs, "bit/s", bps, sizeof(bps));
	snprintf(buf, sizeof(buf), "interval (%.3f s): %llu packets, %llu bytes, %s, %s",
		 f->secs, f->total.packets, f->total.bytes, pps, bps);
	put(1, 0, buf);
	if (f->link)
		link_line(v, 2, &f->d, f->total.packets);
	snprintf(buf, sizeof(buf), "since start (%.0f s): %llu packets, %llu bytes",
		 f->since_secs, f->since.packets, f->since.bytes);
	put(3, 0, buf);
	if (f->link)
		link_line(v, 4, &f->dsince, f->since.packets);
}

/* A sparkline of hist at (y, x): each interval's packets (or bytes) against their most. */
static void sparkline(const struct view *v, int y, int x, const struct counter *hist)
{
	static const char *const utf8[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584",
					     "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*#@";
	unsigned long long most = 0, m;
	char cell[2] = "";
	int i, level;

	for (i = 0; i < H; i++)
		if (metric(&hist[i], v->t->by_bytes) > most)
			most = metric(&hist[i], v->t->by_bytes);
	for (i = 0; i < H && x + i < COLS; i++) {
		/* 0 is a blank, anything else a bar from 1 to 8 */
		m = metric(&hist[i], v->t->by_bytes);
		level = m ? 1 + (int)(7.0 * m / most) : 0;
		cell[0] = ascii[level];
		put(y, x + i, v->utf8 ? utf8[level] : cell);
	}
}

/* Columns of keys: the query's, or one for "all" (a query without keys). */
static int columns(const struct view *v)
{
	return v->o->q->nkeys ? v->o->q->nkeys : 1;
}

/* The overflow counted in the window. */
static int overflowed(const struct picture *f)
{
	return window(f->overflow, 0, 0) || window(f->overflow, 0, 1);
}

/* Items of the list: the lines as shown, "(N more keys)", the overflow. */
static size_t items(const struct picture *f)
{
	return f->n + !!f->more + overflowed(f);
}

/* Key column i of a line (key NULL: of the overflow). */
static void key_cell(const struct view *v, const unsigned char *key, int i, char *buf,
		     size_t size)
{
	if (!key)
		snprintf(buf, size, "%s", i ? "" : "(overflow)");
	else if (!v->o->q->nkeys)
		snprintf(buf, size, "all");
	else
		output_key_text(v->o, i, key, buf, size);
}

/* The key columns' widths: their names' and their widest values'. */
static void widths(const struct view *v, const struct picture *f, int *w)
{
	char buf[64];
	size_t j;
	int i, n;

	for (i = 0; i < columns(v); i++) {
		w[i] = v->o->q->nkeys ? (int)strlen(v->o->q->keys[i].field->name) : 0;
		for (j = 0; j < f->n + overflowed(f); j++) {
			key_cell(v, j < f->n ? f->lines[j].key : NULL, i, buf, sizeof(buf));
			n = strlen(buf);
			if (n > w[i])
				w[i] = n;
		}
	}
}

/* The line of key (NULL: the overflow) with history hist, at screen line y. */
static void row(const struct view *v, const struct picture *f, int y, const int *w,
		const unsigned char *key, const struct counter *hist)
{
	const struct counter *c = &hist[H - 1];
	unsigned long long all = metric(&f->total, v->t->by_bytes);
	char buf[1024], cell[64], pps[24], bps[24], share[16] = "";
	int i, n = 0;

	for (i = 0; i < columns(v); i++) {
		key_cell(v, key, i, cell, sizeof(cell));
		n += snprintf(buf + n, sizeof(buf) - n, "  %-*s", w[i], cell);
	}
	output_rate(c->packets / f->secs, "pps", pps, sizeof(pps));
	output_rate(c->bytes * 8 / f->secs, "bit/s", bps, sizeof(bps));
	if (all)
		snprintf(share, sizeof(share), "%.1f%%", 100.0 * metric(c, v->t->by_bytes) / all);
	n += snprintf(buf + n, sizeof(buf) - n, " %12s %14s %7s  ", pps, bps, share);
	put(y, 0, buf);
	sparkline(v, y, n, hist);
}

/* A line in reverse video across the screen. */
static void bar(int y, const char *s)
{
	attron(A_REVERSE);
	mvprintw(y, 0, "%-*.*s", COLS, COLS, s);
	attroff(A_REVERSE);
}

static void table(struct view *v, const struct picture *f, int page)
{
	char buf[1024];
	size_t k, all = items(f), *first = &v->t->first;
	int w[MAX_KEYS], i, y, n = 0;

	widths(v, f, w);
	for (i = 0; i < columns(v); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "  %-*s", w[i],
			      v->o->q->nkeys ? v->o->q->keys[i].field->name : "");
	snprintf(buf + n, sizeof(buf) - n, " %12s %14s %7s  last %d", "rate", "bit rate",
		 "share", H);
	bar(TOP - 1, buf);
	if (*first + page > all)
		*first = all > (size_t)page ? all - page : 0;
	for (y = 0; y < page && *first + y < all; y++) {
		k = *first + y;
		if (k < f->n) {
			row(v, f, TOP + y, w, f->lines[f->order[k]].key, f->lines[f->order[k]].hist);
		} else if (k == f->n && f->more) {
			snprintf(buf, sizeof(buf), "  (%zu more %s)", f->more,
				 f->more == 1 ? "key" : "keys");
			put(TOP + y, 0, buf);
		} else {
			row(v, f, TOP + y, w, NULL, f->overflow);
		}
	}
}

static void footer(const struct view *v, const struct picture *f, int page)
{
	size_t first = v->t->first, all = items(f), last = first + page < all ? first + page : all;
	char buf[256], tabs[32] = "", where[64] = "";
	int n;

	if (v->o->nx > 1)
		snprintf(tabs, sizeof(tabs), "Tab S-Tab 1-%d tabs  ", v->o->nx < 9 ? v->o->nx : 9);
	n = snprintf(buf, sizeof(buf), " q quit  s sort by %s  p %s  %s%s",
		     v->t->by_bytes ? "packets" : "bytes", v->paused ? "resume" : "pause", tabs,
		     "arrows PgUp PgDn Home End scroll");
	if (all)
		snprintf(where, sizeof(where), "%zu-%zu of %zu ", first + 1, last, all);
	/* the position at the right, if it fits */
	if (n + (int)strlen(where) + 2 <= COLS)
		snprintf(buf + n, sizeof(buf) - n, "%*s", COLS - n, where);
	bar(LINES - 1, buf);
}

/*
 * Widths w[0..n) of n labels as long as len[] on cols columns: those no
 * longer than a fair share of what is left whole, the others share the rest.
 */
static void share(const int *len, int n, int cols, int *w)
{
	int left = n, fair = 0, more = 1, i;

	memset(w, 0, n * sizeof(*w));
	while (more && left) {
		more = 0;
		fair = cols / left;
		for (i = 0; i < n; i++)
			if (!w[i] && len[i] <= fair) {
				w[i] = len[i];
				cols -= len[i];
				left--;
				more = 1;
			}
	}
	for (i = 0; i < n; i++)
		if (!w[i])
			w[i] = fair;
}

/*
 * Tab i's label in w columns: "[N text]" for the tab shown, " N text "
 * for the others (so labels side by side stay apart), the text cut with
 * "..." if it does not fit.  Its length.
 */
static int label(const struct view *v, int i, int w, char *buf, size_t size)
{
	int shown = &v->tab[i] == v->t, n;
	char text[256];

	output_human(v->tab[i].text, -1, text, sizeof(text));
	n = snprintf(buf, size, "%c%d %s", shown ? '[' : ' ', i + 1, text);

	if (n > (int)size - 2)
		n = size - 2;
	if (w < 3)
		w = 3;
	if (n > w - 1) {
		n = w - 1;
		if (n >= 8)
			memcpy(buf + n - 3, "...", 3);
	}
	buf[n++] = shown ? ']' : ' ';
	buf[n] = '\0';
	return n;
}

/* With several expressions, a line of tabs, one each, the one shown in reverse video. */
static void tab_bar(const struct view *v, int y)
{
	int len[MAX_EXPRS], w[MAX_EXPRS], i, n, x = 0;
	char buf[256];

	if (v->o->nx < 2)
		return;
	for (i = 0; i < v->o->nx; i++)
		len[i] = label(v, i, sizeof(buf), buf, sizeof(buf));
	share(len, v->o->nx, COLS, w);
	for (i = 0; i < v->o->nx; i++) {
		n = label(v, i, w[i], buf, sizeof(buf));
		if (&v->tab[i] == v->t)
			attron(A_REVERSE);
		put(y, x, buf);
		attroff(A_REVERSE);
		x += n;
	}
}

static void draw(struct view *v)
{
	struct picture *f = v->t->shown;
	int page = LINES - TOP - 1 > 0 ? LINES - TOP - 1 : 0;

	sort_shown(v->t, f);
	erase();
	header(v, f);
	tab_bar(v, TABS);
	if (f->secs > 0)
		table(v, f, page);
	footer(v, f, f->secs > 0 ? page : 0);
	refresh();
}

/* p: every tab stays on its picture, or shows its last again. */
static void toggle_pause(struct view *v)
{
	struct tab *t;

	v->paused = !v->paused;
	if (v->paused)
		return;
	for (t = v->tab; t < v->tab + v->o->nx; t++)
		if (t->shown != t->cur) {
			picture_free(t->shown);
			t->shown = t->cur;
		}
}

/* Show tab i (modulo their number): its expression's rows, as it left them. */
static void select_tab(struct view *v, int i)
{
	i %= v->o->nx;
	v->t = &v->tab[i];
	output_select(&v->out, i);
}

/* The keys of the tab shown: s, the arrows, PgUp, PgDn, Home, End; 0 if not one. */
static int tab_key(struct tab *t, int ch)
{
	size_t page = LINES - TOP - 1 > 1 ? LINES - TOP - 1 : 1;

	switch (ch) {
	case 's': case 'S': t->by_bytes = !t->by_bytes; break;
	case KEY_UP: t->first -= t->first > 0; break;
	case KEY_DOWN: t->first++; break;	/* draw() stops at the end */
	case KEY_PPAGE: t->first = t->first > page ? t->first - page : 0; break;
	case KEY_NPAGE: t->first += page; break;
	case KEY_HOME: t->first = 0; break;
	case KEY_END: t->first = SIZE_MAX - page; break;
	default: return 0;
	}
	return 1;
}

int view_keys(struct view *v)
{
	int ch, redraw = 0, i;

	while ((ch = getch()) != ERR) {
		redraw = 1;
		i = v->t - v->tab;
		if (tab_key(v->t, ch))
			continue;
		switch (ch) {
		case 'q': case 'Q': return 1;
		case 'p': case 'P': toggle_pause(v); break;
		case '\t': select_tab(v, i + 1); break;
		case KEY_BTAB: select_tab(v, i + v->o->nx - 1); break;
		case 'L' & 0x1f: clearok(curscr, TRUE); break;	/* ^L: redraw it all */
		default:					/* KEY_RESIZE too: redraw */
			if (ch >= '1' && ch <= '9' && ch - '1' < v->o->nx)
				select_tab(v, ch - '1');
			break;
		}
	}
	if (redraw)
		draw(v);
	return 0;
}

/* Make f tab t's last picture, and the one it shows unless paused. */
static void push(const struct view *v, struct tab *t, struct picture *f)
{
	if (t->cur != t->shown)		/* paused on another one */
		picture_free(t->cur);
	t->cur = f;
	if (v->paused)
		return;
	picture_free(t->shown);
	t->shown = f;
}

/* Every tab's picture after intervals iv[0..nx), all or none; -1 out of memory. */
static int fold_all(struct view *v, const struct interval *iv, const struct if_counters *c)
{
	struct picture *f[MAX_EXPRS];
	int i;

	for (i = 0; i < v->o->nx; i++) {
		f[i] = fold(v, &v->tab[i], &iv[i]);
		if (!f[i]) {
			while (i--)
				picture_free(f[i]);
			return -1;
		}
	}
	set_link(v, f, v->o->nx, c);
	for (i = 0; i < v->o->nx; i++)
		push(v, &v->tab[i], f[i]);
	return 0;
}

int view_interval(struct view *v, const struct interval *iv, const struct if_counters *c)
{
	if (fold_all(v, iv, c))
		return -1;
	if (!v->paused)
		draw(v);
	return 0;
}

int view_fd(const struct view *v)
{
	(void)v;
	return STDIN_FILENO;
}

/* At exit (an error, a write error): the terminal as it was. */
static void restore(void)
{
	if (active)
		endwin();
}

static void tabs_free(struct view *v)
{
	struct tab *t;

	for (t = v->tab; t < v->tab + v->o->nx; t++) {
		if (t->shown != t->cur)
			picture_free(t->shown);
		picture_free(t->cur);
	}
}

/* A tab for each of v->o's expressions, without pictures yet; the first shown.  -1 out of memory. */
static int tabs_open(struct view *v)
{
	struct tab *t;
	int i;

	for (i = 0; i < v->o->nx; i++) {
		t = &v->tab[i];
		t->text = v->o->x[i].text;
		t->row_size = v->o->x[i].lay.row_size;
		t->cur = t->shown = calloc(1, sizeof(*t->cur));
		if (!t->cur)
			return -1;
		t->cur->sorted = -1;
	}
	select_tab(v, 0);
	return 0;
}

struct view *view_open(const struct output *o, const char *ifname, int loopback,
		       const struct if_counters *c)
{
	static int registered;
	struct view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = *o;
	v->o = &v->out;
	if (!registered && atexit(restore))
		goto free_view;
	registered = 1;
	if (tabs_open(v))
		goto free_tabs;
	v->ifname = ifname;
	v->loopback = loopback;
	if (c)
		v->have_c = 1, v->c0 = v->c = *c;
	setlocale(LC_CTYPE, "");
	v->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	/* none for a TERM without terminfo entry, or without cursor addressing */
	v->screen = newterm(NULL, stdout, stdin);
	if (v->screen && (!tigetstr("cup") || tigetstr("cup") == (char *)-1)) {
		endwin();
		delscreen(v->screen);
		v->screen = NULL;
	}
	if (!v->screen)
		goto free_tabs;
	active = v;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(100);
	curs_set(0);
	draw(v);
	return v;
free_tabs:
	tabs_free(v);
free_view:
	free(v);
	return NULL;
}

void view_close(struct view *v)
{
	if (!v)
		return;
	endwin();
	delscreen(v->screen);
	active = NULL;
	tabs_free(v);
	free(v);
}
