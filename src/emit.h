/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eBPF instruction buffer with forward jumps kept as patch lists.
 *
 * A pending forward jump stores, in its own 16-bit offset field, the index
 * of the next pending jump of the same list; NO_JUMP ends a list.  Patching
 * a list to a target walks it and writes the real relative offsets, as
 * Lua's code generator does.  eBPF programs here never jump backwards.
 */
#ifndef EBPFCOUNT_EMIT_H
#define EBPFCOUNT_EMIT_H

#include <stddef.h>
#include <linux/bpf.h>

#include "insn.h"

#define NO_JUMP (-1)
#define EMIT_MAX_INSNS 4096

struct emit {
	struct bpf_insn *insns;
	int len;
	int cap;
	int err;		/* first error, sticky: -ENOMEM, -E2BIG */
	const char **notes;	/* notes[i]: comment shown before insn i, or NULL */
	char **owned;		/* the notes emit_notef() made, freed with e */
	int nowned;
	int cooked;		/* the frame is cooked (frame.h), for the reads of it */
	int slow_only;		/* codegen: no fast paths (tests compare them to it) */
	int live;		/* a live socket's frames: none cut short (frame.h) */
	/* FRAME_DIRECT: the packet addresses frame_direct_base() stored */
	struct { int base, extent; } direct[3];
	/* FRAME_DIRECT: a register holding the frame's start, when extent > 0 */
	struct { int reg, extent; } start;
	/* frame_load_checked(): the frame is known to hold this many bytes, */
	unsigned int held;
	/* ... and a register base is a multiple of this (0 or 1: unknown) */
	unsigned int base_align;
	/* ... and less than this (0: unknown), which the verifier knows too */
	unsigned int base_lim;
};

void emit_init(struct emit *e);
void emit_free(struct emit *e);
/* Append one instruction; returns its index (or -1 once e->err is set). */
int emit(struct emit *e, struct bpf_insn insn);
/* Append both slots of a 64-bit immediate load (BPF_LD_IMM64_RAW). */
void emit_ld_imm64(struct emit *e, int dst, int src, __u64 imm);
/* Append a jump whose target is not known yet and add it to *list. */
void emit_jump(struct emit *e, struct bpf_insn jmp, int *list);
/* Append list l2 to *l1. */
void emit_concat(struct emit *e, int *l1, int l2);
/* Point every jump of list at instruction target. */
void emit_patch(struct emit *e, int list, int target);
/* Point every jump of list at the next instruction to be emitted. */
void emit_patch_here(struct emit *e, int list);
/* Attach a comment (a string literal or one that outlives e) to the next
 * instruction, for listings. */
void emit_note(struct emit *e, const char *note);
/* The same, formatted: e keeps the string. */
void emit_notef(struct emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Index of the next instruction. */
static inline int emit_here(const struct emit *e) { return e->len; }

#endif
