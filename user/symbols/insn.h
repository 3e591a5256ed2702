/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * insn.h - x86-64 instructions decoded through capstone into what the
 * data-type analysis (datatype.c) asks of them: the memory operand an
 * instruction accesses (base, index, scale, displacement, size), and how it
 * moves a value between registers and memory (a mov, a lea, an add of a
 * constant, a call), with registers named by their DWARF numbers (rax 0,
 * rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6, rsp 7, r8-r15 8-15, rip 16), as
 * DWARF location expressions name them.
 */
#ifndef LDLAT_INSN_H
#define LDLAT_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define INSN_REG_NONE (-1)
#define INSN_REG_SP   7
#define INSN_REG_BP   6
#define INSN_REG_PC   16
#define INSN_NREGS    17

enum insn_kind {
	INSN_OTHER, /* writes the registers in 'written' with values not tracked */
	INSN_MOV,   /* a 64-bit copy: dst (register or memory) <- src (register, memory, constant);
		       also xor of a register with itself (the constant 0) */
	INSN_LEA,   /* dst register <- the address of mem */
	INSN_ADD,   /* dst register += src (a register or a constant) */
	INSN_SUB,   /* dst register -= src */
	INSN_CALL,  /* target: a direct call's address (0: indirect) */
	INSN_JUMP,  /* a jump (target: where to, 0: indirect), a return */
};

enum insn_operand {
	INSN_OP_NONE,
	INSN_OP_REG,
	INSN_OP_MEM,
	INSN_OP_IMM,
};

/* A memory operand: [base + index * scale + disp]; a PC-relative one is resolved into disp. */
struct insn_mem {
	int base,
		index; /* DWARF register numbers, INSN_REG_NONE; base INSN_REG_PC: disp is absolute */
	int scale;
	__s64 disp;
	unsigned int size; /* bytes accessed */
	bool segment;	   /* %fs or %gs: thread-local or per-CPU, not a plain address */
};

struct insn {
	__u64 addr;
	unsigned int len;
	enum insn_kind kind;
	enum insn_operand dst, src; /* the kinds of the copy's or the arithmetic's operands */
	int dst_reg, src_reg;	    /* when INSN_OP_REG */
	__s64 imm;		    /* src when INSN_OP_IMM */
	bool accesses;		    /* mem is an operand the instruction reads or writes */
	struct insn_mem mem;	    /* the memory operand (of lea too, which accesses nothing) */
	__u32 written;		    /* bit i: DWARF register i is written (16 general ones) */
	__u64 target;		    /* a direct call's or jump's destination */
	bool ends;		    /* the next instruction does not follow: a jmp, a ret, a ud2 */
	bool narrow;		    /* the destination register is written 32 bits wide or less */
};

struct insn_decoder;

/* A decoder for x86-64; NULL when capstone cannot open one. */
struct insn_decoder *insn_decoder__new(void);
void insn_decoder__free(struct insn_decoder *d);

/*
 * Decodes the instruction at code (len bytes, at address addr) into out:
 * its length, 0 when the bytes are not an instruction.
 */
unsigned int insn_decoder__decode(struct insn_decoder *d, const unsigned char *code, size_t len,
				  __u64 addr, struct insn *out);

/*
 * The instruction at code as objdump writes it (AT&T syntax: "movq $1,
 * (%rdi)") into text; its length, 0 when not an instruction.
 */
unsigned int insn_decoder__text(struct insn_decoder *d, const unsigned char *code, size_t len,
				__u64 addr, char *text, size_t textlen);

#endif
