// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>

#include "user/symbols/insn.h"

struct insn_decoder {
	csh intel; /* with operand details: the analysis */
	csh att;   /* without: the text objdump users read */
	cs_insn *one;
};

struct insn_decoder *insn_decoder__new(void)
{
	struct insn_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->intel) != CS_ERR_OK) {
		free(d);
		return NULL;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->att) != CS_ERR_OK) {
		cs_close(&d->intel);
		free(d);
		return NULL;
	}
	cs_option(d->intel, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(d->att, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->one = cs_malloc(d->intel);
	if (!d->one) {
		insn_decoder__free(d);
		return NULL;
	}
	return d;
}

void insn_decoder__free(struct insn_decoder *d)
{
	if (!d)
		return;
	if (d->one)
		cs_free(d->one, 1);
	cs_close(&d->intel);
	cs_close(&d->att);
	free(d);
}

/* Each general-purpose register's names at every width, in DWARF order (rax 0, rdx 1, ...). */
static const x86_reg reg_widths[16][5] = {
	{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
	{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
	{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
	{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
	{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL },
	{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL },
	{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL },
	{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL },
	{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B },
	{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B },
	{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B },
	{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B },
	{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B },
	{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B },
	{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B },
	{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B },
};

/* The DWARF number of a general-purpose register (any of its widths), or INSN_REG_NONE. */
static int reg__dwarf(unsigned int r)
{
	int i, w;

	if (r == X86_REG_RIP)
		return INSN_REG_PC;
	if (r == X86_REG_INVALID)
		return INSN_REG_NONE;
	for (i = 0; i < 16; i++)
		for (w = 0; w < 5; w++)
			if (reg_widths[i][w] == r)
				return i;
	return INSN_REG_NONE;
}

static void insn__mem(const cs_insn *ci, const cs_x86_op *op, struct insn_mem *m)
{
	m->base = op->mem.base == X86_REG_INVALID ? INSN_REG_NONE : reg__dwarf(op->mem.base);
	m->index = op->mem.index == X86_REG_INVALID ? INSN_REG_NONE : reg__dwarf(op->mem.index);
	m->scale = op->mem.scale;
	m->disp = op->mem.disp;
	m->size = op->size;
	m->segment = op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS;
	/* rip-relative: the address is the next instruction's plus disp */
	if (m->base == INSN_REG_PC)
		m->disp += (__s64)(ci->address + ci->size);
}

/* The kind of a copy or an arithmetic operation the tracking follows. */
static enum insn_kind insn__kind(unsigned int id)
{
	switch (id) {
	case X86_INS_MOV:
	case X86_INS_MOVABS:
		return INSN_MOV;
	case X86_INS_LEA:
		return INSN_LEA;
	case X86_INS_ADD:
		return INSN_ADD;
	case X86_INS_SUB:
		return INSN_SUB;
	case X86_INS_CALL:
		return INSN_CALL;
	case X86_INS_JMP:
	case X86_INS_RET:
	case X86_INS_JAE:
	case X86_INS_JA:
	case X86_INS_JBE:
	case X86_INS_JB:
	case X86_INS_JCXZ:
	case X86_INS_JECXZ:
	case X86_INS_JRCXZ:
	case X86_INS_JE:
	case X86_INS_JGE:
	case X86_INS_JG:
	case X86_INS_JLE:
	case X86_INS_JL:
	case X86_INS_JNE:
	case X86_INS_JNO:
	case X86_INS_JNP:
	case X86_INS_JNS:
	case X86_INS_JO:
	case X86_INS_JP:
	case X86_INS_JS:
		return INSN_JUMP;
	default:
		return INSN_OTHER;
	}
}

static void insn__operands(const cs_insn *ci, struct insn *out)
{
	const cs_x86 *x = &ci->detail->x86;
	int i;

	out->dst = out->src = INSN_OP_NONE;
	out->dst_reg = out->src_reg = INSN_REG_NONE;
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		/* Intel order: the destination first */
		enum insn_operand *which = i == 0 ? &out->dst : &out->src;
		int *reg = i == 0 ? &out->dst_reg : &out->src_reg;

		switch (op->type) {
		case X86_OP_REG:
			if (i < 2) {
				*which = INSN_OP_REG;
				*reg = reg__dwarf(op->reg);
				/* a 32-bit or narrower register holds no 64-bit pointer */
				if (i == 0 && op->size < 8 && out->kind != INSN_CALL &&
				    out->kind != INSN_JUMP)
					out->narrow = true;
			}
			break;
		case X86_OP_MEM:
			insn__mem(ci, op, &out->mem);
			out->accesses = ci->id != X86_INS_LEA && ci->id != X86_INS_NOP;
			if (i < 2)
				*which = INSN_OP_MEM;
			break;
		case X86_OP_IMM:
			if (i < 2) {
				*which = INSN_OP_IMM;
				out->imm = op->imm;
			}
			if (out->kind == INSN_CALL || out->kind == INSN_JUMP)
				out->target = (__u64)op->imm;
			break;
		default:
			break;
		}
	}
	/* xor %eax,%eax: the constant 0 */
	if (ci->id == X86_INS_XOR && out->dst == INSN_OP_REG && out->src == INSN_OP_REG &&
	    out->dst_reg == out->src_reg) {
		out->kind = INSN_MOV;
		out->src = INSN_OP_IMM;
		out->imm = 0;
		out->narrow = false;
	}
	/*
	 * What is tracked is 64-bit: a pointer, or a constant (a 32-bit mov of
	 * one zero-extends it).  Copies of narrower registers or memory, and
	 * arithmetic on them, are something else.
	 */
	if (out->kind == INSN_MOV &&
	    ((out->dst == INSN_OP_MEM || out->src == INSN_OP_MEM) && out->mem.size != 8))
		out->kind = INSN_OTHER;
	if (out->narrow && !(out->kind == INSN_MOV && out->src == INSN_OP_IMM && out->imm >= 0))
		out->kind = INSN_OTHER;
}

static void insn__written(csh h, const cs_insn *ci, struct insn *out)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, i;
	int r;

	out->written = 0;
	if (cs_regs_access(h, ci, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		nwr = 0;
	for (i = 0; i < nwr; i++) {
		r = reg__dwarf(wr[i]);
		if (r >= 0 && r < 16)
			out->written |= 1u << r;
	}
	/* capstone names the explicit destination too; make sure of it */
	if (out->dst == INSN_OP_REG && out->dst_reg >= 0 && out->dst_reg < 16)
		out->written |= 1u << out->dst_reg;
}

unsigned int insn_decoder__decode(struct insn_decoder *d, const unsigned char *code, size_t len,
				  __u64 addr, struct insn *out)
{
	const uint8_t *p = code;
	uint64_t a = addr;

	memset(out, 0, sizeof(*out));
	out->mem.base = out->mem.index = INSN_REG_NONE;
	if (!cs_disasm_iter(d->intel, &p, &len, &a, d->one))
		return 0;
	out->addr = addr;
	out->len = d->one->size;
	out->kind = insn__kind(d->one->id);
	insn__operands(d->one, out);
	out->ends = d->one->id == X86_INS_JMP || d->one->id == X86_INS_RET ||
		    d->one->id == X86_INS_UD2 || d->one->id == X86_INS_HLT;
	insn__written(d->intel, d->one, out);
	/* jumps and calls write rip and rsp only; those are not tracked */
	if (out->kind == INSN_CALL || out->kind == INSN_JUMP)
		out->written &= ~(1u << INSN_REG_SP);
	return out->len;
}

unsigned int insn_decoder__text(struct insn_decoder *d, const unsigned char *code, size_t len,
				__u64 addr, char *text, size_t textlen)
{
	cs_insn *ci;
	unsigned int n;

	if (cs_disasm(d->att, code, len, addr, 1, &ci) != 1) {
		snprintf(text, textlen, "(bad)");
		return 0;
	}
	if (ci->op_str[0])
		snprintf(text, textlen, "%s %s", ci->mnemonic, ci->op_str);
	else
		snprintf(text, textlen, "%s", ci->mnemonic);
	n = ci->size;
	cs_free(ci, 1);
	return n;
}
