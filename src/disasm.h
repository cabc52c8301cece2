/* SPDX-License-Identifier: GPL-2.0 */
/* Listings of generated programs: -d (readable) and -dd (C array). */
#ifndef EBPFCOUNT_DISASM_H
#define EBPFCOUNT_DISASM_H

#include <stdio.h>

#include "emit.h"

/* One instruction in the verifier's notation into buf; returns the
 * number of slots it takes (2 for a 64-bit immediate load). */
int disasm_insn(const struct bpf_insn *insns, int pc, int n, char *buf, size_t size);
/* Whole program, one instruction a line, with the generator's notes. */
void disasm_print(FILE *f, const struct emit *e);
/* Whole program as a C array initializer. */
void disasm_print_c(FILE *f, const struct emit *e);

#endif
