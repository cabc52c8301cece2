// SPDX-License-Identifier: GPL-2.0
/*
 * view.c: its model without a terminal, then its drawing on a
 * pseudo-terminal.  The test compiles view.c itself (its public functions
 * renamed, build/obj/view.o is linked in too) to reach the frames.
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
 * drawn.
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
#include "unit.h"

static struct query q;
static struct layout lay;
static struct output out;

#define MAXR 400
static unsigned char keys[MAXR][8];
static struct row rows[MAXR];

/* Key i of 'count by udp.dstport': port i. */
static const unsigned char *key(unsigned int port)
{
	unsigned char *k = keys[port % MAXR];

	memset(k, 0, sizeof(keys[0]));
	k[lay.val_off[0]] = port >> 8;
	k[lay.val_off[0] + 1] = port;
	return k;
}

static unsigned int port_of(const unsigned char *k)
{
	return k[lay.val_off[0]] << 8 | k[lay.val_off[0] + 1];
}

/*
 * An interval of rows "port:packets/bytes ...", as report.c gives them
 * (busiest first), and an overflow.
 */
static struct interval make(const char *spec, unsigned long long overflow)
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

/* The lines shown, "port:last,previous ..." (the last two intervals' packets). */
static void shown_text(struct view *v, struct frame *f, char *buf, size_t size)
{
	size_t i, len = 0;

	f->sorted = -1;
	sort_shown(v, f);
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

/* Fold the interval of spec into v's frame and compare what it shows (no name: no test). */
static void step(struct view *v, const char *spec, unsigned long long overflow,
		 const char *want, const char *name)
{
	struct interval iv = make(spec, overflow);
	struct frame *f = fold(v, v->cur, &iv, NULL);
	char buf[1024];

	if (!f) {
		unit_ok(0, name ? name : "a step");
		return;
	}
	frame_free(v->cur);
	v->cur = v->shown = f;
	shown_text(v, f, buf, sizeof(buf));
	if (name)
		unit_streq(buf, want, name);
}

static void check_model(void)
{
	struct view v = { .o = &out, .ifname = "eth0", .expr = "count by udp.dstport" };
	char buf[512];
	int i;

	v.cur = v.shown = calloc(1, sizeof(*v.cur));
	step(&v, "53:10/1000 443:5/3000", 0, "53:10,0 443:5,0 | more 0 ovf 0,0 since 15",
	     "first interval: its keys, busiest first");
	step(&v, "443:7/7000 22:7/700", 2,
	     "443:7,5 22:7,0 53:0,10 | more 0 ovf 2,0 since 31",
	     "second: by packets, then bytes; a key that stopped stays, at 0");
	v.by_bytes = 1;
	shown_text(&v, v.cur, buf, sizeof(buf));
	unit_streq(buf, "443:7,5 22:7,0 53:0,10 | more 0 ovf 2,0 since 31",
		   "by bytes: the busiest by bytes first");
	step(&v, "22:1/100", 0, "22:1,7 443:0,7 53:0,0 | more 0 ovf 0,2 since 32",
	     "by bytes, third: then the stopped keys by their window's bytes");
	v.by_bytes = 0;
	for (i = 0; i < H - 3; i++)
		step(&v, "22:1/100", 0, "", NULL);
	step(&v, "22:1/100", 0, "22:1,1 443:0,0 | more 0 ovf 0,0 since 40",
	     "53 is gone 10 intervals after it last counted, 443 is not yet");
	step(&v, "22:1/100", 0, "22:1,1 | more 0 ovf 0,0 since 41", "then 443 too");
	out.top = 2;
	step(&v, "1:9/9 2:8/8 3:7/7 4:6/6", 0, "1:9,0 2:8,0 22:0,1 | more 2 ovf 0,0 since 71",
	     "--top 2: the 2 busiest keys followed, 2 more");
	out.top = 0;
	frame_free(v.cur);
}

static void check_link(void)
{
	struct view v = { .o = &out, .ifname = "eth0", .expr = "count by udp.dstport" };
	struct if_counters c0 = { 100, 10000, 1, 50, 5000 }, c1 = { 130, 13000, 1, 55, 5500 };
	struct interval iv = make("53:35/3500", 0);
	struct frame *f;

	v.cur = calloc(1, sizeof(*v.cur));
	v.have_c = 1, v.c0 = v.c = c0;
	f = fold(&v, v.cur, &iv, &c1);
	unit_ok(f && f->link && f->d.rx_packets == 30 && f->d.tx_packets == 5 &&
		f->dsince.rx_packets == 30 && f->dsince.tx_bytes == 500,
		"the interface's counters: over the interval and since start");
	frame_free(v.cur);
	v.cur = f;
	iv = make("53:1/100", 0);
	f = fold(&v, v.cur, &iv, NULL);
	unit_ok(f && !f->link && !v.have_c, "counters gone: no interface lines from then on");
	frame_free(v.cur);
	frame_free(f);
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
		rkeys[iv.nrows][lay.val_off[0]] = port >> 8;
		rkeys[iv.nrows][lay.val_off[0] + 1] = port;
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
static int invariants(const struct frame *f, const struct interval *iv, unsigned long long since)
{
	unsigned long long followed = 0, rest = 0;
	size_t i;

	for (i = 0; i < f->n; i++) {
		followed += f->lines[i].hist[H - 1].packets;
		if (i && memcmp(f->lines[i - 1].key, f->lines[i].key, lay.row_size) >= 0)
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

/* In the child, on the pseudo-terminal: 0 when all went well. */
static int child(void)
{
	static const int keys_seq[] = { 's', KEY_DOWN, KEY_NPAGE, 'p', KEY_END, KEY_UP,
					KEY_PPAGE, 'p', KEY_HOME, 's', 'L' & 0x1f, 'x' };
	unsigned long long since = 0;
	unsigned int seed = 1;
	struct view *v;
	int i, bad;

	v = test_view_open(&out, "eth0", "count by udp.dstport",
			   &(struct if_counters){ 0 });
	if (!v)
		return 10;
	for (i = 0; i < 300; i++) {
		struct interval iv = random_interval(&seed);
		struct if_counters c = { since + iv.total.packets, 0, 0, 0, 0 };

		out.top = i > 200 ? 5 : 0;
		since += iv.total.packets;
		if (test_view_interval(v, &iv, &c))
			return 11;
		bad = invariants(v->cur, &iv, since);
		if (bad)
			return 20 + bad;
		ungetch(keys_seq[i % (sizeof(keys_seq) / sizeof(keys_seq[0]))]);
		if (i == 150)
			resizeterm(12, 40);
		if (i == 151)
			ungetch(KEY_RESIZE);
		if (test_view_keys(v))
			return 12;
	}
	ungetch('q');
	if (!test_view_keys(v))
		return 13;
	test_view_close(v);
	printf("total since start: %llu packets\n", since);
	return 0;
}

static void check_terminal(void)
{
	struct winsize ws = { .ws_row = 30, .ws_col = 100 };
	char buf[65536];
	size_t len = 0;
	int master, status = -1;
	ssize_t n;
	pid_t pid;

	fflush(stdout);
	pid = forkpty(&master, NULL, NULL, &ws);
	if (pid == 0) {
		int rc;

		setenv("TERM", "xterm", 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		rc = child();
		fflush(stdout);
		_exit(rc);
	}
	if (!unit_ok(pid > 0, "forkpty"))
		return;
	/* drain the terminal, keeping its end */
	while ((n = read(master, buf + len, sizeof(buf) - 1 - len)) > 0) {
		len += n;
		if (len > sizeof(buf) / 2) {
			memmove(buf, buf + len - 4096, 4096);
			len = 4096;
		}
	}
	buf[len] = '\0';
	waitpid(pid, &status, 0);
	close(master);
	unit_okf(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "300 intervals drawn with every key, the model kept its invariants "
		 "(status %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
	if (!unit_ok(strstr(buf, "\033[?1049l") && strstr(buf, "total since start: "),
		     "q: the terminal given back, then what the program prints"))
		printf("#   the terminal's last bytes: %s\n", len > 200 ? buf + len - 200 : buf);
}

int main(void)
{
	struct parse_error err;

	if (parse_query("count by udp.dstport", &q, &err))
		return 1;
	layout_query(&q, 0, &lay);
	out = (struct output){ .q = &q, .lay = &lay, .f = stdout };
	output_init(&out, "human");
	check_model();
	check_link();
	check_terminal();
	return unit_done();
}
