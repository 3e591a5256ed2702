// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

#include "user/symbols/srcline.h"
#include "user/symbols/demangle.h"

#define SRCLINE_SCOPES 32

/* A function's name as perf prints it: the demangled linkage name, else the DWARF name. */
static char *func__name(Dwarf_Die *f)
{
	Dwarf_Attribute attr;
	const char *link = NULL, *name;
	char *dm;

	if (dwarf_attr_integrate(f, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(f, DW_AT_MIPS_linkage_name, &attr))
		link = dwarf_formstring(&attr);
	if (link && (dm = sym_demangle(link)))
		return dm;
	name = link ? link : dwarf_diename(f);
	return name ? strdup(name) : NULL;
}

/* The file of an inlined call (DW_AT_call_file, an index into the unit's file table). */
static const char *call__file(Dwarf_Die *cu, Dwarf_Die *inl)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t n;

	if (!dwarf_attr(inl, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &idx) ||
	    dwarf_getsrcfiles(cu, &files, &n) || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static int frame__set(struct srcline_frame *f, Dwarf_Die *func, const char *file, int line)
{
	f->func = func ? func__name(func) : NULL;
	f->file = strdup(file ? file : "??");
	f->line = line > 0 ? (unsigned int)line : 0;
	return f->file ? 0 : -ENOMEM;
}

int srcline__find(struct debuginfo *di, __u64 addr, struct srcline *out)
{
	Dwarf_Die cu, scopes[SRCLINE_SCOPES], *funcs[SRCLINE_SCOPES];
	Dwfl_Line *l;
	const char *file;
	int line = 0, n = 0, nf = 0, i, col;
	Dwarf_Addr a;

	memset(out, 0, sizeof(*out));
	if (!di->dw || !(l = dwfl_module_getsrc(di->mod, addr)) ||
	    !(file = dwfl_lineinfo(l, &a, &line, &col, NULL, NULL)))
		return 0;
	if (debuginfo__cu(di, addr, &cu))
		n = debuginfo__scopes(&cu, NULL, addr - di->bias, scopes, SRCLINE_SCOPES);
	/* the functions, innermost first: inlined ones, then the one they are in */
	for (i = n - 1; i >= 0; i--)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine ||
		    dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			funcs[nf++] = &scopes[i];
	out->frames = calloc(nf ? nf : 1, sizeof(*out->frames));
	if (!out->frames)
		return -ENOMEM;
	out->n = 1;
	if (frame__set(&out->frames[0], nf ? funcs[0] : NULL, file, line))
		goto nomem;
	/* each inlined function's call site is a line of the function around it */
	for (i = 0; i + 1 < nf && dwarf_tag(funcs[i]) == DW_TAG_inlined_subroutine; i++) {
		Dwarf_Attribute attr;
		Dwarf_Word cl = 0;

		if (dwarf_attr(funcs[i], DW_AT_call_line, &attr))
			dwarf_formudata(&attr, &cl);
		out->n++;
		if (frame__set(&out->frames[i + 1], funcs[i + 1], call__file(&cu, funcs[i]),
			       (int)cl))
			goto nomem;
	}
	return 0;
nomem:
	srcline__clear(out);
	return -ENOMEM;
}

void srcline__clear(struct srcline *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		free(s->frames[i].func);
		free(s->frames[i].file);
	}
	free(s->frames);
	memset(s, 0, sizeof(*s));
}

const char *srcline__base(const char *file)
{
	const char *b = strrchr(file, '/');

	return b && b[1] ? b + 1 : file;
}
