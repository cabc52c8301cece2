// SPDX-License-Identifier: GPL-2.0
/* Listings of generated programs, in the verifier's notation. */
#include <stdio.h>

#include "layout.h"
#include "disasm.h"

static const char *const alu_ops[16] = {
	[BPF_ADD >> 4] = "+=", [BPF_SUB >> 4] = "-=", [BPF_MUL >> 4] = "*=",
	[BPF_DIV >> 4] = "/=", [BPF_OR >> 4] = "|=", [BPF_AND >> 4] = "&=",
	[BPF_LSH >> 4] = "<<=", [BPF_RSH >> 4] = ">>=", [BPF_NEG >> 4] = "= -",
	[BPF_MOD >> 4] = "%=", [BPF_XOR >> 4] = "^=", [BPF_MOV >> 4] = "=",
	[BPF_ARSH >> 4] = "s>>=",
};

static const char *const jmp_ops[16] = {
	[BPF_JEQ >> 4] = "==", [BPF_JGT >> 4] = ">", [BPF_JGE >> 4] = ">=",
	[BPF_JSET >> 4] = "&", [BPF_JNE >> 4] = "!=", [BPF_JSGT >> 4] = "s>",
	[BPF_JSGE >> 4] = "s>=", [BPF_JLT >> 4] = "<", [BPF_JLE >> 4] = "<=",
	[BPF_JSLT >> 4] = "s<", [BPF_JSLE >> 4] = "s<=",
};

static const char *const sizes[4] = {
	[BPF_W >> 3] = "u32", [BPF_H >> 3] = "u16", [BPF_B >> 3] = "u8", [BPF_DW >> 3] = "u64",
};

static const char *helper_name(int id)
{
	switch (id) {
	case BPF_FUNC_map_lookup_elem: return "bpf_map_lookup_elem";
	case BPF_FUNC_map_update_elem: return "bpf_map_update_elem";
	case BPF_FUNC_skb_load_bytes: return "bpf_skb_load_bytes";
	case BPF_FUNC_get_smp_processor_id: return "bpf_get_smp_processor_id";
	case BPF_FUNC_get_prandom_u32: return "bpf_get_prandom_u32";
	default: return "helper";
	}
}

static const char *map_name(int idx)
{
	return idx == MAP_COUNTS ? "counts" : idx == MAP_OVERFLOW ? "overflow" : "?";
}

static void fmt_alu(const struct bpf_insn *i, char *buf, size_t size)
{
	const char *w = BPF_CLASS(i->code) == BPF_ALU64 ? "r" : "w";
	const char *op = alu_ops[BPF_OP(i->code) >> 4];

	if (BPF_OP(i->code) == BPF_END)
		snprintf(buf, size, "r%d = be%d r%d", i->dst_reg, i->imm, i->dst_reg);
	else if (BPF_OP(i->code) == BPF_NEG)
		snprintf(buf, size, "%s%d = -%s%d", w, i->dst_reg, w, i->dst_reg);
	else if (BPF_SRC(i->code) == BPF_X)
		snprintf(buf, size, "%s%d %s %s%d", w, i->dst_reg, op ? op : "?", w, i->src_reg);
	else
		snprintf(buf, size, "%s%d %s %d", w, i->dst_reg, op ? op : "?", i->imm);
}

static void fmt_jmp(const struct bpf_insn *i, int pc, char *buf, size_t size)
{
	int op = BPF_OP(i->code), to = pc + 1 + i->off;
	const char *w = BPF_CLASS(i->code) == BPF_JMP32 ? "w" : "r";

	if (op == BPF_JA)
		snprintf(buf, size, "goto (%03d)", to);
	else if (op == BPF_CALL)
		snprintf(buf, size, "call %s#%d", helper_name(i->imm), i->imm);
	else if (op == BPF_EXIT)
		snprintf(buf, size, "exit");
	else if (BPF_SRC(i->code) == BPF_X)
		snprintf(buf, size, "if %s%d %s %s%d goto (%03d)", w, i->dst_reg,
			 jmp_ops[op >> 4] ? jmp_ops[op >> 4] : "?", w, i->src_reg, to);
	else
		snprintf(buf, size, "if %s%d %s %#x goto (%03d)", w, i->dst_reg,
			 jmp_ops[op >> 4] ? jmp_ops[op >> 4] : "?", i->imm, to);
}

static int fmt_ld(const struct bpf_insn *i, int pc, int n, char *buf, size_t size)
{
	const char *sz = sizes[BPF_SIZE(i->code) >> 3];

	if (BPF_MODE(i->code) == BPF_ABS) {
		snprintf(buf, size, "r0 = *(%s *)skb[%d]", sz, i->imm);
	} else if (BPF_MODE(i->code) == BPF_IND) {
		snprintf(buf, size, "r0 = *(%s *)skb[r%d %+d]", sz, i->src_reg, i->imm);
	} else if (i->src_reg == BPF_PSEUDO_MAP_FD) {
		snprintf(buf, size, "r%d = map[%s] ll", i->dst_reg, map_name(i->imm));
		return 2;
	} else {
		unsigned long long v = (unsigned int)i->imm;

		if (pc + 1 < n)
			v |= (unsigned long long)(unsigned int)i[1].imm << 32;
		snprintf(buf, size, "r%d = %#llx ll", i->dst_reg, v);
		return 2;
	}
	return 1;
}

int disasm_insn(const struct bpf_insn *insns, int pc, int n, char *buf, size_t size)
{
	const struct bpf_insn *i = &insns[pc];
	const char *sz = sizes[BPF_SIZE(i->code) >> 3];

	switch (BPF_CLASS(i->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		fmt_alu(i, buf, size);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		fmt_jmp(i, pc, buf, size);
		break;
	case BPF_LDX:
		snprintf(buf, size, "r%d = *(%s *)(r%d %+d)", i->dst_reg, sz, i->src_reg, i->off);
		break;
	case BPF_STX:
		snprintf(buf, size, "*(%s *)(r%d %+d) = r%d", sz, i->dst_reg, i->off, i->src_reg);
		break;
	case BPF_ST:
		snprintf(buf, size, "*(%s *)(r%d %+d) = %d", sz, i->dst_reg, i->off, i->imm);
		break;
	default:
		return fmt_ld(i, pc, n, buf, size);
	}
	return 1;
}

void disasm_print(FILE *f, const struct emit *e)
{
	char buf[96];
	int pc = 0;

	while (pc < e->len) {
		if (e->notes && e->notes[pc])
			fprintf(f, "; %s\n", e->notes[pc]);
		int slots = disasm_insn(e->insns, pc, e->len, buf, sizeof(buf));

		fprintf(f, "(%03d) %s\n", pc, buf);
		pc += slots;
	}
}

void disasm_print_c(FILE *f, const struct emit *e)
{
	int pc;

	for (pc = 0; pc < e->len; pc++) {
		const struct bpf_insn *i = &e->insns[pc];

		fprintf(f, "{ 0x%02x, %2d, %2d, %6d, 0x%08x },\n", i->code, i->dst_reg,
			i->src_reg, i->off, (unsigned int)i->imm);
	}
}
