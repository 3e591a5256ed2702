// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/suites/unwind_oracle.h"

#define PLT_EXPR                                                                                   \
	"DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; DW_OP_lit15; DW_OP_and; DW_OP_lit%u; "       \
	"DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus"

#define EXPR_MAX 256

/* What readelf's raw listing (--debug-dump=frames) says of an FDE's expressions. */
struct fde_exprs {
	int section; /* 0: .eh_frame, 1: .debug_frame */
	unsigned long off;
	char cfa[EXPR_MAX]; /* DW_CFA_def_cfa_expression's, "" when none; "?" two differ */
	char rbp[EXPR_MAX]; /* DW_CFA_expression r6's */
	char rip[EXPR_MAX]; /* DW_CFA_expression r16's */
};

/* A CIE, from the interpreted listing: 'S' in its augmentation, and its initial row. */
struct cie_info {
	int section;
	unsigned long off;
	bool signal;
	char cols[512]; /* the LOC line's register names */
	char row[512];	/* its one row, after the address */
};

struct lists {
	struct fde_exprs *x;
	size_t nx, capx;
	struct cie_info *c;
	size_t nc, capc;
};

static void *grow(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 256;
	p = realloc(p, *cap * size);
	if (!p)
		abort();
	return p;
}

static void set(struct ldlat_unwind_row *r, unsigned int cfa, unsigned long off, unsigned int fp,
		int fp_off)
{
	r->cfa = (__u16)off;
	r->kind = (__u8)(cfa | fp << 4);
	r->fp = (__s8)fp_off;
}

/* The text between the parentheses that follow prefix in line, into out. */
static bool paren_after(const char *line, const char *prefix, char *out)
{
	const char *p = strstr(line, prefix), *e;

	if (!p)
		return false;
	p += strlen(prefix);
	e = strrchr(p, ')');
	if (!e || e < p)
		return false;
	snprintf(out, EXPR_MAX, "%.*s", (int)(e - p), p);
	return true;
}

static int section_of(const char *line, int cur)
{
	if (strstr(line, "Contents of the .eh_frame section"))
		return 0;
	if (strstr(line, "Contents of the .debug_frame section"))
		return 1;
	return cur;
}

static FILE *readelf(const char *dump, const char *path)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "readelf --wide -wN --debug-dump=%s '%s' 2>/dev/null", dump,
		 path);
	return popen(cmd, "r");
}

static int exprs_read(struct lists *l, const char *path)
{
	struct fde_exprs *x = NULL;
	char *line = NULL, e[EXPR_MAX];
	unsigned long off;
	size_t cap = 0;
	int section = 0;
	FILE *f = readelf("frames", path);

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		section = section_of(line, section);
		if (sscanf(line, "%lx %*x %*x FDE", &off) == 1 && strstr(line, " FDE cie=")) {
			l->x = grow(l->x, l->nx, &l->capx, sizeof(*l->x));
			x = &l->x[l->nx++];
			memset(x, 0, sizeof(*x));
			x->section = section;
			x->off = off;
		} else if (strstr(line, " CIE")) {
			x = NULL;
		} else if (x && paren_after(line, "DW_CFA_def_cfa_expression (", e)) {
			if (x->cfa[0] && strcmp(x->cfa, e))
				strcpy(x->cfa, "?");
			else
				strcpy(x->cfa, e);
		} else if (x) {
			paren_after(line, "DW_CFA_expression: r6 (rbp) (", x->rbp);
			paren_after(line, "DW_CFA_expression: r16 (rip) (", x->rip);
		}
	}
	free(line);
	return pclose(f) ? -1 : 0;
}

static const struct fde_exprs *exprs_find(const struct lists *l, int section, unsigned long off)
{
	size_t lo = 0, hi = l->nx, mid;

	/* in the order read: by section, then offset */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (l->x[mid].section < section ||
		    (l->x[mid].section == section && l->x[mid].off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->nx && l->x[lo].section == section && l->x[lo].off == off ? &l->x[lo] : NULL;
}

/* The value of column name in a row's text (values in the order of cols), or NULL. */
static const char *column(const char *cols, const char *row, const char *name, char *buf)
{
	char c[512], r[512], *sc, *sr, *cn, *rv;

	snprintf(c, sizeof(c), "%s", cols);
	snprintf(r, sizeof(r), "%s", row);
	for (cn = strtok_r(c, " \n", &sc), rv = strtok_r(r, " \n", &sr); cn && rv;
	     cn = strtok_r(NULL, " \n", &sc), rv = strtok_r(NULL, " \n", &sr)) {
		/* a register's value is written "r10 (r10)": one column */
		while (rv && rv[0] == '(')
			rv = strtok_r(NULL, " \n", &sr);
		if (!rv)
			break;
		if (!strcmp(cn, name)) {
			snprintf(buf, 64, "%s", rv);
			return buf;
		}
	}
	return NULL;
}

/* "rsp+8", "rbp+16", "c-16": the register's name and the offset. */
static bool reg_off(const char *v, const char *reg, long *off)
{
	size_t n = strlen(reg);
	int used = 0;

	return !strncmp(v, reg, n) && sscanf(v + n, "%ld%n", off, &used) == 1 &&
	       used == (int)strlen(v + n) && (v[n] == '+' || v[n] == '-');
}

/* "DW_OP_breg7 (rsp): 120": the offset. */
static bool at_sp(const char *e, long *off)
{
	int used = 0;

	return sscanf(e, "DW_OP_breg7 (rsp): %ld%n", off, &used) == 1 && used == (int)strlen(e);
}

/*
 * RBX's rule, readelf's "rbx" column ("u" or none: no rule, the same
 * value; "c-N": saved there), as unwind.h keeps it: where RBP is not
 * saved, or in the slot below RBP's; anything else lost.
 */
static void rule_rbx(const char *cols, const char *row, struct ldlat_unwind_row *r)
{
	unsigned int k = LDLAT_RBX_UNDEF;
	char rbx[64];
	const char *v = column(cols, row, "rbx", rbx);
	long off;

	if (!v || !strcmp(v, "u") || !strcmp(v, "s")) {
		k = LDLAT_RBX_SAME;
	} else if (reg_off(v, "c", &off) && off % 8 == 0) {
		off /= 8;
		if (LDLAT_UNWIND_ROW_FP(r) != LDLAT_FP_AT && off >= -128 && off <= 127) {
			k = LDLAT_RBX_AT;
			r->fp = (__s8)off;
		} else if (LDLAT_UNWIND_ROW_FP(r) == LDLAT_FP_AT && off == r->fp - 1) {
			k = LDLAT_RBX_BELOW_FP;
		}
	}
	r->kind = (__u8)(r->kind | k << 6);
}

/*
 * The walker's row for readelf's: the row's values under cols, the FDE's
 * expressions (x), its CIE says 'S'.
 */
static struct ldlat_unwind_row rule(const char *cols, const char *row, const struct fde_exprs *x,
				    bool signal)
{
	struct ldlat_unwind_row r = {};
	char cfa[64], ra[64], rbp[64], plt[EXPR_MAX];
	unsigned int fp = LDLAT_FP_SAME;
	long off, fp_off = 0, ip_off;
	const char *v;
	int used = 0;

	set(&r, LDLAT_CFA_UNSUPPORTED, 0, LDLAT_FP_UNDEF, 0);
	if (!column(cols, row, "CFA", cfa) || !column(cols, row, "ra", ra))
		return r;
	/* "u" under ra: DW_CFA_undefined (the CIEs give every other row c-8) */
	if (!strcmp(ra, "u")) {
		set(&r, LDLAT_CFA_END, 0, LDLAT_FP_UNDEF, 0);
		return r;
	}
	v = column(cols, row, "rbp", rbp);
	if (signal) {
		if (strcmp(cfa, "exp") || !x ||
		    sscanf(x->cfa, "DW_OP_breg7 (rsp): %ld; DW_OP_deref%n", &off, &used) != 1 ||
		    used != (int)strlen(x->cfa) || off < 0 || strcmp(ra, "exp") ||
		    !at_sp(x->rip, &ip_off) || ip_off != off + 8)
			return r;
		if (v && !strcmp(v, "exp") && at_sp(x->rbp, &fp_off) && fp_off >= 0 &&
		    fp_off % 8 == 0 && fp_off / 8 <= 127)
			set(&r, LDLAT_CFA_SIGNAL, off, LDLAT_FP_AT, (int)(fp_off / 8));
		else
			set(&r, LDLAT_CFA_SIGNAL, off, LDLAT_FP_UNDEF, 0);
		return r;
	}
	if (strcmp(ra, "c-8"))
		return r;
	/*
	 * readelf shows "u" for a register with no rule as for one undefined;
	 * no FDE of the files checked makes RBP undefined (DW_CFA_undefined
	 * r6), so "u" is no rule: the same value
	 */
	if (!v || !strcmp(v, "u") || !strcmp(v, "s")) {
		fp = LDLAT_FP_SAME;
	} else if (reg_off(v, "c", &fp_off) && fp_off % 8 == 0 && fp_off / 8 >= -128 &&
		   fp_off / 8 <= 127) {
		fp = LDLAT_FP_AT;
		fp_off /= 8;
	} else {
		fp = LDLAT_FP_UNDEF;
		fp_off = 0;
	}
	if (reg_off(cfa, "rsp", &off) && off >= 0 && off <= 0xffff)
		set(&r, LDLAT_CFA_SP, off, fp, (int)fp_off);
	else if (reg_off(cfa, "rbp", &off) && off >= 0 && off <= 0xffff)
		set(&r, LDLAT_CFA_FP, off, fp, (int)fp_off);
	else if (!strcmp(cfa, "exp") && x && snprintf(plt, sizeof(plt), PLT_EXPR, 11) &&
		 !strcmp(x->cfa, plt))
		set(&r, LDLAT_CFA_PLT, 11, fp, (int)fp_off);
	else if (!strcmp(cfa, "exp") && x && snprintf(plt, sizeof(plt), PLT_EXPR, 10) &&
		 !strcmp(x->cfa, plt))
		set(&r, LDLAT_CFA_PLT, 10, fp, (int)fp_off);
	else if (reg_off(cfa, "rbx", &off) && off >= 0 && off <= 0xffff)
		set(&r, LDLAT_CFA_RBX, off, fp, (int)fp_off);
	else
		return r;
	rule_rbx(cols, row, &r);
	return r;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct oracle_fde *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->debug - y->debug;
}

static void row_add(struct unwind_oracle *o, size_t *cap, __u64 addr, struct ldlat_unwind_row r)
{
	o->rows = grow(o->rows, o->nrows, cap, sizeof(*o->rows));
	o->rows[o->nrows].addr = addr;
	o->rows[o->nrows++].r = r;
	o->fdes[o->nfdes - 1].n++;
}

int unwind_oracle__read(struct unwind_oracle *o, const char *path, char *msg, size_t len)
{
	struct lists l = {};
	struct cie_info *cie = NULL;
	const struct fde_exprs *x = NULL;
	long fde_cie = -1; /* the CIE of the FDE being read (an index: l.c grows) */
	size_t capf = 0, capr = 0, cap = 0, i;
	char *line = NULL, cols[512] = "", aug[32];
	unsigned long off, lo, hi, cieoff;
	bool signal = false, in_fde = false;
	int section = 0;
	FILE *f;

	memset(o, 0, sizeof(*o));
	if (exprs_read(&l, path)) {
		snprintf(msg, len, "readelf --debug-dump=frames %s failed", path);
		return -1;
	}
	f = readelf("frames-interp", path);
	if (!f) {
		snprintf(msg, len, "cannot run readelf");
		free(l.x);
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		unsigned long long a;
		int n = 0;

		section = section_of(line, section);
		/* an FDE that changes nothing prints no row: its CIE's holds */
		if (in_fde && !o->fdes[o->nfdes - 1].n && fde_cie >= 0 &&
		    (strstr(line, " CIE") || strstr(line, " FDE cie=")))
			row_add(o, &capr, o->fdes[o->nfdes - 1].lo,
				rule(l.c[fde_cie].cols, l.c[fde_cie].row, x, signal));
		aug[0] = '\0';
		/* the augmentation may be empty (.debug_frame's CIEs): "%[" matches no empty string */
		if (sscanf(line, "%lx %*x %*x CIE \"%31[^\"]\"", &off, aug) >= 1 &&
		    strstr(line, " CIE \"")) {
			l.c = grow(l.c, l.nc, &l.capc, sizeof(*l.c));
			cie = &l.c[l.nc++];
			memset(cie, 0, sizeof(*cie));
			cie->section = section;
			cie->off = off;
			cie->signal = strchr(aug, 'S') != NULL;
			in_fde = false;
		} else if (sscanf(line, "%lx %*x %*x FDE cie=%lx pc=%lx..%lx", &off, &cieoff, &lo,
				  &hi) == 4) {
			cie = NULL;
			fde_cie = -1;
			for (i = 0; i < l.nc; i++)
				if (l.c[i].section == section && l.c[i].off == cieoff)
					fde_cie = (long)i;
			signal = fde_cie >= 0 && l.c[fde_cie].signal;
			x = exprs_find(&l, section, off);
			o->fdes = grow(o->fdes, o->nfdes, &capf, sizeof(*o->fdes));
			o->fdes[o->nfdes].lo = lo;
			o->fdes[o->nfdes].hi = hi;
			o->fdes[o->nfdes].first = o->nrows;
			o->fdes[o->nfdes].n = 0;
			o->fdes[o->nfdes++].debug = section;
			in_fde = true;
		} else if (!strncmp(line, "   LOC ", 7)) {
			snprintf(cols, sizeof(cols), "%s", line + 7);
			if (!in_fde && cie)
				snprintf(cie->cols, sizeof(cie->cols), "%s", cols);
		} else if (sscanf(line, "%16llx %n", &a, &n) == 1 && n >= 17) {
			if (in_fde)
				row_add(o, &capr, a, rule(cols, line + n, x, signal));
			else if (cie)
				snprintf(cie->row, sizeof(cie->row), "%s", line + n);
		}
	}
	if (in_fde && !o->fdes[o->nfdes - 1].n && fde_cie >= 0)
		row_add(o, &capr, o->fdes[o->nfdes - 1].lo,
			rule(l.c[fde_cie].cols, l.c[fde_cie].row, x, signal));
	free(line);
	free(l.x);
	free(l.c);
	if (pclose(f)) {
		snprintf(msg, len, "readelf --debug-dump=frames-interp %s failed", path);
		unwind_oracle__free(o);
		return -1;
	}
	qsort(o->fdes, o->nfdes, sizeof(*o->fdes), fde_cmp);
	o->maxhi = calloc(o->nfdes + 1, sizeof(*o->maxhi));
	if (!o->maxhi)
		abort();
	for (i = 0; i < o->nfdes; i++)
		o->maxhi[i] =
			i && o->maxhi[i - 1] > o->fdes[i].hi ? o->maxhi[i - 1] : o->fdes[i].hi;
	return 0;
}

void unwind_oracle__free(struct unwind_oracle *o)
{
	free(o->fdes);
	free(o->rows);
	free(o->maxhi);
	memset(o, 0, sizeof(*o));
}

struct ldlat_unwind_row unwind_oracle__at(const struct unwind_oracle *o, __u64 addr)
{
	struct ldlat_unwind_row none = {};
	const struct oracle_fde *f, *found = NULL;
	size_t lo = 0, hi = o->nfdes, mid, i;

	set(&none, LDLAT_CFA_NONE, 0, LDLAT_FP_SAME, 0);
	/* the last FDE that starts at or before addr; the first of those that covers it */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (o->fdes[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;) {
		f = &o->fdes[i];
		if (addr < f->hi)
			found = f;
		if (o->maxhi[i] <= addr)
			break; /* no FDE from the first to this one reaches addr */
	}
	if (!found)
		return none;
	lo = 0;
	hi = found->n;
	/* its last row at or before addr */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (o->rows[found->first + mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? o->rows[found->first + lo - 1].r : none;
}
