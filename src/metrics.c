// SPDX-License-Identifier: GPL-2.0
/* Prometheus expositions of the totals; see metrics.h and ebpfcount(8). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics.h"
#include "output.h"

struct metrics {
	struct output out;
	const char *textfile;
	pthread_mutex_t lock;	/* text[], read by the server's thread */
	char *text[2];		/* text format 0.0.4, OpenMetrics */
	size_t len[2];
};

struct metrics *metrics_new(const struct expr *x, int nx, const char *textfile)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->out.x = x;
	m->out.nx = nx;
	m->textfile = textfile;
	pthread_mutex_init(&m->lock, NULL);
	return m;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m->text[0]);
	free(m->text[1]);
	free(m);
}

/*
 * A metric family's HELP and TYPE.  Its samples' names end in _total for
 * a counter, _info for an info; so do the family's in the text format,
 * which knows no info (a gauge there).
 */
static void family(FILE *f, int om, const char *name, const char *type, const char *help)
{
	const char *suffix = "";

	if (!om && !strcmp(type, "counter"))
		suffix = "_total";
	if (!om && !strcmp(type, "info"))
		suffix = "_info", type = "gauge";
	fprintf(f, "# HELP ebpfcount_%s%s %s\n", name, suffix, help);
	fprintf(f, "# TYPE ebpfcount_%s%s %s\n", name, suffix, type);
}

static void if_counter(FILE *f, int om, const struct health *h, const char *name,
		       const char *help, unsigned long long v)
{
	family(f, om, name, "counter", help);
	fprintf(f, "ebpfcount_%s_total{interface=", name);
	output_label_value(f, h->ifname);
	fprintf(f, "} %llu\n", v);
}

static void health(FILE *f, int om, const struct output *o, const struct interval *tot,
		   const struct health *h)
{
	int i;

	family(f, om, "build", "info", "The expressions counted, and ebpfcount's version.");
	for (i = 0; i < o->nx; i++) {
		fprintf(f, "ebpfcount_build_info{version=");
		output_label_value(f, h->version);
		fprintf(f, ",expr=");
		output_label_value(f, o->x[i].text);
		fprintf(f, "} 1\n");
	}
	family(f, om, "keys", "gauge", "Keys that counted since start, in ebpfcount's table.");
	for (i = 0; i < o->nx; i++) {
		fprintf(f, "ebpfcount_keys");
		if (o->nx > 1) {
			fprintf(f, "{expr=");
			output_label_value(f, o->x[i].text);
			fprintf(f, "}");
		}
		fprintf(f, " %zu\n", tot[i].nrows);
	}
	family(f, om, "readout_seconds", "gauge", "Time the last readout of the counters took.");
	fprintf(f, "ebpfcount_readout_seconds %.6f\n", h->readout_secs);
	if (h->prog_stats) {
		family(f, om, "program_runs", "counter",
		       "Runs of the counting program, while kernel.bpf_stats_enabled=1.");
		fprintf(f, "ebpfcount_program_runs_total %llu\n", h->runs);
		family(f, om, "program_run_seconds", "counter",
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
static char *render(struct metrics *m, int om, const struct interval *tot,
		    const struct health *h, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	m->out.f = f;
	output_init_exposition(&m->out, om);
	output_interval(&m->out, tot);
	health(f, om, &m->out, tot, h);
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
		   char *err, size_t errlen)
{
	size_t len[2];
	char *text[2];
	int i;

	for (i = 0; i < 2; i++) {
		text[i] = render(m, i, tot, h, &len[i]);
		if (!text[i]) {
			free(text[0]);
			snprintf(err, errlen, "out of memory for the metrics");
			return -1;
		}
	}
	if (m->textfile && write_textfile(m->textfile, text[0], len[0], err, errlen)) {
		free(text[0]);
		free(text[1]);
		return -1;
	}
	pthread_mutex_lock(&m->lock);
	for (i = 0; i < 2; i++) {
		free(m->text[i]);
		m->text[i] = text[i];
		m->len[i] = len[i];
	}
	pthread_mutex_unlock(&m->lock);
	return 0;
}

char *metrics_text(struct metrics *m, int openmetrics, size_t *len)
{
	char *copy = NULL;

	pthread_mutex_lock(&m->lock);
	if (m->text[!!openmetrics]) {
		*len = m->len[!!openmetrics];
		copy = malloc(*len ? *len : 1);
		if (copy)
			memcpy(copy, m->text[!!openmetrics], *len);
	}
	pthread_mutex_unlock(&m->lock);
	return copy;
}
