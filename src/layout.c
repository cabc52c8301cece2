// SPDX-License-Identifier: GPL-2.0
/* The layout of a program's counts; see layout.h. */
#include <string.h>
#include <linux/filter.h>

#include "layout.h"

static int array_key(const struct query *q)
{
	return q->nkeys == 0 ||
	       (q->nkeys == 1 && q->keys[0].field->width == 1 && !q->keys[0].prefix);
}

/* Values of one and two bytes are stored as such, wider ones as words. */
static int value_align(int width)
{
	return width < 4 ? width : 4;
}

void layout_query(const struct query *q, unsigned int max_keys, struct layout *lay)
{
	int i, off = q->nkeys;

	memset(lay, 0, sizeof(*lay));
	lay->nkeys = q->nkeys;
	for (i = 0; i < q->nkeys; i++) {
		int a = value_align(q->keys[i].field->width);

		off = (off + a - 1) / a * a;
		lay->val_off[i] = off;
		off += q->keys[i].field->width;
	}
	lay->array = array_key(q);
	lay->row_size = off < 4 ? 4 : (off + 3) & ~3;
	lay->key_size = lay->array ? 4 : lay->row_size;
	if (lay->array)
		lay->max_entries = q->nkeys ? ARRAY_ABSENT + 2 : 1;
	else
		lay->max_entries = max_keys, lay->tables = 1;
}

void layout_key_from_index(const struct layout *lay, unsigned int idx, unsigned char *key)
{
	memset(key, 0, lay->row_size);
	if (!lay->nkeys)
		return;
	if (idx >= ARRAY_ABSENT)
		key[0] = KEY_ABSENT + idx - ARRAY_ABSENT;
	else
		key[lay->val_off[0]] = idx;
}

void layout_relocate(struct bpf_insn *insns, int n, const int *fds)
{
	int i;

	for (i = 0; i < n; i++)
		if (insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    insns[i].src_reg == BPF_PSEUDO_MAP_FD)
			insns[i].imm = fds[insns[i].imm];
}
