// SPDX-License-Identifier: GPL-2.0
/* A parsed query to a program; see compile.h. */
#include "compile.h"
#include "filter.h"

int compile_query(const struct query *q, const struct compile_opts *o, struct layout *lay,
		  struct emit *e, char *err, size_t errlen)
{
	struct bpf_program f = { 0 };
	int ret;

	if (q->filter && filter_compile(q->filter, o->ifname, &f, err, errlen))
		return 1;
	layout_query(q, o->max_keys, lay);
	ret = codegen(q, lay, q->filter ? filter_insns(&f) : NULL, f.bf_len, o->mode, e, err,
		      errlen);
	if (q->filter)
		filter_free(&f);
	return ret ? -1 : 0;
}
