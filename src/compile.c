// SPDX-License-Identifier: GPL-2.0
/* The one program builder; see compile.h. */
#include <stdio.h>

#include "compile.h"
#include "filter.h"

static int fail(struct build_error *err, int pos, const char *msg)
{
	err->pos = pos;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	return -1;
}

/* Keys the packets of src cannot have. */
static int check_keys(const struct query *q, const struct source *src, struct build_error *err)
{
	char msg[160];
	int i;

	for (i = 0; i < q->nkeys; i++) {
		const struct field *f = q->keys[i].field;

		if (src->linktype && f->layer == LAYER_ETH && f->off < 12) {
			snprintf(msg, sizeof(msg), "%s: a %s capture has no Ethernet addresses",
				 f->name, src->linktype);
			return fail(err, q->keys[i].pos, msg);
		}
	}
	return 0;
}

int program_build(struct program *p, const char *expr, const struct build_opts *o,
		  struct build_error *err)
{
	struct bpf_program f = { 0 };
	struct parse_error perr;
	char msg[sizeof(err->msg)];
	int ret;

	emit_init(&p->e);
	if (parse_query(expr, &p->q, &perr))
		return fail(err, perr.pos, perr.msg);
	if (check_keys(&p->q, &o->src, err))
		return -1;
	if (p->q.filter && filter_compile(p->q.filter, o->src.ifname, &f, msg, sizeof(msg)))
		return fail(err, p->q.filter_pos, msg);
	layout_query(&p->q, o->max_keys, &p->lay);
	p->allowed = o->allowed;
	p->mode = codegen_frame_mode(&p->q, p->q.filter != NULL, o->allowed);
	ret = codegen(&p->q, &p->lay, p->q.filter ? filter_insns(&f) : NULL, f.bf_len, p->mode,
		      &p->e, msg, sizeof(msg));
	if (p->q.filter)
		filter_free(&f);
	if (ret) {	/* only a where clause can make codegen fail */
		program_free(p);
		return fail(err, p->q.filter ? p->q.filter_pos : -1, msg);
	}
	return 0;
}

void program_free(struct program *p)
{
	emit_free(&p->e);
}

const char *program_frame_mode(const struct program *p)
{
	if (p->mode == FRAME_WINDOW)
		return "from a copy on the stack";
	return p->allowed == FRAME_WINDOW ? "with LD_ABS (two reads or fewer)" :
	       "with LD_ABS (no CAP_PERFMON)";
}
