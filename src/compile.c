// SPDX-License-Identifier: GPL-2.0
/* A parsed query to a program; see compile.h. */
#include "compile.h"
#include "filter.h"

int compile_query(const struct query *q, const char *ifname, enum frame_mode mode,
		  struct layout *lay, struct emit *e, char *err, size_t errlen)
{
	struct bpf_program f = { 0 };
	int ret;

	if (q->filter && filter_compile(q->filter, ifname, &f, err, errlen))
		return 1;
	layout_query(q, lay);
	ret = codegen(q, lay, q->filter ? filter_insns(&f) : NULL, f.bf_len, mode, e, err,
		      errlen);
	if (q->filter)
		filter_free(&f);
	return ret ? -1 : 0;
}
