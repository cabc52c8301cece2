// SPDX-License-Identifier: GPL-2.0
/* Prometheus expositions of the totals; see metrics.h and ebpfcount(8). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "load.h"
#include "metrics.h"
#include "output.h"

void metrics_health(struct health *h, int prog, unsigned int ifindex, const char *ifname)
{
	struct if_counters c;

	h->prog_stats = prog >= 0 && !load_prog_stats(prog, &h->runs, &h->run_ns);
	h->ifname = NULL;
	if (ifindex && !attach_if_counters(ifindex, &c)) {
		h->ifname = ifname;
		h->rx_packets = c.rx_packets;
		h->rx_bytes = c.rx_bytes;
		h->rx_dropped = c.rx_dropped;
		h->tx_packets = c.tx_packets;
		h->tx_bytes = c.tx_bytes;
	}
}

/* The totals of one update, copied for the server's thread. */
struct snapshot {
	int refs;		/* under the metrics' lock */
	unsigned long gen;
	struct interval tot[MAX_EXPRS];
	struct health h;
	unsigned char *keys[MAX_EXPRS];	/* the rows' keys */
};

struct exposition {
	int refs;		/* under the metrics' lock */
	int om;			/* its format */
	unsigned long gen;	/* of the snapshot rendered */
	char *text;
	size_t len;
};

struct metrics {
	const struct expr *x;
	int nx;
	const char *textfile;
	double written, cost;	/* the textfile's last write, and its cost */
	int serving;
	pthread_mutex_t lock;	/* what follows, shared with the server's thread */
	pthread_mutex_t render;	/* one rendering for the server at a time */
	unsigned long gen;
	struct snapshot *snap;	/* the last totals */
	struct exposition *cache[2];	/* text format 0.0.4, OpenMetrics */
	int alive[2];		/* expositions of each format not yet freed */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct metrics *metrics_new(const struct expr *x, int nx, const char *textfile, int serving)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->x = x;
	m->nx = nx;
	m->textfile = textfile;
	m->serving = serving;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->render, NULL);
	return m;
}

/* Drop a reference, under m->lock. */
static void snapshot_put(struct metrics *m, struct snapshot *s)
{
	int i;

	if (!s || --s->refs)
		return;
	for (i = 0; i < m->nx; i++) {
		free(s->tot[i].rows);
		free(s->keys[i]);
	}
	free(s);
}

/* Drop a reference, under m->lock. */
static void exposition_put(struct metrics *m, struct exposition *e)
{
	if (!e || --e->refs)
		return;
	m->alive[e->om]--;
	free(e->text);
	free(e);
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	exposition_put(m, m->cache[0]);
	exposition_put(m, m->cache[1]);
	snapshot_put(m, m->snap);
	pthread_mutex_destroy(&m->render);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static void if_counter(FILE *f, int om, const struct health *h, const char *name,
		       const char *help, unsigned long long v)
{
	output_family(f, om, name, "counter", help);
	fprintf(f, "ebpfcount_%s_total{interface=", name);
	output_label_value(f, h->ifname);
	fprintf(f, "} %llu\n", v);
}

static void health(FILE *f, int om, const struct output *o, const struct interval *tot,
		   const struct health *h)
{
	int i;

	output_family(f, om, "build", "info", "The expressions counted, and ebpfcount's version.");
	for (i = 0; i < o->nx; i++) {
		fprintf(f, "ebpfcount_build_info{version=");
		output_label_value(f, h->version);
		fprintf(f, ",expr=");
		output_label_value(f, o->x[i].text);
		fprintf(f, "} 1\n");
	}
	output_family(f, om, "keys", "gauge", "Keys that counted since start, in ebpfcount's table.");
	for (i = 0; i < o->nx; i++) {
		fprintf(f, "ebpfcount_keys");
		if (o->nx > 1) {
			fprintf(f, "{expr=");
			output_label_value(f, o->x[i].text);
			fprintf(f, "}");
		}
		fprintf(f, " %zu\n", tot[i].nrows);
	}
	output_family(f, om, "readout_seconds", "gauge", "Time the last readout of the counters took.");
	fprintf(f, "ebpfcount_readout_seconds %.6f\n", h->readout_secs);
	if (h->prog_stats) {
		output_family(f, om, "program_runs", "counter",
		       "Runs of the counting program, while kernel.bpf_stats_enabled=1.");
		fprintf(f, "ebpfcount_program_runs_total %llu\n", h->runs);
		output_family(f, om, "program_run_seconds", "counter",
		       "Time in the counting program, while kernel.bpf_stats_enabled=1.");
		fprintf(f, "ebpfcount_program_run_seconds_total %.9f\n", h->run_ns / 1e9);
	}
	if (h->ifname) {
		if_counter(f, om, h, "interface_receive_packets",
			   "Packets the interface received, by its own counter.", h->rx_packets);
		if_counter(f, om, h, "interface_receive_bytes",
			   "Bytes the interface received, by its own counter.", h->rx_bytes);
		if_counter(f, om, h, "interface_receive_dropped",
			   "Packets the interface dropped on receive, by its own counter.",
			   h->rx_dropped);
		if_counter(f, om, h, "interface_transmit_packets",
			   "Packets the interface sent, by its own counter.", h->tx_packets);
		if_counter(f, om, h, "interface_transmit_bytes",
			   "Bytes the interface sent, by its own counter.", h->tx_bytes);
	}
}

/* One exposition into a new string, *len its length; NULL without memory. */
static char *render(const struct metrics *m, int om, const struct interval *tot,
		    const struct health *h, size_t *len)
{
	struct output out = { .x = m->x, .nx = m->nx };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	out.f = f;
	output_init_exposition(&out, om);
	output_interval(&out, tot);
	health(f, om, &out, tot, h);
	if (om)
		fputs("# EOF\n", f);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* A copy of tot and h for the server's thread, with one reference; NULL without memory. */
static struct snapshot *snapshot_new(struct metrics *m, const struct interval *tot,
				     const struct health *h)
{
	struct snapshot *s = calloc(1, sizeof(*s));
	size_t j, size;
	int i;

	if (!s)
		return NULL;
	s->refs = 1;
	s->h = *h;
	for (i = 0; i < m->nx; i++) {
		const struct interval *t = &tot[i];

		s->tot[i] = *t;
		s->tot[i].rows = NULL;
		if (!t->nrows)
			continue;
		size = m->x[i].lay.row_size;
		s->tot[i].rows = malloc(t->nrows * sizeof(*t->rows));
		s->keys[i] = malloc(t->nrows * size);
		if (!s->tot[i].rows || !s->keys[i]) {
			snapshot_put(m, s);
			return NULL;
		}
		for (j = 0; j < t->nrows; j++) {
			memcpy(s->keys[i] + j * size, t->rows[j].key, size);
			s->tot[i].rows[j] = (struct row){ s->keys[i] + j * size, t->rows[j].c };
		}
	}
	return s;
}

/* Replace the textfile by text: a new file in its directory, renamed. */
static int write_textfile(const char *path, const char *text, size_t len, char *err,
			  size_t errlen)
{
	char tmp[4096];
	int fd, ok, saved;
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "--textfile %s: name too long", path);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "cannot write a file beside %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd), unlink(tmp);
		return -1;
	}
	ok = fwrite(text, 1, len, f) == len && !fflush(f);
	saved = errno;
	if (fclose(f) && ok)
		ok = 0, saved = errno;
	if (!ok) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int metrics_update(struct metrics *m, const struct interval *tot, const struct health *h,
		   int last, char *err, size_t errlen)
{
	struct snapshot *s = NULL, *old;
	double start = now();
	size_t len;
	char *text;
	int ret;

	if (m->serving) {
		s = snapshot_new(m, tot, h);
		if (!s) {
			snprintf(err, errlen, "out of memory for the metrics");
			return -1;
		}
		pthread_mutex_lock(&m->lock);
		old = m->snap;
		m->snap = s;
		s->gen = ++m->gen;
		snapshot_put(m, old);
		pthread_mutex_unlock(&m->lock);
	}
	/* an update 1 s after the last write's start is due (50 ms early at most) */
	if (!m->textfile || (m->written && !last &&
			     (start - m->written < METRICS_TEXTFILE_GAP - 0.05 ||
			      start - m->written < 10 * m->cost)))
		return 0;
	text = render(m, 0, tot, h, &len);
	if (!text) {
		snprintf(err, errlen, "out of memory for the metrics");
		return -1;
	}
	ret = write_textfile(m->textfile, text, len, err, errlen);
	free(text);
	m->written = start;
	m->cost = now() - start;
	return ret;
}

struct exposition *metrics_get(struct metrics *m, int openmetrics, const char **text,
			       size_t *len)
{
	struct exposition *e, *made;
	struct snapshot *s;
	int om = !!openmetrics;

	pthread_mutex_lock(&m->render);
	pthread_mutex_lock(&m->lock);
	e = m->cache[om];
	/* the last totals' rendering, or while two live, the latest of them */
	if (e && (e->gen == m->gen || m->alive[om] >= 2))
		goto got;
	s = m->snap;
	if (!s) {
		e = NULL;
		goto out;
	}
	s->refs++;
	pthread_mutex_unlock(&m->lock);
	/* the main thread hands over new totals meanwhile */
	made = calloc(1, sizeof(*made));
	if (made) {
		made->text = render(m, om, s->tot, &s->h, &made->len);
		made->om = om;
		made->gen = s->gen;
		made->refs = 1;		/* the cache's */
	}
	pthread_mutex_lock(&m->lock);
	snapshot_put(m, s);
	if (!made || !made->text) {
		free(made);
		e = NULL;
		goto out;
	}
	m->alive[om]++;
	exposition_put(m, m->cache[om]);
	m->cache[om] = e = made;
got:
	e->refs++;
	*text = e->text;
	*len = e->len;
out:
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_unlock(&m->render);
	return e;
}

void metrics_put(struct metrics *m, struct exposition *e)
{
	pthread_mutex_lock(&m->lock);
	exposition_put(m, e);
	pthread_mutex_unlock(&m->lock);
}
