// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dwarf.h>
#include <gelf.h>

#include "user/symbols/debuginfo.h"

/*
 * Whether fd is a regular file holding an executable or a shared object:
 * what a process maps to run (dso.c reads no other kind either: a device
 * may act on an open, an ET_REL object wants relocating).
 */
static bool debuginfo__loadable(int fd)
{
	GElf_Ehdr eh;
	struct stat st;
	Elf *elf;
	bool ok;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && gelf_getehdr(elf, &eh) && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN);
	elf_end(elf);
	return ok;
}

int debuginfo__open(struct debuginfo *di, const char *name, const char *file, const char *debuginfo)
{
	int fd;

	memset(di, 0, sizeof(*di));
	di->name = strdup(name);
	di->path = debuginfo ? strdup(debuginfo) : NULL;
	if (!di->name || (debuginfo && !di->path))
		return -ENOMEM;
	di->cb = (Dwfl_Callbacks){
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		/* never called for the ET_EXEC and ET_DYN files read here; not NULL all the same */
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &di->path,
	};
	if (file[0] != '/')
		return -ENOENT;
	fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (elf_version(EV_CURRENT) == EV_NONE || !debuginfo__loadable(fd)) {
		close(fd);
		return -ENOEXEC;
	}
	di->dwfl = dwfl_begin(&di->cb);
	if (!di->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(di->dwfl);
	/* at base 0 relative to p_vaddr: module addresses are the file's own */
	di->mod = dwfl_report_elf(di->dwfl, name, file, fd, 0, true);
	dwfl_report_end(di->dwfl, NULL, NULL);
	if (!di->mod) {
		close(fd); /* consumed only on success */
		return -ENOEXEC;
	}
	di->elf = dwfl_module_getelf(di->mod, &di->elfbias);
	if (!di->elf)
		return -ENOEXEC;
	di->dw = dwfl_module_getdwarf(di->mod, &di->bias);
	if (di->dw)
		dwfl_module_info(di->mod, NULL, NULL, NULL, NULL, NULL, NULL, &di->debugfile);
	return 0;
}

void debuginfo__close(struct debuginfo *di)
{
	if (di->dwfl)
		dwfl_end(di->dwfl); /* the module's files, DWARF and CFI with it */
	free(di->name);
	free(di->path);
	free(di->vars);
	memset(di, 0, sizeof(*di));
}

const unsigned char *debuginfo__code(struct debuginfo *di, __u64 addr, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	__u64 a;

	if (!di->elf)
		return NULL;
	a = addr - di->elfbias;
	while ((scn = elf_nextscn(di->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || a < sh.sh_addr ||
		    a >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || a - sh.sh_addr >= d->d_size)
			return NULL;
		*len = d->d_size - (a - sh.sh_addr);
		return (const unsigned char *)d->d_buf + (a - sh.sh_addr);
	}
	return NULL;
}

bool debuginfo__cfa(struct debuginfo *di, __u64 addr, int *reg, __s64 *off)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	bool ok = false;

	if (!di->cfi_tried) {
		di->cfi_tried = true;
		/* .eh_frame lives in the file itself, stripped or not; .debug_frame with the DWARF */
		di->cfi = dwfl_module_eh_cfi(di->mod, &di->cfibias);
		if (!di->cfi)
			di->cfi = dwfl_module_dwarf_cfi(di->mod, &di->cfibias);
	}
	if (!di->cfi || dwarf_cfi_addrframe(di->cfi, addr - di->cfibias, &frame))
		return false;
	if (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1) {
		if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			*reg = ops[0].atom - DW_OP_breg0;
			*off = (__s64)ops[0].number;
			ok = true;
		} else if (ops[0].atom == DW_OP_bregx) {
			*reg = (int)ops[0].number;
			*off = (__s64)ops[0].number2;
			ok = true;
		}
	}
	free(frame);
	return ok;
}

Dwarf_Die *debuginfo__cu(struct debuginfo *di, __u64 addr, Dwarf_Die *cu)
{
	Dwarf_Addr bias;
	Dwarf_Die *d;

	if (!di->dw)
		return NULL;
	/* libdwfl looks in .debug_aranges and, where they lack the address, every unit's ranges */
	d = dwfl_module_addrdie(di->mod, addr, &bias);
	if (!d)
		return NULL;
	*cu = *d;
	return cu;
}

/* Variables at fixed addresses being collected. */
struct var_list {
	struct debuginfo_var *v;
	size_t n, cap;
};

static int var_list__add(struct var_list *l, __u64 addr, __u64 size, Dwarf_Off die)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct debuginfo_var *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct debuginfo_var){ addr, size, die };
	return 0;
}

/* A variable DIE whose location is one DW_OP_addr, with a type of known size. */
static void var__collect(struct var_list *l, Dwarf_Die *die, Dwarf_Addr bias)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die type;
	Dwarf_Word size;

	if (!dwarf_attr(die, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &nops) ||
	    nops != 1 || ops[0].atom != DW_OP_addr)
		return;
	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &type) ||
	    dwarf_aggregate_size(&type, &size) || !size)
		return;
	var_list__add(l, ops[0].number + bias, size, dwarf_dieoffset(die));
}

/* The fixed-address variables under die: a unit's, a namespace's, a function's statics. */
static void vars__walk(struct var_list *l, Dwarf_Die *parent, Dwarf_Addr bias, int depth)
{
	Dwarf_Die c;

	if (depth > 16 || dwarf_child(parent, &c))
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_variable:
			var__collect(l, &c, bias);
			break;
		case DW_TAG_namespace:
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_inlined_subroutine:
			vars__walk(l, &c, bias, depth + 1);
			break;
		default:
			break;
		}
	} while (!dwarf_siblingof(&c, &c));
}

static int var__cmp(const void *a, const void *b)
{
	const struct debuginfo_var *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size; /* the largest first */
}

static void debuginfo__collect_vars(struct debuginfo *di)
{
	struct var_list l = {};
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;

	while (!dwarf_nextcu(di->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(di->dw, off + hsize, &cu))
			vars__walk(&l, &cu, di->bias, 0);
		off = next;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), var__cmp);
	di->vars = l.v;
	di->nvars = l.n;
}

const struct debuginfo_var *debuginfo__var_at(struct debuginfo *di, __u64 addr)
{
	size_t lo = 0, hi, mid;
	const struct debuginfo_var *best = NULL;

	if (!di->dw)
		return NULL;
	if (!di->vars_tried) {
		di->vars_tried = true;
		debuginfo__collect_vars(di);
	}
	hi = di->nvars;
	while (lo < hi) { /* the first that starts after addr */
		mid = (lo + hi) / 2;
		if (di->vars[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* variables do not overlap but for aliases: look back a few */
	for (hi = lo; hi > 0 && lo - hi < 8; hi--) {
		const struct debuginfo_var *v = &di->vars[hi - 1];

		if (addr - v->addr < v->size && (!best || v->addr > best->addr))
			best = v;
	}
	return best;
}

/* The function that holds pc under parent (a unit, a namespace, a class), into out. */
static bool scopes__function(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 8 || dwarf_child(parent, &c))
		return false;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			if (dwarf_haspc(&c, pc) > 0) {
				*out = c;
				return true;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (scopes__function(&c, pc, out, depth + 1))
				return true;
			break;
		default:
			break;
		}
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

int debuginfo__scopes(Dwarf_Die *cu, Dwarf_Die *func, Dwarf_Addr pc, Dwarf_Die *out, int max)
{
	Dwarf_Die parent, c;
	int n = 0;
	bool deeper = true;

	if (max < 1)
		return 0;
	if (func && dwarf_haspc(func, pc) > 0)
		parent = *func;
	else if (!scopes__function(cu, pc, &parent, 0))
		return 0;
	out[n++] = parent;
	while (deeper && n < max && !dwarf_child(&parent, &c)) {
		deeper = false;
		do {
			int tag = dwarf_tag(&c);

			if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
			    dwarf_haspc(&c, pc) > 0) {
				out[n++] = parent = c;
				deeper = true;
				break;
			}
		} while (!dwarf_siblingof(&c, &c));
	}
	return n;
}
