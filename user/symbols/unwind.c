// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>

#include "user/symbols/dso.h"
#include "user/symbols/unwind.h"

/* DWARF register numbers of x86-64 (the psABI's table). */
#define DW_REG_RBX 3
#define DW_REG_RBP 6
#define DW_REG_RSP 7
#define DW_REG_RIP 16

/* An FDE's address range, and which section's CFI describes it. */
struct fde_range {
	__u64 lo, hi;
	bool debug;
};

struct fde_list {
	struct fde_range *r;
	size_t n, cap;
};

/* A CIE's FDE pointer encoding (its 'R' augmentation), by section offset. */
struct cie_enc {
	Dwarf_Off off;
	unsigned char enc;
};

struct cie_list {
	struct cie_enc *c;
	size_t n, cap;
};

/* The rows as they are compiled, at file addresses. */
struct row_list {
	struct {
		__u64 addr;
		struct ldlat_unwind_row r;
	} * a;
	size_t n, cap;
};

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *q;

	if (n < *cap)
		return 0;
	q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/*
 * A pointer in the encoding of the DWARF extensions for exception
 * handling (DW_EH_PE_*), at p (end: the data's end).  vaddr is p's
 * address, for pc-relative values.  Returns the bytes read, or 0 for an
 * encoding this reader does not take (indirect, text- or data-relative,
 * which x86-64 FDEs do not use).
 */
static size_t eh_pointer(const unsigned char *p, const unsigned char *end, unsigned char enc,
			 __u64 vaddr, __u64 *out)
{
	__u64 v = 0;
	size_t len, i;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		len = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		len = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		len = 2;
		break;
	default:
		return 0;
	}
	if ((size_t)(end - p) < len)
		return 0;
	for (i = 0; i < len; i++) /* little-endian: x86-64 */
		v |= (__u64)p[i] << (8 * i);
	if ((enc & 0x0f) == DW_EH_PE_sdata4)
		v = (__u64)(__s64)(__s32)v;
	else if ((enc & 0x0f) == DW_EH_PE_sdata2)
		v = (__u64)(__s64)(__s16)v;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		v += vaddr;
		break;
	default:
		return 0;
	}
	if (enc & DW_EH_PE_indirect)
		return 0;
	*out = v;
	return len;
}

/* A CIE's FDE encoding from its augmentation ("zR", "zPLR", ...); absptr when it has none. */
static unsigned char cie_fde_encoding(const Dwarf_CIE *cie)
{
	const unsigned char *d = cie->augmentation_data;
	const unsigned char *end = d + cie->augmentation_data_size;
	const char *a = cie->augmentation;
	__u64 skip;

	if (!a || a[0] != 'z' || !d)
		return DW_EH_PE_absptr;
	for (a++; *a && d < end; a++) {
		switch (*a) {
		case 'R':
			return *d;
		case 'L':
			d++;
			break;
		case 'P': {
			unsigned char enc = *d++;
			size_t n = eh_pointer(d, end, enc & 0x0f, 0, &skip);

			if (!n)
				return DW_EH_PE_omit;
			d += n;
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			return DW_EH_PE_omit;
		}
	}
	return DW_EH_PE_absptr;
}

static int cie_find(const struct cie_list *cl, Dwarf_Off off)
{
	size_t i;

	for (i = cl->n; i-- > 0;)
		if (cl->c[i].off == off)
			return (int)i;
	return -1;
}

/*
 * Every FDE's range in a CFI section (data at address vaddr): libdw
 * splits the section into CIEs and FDEs (dwarf_next_cfi); the address
 * range is read here with its CIE's encoding.
 */
static int fdes_read(Elf *elf, Elf_Data *data, __u64 vaddr, bool eh, struct fde_list *out,
		     __u32 *count)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	const unsigned char *base = data->d_buf, *end = base + data->d_size;
	struct cie_list cl = {};
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry entry;
	int e = 0, r;

	while (off < data->d_size) {
		r = dwarf_next_cfi(ident, data, eh, off, &next, &entry);
		if (r)
			break; /* 1: the end; -1: a malformed entry ends the section here */
		if (dwarf_cfi_cie_p(&entry)) {
			e = grow((void **)&cl.c, &cl.cap, cl.n, sizeof(*cl.c));
			if (e)
				break;
			cl.c[cl.n].off = off;
			cl.c[cl.n++].enc = eh ? cie_fde_encoding(&entry.cie) : DW_EH_PE_absptr;
		} else {
			int ci = cie_find(&cl, entry.fde.CIE_pointer);
			unsigned char enc = ci < 0 ? DW_EH_PE_omit : cl.c[ci].enc;
			const unsigned char *p = entry.fde.start;
			__u64 lo = 0, len = 0;
			size_t n = enc == DW_EH_PE_omit
					   ? 0
					   : eh_pointer(p, end, enc, vaddr + (p - base), &lo);

			/* the range: the same size, no application */
			if (n && eh_pointer(p + n, end, enc & 0x0f, 0, &len) && len) {
				e = grow((void **)&out->r, &out->cap, out->n, sizeof(*out->r));
				if (e)
					break;
				out->r[out->n].lo = lo;
				out->r[out->n].hi = lo + len;
				out->r[out->n++].debug = !eh;
				(*count)++;
			}
		}
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
	}
	free(cl.c);
	return e;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (int)x->debug - (int)y->debug; /* .eh_frame first */
}

/* Whether op is DW_OP_bregN (or bregx) of register reg, and its offset. */
static bool op_breg(const Dwarf_Op *op, unsigned int reg, __s64 *off)
{
	if (op->atom == DW_OP_bregx && op->number == reg) {
		*off = (__s64)op->number2;
		return true;
	}
	if (op->atom == DW_OP_breg0 + reg) {
		*off = (__s64)op->number;
		return true;
	}
	return false;
}

/* [CFA + off] as libdw gives an offset(N) rule: DW_OP_call_frame_cfa, DW_OP_plus_uconst N. */
static bool op_at_cfa(const Dwarf_Op *ops, size_t n, __s64 *off)
{
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (n != 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (ops[1].atom == DW_OP_plus_uconst || ops[1].atom == DW_OP_consts) {
		*off = (__s64)ops[1].number;
		return true;
	}
	return false;
}

/*
 * The PLT's CFA (the psABI's): SP + 8, and 8 more once the entry has
 * pushed its relocation index, (RIP & 15) >= 11 (10 in a -z bndplt PLT).
 */
static bool op_plt(const Dwarf_Op *o, size_t n, unsigned int *threshold)
{
	__s64 off;

	if (n != 9 || !op_breg(&o[0], DW_REG_RSP, &off) || off != 8 ||
	    !op_breg(&o[1], DW_REG_RIP, &off) || off != 0 || o[2].atom != DW_OP_lit15 ||
	    o[3].atom != DW_OP_and || (o[4].atom != DW_OP_lit11 && o[4].atom != DW_OP_lit10) ||
	    o[5].atom != DW_OP_ge || o[6].atom != DW_OP_lit3 || o[7].atom != DW_OP_shl ||
	    o[8].atom != DW_OP_plus)
		return false;
	*threshold = o[4].atom - DW_OP_lit0;
	return true;
}

/*
 * A register saved at SP + off in a signal frame: DW_CFA_expression's
 * DW_OP_breg7 off, after the CFA libdw pushes first.
 */
static bool op_at_sp(const Dwarf_Op *ops, size_t n, __s64 *off)
{
	return n == 2 && ops[0].atom == DW_OP_call_frame_cfa && op_breg(&ops[1], DW_REG_RSP, off);
}

static void row_set(struct ldlat_unwind_row *r, unsigned int cfa, __u64 cfa_off, unsigned int fp,
		    int fp_off)
{
	r->cfa = (__u16)cfa_off;
	r->kind = (__u8)(cfa | fp << 4);
	r->fp = (__s8)fp_off;
}

/*
 * glibc's signal trampoline (__restore_rt): the CFA is the interrupted SP,
 * loaded from the ucontext (DW_OP_breg7 N, DW_OP_deref), its RIP right
 * after it, its RBP at SP + M.
 */
static bool row_signal(Dwarf_Frame *f, const Dwarf_Op *cfa, size_t ncfa, struct ldlat_unwind_row *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	__s64 sp_off, ip_off, fp_off;
	unsigned int fp = LDLAT_FP_UNDEF;

	if (ncfa != 2 || !op_breg(&cfa[0], DW_REG_RSP, &sp_off) || cfa[1].atom != DW_OP_deref ||
	    sp_off < 0 || sp_off > 0xfff8)
		return false;
	if (dwarf_frame_register(f, DW_REG_RIP, mem, &ops, &n) || !op_at_sp(ops, n, &ip_off) ||
	    ip_off != sp_off + 8)
		return false;
	if (!dwarf_frame_register(f, DW_REG_RBP, mem, &ops, &n) && op_at_sp(ops, n, &fp_off) &&
	    fp_off >= 0 && fp_off % 8 == 0 && fp_off / 8 <= 127)
		fp = LDLAT_FP_AT;
	else
		fp_off = 0;
	row_set(r, LDLAT_CFA_SIGNAL, (__u64)sp_off, fp, (int)(fp_off / 8));
	return true;
}

/* The rules of frame f as a row; counts in t what it could not keep. */
static void row_of(Dwarf_Frame *f, bool signal, struct ldlat_unwind_row *r, struct unwind_table *t)
{
	Dwarf_Op mem[3], *ops, *cfa;
	size_t n, ncfa;
	unsigned int thr, fp = LDLAT_FP_SAME;
	__s64 off, fp_off = 0;

	row_set(r, LDLAT_CFA_UNSUPPORTED, 0, LDLAT_FP_UNDEF, 0);
	/* the return address undefined: the outermost frame (_start, a thread's clone) */
	if (dwarf_frame_register(f, DW_REG_RIP, mem, &ops, &n))
		goto unsupported;
	if (n == 0 && ops == mem) {
		row_set(r, LDLAT_CFA_END, 0, LDLAT_FP_UNDEF, 0);
		return;
	}
	if (dwarf_frame_cfa(f, &cfa, &ncfa) || !ncfa)
		goto unsupported;
	if (signal) {
		if (row_signal(f, cfa, ncfa, r))
			return;
		goto unsupported;
	}
	if (!op_at_cfa(ops, n, &off) || off != -8)
		goto unsupported;
	if (dwarf_frame_register(f, DW_REG_RBP, mem, &ops, &n)) {
		fp = LDLAT_FP_UNDEF;
	} else if (n == 0 && ops == NULL) {
		fp = LDLAT_FP_SAME;
	} else if (n == 0) {
		fp = LDLAT_FP_UNDEF; /* undefined: lost, as the CFI says */
	} else if (op_at_cfa(ops, n, &fp_off) && fp_off % 8 == 0 && fp_off / 8 >= -128 &&
		   fp_off / 8 <= 127) {
		fp = LDLAT_FP_AT;
		fp_off /= 8;
	} else {
		fp = LDLAT_FP_UNDEF;
		fp_off = 0;
		t->fp_lost++;
	}
	if (ncfa == 1 && op_breg(&cfa[0], DW_REG_RSP, &off) && off >= 0 && off <= 0xffff) {
		row_set(r, LDLAT_CFA_SP, (__u64)off, fp, (int)fp_off);
		return;
	}
	if (ncfa == 1 && op_breg(&cfa[0], DW_REG_RBP, &off) && off >= 0 && off <= 0xffff) {
		row_set(r, LDLAT_CFA_FP, (__u64)off, fp, (int)fp_off);
		return;
	}
	if (op_plt(cfa, ncfa, &thr)) {
		row_set(r, LDLAT_CFA_PLT, thr, fp, (int)fp_off);
		return;
	}
	/* glibc's _dl_runtime_resolve: the stack pointer it was called with, kept in RBX */
	if (ncfa == 1 && op_breg(&cfa[0], DW_REG_RBX, &off) && off >= 0 && off <= 0xffff) {
		row_set(r, LDLAT_CFA_RBX, (__u64)off, fp, (int)fp_off);
		return;
	}
unsupported:
	t->unsupported++;
}

/*
 * RBX's rule into r (enum ldlat_unwind_rbx): its save slot where the row's
 * offset byte is free (RBP not saved) or where it is the slot below RBP's;
 * counted in t where it could not be kept.
 */
static void row_rbx(Dwarf_Frame *f, struct ldlat_unwind_row *r, struct unwind_table *t)
{
	unsigned int k = LDLAT_RBX_UNDEF, cfa = LDLAT_UNWIND_ROW_CFA(r);
	Dwarf_Op mem[3], *ops = NULL;
	__s64 off;
	size_t n = 0;

	if (cfa == LDLAT_CFA_NONE || cfa == LDLAT_CFA_END || cfa == LDLAT_CFA_SIGNAL ||
	    cfa == LDLAT_CFA_UNSUPPORTED)
		return;
	/*
	 * no rule: the same value, as the psABI has it for a callee-saved
	 * register (libdw's x86-64 defaults give register 0, RAX, that rule
	 * instead of RBX, 3, so it reports RBX undefined where the CFI says
	 * nothing of it)
	 */
	if (dwarf_frame_register(f, DW_REG_RBX, mem, &ops, &n)) {
		k = LDLAT_RBX_UNDEF;
	} else if (n == 0) {
		k = LDLAT_RBX_SAME;
	} else if (n && op_at_cfa(ops, n, &off) && off % 8 == 0) {
		off /= 8;
		if (LDLAT_UNWIND_ROW_FP(r) != LDLAT_FP_AT && off >= -128 && off <= 127) {
			k = LDLAT_RBX_AT;
			r->fp = (__s8)off;
		} else if (LDLAT_UNWIND_ROW_FP(r) == LDLAT_FP_AT && off == r->fp - 1) {
			k = LDLAT_RBX_BELOW_FP;
		}
	}
	if (k == LDLAT_RBX_UNDEF && n)
		t->rbx_lost++;
	r->kind = (__u8)(r->kind | k << 6);
}

static bool row_same(const struct ldlat_unwind_row *a, const struct ldlat_unwind_row *b)
{
	return a->cfa == b->cfa && a->kind == b->kind && a->fp == b->fp;
}

/* Appends a row at addr, unless the last one already says the same. */
static int rows_add(struct row_list *l, __u64 addr, const struct ldlat_unwind_row *r)
{
	if (l->n && l->a[l->n - 1].addr == addr) {
		l->a[l->n - 1].r = *r; /* an empty range before it: this one holds */
		if (l->n > 1 && row_same(&l->a[l->n - 2].r, r))
			l->n--;
		return 0;
	}
	if (l->n && row_same(&l->a[l->n - 1].r, r))
		return 0;
	if (grow((void **)&l->a, &l->cap, l->n, sizeof(*l->a)))
		return -ENOMEM;
	l->a[l->n].addr = addr;
	l->a[l->n++].r = *r;
	return 0;
}

/* The rows of one FDE's range [lo, hi), from the CFI that has it. */
static int rows_of_fde(struct row_list *l, Dwarf_CFI *cfi, __u64 lo, __u64 hi,
		       struct unwind_table *t)
{
	struct ldlat_unwind_row r;
	Dwarf_Addr start, end;
	Dwarf_Frame *f;
	bool signal;
	__u64 a = lo;
	int e;

	while (a < hi) {
		if (dwarf_cfi_addrframe(cfi, a, &f)) {
			/* libdw could not read it (an instruction it does not know): say so */
			row_set(&r, LDLAT_CFA_UNSUPPORTED, 0, LDLAT_FP_UNDEF, 0);
			t->unsupported++;
			return rows_add(l, a, &r);
		}
		if (dwarf_frame_info(f, &start, &end, &signal) < 0 || end <= a) {
			free(f);
			row_set(&r, LDLAT_CFA_UNSUPPORTED, 0, LDLAT_FP_UNDEF, 0);
			t->unsupported++;
			return rows_add(l, a, &r);
		}
		row_of(f, signal, &r, t);
		row_rbx(f, &r, t);
		free(f);
		t->ranges++;
		e = rows_add(l, a, &r);
		if (e)
			return e;
		a = end;
	}
	return 0;
}

static int fdes_compile(struct row_list *l, struct fde_list *fl, Dwarf_CFI *eh, Dwarf_CFI *dbg,
			struct unwind_table *t)
{
	struct ldlat_unwind_row none;
	__u64 covered = 0;
	size_t i;
	int e;

	row_set(&none, LDLAT_CFA_NONE, 0, LDLAT_FP_SAME, 0);
	qsort(fl->r, fl->n, sizeof(*fl->r), fde_cmp);
	for (i = 0; i < fl->n; i++) {
		struct fde_range *f = &fl->r[i];
		__u64 lo = f->lo;

		if (f->hi <= covered)
			continue; /* inside what an FDE before it covered (.debug_frame's copy) */
		if (lo < covered)
			lo = covered;
		if (l->n && lo > covered) {
			e = rows_add(l, covered, &none); /* a gap no FDE covers */
			if (e)
				return e;
		}
		e = rows_of_fde(l, f->debug ? dbg : eh, lo, f->hi, t);
		if (e)
			return e;
		covered = f->hi;
	}
	return l->n ? rows_add(l, covered, &none) : 0;
}

static int build_id_read(struct unwind_table *t, Elf *elf)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);

	if (n <= 0)
		return 0;
	t->build_id_len = n > (ssize_t)sizeof(t->build_id) ? (int)sizeof(t->build_id) : (int)n;
	memcpy(t->build_id, id, t->build_id_len);
	return 0;
}

static void segs_read(struct unwind_table *t, Elf *elf)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n && t->nseg < UNWIND_TABLE_SEGS; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		t->seg[t->nseg].offset = ph.p_offset;
		t->seg[t->nseg].vaddr = ph.p_vaddr;
		t->seg[t->nseg++].filesz = ph.p_filesz;
	}
}

static int table_compile(struct unwind_table *t, Elf *elf, const char *name, struct err *err)
{
	struct fde_list fl = {};
	struct row_list rl = {};
	Dwarf_CFI *eh = NULL, *dbg = NULL;
	Dwarf *dw = NULL;
	GElf_Ehdr eh_hdr;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *data;
	size_t i;
	int e = 0;

	if (!gelf_getehdr(elf, &eh_hdr) || eh_hdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh_hdr.e_machine != EM_X86_64 || (eh_hdr.e_type != ET_EXEC && eh_hdr.e_type != ET_DYN))
		return err__set(err, -ENOEXEC, "%s: not an x86-64 executable or shared object",
				name);
	build_id_read(t, elf);
	segs_read(t, elf);
	/* a separate debug file's copies are NOBITS: no rows there */
	scn = elf__section(elf, ".eh_frame", &sh);
	if (scn && sh.sh_type != SHT_NOBITS && (data = elf_getdata(scn, NULL)) && data->d_size) {
		eh = dwarf_getcfi_elf(elf);
		if (eh)
			e = fdes_read(elf, data, sh.sh_addr, true, &fl, &t->fdes);
	}
	scn = elf__section(elf, ".debug_frame", &sh);
	if (!e && scn && sh.sh_type != SHT_NOBITS && (data = elf_getdata(scn, NULL)) &&
	    data->d_size) {
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		dbg = dw ? dwarf_getcfi(dw) : NULL;
		if (dbg) {
			__u32 before = t->fdes;

			e = fdes_read(elf, data, 0, false, &fl, &t->fdes);
			t->fdes_debug = t->fdes - before;
		}
	}
	if (!e && !fl.n)
		e = err__set(err, -ENODATA,
			     "%s: no call frame information (.eh_frame, .debug_frame)", name);
	if (!e)
		e = fdes_compile(&rl, &fl, eh, dbg, t);
	if (e == -ENOMEM)
		err__set(err, e, "%s: out of memory compiling its unwind table", name);
	if (!e &&
	    (rl.a[rl.n - 1].addr - rl.a[0].addr >= (1ull << 32) || rl.n > LDLAT_UNWIND_MAX_ROWS))
		e = err__set(err, -EFBIG,
			     "%s: an unwind table of %zu rows over %llu bytes of code, more than "
			     "a table holds (%llu rows, 4 GiB)",
			     name, rl.n, (unsigned long long)(rl.a[rl.n - 1].addr - rl.a[0].addr),
			     (unsigned long long)LDLAT_UNWIND_MAX_ROWS);
	if (!e) {
		t->rows = malloc(rl.n * sizeof(*t->rows));
		if (!t->rows) {
			e = err__set(err, -ENOMEM, "%s: out of memory compiling its unwind table",
				     name);
		} else {
			t->base = rl.a[0].addr;
			t->nrows = (__u32)rl.n;
			for (i = 0; i < rl.n; i++) {
				t->rows[i] = rl.a[i].r;
				t->rows[i].pc = (__u32)(rl.a[i].addr - t->base);
			}
		}
	}
	free(rl.a);
	free(fl.r);
	if (eh)
		dwarf_cfi_end(eh);
	if (dw)
		dwarf_end(dw);
	return e;
}

/* fd's ELF (libelf's), or NULL with a sentence in err (*e the -errno). */
static Elf *elf_of(int fd, const char *name, int *e, struct err *err)
{
	struct stat st;
	Elf *elf;

	if (fstat(fd, &st)) {
		*e = err__set(err, -errno, "%s: %s", name, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		*e = err__set(err, -ENOEXEC, "%s: not a regular file", name);
		return NULL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		*e = err__set(err, -ENOEXEC, "%s: not an ELF file", name);
		return NULL;
	}
	return elf;
}

int unwind_table__compile_fd(struct unwind_table *t, int fd, const char *name, struct err *err)
{
	Elf *elf;
	int e;

	memset(t, 0, sizeof(*t));
	elf = elf_of(fd, name, &e, err);
	if (!elf)
		return e;
	e = table_compile(t, elf, name, err);
	elf_end(elf);
	if (e)
		unwind_table__free(t);
	return e;
}

int unwind_table__identify_fd(struct unwind_table *t, int fd, const char *name, struct err *err)
{
	Elf *elf;
	int e;

	memset(t, 0, sizeof(*t));
	elf = elf_of(fd, name, &e, err);
	if (!elf)
		return e;
	build_id_read(t, elf);
	segs_read(t, elf);
	elf_end(elf);
	return 0;
}

int unwind_table__compile(struct unwind_table *t, const char *path, struct err *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), e;

	if (fd < 0) {
		memset(t, 0, sizeof(*t));
		return err__set(err, -errno, "%s: %s", path, strerror(errno));
	}
	e = unwind_table__compile_fd(t, fd, path, err);
	close(fd);
	return e;
}

void unwind_table__free(struct unwind_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nrows = 0;
}

const struct ldlat_unwind_row *unwind_table__find(const struct unwind_table *t, __u64 addr)
{
	__u32 lo = 0, hi = t->nrows, mid;
	__u64 pc = addr - t->base;

	if (!hi || addr < t->base || pc >= (1ull << 32) || t->rows[0].pc > pc)
		return NULL;
	while (lo + 1 < hi) {
		mid = (lo + hi) / 2;
		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

__u64 unwind_table__bpf_bytes(const struct unwind_table *t)
{
	__u64 chunks = (t->nrows + LDLAT_UNWIND_CHUNK_ROWS - 1) / LDLAT_UNWIND_CHUNK_ROWS;

	return (1 + chunks) * sizeof(union ldlat_unwind_block);
}

bool unwind_table__map_base(const struct unwind_table *t, __u64 start, __u64 pgoff, __u64 *base)
{
	int i;

	/* the mapping starts at a page: the segment's offset rounded down may be below pgoff */
	for (i = 0; i < t->nseg; i++) {
		__u64 lo = t->seg[i].offset & ~4095ull, hi = t->seg[i].offset + t->seg[i].filesz;

		if (pgoff >= lo && pgoff < hi) {
			/* file address of start: pgoff + (vaddr - offset); table address: less t->base */
			*base = start - pgoff - (t->seg[i].vaddr - t->seg[i].offset) + t->base;
			return true;
		}
	}
	return false;
}
