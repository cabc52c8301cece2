// SPDX-License-Identifier: GPL-2.0
/* The one program builder; see compile.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>

#include "compile.h"
#include "filter.h"

static int fail(struct build_error *err, int pos, const char *msg)
{
	err->pos = pos;
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
 * A cooked frame's header has no Ethernet addresses (frame.h): a filter
 * that reads them (ether host, ether[0:4], ether[ip[0] & 0xf]) is refused.
 */
static int check_cooked(const struct bpf_program *f, char *msg, size_t size)
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
			snprintf(msg, size, "-i any has no Ethernet addresses, which the "
				 "filter reads");
			return -1;
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
	const char *filter;
	int ret;

	emit_init(&p->e);
	if (parse_query(expr, &p->q, &perr))
		return fail(err, perr.pos, perr.msg);
	if (check_keys(&p->q, &o->src, err))
		return -1;
	filter = p->q.filter;
	/* -i any: on lo's handle, Ethernet on Linux, as a cooked frame reads */
	ret = filter && filter_compile(filter, o->src.cooked ? "lo" : o->src.ifname, &f, msg,
				       sizeof(msg));
	if (!ret && filter && o->src.cooked && check_cooked(&f, msg, sizeof(msg))) {
		filter_free(&f);
		ret = -1;
	}
	if (ret)
		return fail(err, p->q.filter ? p->q.filter_pos : -1, msg);
	layout_query(&p->q, o->max_keys, &p->lay);
	p->e.cooked = o->src.cooked;
	p->allowed = o->allowed;
	p->mode = codegen_frame_mode(&p->q, filter != NULL, o->allowed);
	ret = codegen(&p->q, &p->lay, filter ? filter_insns(&f) : NULL, f.bf_len, p->mode,
		      o->src.loopback, &p->e, msg, sizeof(msg));
	if (filter)
		filter_free(&f);
	if (ret) {	/* only a pcap filter can make codegen fail */
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
