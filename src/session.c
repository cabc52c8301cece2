// SPDX-License-Identifier: GPL-2.0
/* One program counting: its tables, loaded and run; see session.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "load.h"
#include "session.h"
#include "vm.h"

/* The tables, in fds their descriptors by map slot (layout_relocate()). */
static int tables(struct session *s, const struct program *p, const struct session_opts *o,
		  int *fds, char *err, size_t errlen)
{
	struct map_backend b = o->kernel ? maps_kernel() : maps_engine(s->vm);
	int k;

	for (s->n = 0; s->n < p->nx; s->n++) {
		struct layout *lay = &s->lay[s->n];

		*lay = p->x[s->n].lay;
		if (!o->kernel && o->engine_keys && !lay->array && !lay->tables)
			lay->max_entries = o->engine_keys;
		if (maps_create(&s->m[s->n], lay, b, err, errlen))
			return -1;
		for (k = 0; k < NR_MAPS; k++)
			fds[MAP_SLOT(s->n, k)] = s->m[s->n].fd[k];
	}
	return 0;
}

/* The program, relocated to fds, into the kernel or the engine. */
static int load(struct session *s, const struct program *p, const struct session_opts *o,
		const int *fds, char *err, size_t errlen)
{
	struct bpf_insn *insns = malloc(p->e.len * sizeof(*insns));
	char why[512];
	int ret = -1;

	if (!insns) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(insns, p->e.insns, p->e.len * sizeof(*insns));
	layout_relocate(insns, p->e.len, fds);
	if (o->kernel) {
		s->prog = load_program(insns, p->e.len, o->verbose, err, errlen);
		ret = s->prog < 0 ? -1 : 0;
	} else if (vm_load(s->vm, insns, p->e.len, why, sizeof(why))) {
		snprintf(err, errlen, "the engine refused the program: %s", why);
	} else {
		ret = 0;
	}
	free(insns);
	return ret;
}

int session_open(struct session *s, const struct program *p, const struct session_opts *o,
		 char *err, size_t errlen)
{
	int fds[MAP_SLOT(MAX_EXPRS, 0)];
	int i;

	memset(s, 0, sizeof(*s));
	s->prog = s->sock = -1;
	if (!o->kernel && !(s->vm = vm_new(o->strict))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (tables(s, p, o, fds, err, errlen) || load(s, p, o, fds, err, errlen))
		goto fail;
	for (i = 0; i < s->n; i++) {
		if (!(s->r[i] = report_new(&s->lay[i]))) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	return 0;
fail:
	session_close(s);
	return -1;
}

int session_run(struct session *s, const struct packet *pkt, char *err, size_t errlen)
{
	__u32 verdict;

	if (!s->vm)
		return load_test_run(s->prog, pkt, err, errlen);
	if (vm_run(s->vm, pkt, &verdict)) {
		snprintf(err, errlen, "the program failed in the engine: %s", vm_error(s->vm));
		return -1;
	}
	if (verdict) {		/* a socket would have queued the packet */
		snprintf(err, errlen, "the program returned %u, not 0", verdict);
		return -1;
	}
	return 0;
}

int session_attach(struct session *s, const char *ifname, int promisc, char *err,
		   size_t errlen)
{
	s->sock = attach_socket(ifname, s->prog, promisc, err, errlen);
	if (s->sock < 0)
		return -1;
	s->ifindex = attach_ifindex(s->sock);
	return 0;
}

void session_close(struct session *s)
{
	int i;

	if (s->sock >= 0)
		close(s->sock);
	s->sock = -1;
	for (i = 0; i < s->n; i++) {
		report_free(s->r[i]);
		s->r[i] = NULL;
		maps_close(&s->m[i]);
	}
	s->n = 0;
	if (s->prog >= 0)
		close(s->prog);
	s->prog = -1;
	vm_free(s->vm);
	s->vm = NULL;
}

/* Why a readout failed: -1. */
static int readout_error(int err, char *buf, size_t size)
{
	if (err == -ENOMEM)	/* read, but no room for the keys */
		snprintf(buf, size, "out of memory for the keys read");
	else
		snprintf(buf, size, "cannot read the counters: %s", strerror(-err));
	return -1;
}

int session_collect(struct session *s, struct interval *iv, char *err, size_t errlen)
{
	int i, ret;

	for (i = 0; i < s->n; i++)
		if ((ret = report_collect(s->r[i], &s->m[i], &iv[i])))
			return readout_error(ret, err, errlen);
	return 0;
}

int session_fold(struct session *s, int drain, char *err, size_t errlen)
{
	int i, ret, changed = 0;

	for (i = 0; i < s->n; i++) {
		ret = (drain ? report_drain : report_fold)(s->r[i], &s->m[i]);
		if (ret < 0)
			return readout_error(ret, err, errlen);
		if (ret > 0)
			changed |= 1 << i;
	}
	return changed;
}

int session_totals(struct session *s, struct interval *iv)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (report_final(s->r[i], &iv[i]))
			return -ENOMEM;
	return 0;
}

unsigned long session_drain_every(const struct session *s)
{
	unsigned long every = 0, n;
	int i;

	for (i = 0; i < s->n; i++) {
		const struct maps *m = &s->m[i];

		if (!m->grows || m->table[0] < 0)
			continue;
		n = m->size[0] < m->size[1] ? m->size[0] : m->size[1];
		if (!every || n < every)
			every = n;
	}
	return every;
}
