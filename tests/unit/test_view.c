// SPDX-License-Identifier: GPL-2.0
/*
 * view.c: its model without a terminal, then its drawing on a
 * pseudo-terminal.  The test compiles view.c itself (its public functions
 * renamed, build/obj/view.o is linked in too) to reach the pictures.
 *
 * Checked: an interval's keys become lines with the interval's counts
 * last in their history; a key that stops counting stays, shifted, until
 * its history is empty; --top bounds the keys followed, the others are
 * counted as more; the overflow's history, the totals since start and
 * the interface's counters (over the interval, since start); the order
 * shown, by packets or by bytes, busiest first, then by the window.  On a
 * 100x30 pseudo-terminal, a child draws 300 random intervals with every
 * key (sort, pause, scrolling, a resize, q) while its model keeps its
 * invariants (lines sorted by key, the followed and the others add up to
 * the total); the view closes, the terminal is given back, the title was
 * drawn, and no line of tabs.
 *
 * With two expressions (count by udp.dstport; count by tcp.dstport where
 * tcp): every interval folds into both tabs, each keeps its own rows,
 * history, sort order and position; p holds both; the tabs' labels share
 * the line.  On the pseudo-terminal (C locale), the screens read back:
 * the line of tabs, each tab's title, rows and interface line (counted N
 * of M only without a where clause), Tab, 1 and Shift-Tab switching, the
 * keys' line naming them.
 */
#define view_open test_view_open
#define view_fd test_view_fd
#define view_keys test_view_keys
#define view_interval test_view_interval
#define view_close test_view_close
#include "../../src/view.c"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "parse.h"
#include "tap.h"

static struct expr x[2] = { { .text = "count by udp.dstport" },
			     { .text = "count by tcp.dstport where tcp" } };
static struct output out, out2;	/* the first expression; both (one layout: a port) */
static FILE *dumps;		/* the pseudo-terminal children's screens */

#define MAXR 400
static unsigned char keys[MAXR][8];
static struct row rows[MAXR];

/* Key i of 'count by udp.dstport': port i. */
static const unsigned char *key(unsigned int port)
{
	unsigned char *k = keys[port % MAXR];

	memset(k, 0, sizeof(keys[0]));
	k[x[0].lay.val_off[0]] = port >> 8;
	k[x[0].lay.val_off[0] + 1] = port;
	return k;
}

static unsigned int port_of(const unsigned char *k)
{
	return k[x[0].lay.val_off[0]] << 8 | k[x[0].lay.val_off[0] + 1];
}

/*
 * An interval of rows "port:packets/bytes ...", as report.c gives them
 * (busiest first), and an overflow.
 */
static struct interval make_in(struct row *rows, const char *spec, unsigned long long overflow)
{
	struct interval iv = { .time = 1796362856, .secs = 1, .rows = rows,
			       .overflow = { overflow, overflow * 100 } };
	unsigned int port;
	unsigned long long p, b;
	int n;

	iv.total = iv.overflow;
	while (sscanf(spec, " %u:%llu/%llu%n", &port, &p, &b, &n) == 3) {
		rows[iv.nrows] = (struct row){ key(port), { p, b } };
		iv.total.packets += p;
		iv.total.bytes += b;
		iv.nrows++;
		spec += n;
	}
	return iv;
}

static struct interval make(const char *spec, unsigned long long overflow)
{
	return make_in(rows, spec, overflow);
}

/* A view of o without a terminal: a tab per expression, the first shown. */
static int model_open(struct view *v, const struct output *o)
{
	memset(v, 0, sizeof(*v));
	v->out = *o;
	v->o = &v->out;
	v->ifname = "eth0";
	return tabs_open(v);
}

/* The lines shown, "port:last,previous ..." (the last two intervals' packets). */
static void shown_text(const struct tab *t, struct picture *f, char *buf, size_t size)
{
	size_t i, len = 0;

	f->sorted = -1;
	sort_shown(t, f);
	buf[0] = '\0';
	for (i = 0; i < f->n && len < size; i++) {
		const struct line *l = &f->lines[f->order[i]];

		len += snprintf(buf + len, size - len, "%u:%llu,%llu ", port_of(l->key),
				l->hist[H - 1].packets, l->hist[H - 2].packets);
	}
	if (len < size)
		snprintf(buf + len, size - len, "| more %zu ovf %llu,%llu since %llu", f->more,
			 f->overflow[H - 1].packets, f->overflow[H - 2].packets, f->since.packets);
}

/* Fold the interval of spec into v's picture and compare what it shows (no name: no test). */
static void step(struct view *v, const char *spec, unsigned long long overflow,
		 const char *want, const char *name)
{
	struct interval iv = make(spec, overflow);
	struct picture *f = fold(v, v->t, &iv);
	char buf[1024];

	if (!f) {
		tap_ok(0, name ? name : "a step");
		return;
	}
	push(v, v->t, f);
	shown_text(v->t, f, buf, sizeof(buf));
	if (name)
		tap_streq(buf, want, name);
}

static void check_model(void)
{
	struct view v;
	char buf[512];
	int i;

	if (!tap_ok(!model_open(&v, &out), "a model view"))
		return;
	step(&v, "53:10/1000 443:5/3000", 0, "53:10,0 443:5,0 | more 0 ovf 0,0 since 15",
	     "first interval: its keys, busiest first");
	step(&v, "443:7/7000 22:7/700", 2,
	     "443:7,5 22:7,0 53:0,10 | more 0 ovf 2,0 since 31",
	     "second: by packets, then bytes; a key that stopped stays, at 0");
	v.t->by_bytes = 1;
	shown_text(v.t, v.t->cur, buf, sizeof(buf));
	tap_streq(buf, "443:7,5 22:7,0 53:0,10 | more 0 ovf 2,0 since 31",
		   "by bytes: the busiest by bytes first");
	step(&v, "22:1/100", 0, "22:1,7 443:0,7 53:0,0 | more 0 ovf 0,2 since 32",
	     "by bytes, third: then the stopped keys by their window's bytes");
	v.t->by_bytes = 0;
	for (i = 0; i < H - 3; i++)
		step(&v, "22:1/100", 0, "", NULL);
	step(&v, "22:1/100", 0, "22:1,1 443:0,0 | more 0 ovf 0,0 since 40",
	     "53 is gone 10 intervals after it last counted, 443 is not yet");
	step(&v, "22:1/100", 0, "22:1,1 | more 0 ovf 0,0 since 41", "then 443 too");
	v.out.top = 2;
	step(&v, "1:9/9 2:8/8 3:7/7 4:6/6", 0, "1:9,0 2:8,0 22:0,1 | more 2 ovf 0,0 since 71",
	     "--top 2: the 2 busiest keys followed, 2 more");
	tabs_free(&v);
}

static void check_link(void)
{
	struct if_counters c0 = { 100, 10000, 1, 50, 5000 }, c1 = { 130, 13000, 1, 55, 5500 };
	struct if_counters c2 = { 140, 14000, 1, 60, 6000 };
	struct interval iv[2] = { make_in(rows, "53:35/3500", 0), make_in(rows + 100, "", 0) };
	struct view v;
	struct picture *f;

	if (model_open(&v, &out2))
		return;
	v.have_c = 1, v.c0 = v.c = c0;
	if (fold_all(&v, iv, &c1) || fold_all(&v, iv, &c2)) {
		tap_ok(0, "the interface's counters");
		return;
	}
	f = v.tab[1].cur;
	tap_ok(v.tab[0].cur->link && v.tab[0].cur->d.rx_packets == 10 &&
		v.tab[0].cur->d.tx_packets == 5 && f->link && f->d.rx_packets == 10 &&
		f->dsince.rx_packets == 40 && f->dsince.tx_bytes == 1000,
		"the interface's counters: over the interval and since start, in every tab");
	iv[0] = make("53:1/100", 0);
	tap_ok(!fold_all(&v, iv, NULL) && !v.tab[0].cur->link && !v.tab[1].cur->link && !v.have_c,
		"counters gone: no interface lines from then on");
	tabs_free(&v);
}

/* Tab i's lines (shown_text()) into buf. */
static const char *tab_text(struct view *v, int i, char *buf, size_t size)
{
	shown_text(&v->tab[i], v->tab[i].shown, buf, size);
	return buf;
}

/* Fold two intervals of the specs into v's two tabs. */
static int fold2(struct view *v, const char *spec1, const char *spec2, unsigned long long ovf2)
{
	struct interval iv[2] = { make_in(rows, spec1, 0), make_in(rows + 100, spec2, ovf2) };

	return fold_all(v, iv, NULL);
}

static void check_tabs(void)
{
	struct picture *f0, *f1;
	struct view v;
	char buf[512];

	if (!tap_ok(!model_open(&v, &out2) &&
		     !fold2(&v, "53:10/1000 443:5/3000", "22:3/300 80:8/800", 0) &&
		     !fold2(&v, "53:4/400", "22:6/600", 1),
		     "two expressions: two tabs, two intervals"))
		return;
	tap_streq(tab_text(&v, 0, buf, sizeof(buf)), "53:4,10 443:0,5 | more 0 ovf 0,0 since 19",
		   "tab 1: its rows and their history");
	tap_streq(tab_text(&v, 1, buf, sizeof(buf)), "22:6,3 80:0,8 | more 0 ovf 1,0 since 18",
		   "tab 2: its rows and their history, though not shown");
	select_tab(&v, 1);
	tab_key(v.t, 's');
	tab_key(v.t, KEY_DOWN);
	tap_ok(v.tab[1].by_bytes && v.tab[1].first == 1 && !v.tab[0].by_bytes && !v.tab[0].first,
		"s and the arrows: the sort and the position of the tab shown");
	tap_ok(v.o->q == &x[1].q && v.o->lay == &x[1].lay && v.o->cur == 1,
		"tab 2 shown: its keys written as its expression's");
	select_tab(&v, 2 + 1 + 1);
	tap_ok(v.t == &v.tab[0] && v.o->q == &x[0].q, "tab numbers wrap around");
	toggle_pause(&v);
	f0 = v.tab[0].shown, f1 = v.tab[1].shown;
	if (!tap_ok(!fold2(&v, "53:1/100", "80:2/200", 0) && !fold2(&v, "53:1/100", "80:2/200", 0),
		     "paused: two intervals"))
		return;
	tap_ok(v.tab[0].shown == f0 && v.tab[1].shown == f1 && v.tab[0].cur->since.packets == 21 &&
		v.tab[1].cur->since.packets == 22,
		"p: every tab stays, the intervals still fold in");
	toggle_pause(&v);
	tap_streq(tab_text(&v, 1, buf, sizeof(buf)), "80:2,2 22:0,0 | more 0 ovf 0,0 since 22",
		   "p again: every tab shows its last picture");
	tap_ok(v.tab[0].shown == v.tab[0].cur, "p again: tab 1 too");
	tabs_free(&v);
}

/* The tabs' labels: short ones whole, long ones share what is left. */
static void check_labels(void)
{
	static const int len[4] = { 10, 60, 5, 40 };
	int w[4], n;
	struct view v;
	char buf[64];

	share(len, 4, 100, w);
	tap_okf(w[0] == 10 && w[1] == 45 && w[2] == 5 && w[3] == 40, "share: %d %d %d %d", w[0],
		 w[1], w[2], w[3]);
	share(len, 4, 60, w);
	tap_okf(w[0] == 10 && w[1] == 22 && w[2] == 5 && w[3] == 22,
		 "share, less room: %d %d %d %d", w[0], w[1], w[2], w[3]);
	if (model_open(&v, &out2))
		return;
	n = label(&v, 0, 64, buf, sizeof(buf));
	tap_ok(n == 24 && !strcmp(buf, "[1 count by udp.dstport]"), "label of the tab shown");
	label(&v, 1, 64, buf, sizeof(buf));
	tap_streq(buf, " 2 count by tcp.dstport where tcp ", "label of another tab");
	n = label(&v, 1, 16, buf, sizeof(buf));
	tap_ok(n == 16 && !strcmp(buf, " 2 count by ... "), "a label cut");
	label(&v, 0, 2, buf, sizeof(buf));
	tap_streq(buf, "[1]", "no room: the number");
	tabs_free(&v);
}

/* A random interval of up to 300 keys among 1000 ports, busiest first. */
static struct interval random_interval(unsigned int *seed)
{
	static unsigned char rkeys[300][8];
	struct interval iv = { .time = 1796362856, .secs = 0.5, .rows = rows };
	unsigned int n = rand_r(seed) % 300, i, j, port;

	for (i = 0; i < n; i++) {
		port = 1 + rand_r(seed) % 1000;
		for (j = 0; j < iv.nrows && port_of(rows[j].key) != port; j++)
			;
		if (j < iv.nrows)
			continue;
		memset(rkeys[iv.nrows], 0, sizeof(rkeys[0]));
		rkeys[iv.nrows][x[0].lay.val_off[0]] = port >> 8;
		rkeys[iv.nrows][x[0].lay.val_off[0] + 1] = port;
		rows[iv.nrows].key = rkeys[iv.nrows];
		rows[iv.nrows].c.packets = 1 + rand_r(seed) % 5000;
		rows[iv.nrows].c.bytes = rows[iv.nrows].c.packets * (60 + rand_r(seed) % 1400);
		iv.nrows++;
	}
	for (i = 1; i < iv.nrows; i++)	/* insertion sort, by packets */
		for (j = i; j > 0 && rows[j].c.packets > rows[j - 1].c.packets; j--) {
			struct row t = rows[j];

			rows[j] = rows[j - 1];
			rows[j - 1] = t;
		}
	iv.overflow = (struct counter){ rand_r(seed) % 3, 0 };
	iv.overflow.bytes = iv.overflow.packets * 100;
	iv.total = iv.overflow;
	for (i = 0; i < iv.nrows; i++) {
		iv.total.packets += rows[i].c.packets;
		iv.total.bytes += rows[i].c.bytes;
	}
	return iv;
}

/* The child's model checks: 0, or the number of the failed check. */
static int invariants(const struct picture *f, const struct interval *iv, unsigned long long since)
{
	unsigned long long followed = 0, rest = 0;
	size_t i;

	for (i = 0; i < f->n; i++) {
		followed += f->lines[i].hist[H - 1].packets;
		if (i && memcmp(f->lines[i - 1].key, f->lines[i].key, x[0].lay.row_size) >= 0)
			return 1;
	}
	for (i = iv->nrows - f->more; i < iv->nrows; i++)
		rest += iv->rows[i].c.packets;
	if (followed + rest + iv->overflow.packets != iv->total.packets)
		return 2;
	if (f->since.packets != since)
		return 3;
	return 0;
}

/* In a child: the screen as curses holds it, after a line "== name". */
static void dump(const char *name)
{
	char line[512];
	int y, n;

	fprintf(dumps, "== %s\n", name);
	for (y = 0; y < LINES; y++) {
		n = mvinnstr(y, 0, line, COLS < (int)sizeof(line) ? COLS : (int)sizeof(line) - 1);
		n = n < 0 ? 0 : n;
		while (n && line[n - 1] == ' ')
			n--;
		fprintf(dumps, "%.*s\n", n, line);
	}
}

/* q: the view must quit, and close; the totals a person sees after it. */
static int quit(struct view *v, unsigned long long since)
{
	ungetch('q');
	if (!test_view_keys(v))
		return 13;
	test_view_close(v);
	printf("total since start: %llu packets\n", since);
	return 0;
}

/*
 * In the child, on the pseudo-terminal, with the expressions of o (both
 * count the same random intervals): 0 when all went well.
 */
static int child(const struct output *o)
{
	static const int keys_seq[] = { 's', KEY_DOWN, '\t', KEY_NPAGE, 'p', KEY_END, KEY_UP,
					KEY_BTAB, KEY_PPAGE, 'p', '2', KEY_HOME, 's', '1',
					'L' & 0x1f, 'x' };
	struct interval iv[2];
	unsigned long long since = 0;
	unsigned int seed = 1;
	struct view *v;
	int i, j, bad;

	v = test_view_open(o, "eth0", 0, &(struct if_counters){ 0 });
	if (!v)
		return 10;
	for (i = 0; i < 300; i++) {
		struct if_counters c;

		iv[0] = iv[1] = random_interval(&seed);
		c = (struct if_counters){ since + iv[0].total.packets, 0, 0, 0, 0 };
		v->out.top = i > 200 ? 5 : 0;
		since += iv[0].total.packets;
		if (test_view_interval(v, iv, &c))
			return 11;
		for (j = 0; j < o->nx; j++) {
			bad = invariants(v->tab[j].cur, &iv[j], since);
			if (bad)
				return 20 + bad;
		}
		if (i == 0)
			dump(o->nx > 1 ? "random, two" : "random, one");
		ungetch(keys_seq[i % (sizeof(keys_seq) / sizeof(keys_seq[0]))]);
		if (i == 150)
			resizeterm(12, 40);
		if (i == 151)
			ungetch(KEY_RESIZE);
		if (test_view_keys(v))
			return 12;
	}
	return quit(v, since);
}

static int child_one(void)
{
	return child(&out);
}

static int child_two(void)
{
	return child(&out2);
}

/* In the child: four intervals in two tabs, their screens after the tab keys. */
static int child_tabs(void)
{
	static const char *const spec[4][2] = {
		{ "53:35/2800 443:30/36000", "80:30/24000 22:12/1800" },
		{ "53:40/3200 443:25/30000 123:2/180", "80:10/8000 22:14/2000" },
		{ "53:30/2400 443:20/24000", "80:25/20000 22:9/1300" },
		{ "53:38/3000 443:28/33600 123:2/180", "80:28/22000 22:12/1700" },
	};
	static const struct { int key; const char *name; } keys_seq[] = {
		{ '\t', "tab 2 (Tab)" }, { '1', "tab 1 (1)" }, { KEY_BTAB, "tab 2 (Shift-Tab)" },
		{ '3', "tab 2 (3: no such tab)" }, { '\t', "tab 1 (Tab)" },
	};
	unsigned long long since = 0;
	struct interval iv[2];
	struct view *v;
	size_t i;

	v = test_view_open(&out2, "eth0", 0, &(struct if_counters){ 0 });
	if (!v)
		return 10;
	for (i = 0; i < 4; i++) {
		iv[0] = make_in(rows, spec[i][0], 0);
		iv[1] = make_in(rows + 100, spec[i][1], 0);
		since += iv[0].total.packets;
		if (test_view_interval(v, iv, &(struct if_counters){ since, 0, 0, 0, 0 }))
			return 11;
	}
	dump("tab 1");
	for (i = 0; i < sizeof(keys_seq) / sizeof(keys_seq[0]); i++) {
		ungetch(keys_seq[i].key);
		if (test_view_keys(v))
			return 12;
		dump(keys_seq[i].name);
	}
	return quit(v, since);
}

/*
 * Run fn in a child on a 100x30 pseudo-terminal (TERM=xterm, LC_ALL=loc);
 * its exit status (-signal if killed), the terminal's last bytes in buf.
 */
static int on_pty(int (*fn)(void), const char *loc, char *buf, size_t size)
{
	struct winsize ws = { .ws_row = 30, .ws_col = 100 };
	int master, status = -1;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	fflush(stdout);
	fflush(dumps);
	pid = forkpty(&master, NULL, NULL, &ws);
	if (pid == 0) {
		int rc;

		setenv("TERM", "xterm", 1);
		setenv("LC_ALL", loc, 1);
		rc = fn();
		fflush(stdout);
		fflush(dumps);
		_exit(rc);
	}
	buf[0] = '\0';
	if (pid < 0)
		return -1000;
	/* drain the terminal, keeping its end */
	while ((n = read(master, buf + len, size - 1 - len)) > 0) {
		len += n;
		if (len > size / 2) {
			memmove(buf, buf + len - 4096, 4096);
			len = 4096;
		}
	}
	buf[len] = '\0';
	waitpid(pid, &status, 0);
	close(master);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

/* The screens the children dumped, all of them (static, NUL-terminated). */
static const char *screens(void)
{
	static char all[65536];
	size_t n;

	fflush(dumps);
	rewind(dumps);
	n = fread(all, 1, sizeof(all) - 1, dumps);
	all[n] = '\0';
	return all;
}

/* Screen name of the dumps, into buf (empty if none). */
static char *screen(const char *name, char *buf, size_t size)
{
	const char *s, *e;
	char head[64];

	snprintf(head, sizeof(head), "== %s\n", name);
	buf[0] = '\0';
	s = strstr(screens(), head);
	if (!s)
		return buf;
	s += strlen(head);
	e = strstr(s, "\n== ");
	snprintf(buf, size, "%.*s", e ? (int)(e - s + 1) : (int)strlen(s), s);
	return buf;
}

/* Line y of screen s, into buf ("" past its end). */
static char *line_of(const char *s, int y, char *buf, size_t size)
{
	while (y-- && s) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	snprintf(buf, size, "%.*s", s ? (int)strcspn(s, "\n") : 0, s ? s : "");
	return buf;
}

/* Print screen s as TAP comments. */
static void show(const char *name, const char *s)
{
	char line[512];
	int y;

	printf("# the screen '%s':\n", name);
	for (y = 0; y < 30; y++)
		printf("#   %s\n", line_of(s, y, line, sizeof(line)));
}

static void check_terminal(void)
{
	static char buf[65536];
	char s[8192], line[512];
	size_t len;
	int rc;

	rc = on_pty(child_one, "C.UTF-8", buf, sizeof(buf));
	len = strlen(buf);
	tap_okf(rc == 0, "300 intervals drawn with every key, the model kept its invariants "
		 "(status %d)", rc);
	if (!tap_ok(strstr(buf, "\033[?1049l") && strstr(buf, "total since start: "),
		     "q: the terminal given back, then what the program prints"))
		printf("#   the terminal's last bytes: %s\n", buf + (len > 200 ? len - 200 : 0));
	screen("random, one", s, sizeof(s));
	line_of(s, 0, line, sizeof(line));
	tap_ok(!strncmp(line, "ebpfcount on eth0: count by udp.dstport ", 40) &&
		!*line_of(s, TABS, line, sizeof(line)) &&
		!strncmp(line_of(s, 29, line, sizeof(line)), " q quit  s sort by bytes  p pause  "
			 "arrows PgUp PgDn Home End scroll ", 68),
		"one expression: the title, no line of tabs, the keys' line as before");
	rc = on_pty(child_two, "C.UTF-8", buf, sizeof(buf));
	tap_okf(rc == 0, "two expressions: 300 intervals drawn with every key and the tab keys, "
		 "both tabs kept their invariants (status %d)", rc);
	screen("random, two", s, sizeof(s));
	tap_streq(line_of(s, TABS, line, sizeof(line)),
		   "[1 count by udp.dstport] 2 count by tcp.dstport where tcp",
		   "two expressions: the line of tabs, the first shown");
}

/* The line of tabs, rows, the interface's line of screen name, tab n shown. */
static void check_tab_screen(const char *name, int n)
{
	static const char *const bar[2] = {
		"[1 count by udp.dstport] 2 count by tcp.dstport where tcp",
		" 1 count by udp.dstport [2 count by tcp.dstport where tcp]",
	};
	static const char *const has[2][2] = {
		{ "  domain ", "  https " }, { "  http ", "  ssh " },
	};
	char s[8192], line[512], title[128];

	screen(name, s, sizeof(s));
	snprintf(title, sizeof(title), "ebpfcount on eth0: %s ", x[n - 1].text);
	tap_okf(!strncmp(line_of(s, 0, line, sizeof(line)), title, strlen(title)), "%s: the title",
		 name);
	snprintf(title, sizeof(title), "%s: the line of tabs", name);
	tap_streq(line_of(s, TABS, line, sizeof(line)), bar[n - 1], title);
	tap_okf(strstr(s, has[n - 1][0]) && strstr(s, has[n - 1][1]) &&
		 !strstr(s, has[2 - n][0]) && !strstr(s, has[2 - n][1]),
		 "%s: the tab's rows, not the other's", name);
	tap_okf(!strstr(line_of(s, 2, line, sizeof(line)), "counted") == (n == 2),
		 "%s: the interface's line: %s", name, line);
	tap_okf(strstr(line_of(s, 29, line, sizeof(line)), " Tab S-Tab 1-2 tabs ") != NULL,
		 "%s: the keys' line names the tab keys", name);
}

static void check_tabs_terminal(void)
{
	static char buf[65536];
	char s1[8192], s2[8192], t[8192];
	int rc;

	rc = on_pty(child_tabs, "C", buf, sizeof(buf));
	tap_okf(rc == 0 && strstr(buf, "total since start: "),
		 "two expressions: drawn, the tab keys, q (status %d)", rc);
	check_tab_screen("tab 1", 1);
	check_tab_screen("tab 2 (Tab)", 2);
	screen("tab 1", s1, sizeof(s1));
	screen("tab 2 (Tab)", s2, sizeof(s2));
	show("tab 1", s1);
	show("tab 2 (Tab)", s2);
	tap_streq(screen("tab 1 (1)", t, sizeof(t)), s1, "1: tab 1 again, as it was");
	tap_streq(screen("tab 2 (Shift-Tab)", t, sizeof(t)), s2,
		   "Shift-Tab: back to tab 2, as it was");
	tap_streq(screen("tab 2 (3: no such tab)", t, sizeof(t)), s2, "3: no such tab, no change");
	tap_streq(screen("tab 1 (Tab)", t, sizeof(t)), s1, "Tab from the last: the first");
}

int main(void)
{
	struct parse_error err;
	int i;

	for (i = 0; i < 2; i++) {
		if (parse_query(x[i].text, &x[i].q, &err))
			return 1;
		layout_query(&x[i].q, 0, &x[i].lay);
	}
	out = (struct output){ .x = x, .nx = 1, .f = stdout };
	output_init(&out, "human");
	output_select(&out, 0);
	out2 = out;
	out2.nx = 2;
	dumps = tmpfile();
	if (!dumps)
		return 1;
	check_model();
	check_link();
	check_tabs();
	check_labels();
	check_terminal();
	check_tabs_terminal();
	return tap_done();
}
