// SPDX-License-Identifier: GPL-2.0
/* The one program builder; see compile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>

#include "compile.h"
#include "filter.h"

static int fail(struct build_error *err, int pos, const char *msg)
{
	err->pos = pos;	/* err->expr: the caller's */
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	return -1;
}

/* Does a capture of linktype give the packet's field f (sll.*)? */
static int cooked_has(const char *linktype, const struct field *f)
{
	if (!linktype)
		return 0;
	if (!strcmp(linktype, "LINUX_SLL2"))
		return 1;
	return !strcmp(linktype, "LINUX_SLL") && strcmp(f->name, "sll.ifindex");
}

/* Keys the packets of src cannot have. */
static int check_keys(const struct query *q, const struct source *src, struct build_error *err)
{
	char msg[160];
	int i;

	for (i = 0; i < q->nkeys; i++) {
		const struct field *f = q->keys[i].field;

		if (src->cooked && f->layer == LAYER_ETH && f->off < 12) {
			snprintf(msg, sizeof(msg), "%s: -i any has no Ethernet addresses",
				 f->name);
			return fail(err, q->keys[i].pos, msg);
		}
		if (src->linktype && f->layer == LAYER_ETH && f->off < 12) {
			snprintf(msg, sizeof(msg), "%s: a %s capture has no Ethernet addresses",
				 f->name, src->linktype);
			return fail(err, q->keys[i].pos, msg);
		}
		if (!src->ifname && f->read == READ_SKB && !cooked_has(src->linktype, f)) {
			snprintf(msg, sizeof(msg), "%s: only live, or in a capture file of type "
				 "%s", f->name, !strcmp(f->name, "sll.ifindex") ? "LINUX_SLL2" :
				 "LINUX_SLL or LINUX_SLL2 (tcpdump -i any)");
			return fail(err, q->keys[i].pos, msg);
		}
	}
	return 0;
}

/*
 * A cooked frame's header has no Ethernet addresses (frame.h), nor has the
 * header put in front of a cooked or raw IP capture's record (capture.h):
 * a filter that reads them (ether host, ether[0:4], ether[ip[0] & 0xf])
 * is refused.  what: "-i any" or "a LINUX_SLL capture".
 */
static int check_cooked(const struct bpf_program *f, const char *what, char *msg, size_t size)
{
	const struct sock_filter *s = filter_insns(f);
	unsigned int i, n;

	for (i = 0; i < f->bf_len; i++) {
		int ind = BPF_MODE(s[i].code) == BPF_IND;

		if (BPF_CLASS(s[i].code) != BPF_LD || (BPF_MODE(s[i].code) != BPF_ABS && !ind))
			continue;
		n = BPF_SIZE(s[i].code) == BPF_W ? 4 : BPF_SIZE(s[i].code) == BPF_H ? 2 : 1;
		/* an indirect load at less than 14 may read the header anywhere */
		if (s[i].k < 12 || (s[i].k < ETH_HLEN && (ind || s[i].k + n > ETH_HLEN))) {
			snprintf(msg, size, "%s has no Ethernet addresses, which the "
				 "filter reads", what);
			return -1;
		}
	}
	return 0;
}

/*
 * Parse expression x->text and compile its where clause into f (for src);
 * 0 or -1 with err filled.
 */
static int build_expr(struct expr *x, const struct build_opts *o, struct bpf_program *f,
		      struct build_error *err)
{
	struct parse_error perr;
	char msg[sizeof(err->msg)];
	int ret;

	if (parse_query(x->text, &x->q, &perr))
		return fail(err, perr.pos, perr.msg);
	if (check_keys(&x->q, &o->src, err))
		return -1;
	layout_query(&x->q, o->max_keys, &x->lay);
	if (!x->q.filter)
		return 0;
	/* a file's own link type refuses what tcpdump refuses for it */
	if (o->src.linktype &&
	    filter_check_linktype(x->q.filter, o->src.linktype, msg, sizeof(msg)))
		return fail(err, x->q.filter_pos, msg);
	/* -i any: on lo's handle, Ethernet on Linux, as a cooked frame reads */
	ret = filter_compile(x->q.filter, o->src.cooked ? "lo" : o->src.ifname, f, msg,
			     sizeof(msg));
	if (o->src.cooked || o->src.linktype) {
		char what[64];

		if (o->src.cooked)
			snprintf(what, sizeof(what), "-i any");
		else
			snprintf(what, sizeof(what), "a %s capture", o->src.linktype);
		if (!ret && check_cooked(f, what, msg, sizeof(msg))) {
			filter_free(f);
			ret = -1;
		}
	}
	return ret ? fail(err, x->q.filter_pos, msg) : 0;
}

/*
 * Which of the n expressions x made codegen fail: the first whose where
 * clause fails alone, else the last with one (the program is too large).
 */
static int failed_expr(const struct codegen_expr *x, int n, const struct program *p)
{
	char msg[64];
	struct emit e;
	int i, ret;

	for (i = 0; n > 1 && i < n; i++) {
		emit_init(&e);
		e.cooked = p->e.cooked;
		e.slow_only = p->e.slow_only;
		e.live = p->e.live;
		ret = codegen(&x[i], 1, p->mode, 0, &e, msg, sizeof(msg));
		emit_free(&e);
		if (ret)
			return i;
	}
	for (i = n - 1; i > 0 && !x[i].filter; i--)
		;
	return i;
}

int program_build(struct program *p, const char *const *exprs, int n,
		  const struct build_opts *o, struct build_error *err)
{
	struct bpf_program f[MAX_EXPRS] = { 0 };
	struct codegen_expr x[MAX_EXPRS] = { 0 };
	char msg[sizeof(err->msg)];
	int i, ret = 0;

	emit_init(&p->e);
	err->expr = 0;
	if (n < 1 || n > MAX_EXPRS) {
		snprintf(msg, sizeof(msg), "from 1 to %d expressions, not %d", MAX_EXPRS, n);
		return fail(err, -1, msg);
	}
	p->nx = n;
	for (i = 0; i < n; i++) {
		p->x[i].text = exprs[i];
		err->expr = i;
		if (build_expr(&p->x[i], o, &f[i], err)) {
			while (i--)
				filter_free(&f[i]);
			return -1;
		}
		x[i] = (struct codegen_expr){ .q = &p->x[i].q, .lay = &p->x[i].lay,
					      .filter = p->x[i].q.filter ? filter_insns(&f[i]) : NULL,
					      .n = f[i].bf_len };
	}
	p->e.cooked = o->src.cooked;
	p->e.slow_only = o->slow_only;
	p->e.live = o->src.ifname != NULL;
	p->allowed = o->allowed;
	p->mode = codegen_frame_mode(x, n, o->allowed);
	ret = codegen(x, n, p->mode, o->src.loopback, &p->e, msg, sizeof(msg));
	/* the fast paths add code: a program too large with them is built without */
	if (((ret && p->e.err == -E2BIG) || (!ret && p->e.len > PROGRAM_FAST_BUDGET)) &&
	    !p->e.slow_only) {
		emit_free(&p->e);
		p->e.cooked = o->src.cooked;
		p->e.live = o->src.ifname != NULL;
		p->e.slow_only = 1;
		ret = codegen(x, n, p->mode, o->src.loopback, &p->e, msg, sizeof(msg));
	}
	/* only a where clause, or the program's size, makes codegen fail */
	if (ret)
		err->expr = failed_expr(x, n, p);
	for (i = 0; i < n; i++)
		filter_free(&f[i]);
	if (ret) {
		program_free(p);
		i = err->expr;
		return fail(err, p->x[i].q.filter ? p->x[i].q.filter_pos : -1, msg);
	}
	return 0;
}

void program_free(struct program *p)
{
	emit_free(&p->e);
}

const char *program_frame_mode(const struct program *p)
{
	if (p->mode == FRAME_DIRECT)
		return "directly from the packet (LD_ABS past its linear part)";
	if (p->mode == FRAME_WINDOW)
		return "from a copy on the stack";
	return p->allowed == FRAME_WINDOW ? "with LD_ABS (two reads or fewer)" :
	       "with LD_ABS (no CAP_PERFMON)";
}
