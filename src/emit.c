// SPDX-License-Identifier: GPL-2.0
/* eBPF instruction buffer with patch lists; see emit.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

void emit_init(struct emit *e)
{
	memset(e, 0, sizeof(*e));
}

void emit_free(struct emit *e)
{
	while (e->nowned)
		free(e->owned[--e->nowned]);
	free(e->owned);
	free(e->insns);
	free(e->notes);
	emit_init(e);
}

static int grow(struct emit *e)
{
	int cap = e->cap ? e->cap * 2 : 64;
	struct bpf_insn *n;
	const char **notes;

	if (e->len >= EMIT_MAX_INSNS) {
		e->err = -E2BIG;
		return -1;
	}
	n = realloc(e->insns, cap * sizeof(*n));
	if (n)
		e->insns = n;
	notes = n ? realloc(e->notes, (cap + 1) * sizeof(*notes)) : NULL;
	if (!notes) {
		e->err = -ENOMEM;
		return -1;
	}
	memset(notes + e->cap, 0, (cap + 1 - e->cap) * sizeof(*notes));
	e->notes = notes;
	e->cap = cap;
	return 0;
}

int emit(struct emit *e, struct bpf_insn insn)
{
	if (e->err || (e->len == e->cap && grow(e)))
		return -1;
	e->insns[e->len] = insn;
	return e->len++;
}

void emit_note(struct emit *e, const char *note)
{
	if (e->len == e->cap && grow(e))
		return;
	e->notes[e->len] = note;
}

void emit_notef(struct emit *e, const char *fmt, ...)
{
	char **owned = realloc(e->owned, (e->nowned + 1) * sizeof(*owned));
	va_list ap;
	char *note;
	int ret;

	if (!owned) {
		e->err = -ENOMEM;
		return;
	}
	e->owned = owned;
	va_start(ap, fmt);
	ret = vasprintf(&note, fmt, ap);
	va_end(ap);
	if (ret < 0) {
		e->err = -ENOMEM;
		return;
	}
	e->owned[e->nowned++] = note;
	emit_note(e, note);
}

void emit_ld_imm64(struct emit *e, int dst, int src, __u64 imm)
{
	struct bpf_insn pair[2] = { BPF_LD_IMM64_RAW(dst, src, imm) };

	emit(e, pair[0]);
	emit(e, pair[1]);
}

void emit_jump(struct emit *e, struct bpf_insn jmp, int *list)
{
	int pc;

	jmp.off = NO_JUMP;
	pc = emit(e, jmp);
	if (pc >= 0)
		emit_concat(e, list, pc);
}

static int next_jump(const struct emit *e, int pc)
{
	return e->insns[pc].off;
}

void emit_concat(struct emit *e, int *l1, int l2)
{
	int pc;

	if (l2 == NO_JUMP || e->err)
		return;
	if (*l1 == NO_JUMP) {
		*l1 = l2;
		return;
	}
	for (pc = *l1; next_jump(e, pc) != NO_JUMP; pc = next_jump(e, pc))
		;
	e->insns[pc].off = l2;
}

void emit_patch(struct emit *e, int list, int target)
{
	while (list != NO_JUMP && !e->err) {
		int next = next_jump(e, list);
		int off = target - (list + 1);

		if (off < 0 || off > 32767) {
			e->err = -E2BIG;
			return;
		}
		e->insns[list].off = off;
		list = next;
	}
}

void emit_patch_here(struct emit *e, int list)
{
	emit_patch(e, list, e->len);
}
