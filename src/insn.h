/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eBPF instruction constructors, shared by the code generator and the
 * test programs.  The encodings are those of include/uapi/linux/bpf.h.
 */
#ifndef EBPFCOUNT_INSN_H
#define EBPFCOUNT_INSN_H

#include <linux/bpf.h>

#define INSN(CODE, DST, SRC, OFF, IMM)					\
	((struct bpf_insn) { .code = (CODE), .dst_reg = (DST),		\
			     .src_reg = (SRC), .off = (OFF), .imm = (IMM) })

#define BPF_ALU64_REG(OP, DST, SRC) INSN(BPF_ALU64 | BPF_OP(OP) | BPF_X, DST, SRC, 0, 0)
#define BPF_ALU64_IMM(OP, DST, IMM) INSN(BPF_ALU64 | BPF_OP(OP) | BPF_K, DST, 0, 0, IMM)
#define BPF_ALU32_REG(OP, DST, SRC) INSN(BPF_ALU | BPF_OP(OP) | BPF_X, DST, SRC, 0, 0)
#define BPF_ALU32_IMM(OP, DST, IMM) INSN(BPF_ALU | BPF_OP(OP) | BPF_K, DST, 0, 0, IMM)
#define BPF_MOV64_REG(DST, SRC)     BPF_ALU64_REG(BPF_MOV, DST, SRC)
#define BPF_MOV64_IMM(DST, IMM)     BPF_ALU64_IMM(BPF_MOV, DST, IMM)
#define BPF_MOV32_REG(DST, SRC)     BPF_ALU32_REG(BPF_MOV, DST, SRC)
#define BPF_MOV32_IMM(DST, IMM)     BPF_ALU32_IMM(BPF_MOV, DST, IMM)
#define BPF_ENDIAN_BE(DST, BITS)    INSN(BPF_ALU | BPF_END | BPF_TO_BE, DST, 0, 0, BITS)

#define BPF_LDX_MEM(SIZE, DST, SRC, OFF) \
	INSN(BPF_LDX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_STX_MEM(SIZE, DST, SRC, OFF) \
	INSN(BPF_STX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_ST_MEM(SIZE, DST, OFF, IMM) \
	INSN(BPF_ST | BPF_SIZE(SIZE) | BPF_MEM, DST, 0, OFF, IMM)

#define BPF_JMP_REG(OP, DST, SRC, OFF) INSN(BPF_JMP | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_JMP_IMM(OP, DST, IMM, OFF) INSN(BPF_JMP | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_JMP_A(OFF)                 INSN(BPF_JMP | BPF_JA, 0, 0, OFF, 0)
#define BPF_EMIT_CALL(FUNC)            INSN(BPF_JMP | BPF_CALL, 0, 0, 0, FUNC)
#define BPF_EXIT_INSN()                INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* A 64-bit immediate load takes two instruction slots. */
#define BPF_LD_IMM64_RAW(DST, SRC, IMM)					\
	INSN(BPF_LD | BPF_DW | BPF_IMM, DST, SRC, 0, (__u32)(IMM)),	\
	INSN(0, 0, 0, 0, (__u32)((__u64)(IMM) >> 32))
#define BPF_LD_MAP_FD(DST, FD) BPF_LD_IMM64_RAW(DST, BPF_PSEUDO_MAP_FD, FD)

#endif
