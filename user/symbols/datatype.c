// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

#include "user/symbols/datatype.h"
#include "user/symbols/demangle.h"

/* How far back a register is followed: copies of copies, and instructions scanned. */
#define DT_DEPTH    8
#define DT_LOOKBACK 512
/* The most of a function decoded before an address (a larger one: no tracking). */
#define DT_FUNC_MAX (256 * 1024)
#define DT_SCOPES   32

/* The SysV ABI's caller-saved registers (rax rdx rcx rsi rdi r8-r11): a call clobbers them. */
#define DT_CALL_CLOBBERS 0x0f37u

/* The function decoded last, from its start (or its range's) to the last address asked. */
struct datatype_scratch {
	__u64 lo;
	struct debuginfo *di;
	struct insn *insns;
	size_t n, cap;
	struct dt_jump *jumps; /* the direct jumps among insns, by target once sorted */
	size_t njumps, jcap;
	bool sorted;
};

/* A direct jump: where to, and the index of the instruction that jumps. */
struct dt_jump {
	__u64 target;
	size_t from;
};

/* The analysis of one instruction. */
struct dt_ctx {
	struct debuginfo *di;
	struct insn_decoder *dec;
	Dwarf_Die cu;
	struct insn *insns; /* the function up to the instruction, which is last */
	size_t n;
	struct datatype_scratch *s; /* its jumps; NULL: the instruction alone */
	Dwarf_Die func;		    /* the function that holds them */
	bool cplus;
	bool saw_void; /* a pointer to void was met: the reason when nothing else types it */
};

/* A register's value: a pointer into an object of a type, or a constant. */
struct dt_val {
	bool ptr;
	bool void_ptr;
	bool konst; /* the constant k */
	__s64 k;
	Dwarf_Die type; /* what it points into */
	__s64 off;	/* where in it */
	bool off_known;
	const char *var; /* the DWARF variable it came from (its DIE's string) */
	enum datatype_via via;
};

/* An object being accessed: the memory operand's place in a typed object. */
struct dt_obj {
	bool ok;
	Dwarf_Die type;
	__s64 off;
	bool off_known;
	const char *var;
	enum datatype_via via;
	enum datatype_why why; /* when !ok */
};

static const char *const why_str[DATATYPE_NWHY] = {
	[DATATYPE_TYPED] = "typed",
	[DATATYPE_KERNEL] = "kernel code",
	[DATATYPE_NO_FILE] = "no ELF file",
	[DATATYPE_NO_DEBUG] = "no debug info",
	[DATATYPE_NO_INSN] = "no instruction",
	[DATATYPE_NO_MEMOP] = "no memory operand",
	[DATATYPE_THREAD] = "thread-local",
	[DATATYPE_UNDESCRIBED] = "register not described",
	[DATATYPE_NO_VARIABLE] = "no variable there",
	[DATATYPE_VOID] = "pointer to void",
};

const char *datatype__why_str(enum datatype_why why)
{
	return (unsigned int)why < DATATYPE_NWHY ? why_str[why] : "?";
}

void datatype__label(const struct datatype *d, char *buf, size_t len)
{
	if (d->why != DATATYPE_TYPED || !d->type)
		snprintf(buf, len, "[untyped: %s]", datatype__why_str(d->why));
	else if (d->member)
		snprintf(buf, len, "%s.%s", d->type, d->member);
	else if (d->aggregate && d->offset_known)
		snprintf(buf, len, "%s %s0x%llx", d->type, d->offset < 0 ? "-" : "+",
			 (unsigned long long)(d->offset < 0 ? -d->offset : d->offset));
	else
		snprintf(buf, len, "%s", d->type);
}

void datatype__clear(struct datatype *d)
{
	free(d->type);
	free(d->member);
	free(d->var);
	memset(d, 0, sizeof(*d));
}

void datatype__scratch_free(struct datatype_scratch *s)
{
	if (!s)
		return;
	free(s->insns);
	free(s->jumps);
	free(s);
}

/* ---- types ---- */

/* The type a DIE (a variable, a member, a type) refers to, through its origin. */
static bool die__type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, type);
}

/* t without qualifiers (const, volatile, restrict, _Atomic); false: void. */
static bool type__unqualify(Dwarf_Die *t)
{
	int i;

	for (i = 0; i < 16; i++) {
		switch (dwarf_tag(t)) {
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!die__type(t, t))
				return false;
			break;
		default:
			return true;
		}
	}
	return false;
}

/* t without qualifiers and typedefs: the type that says what the bytes are; false: void. */
static bool type__strip(Dwarf_Die *t)
{
	int i;

	for (i = 0; i < 16; i++) {
		if (!type__unqualify(t))
			return false;
		if (dwarf_tag(t) != DW_TAG_typedef)
			return true;
		if (!die__type(t, t))
			return false;
	}
	return false;
}

static bool tag__aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
}

static bool tag__pointer(int tag)
{
	return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	       tag == DW_TAG_rvalue_reference_type;
}

/* A value of type t (a variable's, a member's, a return value's) as a register holds it. */
static struct dt_val val__of_type(Dwarf_Die *t, const char *var, enum datatype_via via)
{
	struct dt_val v = { .var = var, .via = via, .off_known = true };
	Dwarf_Die pt = *t;

	if (!type__strip(&pt) || !tag__pointer(dwarf_tag(&pt)))
		return v;
	if (!die__type(&pt, &v.type) || !type__unqualify(&v.type) ||
	    (dwarf_tag(&v.type) == DW_TAG_base_type && !dwarf_diename(&v.type))) {
		v.void_ptr = true;
		return v;
	}
	v.ptr = true;
	return v;
}

static bool type__size(Dwarf_Die *t, __u64 *size)
{
	Dwarf_Word w;
	Dwarf_Die s = *t;

	if (!type__strip(&s) || dwarf_aggregate_size(&s, &w))
		return false;
	*size = w;
	return true;
}

/* A member's offset in its struct (DW_AT_data_member_location, a constant or a DW_OP_plus_uconst). */
static bool member__offset(Dwarf_Die *m, __s64 *off)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr_integrate(m, DW_AT_data_member_location, &attr)) {
		if (dwarf_attr_integrate(m, DW_AT_data_bit_offset, &attr) &&
		    !dwarf_formudata(&attr, &w)) {
			*off = (__s64)(w / 8);
			return true;
		}
		*off = 0; /* a union's members */
		return true;
	}
	if (!dwarf_formudata(&attr, &w)) {
		*off = (__s64)w;
		return true;
	}
	if (!dwarf_getlocation(&attr, &ops, &nops) && nops == 1 &&
	    ops[0].atom == DW_OP_plus_uconst) {
		*off = (__s64)ops[0].number;
		return true;
	}
	return false;
}

/*
 * Whether a member of an aggregate holds data at an offset: not a static
 * member (a declaration in the class), nor a function.
 */
static bool member__data(Dwarf_Die *m)
{
	int tag = dwarf_tag(m);

	if (tag == DW_TAG_inheritance)
		return true;
	return tag == DW_TAG_member && !dwarf_hasattr(m, DW_AT_external) &&
	       !dwarf_hasattr(m, DW_AT_declaration);
}

/* One step down a type: the member that holds off; in a union, the one whose leaf fits size. */
struct member_hit {
	Dwarf_Die die, type;
	__s64 start; /* the member's offset in the aggregate */
	bool named;  /* adds a name to the path (not a base class, not an anonymous member) */
};

static bool leaf__fits(Dwarf_Die *type, __s64 off, unsigned int size, int depth);

/* Whether t is an array of no size: C's flexible array member (char data[]). */
static bool type__flexible(Dwarf_Die *t)
{
	Dwarf_Die s = *t;
	__u64 size;

	return type__strip(&s) && dwarf_tag(&s) == DW_TAG_array_type && !type__size(&s, &size);
}

/* Whether the last data member of aggregate t is a flexible array. */
static bool aggregate__flexible(Dwarf_Die *t)
{
	Dwarf_Die c, last, type;
	bool any = false;

	if (dwarf_child(t, &c))
		return false;
	do {
		if (member__data(&c)) {
			last = c;
			any = true;
		}
	} while (!dwarf_siblingof(&c, &c));
	return any && die__type(&last, &type) && type__flexible(&type);
}

/*
 * The place an offset past the end of a pointer's type is: C's pointer
 * arithmetic steps whole objects (p[i].x, an unrolled loop's p[1].x), so
 * it is the same place in another one; but a flexible array member goes on
 * past the end.  A negative offset (a container's member reached from an
 * embedded one) stays as it is: no member of this type holds it.
 */
static void type__wrap(Dwarf_Die *t, __s64 *off)
{
	Dwarf_Die s = *t;
	__u64 size;

	if (*off < 0 || !type__strip(&s) || !type__size(&s, &size) || !size || (__u64)*off < size)
		return;
	if (tag__aggregate(dwarf_tag(&s)) && aggregate__flexible(&s))
		return;
	*off %= (__s64)size;
}

static bool aggregate__member(Dwarf_Die *agg, __s64 off, unsigned int size, struct member_hit *out)
{
	bool unio = dwarf_tag(agg) == DW_TAG_union_type, found = false;
	struct member_hit h;
	Dwarf_Die c;
	__u64 msize;

	if (dwarf_child(agg, &c))
		return false;
	do {
		if (!member__data(&c) || !member__offset(&c, &h.start) || !die__type(&c, &h.type))
			continue;
		if (!type__size(&h.type, &msize)) {
			if (!type__flexible(&h.type))
				continue;
			msize = (__u64)INT64_MAX; /* a flexible array member: past the end */
		}
		if (off < h.start || (__u64)(off - h.start) >= msize)
			continue;
		h.die = c;
		h.named = dwarf_tag(&c) == DW_TAG_member && dwarf_diename(&c);
		if (!found) {
			*out = h;
			found = true;
		}
		/* a union's members overlap: the one whose scalar is the access wins */
		if (!unio || leaf__fits(&h.type, off - h.start, size, 0)) {
			*out = h;
			return true;
		}
	} while (!dwarf_siblingof(&c, &c));
	return found;
}

/* Whether the scalar at off in type starts there and is size bytes: the access is to it. */
static bool leaf__fits(Dwarf_Die *type, __s64 off, unsigned int size, int depth)
{
	Dwarf_Die t = *type, elem;
	struct member_hit h;
	__u64 esize;

	if (depth > 16 || !type__strip(&t))
		return false;
	switch (dwarf_tag(&t)) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		return aggregate__member(&t, off, size, &h) &&
		       leaf__fits(&h.type, off - h.start, size, depth + 1);
	case DW_TAG_array_type:
		if (!die__type(&t, &elem) || !type__size(&elem, &esize) || !esize)
			return false;
		return leaf__fits(&elem, off % (__s64)esize, size, depth + 1);
	default:
		return off == 0 && type__size(&t, &esize) && esize == size;
	}
}

/* A growing string. */
struct dt_buf {
	char s[512];
	size_t n;
};

static void buf__add(struct dt_buf *b, const char *fmt, const char *str)
{
	int k = snprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, str);

	if (k > 0)
		b->n = b->n + k < sizeof(b->s) ? b->n + k : sizeof(b->s) - 1;
}

/*
 * The member path to off in type t (stripped), as C writes it: "in.x",
 * "slots[].len"; base classes and anonymous members add no name.  *found:
 * some member holds off.
 */
static void type__member_path(Dwarf_Die *t, __s64 off, unsigned int size, struct dt_buf *path,
			      bool *found)
{
	Dwarf_Die cur = *t, elem;
	struct member_hit h;
	__u64 esize;
	int depth;

	*found = false;
	for (depth = 0; depth < 32; depth++) {
		if (!type__strip(&cur))
			return;
		switch (dwarf_tag(&cur)) {
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_class_type:
			if (!aggregate__member(&cur, off, size, &h))
				return;
			*found = true;
			if (h.named)
				buf__add(path,
					 path->n && path->s[path->n - 1] != '.' ? ".%s" : "%s",
					 dwarf_diename(&h.die));
			off -= h.start;
			cur = h.type;
			break;
		case DW_TAG_array_type:
			if (!die__type(&cur, &elem) || !type__size(&elem, &esize) || !esize)
				return;
			off %= (__s64)esize;
			cur = elem;
			if (!type__strip(&elem) || !tag__aggregate(dwarf_tag(&elem)))
				return; /* an array of scalars: the member is the array */
			if (path->n)
				buf__add(path, "%s", "[]");
			break;
		default:
			return;
		}
	}
}

/* C++: the namespaces and classes around a type, "ns::Outer::". */
static void type__scope_prefix(Dwarf_Die *t, struct dt_buf *b)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(t, &scopes), i;

	/* scopes[0] is t itself, the last one the unit */
	for (i = n - 2; i >= 1; i--) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name = dwarf_diename(&scopes[i]);

		if ((tag == DW_TAG_namespace || tag__aggregate(tag)) && name)
			buf__add(b, "%s::", name);
	}
	free(scopes);
}

/*
 * The name of type t as C and C++ write it: "struct conn", "class
 * Session", "union msg", "long int", "char *"; a typedef of an unnamed
 * struct by the typedef's name; other typedefs by the struct's tag they
 * name.
 */
static void type__name(struct dt_ctx *cx, Dwarf_Die *type, struct dt_buf *b, int depth)
{
	Dwarf_Die t = *type, under;
	const char *kw = "", *name;

	if (depth > 8 || !type__unqualify(&t)) {
		buf__add(b, "%s", "void");
		return;
	}
	if (dwarf_tag(&t) == DW_TAG_typedef) {
		under = t;
		if (type__strip(&under) && tag__aggregate(dwarf_tag(&under)) &&
		    dwarf_diename(&under))
			t = under;
		else {
			buf__add(b, "%s", dwarf_diename(&t) ? dwarf_diename(&t) : "(typedef)");
			return;
		}
	}
	switch (dwarf_tag(&t)) {
	case DW_TAG_structure_type:
		kw = "struct ";
		break;
	case DW_TAG_union_type:
		kw = "union ";
		break;
	case DW_TAG_class_type:
		kw = "class ";
		break;
	case DW_TAG_enumeration_type:
		kw = "enum ";
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (die__type(&t, &under))
			type__name(cx, &under, b, depth + 1);
		else
			buf__add(b, "%s", "void");
		buf__add(b, "%s", dwarf_tag(&t) == DW_TAG_pointer_type ? " *" : " &");
		return;
	case DW_TAG_array_type:
		if (die__type(&t, &under))
			type__name(cx, &under, b, depth + 1);
		buf__add(b, "%s", "[]");
		return;
	case DW_TAG_subroutine_type:
		buf__add(b, "%s", "(function)");
		return;
	default:
		break;
	}
	name = dwarf_diename(&t);
	buf__add(b, "%s", kw);
	if (cx->cplus && *kw && name)
		type__scope_prefix(&t, b);
	buf__add(b, "%s", name ? name : "(anonymous)");
}

/* ---- DWARF variables ---- */

/* The variable's location at pc: its operations (one location, 1), else 0. */
static int var__location(Dwarf_Die *var, Dwarf_Addr pc, Dwarf_Op **ops, size_t *nops)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr(var, DW_AT_location, &attr))
		return 0;
	return dwarf_getlocation_addr(&attr, pc, ops, nops, 1) == 1 ? 1 : 0;
}

static bool var__is(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

/* Whether a location is "in register reg": DW_OP_regN or DW_OP_regx, alone or as its first piece. */
static bool ops__reg(const Dwarf_Op *ops, size_t nops, int reg)
{
	if (!nops)
		return false;
	if (nops > 1 && ops[1].atom != DW_OP_piece)
		return false;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return (int)(ops[0].atom - DW_OP_reg0) == reg;
	return ops[0].atom == DW_OP_regx && (int)ops[0].number == reg;
}

/* The scopes at file address addr (see debuginfo__scopes). */
static int ctx__scopes(struct dt_ctx *cx, __u64 addr, Dwarf_Die *scopes)
{
	return debuginfo__scopes(&cx->cu, &cx->func, addr - cx->di->bias, scopes, DT_SCOPES);
}

/* The value the DWARF says register reg holds at addr: a variable that lives there. */
static bool ctx__var_in_reg(struct dt_ctx *cx, __u64 addr, int reg, struct dt_val *out)
{
	Dwarf_Die scopes[DT_SCOPES], c, type;
	Dwarf_Addr pc = addr - cx->di->bias;
	int n = ctx__scopes(cx, addr, scopes), i;
	Dwarf_Op *ops;
	size_t nops;

	for (i = n - 1; i >= 0; i--) {
		if (dwarf_child(&scopes[i], &c))
			continue;
		do {
			if (!var__is(&c) || !var__location(&c, pc, &ops, &nops) ||
			    !ops__reg(ops, nops, reg) || !die__type(&c, &type))
				continue;
			*out = val__of_type(&type, dwarf_diename(&c), DATATYPE_VIA_POINTER);
			if (out->void_ptr)
				cx->saw_void = true;
			if (out->ptr)
				return true;
		} while (!dwarf_siblingof(&c, &c));
	}
	return false;
}

/*
 * The offset from the frame base of [reg + disp] at addr, when reg is what
 * the frame base is computed from there: the CFA's register (gcc's
 * DW_OP_call_frame_cfa), or the frame base's own register (clang's).
 */
static bool ctx__frame_offset(struct dt_ctx *cx, __u64 addr, Dwarf_Die *func, int reg, __s64 disp,
			      __s64 *fboff)
{
	Dwarf_Addr pc = addr - cx->di->bias;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	int cfareg;
	__s64 cfaoff;

	if (!dwarf_attr_integrate(func, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &nops, 1) != 1 || nops != 1)
		return false;
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		if (!debuginfo__cfa(cx->di, addr, &cfareg, &cfaoff) || cfareg != reg)
			return false;
		*fboff = disp - cfaoff;
		return true;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31 &&
	    (int)(ops[0].atom - DW_OP_breg0) == reg) {
		*fboff = disp - (__s64)ops[0].number;
		return true;
	}
	if (ops__reg(ops, nops, reg)) {
		*fboff = disp;
		return true;
	}
	return false;
}

/* Whether var of the scopes lies at [start, start + size) of the frame (fbreg) or of reg (breg). */
static bool var__covers(Dwarf_Die *var, Dwarf_Addr pc, bool have_fb, __s64 fboff, int reg,
			__s64 disp, Dwarf_Die *type, __s64 *into)
{
	Dwarf_Op *ops;
	size_t nops;
	__u64 size;
	__s64 at;

	if (!var__location(var, pc, &ops, &nops) || nops != 1 || !die__type(var, type) ||
	    !type__size(type, &size))
		return false;
	if (ops[0].atom == DW_OP_fbreg && have_fb)
		at = fboff - (__s64)ops[0].number;
	else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31 &&
		 (int)(ops[0].atom - DW_OP_breg0) == reg)
		at = disp - (__s64)ops[0].number;
	else
		return false;
	if (at < 0 || (__u64)at >= size)
		return false;
	*into = at;
	return true;
}

/* [reg + disp] at addr as a place in a variable of the stack. */
static bool ctx__stack(struct dt_ctx *cx, __u64 addr, int reg, __s64 disp, struct dt_obj *out)
{
	Dwarf_Die scopes[DT_SCOPES], c, type;
	Dwarf_Addr pc = addr - cx->di->bias;
	int n = ctx__scopes(cx, addr, scopes), i;
	bool have_fb;
	__s64 fboff = 0, into;

	if (!n)
		return false;
	have_fb = ctx__frame_offset(cx, addr, &scopes[0], reg, disp, &fboff);
	for (i = n - 1; i >= 0; i--) {
		if (dwarf_child(&scopes[i], &c))
			continue;
		do {
			if (!var__is(&c) ||
			    !var__covers(&c, pc, have_fb, fboff, reg, disp, &type, &into))
				continue;
			*out = (struct dt_obj){ .ok = true,
						.type = type,
						.off = into,
						.off_known = true,
						.var = dwarf_diename(&c),
						.via = DATATYPE_VIA_STACK };
			return true;
		} while (!dwarf_siblingof(&c, &c));
	}
	/* a frame address no variable covers: a spill slot, a saved register */
	if (have_fb || reg == INSN_REG_SP) {
		*out = (struct dt_obj){ .why = DATATYPE_NO_VARIABLE, .via = DATATYPE_VIA_STACK };
		return true;
	}
	return false;
}

/* A global or static variable that holds address a. */
static struct dt_obj ctx__global(struct dt_ctx *cx, __u64 a)
{
	const struct debuginfo_var *v = debuginfo__var_at(cx->di, a);
	struct dt_obj o = { .why = DATATYPE_NO_VARIABLE, .via = DATATYPE_VIA_GLOBAL };
	Dwarf_Die die;

	if (!v || !dwarf_offdie(cx->di->dw, v->die, &die) || !die__type(&die, &o.type))
		return o;
	o.ok = true;
	o.off = (__s64)(a - v->addr);
	o.off_known = true;
	o.var = dwarf_diename(&die);
	return o;
}

/* ---- following registers back ---- */

static int jump__cmp(const void *a, const void *b)
{
	const struct dt_jump *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/*
 * The instruction before j on a path that reaches it: the one above it
 * when that one falls through, else the last jump to it from above.  Each
 * step goes to a lower index, so a walk ends; a loop's back edge (a jump
 * from below) is not taken: what it carries has the type of what entered.
 * -1 at the function's start.
 */
static ssize_t ctx__prev(struct dt_ctx *cx, size_t j)
{
	struct datatype_scratch *s = cx->s;
	__u64 at = cx->insns[j].addr;
	ssize_t best = -1;
	size_t lo = 0, hi, mid;

	if (j == 0)
		return -1;
	if (!cx->insns[j - 1].ends)
		return (ssize_t)j - 1;
	if (!s || !s->njumps)
		return -1;
	if (!s->sorted) {
		qsort(s->jumps, s->njumps, sizeof(*s->jumps), jump__cmp);
		s->sorted = true;
	}
	hi = s->njumps;
	while (lo < hi) { /* the first jump to at */
		mid = (lo + hi) / 2;
		if (s->jumps[mid].target < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->njumps && s->jumps[lo].target == at; lo++)
		if (s->jumps[lo].from < j)
			best = (ssize_t)s->jumps[lo].from;
	return best;
}

static struct dt_obj ctx__access(struct dt_ctx *cx, size_t k, const struct insn_mem *m, int depth);
static struct dt_val ctx__reg(struct dt_ctx *cx, size_t k, int reg, int depth);

/* The value a function returns, when the call at k is direct and its callee described. */
static struct dt_val ctx__returned(struct dt_ctx *cx, const struct insn *call)
{
	struct dt_val none = {};
	Dwarf_Die cu, scopes[1], type;

	if (!call->target || !debuginfo__cu(cx->di, call->target, &cu) ||
	    debuginfo__scopes(&cu, NULL, call->target - cx->di->bias, scopes, 1) != 1 ||
	    !die__type(&scopes[0], &type))
		return none;
	return val__of_type(&type, NULL, DATATYPE_VIA_POINTER);
}

/* The value loaded from the memory operand of instruction j: the type of what it holds there. */
static struct dt_val ctx__loaded(struct dt_ctx *cx, size_t j, int depth)
{
	const struct insn *in = &cx->insns[j];
	struct dt_obj o = ctx__access(cx, j, &in->mem, depth + 1);
	struct dt_val none = {};
	struct member_hit h;
	Dwarf_Die t;
	__s64 off;
	ssize_t i;
	int k, steps;

	if (!o.ok) {
		/*
		 * A stack slot no variable covers (a spilled register): the value
		 * the last store to the same slot wrote, its base register unchanged.
		 */
		if (o.why != DATATYPE_NO_VARIABLE || o.via != DATATYPE_VIA_STACK)
			return none;
		for (i = ctx__prev(cx, j), steps = 0; i >= 0 && steps < DT_LOOKBACK;
		     i = ctx__prev(cx, (size_t)i), steps++) {
			const struct insn *st = &cx->insns[i];

			if (st->written & (1u << in->mem.base))
				return none;
			if (st->kind == INSN_MOV && st->dst == INSN_OP_MEM &&
			    st->src == INSN_OP_REG && st->mem.base == in->mem.base &&
			    st->mem.index == INSN_REG_NONE && st->mem.disp == in->mem.disp)
				return ctx__reg(cx, (size_t)i, st->src_reg, depth + 1);
		}
		return none;
	}
	/* down to the scalar at the offset: a pointer member is the value */
	t = o.type;
	off = o.off;
	for (k = 0; k < 32; k++) {
		if (!type__strip(&t))
			return none;
		if (tag__aggregate(dwarf_tag(&t))) {
			if (!aggregate__member(&t, off, 8, &h))
				return none;
			off -= h.start;
			t = h.type;
		} else if (dwarf_tag(&t) == DW_TAG_array_type) {
			Dwarf_Die elem;
			__u64 esize;

			if (!die__type(&t, &elem) || !type__size(&elem, &esize) || !esize)
				return none;
			off %= (__s64)esize;
			t = elem;
		} else {
			break;
		}
	}
	if (off != 0)
		return none;
	return val__of_type(&t, o.var, DATATYPE_VIA_POINTER);
}

/* The value register reg holds before instruction k runs. */
static struct dt_val ctx__reg(struct dt_ctx *cx, size_t k, int reg, int depth)
{
	struct dt_val v = {}, w;
	ssize_t jj;
	size_t j;
	int steps, sign;

	if (reg < 0 || reg >= 16 || depth > DT_DEPTH)
		return v;
	if (ctx__var_in_reg(cx, cx->insns[k].addr, reg, &v))
		return v;
	for (jj = ctx__prev(cx, k), steps = 0; jj >= 0 && steps < DT_LOOKBACK;
	     jj = ctx__prev(cx, (size_t)jj), steps++) {
		const struct insn *in = &cx->insns[jj];

		j = (size_t)jj;
		__u32 written = in->written | (in->kind == INSN_CALL ? DT_CALL_CLOBBERS : 0);

		if (!(written & (1u << reg)))
			continue;
		switch (in->kind) {
		case INSN_MOV:
			if (in->dst != INSN_OP_REG || in->dst_reg != reg)
				return (struct dt_val){};
			if (in->src == INSN_OP_REG)
				return ctx__reg(cx, j, in->src_reg, depth + 1);
			if (in->src == INSN_OP_MEM)
				return ctx__loaded(cx, j, depth);
			if (in->src == INSN_OP_IMM)
				return (struct dt_val){ .konst = true, .k = in->imm };
			return (struct dt_val){};
		case INSN_LEA: {
			struct dt_obj o = ctx__access(cx, j, &in->mem, depth + 1);

			if (!o.ok)
				return (struct dt_val){};
			return (struct dt_val){ .ptr = true,
						.type = o.type,
						.off = o.off,
						.off_known = o.off_known,
						.var = o.var,
						.via = o.via };
		}
		case INSN_ADD:
		case INSN_SUB:
			if (in->dst != INSN_OP_REG || in->dst_reg != reg)
				return (struct dt_val){};
			v = ctx__reg(cx, j, reg, depth + 1);
			sign = in->kind == INSN_ADD ? 1 : -1;
			if (in->src == INSN_OP_IMM) {
				v.off += sign * in->imm;
				v.k += sign * in->imm;
				return v;
			}
			if (in->src != INSN_OP_REG)
				return (struct dt_val){};
			w = ctx__reg(cx, j, in->src_reg, depth + 1);
			if (v.konst && w.konst) {
				v.k += sign * w.k;
				return v;
			}
			/*
			 * A pointer plus a register: C adds whole elements (an index
			 * times their size), so the place within one is unchanged;
			 * a constant moves it.
			 */
			if (v.ptr && !w.ptr) {
				v.off += w.konst ? sign * w.k : 0;
				return v;
			}
			if (!v.ptr && w.ptr && in->kind == INSN_ADD) {
				w.off += v.konst ? v.k : 0;
				return w;
			}
			return (struct dt_val){};
		case INSN_CALL:
			return reg == 0 ? ctx__returned(cx, in) : (struct dt_val){};
		default:
			return (struct dt_val){};
		}
	}
	/* not written in the function before k: what it held on entry */
	if (k > 0 && ctx__var_in_reg(cx, cx->insns[0].addr, reg, &v))
		return v;
	return (struct dt_val){};
}

/* Whether reg at instruction k is the register the frame is addressed from. */
static bool ctx__frame_reg(struct dt_ctx *cx, size_t k, int reg)
{
	int cfareg;
	__s64 cfaoff;

	if (reg == INSN_REG_SP)
		return true;
	return debuginfo__cfa(cx->di, cx->insns[k].addr, &cfareg, &cfaoff) && cfareg == reg;
}

/* The object the memory operand m of instruction k is in. */
static struct dt_obj ctx__access(struct dt_ctx *cx, size_t k, const struct insn_mem *m, int depth)
{
	struct dt_obj o = { .why = DATATYPE_UNDESCRIBED };
	struct dt_val v, w;

	if (depth > DT_DEPTH)
		return o;
	if (m->segment) {
		o.why = DATATYPE_THREAD;
		return o;
	}
	if (m->base == INSN_REG_PC || m->base == INSN_REG_NONE)
		return ctx__global(cx, (__u64)m->disp);
	if (ctx__frame_reg(cx, k, m->base) &&
	    ctx__stack(cx, cx->insns[k].addr, m->base, m->disp, &o))
		return o;
	o = (struct dt_obj){ .why = DATATYPE_UNDESCRIBED };
	v = ctx__reg(cx, k, m->base, depth);
	w = m->index != INSN_REG_NONE ? ctx__reg(cx, k, m->index, depth) : (struct dt_val){};
	/*
	 * The pointer is the base (or the index: (%rdx,%rax,1) with the
	 * pointer in rax); an index of unknown value steps whole elements (the
	 * place in one is the same), a known one moves the place.
	 */
	if (v.ptr) {
		v.off += w.konst ? w.k * m->scale : 0;
	} else if (w.ptr && m->scale == 1) {
		w.off += v.konst ? v.k : 0;
		v = w;
	}
	if (!v.ptr) {
		if (v.void_ptr || cx->saw_void)
			o.why = DATATYPE_VOID;
		return o;
	}
	o = (struct dt_obj){ .ok = true,
			     .type = v.type,
			     .off = v.off + m->disp,
			     .off_known = v.off_known,
			     .var = v.var,
			     .via = v.via };
	if (o.via == DATATYPE_VIA_POINTER)
		type__wrap(&o.type, &o.off);
	return o;
}

/* ---- the function around an address ---- */

/* Where the range of the function holding pc starts (a function may be split: .cold). */
static bool func__range_start(Dwarf_Die *func, Dwarf_Addr pc, Dwarf_Addr *lo)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(func, off, &base, &start, &end)) > 0)
		if (pc >= start && pc < end) {
			*lo = start;
			return true;
		}
	return false;
}

static int scratch__push(struct datatype_scratch *s, const struct insn *in)
{
	if (in->target && in->kind == INSN_JUMP) {
		if (s->njumps == s->jcap) {
			size_t cap = s->jcap ? s->jcap * 2 : 64;
			struct dt_jump *p = realloc(s->jumps, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			s->jumps = p;
			s->jcap = cap;
		}
		s->jumps[s->njumps++] = (struct dt_jump){ in->target, s->n };
		s->sorted = false;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct insn *p = realloc(s->insns, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->insns = p;
		s->cap = cap;
	}
	s->insns[s->n++] = *in;
	return 0;
}

/*
 * The instructions from lo to addr, addr's last (decoded once per function
 * and kept: the instructions before an address do not change).  Returns the
 * index of addr's, or -1 when decoding from lo does not land on it.
 */
static ssize_t scratch__decode(struct datatype_scratch *s, struct debuginfo *di,
			       struct insn_decoder *dec, __u64 lo, __u64 addr)
{
	const unsigned char *code;
	struct insn in;
	__u64 a;
	size_t len, i;

	if (s->di != di || s->lo != lo) {
		s->di = di;
		s->lo = lo;
		s->n = 0;
		s->njumps = 0;
	}
	/* what is decoded already */
	for (i = 0; i < s->n; i++)
		if (s->insns[i].addr >= addr)
			return s->insns[i].addr == addr ? (ssize_t)i : -1;
	a = s->n ? s->insns[s->n - 1].addr + s->insns[s->n - 1].len : lo;
	code = debuginfo__code(di, a, &len);
	if (!code)
		return -1;
	while (a <= addr) {
		unsigned int k = insn_decoder__decode(dec, code, len, a, &in);

		if (!k || scratch__push(s, &in))
			return -1;
		if (a == addr)
			return (ssize_t)s->n - 1;
		code += k;
		len -= k;
		a += k;
	}
	return -1;
}

static int datatype__fill(struct dt_ctx *cx, const struct dt_obj *o, const struct insn *in,
			  struct datatype *out)
{
	struct dt_buf name = {}, path = {};
	Dwarf_Die t = o->type, named = o->type, elem;
	__s64 off = o->off;
	__u64 esize;
	bool found = false;
	int i;

	/* an array variable (stack, global): its element is the type */
	for (i = 0; i < 8 && type__strip(&t) && dwarf_tag(&t) == DW_TAG_array_type; i++) {
		if (!die__type(&t, &elem) || !type__size(&elem, &esize) || !esize)
			break;
		off = off >= 0 ? off % (__s64)esize : off;
		t = named = elem;
	}
	if (!type__strip(&t)) {
		out->why = DATATYPE_VOID;
		return 0;
	}
	/* named as written (a typedef of an unnamed struct by the typedef), the members of t */
	type__name(cx, &named, &name, 0);
	out->aggregate = tag__aggregate(dwarf_tag(&t));
	if (out->aggregate && o->off_known)
		type__member_path(&t, off, in->mem.size, &path, &found);
	out->type = strdup(name.s);
	out->member = found && path.n ? strdup(path.s) : NULL;
	out->var = o->var ? strdup(o->var) : NULL;
	if (!out->type || (found && path.n && !out->member) || (o->var && !out->var))
		return -ENOMEM;
	out->offset = off;
	out->offset_known = o->off_known;
	out->via = o->via;
	out->why = DATATYPE_TYPED;
	return 0;
}

static bool cu__cplus(Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	Dwarf_Word lang;

	if (!dwarf_attr(cu, DW_AT_language, &attr) || dwarf_formudata(&attr, &lang))
		return false;
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

int datatype__find(struct debuginfo *di, struct insn_decoder *dec,
		   struct datatype_scratch **scratch, __u64 addr, struct datatype *out)
{
	struct dt_ctx cx = { .di = di, .dec = dec };
	Dwarf_Die scopes[1];
	Dwarf_Addr lo;
	struct dt_obj o;
	const unsigned char *code;
	struct insn one;
	size_t len;
	ssize_t k;

	memset(out, 0, sizeof(*out));
	if (!*scratch) {
		*scratch = calloc(1, sizeof(**scratch));
		if (!*scratch)
			return -ENOMEM;
	}
	/*
	 * Without the DWARF of the code's unit nothing can be typed, whatever the
	 * instruction: that is the reason to give (a debug package to install)
	 */
	if (!di->dw || !debuginfo__cu(di, addr, &cx.cu)) {
		out->why = DATATYPE_NO_DEBUG;
		return 0;
	}
	code = debuginfo__code(di, addr, &len);
	if (!code || !insn_decoder__decode(dec, code, len, addr, &one)) {
		out->why = DATATYPE_NO_INSN;
		return 0;
	}
	out->size = one.mem.size;
	if (!one.accesses) {
		out->why = DATATYPE_NO_MEMOP;
		return 0;
	}
	if (one.mem.segment) {
		out->why = DATATYPE_THREAD;
		return 0;
	}
	if (debuginfo__scopes(&cx.cu, NULL, addr - di->bias, scopes, 1) != 1) {
		out->why = DATATYPE_NO_DEBUG;
		return 0;
	}
	cx.func = scopes[0];
	cx.cplus = cu__cplus(&cx.cu);
	/* the function's instructions up to addr, for following registers back */
	k = -1;
	if (func__range_start(&scopes[0], addr - di->bias, &lo) &&
	    addr - (lo + di->bias) <= DT_FUNC_MAX)
		k = scratch__decode(*scratch, di, dec, lo + di->bias, addr);
	if (k < 0) {
		cx.insns = &one;
		cx.n = 1;
		k = 0;
	} else {
		cx.insns = (*scratch)->insns;
		cx.n = (size_t)k + 1;
		cx.s = *scratch;
	}
	o = ctx__access(&cx, (size_t)k, &cx.insns[k].mem, 0);
	if (!o.ok) {
		out->why = o.why;
		out->via = o.via;
		return 0;
	}
	return datatype__fill(&cx, &o, &cx.insns[k], out);
}

/* ---- a type's layout (perf annotate --data-type) ---- */

struct dt_layout {
	struct datatype_member *m;
	size_t n, cap;
};

/*
 * The name of a member's type: as type__name, but an array with its
 * lengths ("char[4096]", "int[2][3]"), as pahole and perf write them.
 */
static void member__type_name(struct dt_ctx *cx, Dwarf_Die *type, struct dt_buf *b)
{
	Dwarf_Die t = *type, elem, sub;
	Dwarf_Attribute attr;
	Dwarf_Word w;

	if (!type__unqualify(&t) || dwarf_tag(&t) != DW_TAG_array_type || !die__type(&t, &elem)) {
		type__name(cx, type, b, 0);
		return;
	}
	type__name(cx, &elem, b, 0);
	if (dwarf_child(&t, &sub))
		return;
	do {
		char n[32];

		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr_integrate(&sub, DW_AT_count, &attr) && !dwarf_formudata(&attr, &w))
			snprintf(n, sizeof(n), "[%llu]", (unsigned long long)w);
		else if (dwarf_attr_integrate(&sub, DW_AT_upper_bound, &attr) &&
			 !dwarf_formudata(&attr, &w))
			snprintf(n, sizeof(n), "[%llu]", (unsigned long long)w + 1);
		else
			snprintf(n, sizeof(n), "[]");
		buf__add(b, "%s", n);
	} while (!dwarf_siblingof(&sub, &sub));
}

static int layout__push(struct dt_layout *l, struct dt_ctx *cx, Dwarf_Die *type, const char *name,
			__u64 offset, __u64 size, int depth, bool base)
{
	struct dt_buf tn = {};
	struct datatype_member *m;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;

		m = realloc(l->m, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		l->m = m;
		l->cap = cap;
	}
	m = &l->m[l->n];
	member__type_name(cx, type, &tn);
	m->type = strdup(tn.s);
	m->name = name ? strdup(name) : NULL;
	m->offset = offset;
	m->size = size;
	m->depth = depth;
	m->base = base;
	l->n++;
	return !m->type || (name && !m->name) ? -ENOMEM : 0;
}

/* The data members of aggregate agg (at base in the outermost type), and theirs, one deeper. */
static int layout__members(struct dt_layout *l, struct dt_ctx *cx, Dwarf_Die *agg, __u64 base,
			   int depth)
{
	Dwarf_Die c, t, s;
	__s64 off;
	__u64 size;
	int e;

	if (depth > 16 || dwarf_child(agg, &c))
		return 0;
	do {
		if (!member__data(&c) || !member__offset(&c, &off) || off < 0 || !die__type(&c, &t))
			continue;
		if (!type__size(&t, &size))
			size = 0; /* a flexible array member */
		e = layout__push(
			l, cx, &t, dwarf_tag(&c) == DW_TAG_inheritance ? NULL : dwarf_diename(&c),
			base + (__u64)off, size, depth, dwarf_tag(&c) == DW_TAG_inheritance);
		if (e)
			return e;
		s = t;
		if (type__strip(&s) && tag__aggregate(dwarf_tag(&s))) {
			e = layout__members(l, cx, &s, base + (__u64)off, depth + 1);
			if (e)
				return e;
		}
	} while (!dwarf_siblingof(&c, &c));
	return 0;
}

/* The last word of a type's name: "conn" of "struct conn", "Session" of "class ns::Session". */
static const char *name__tail(const char *type)
{
	const char *sp = strrchr(type, ' '), *t = sp ? sp + 1 : type, *cc;

	while ((cc = strstr(t, "::")))
		t = cc + 2;
	return t;
}

/* Under die (a unit, a namespace, a class), the definition of the aggregate named type. */
static bool layout__find(struct dt_ctx *cx, Dwarf_Die *die, const char *type, Dwarf_Die *out,
			 int depth)
{
	const char *tail = name__tail(type), *name;
	Dwarf_Die c, s;
	int tag;

	if (depth > 8 || dwarf_child(die, &c))
		return false;
	do {
		tag = dwarf_tag(&c);
		if (tag == DW_TAG_namespace && layout__find(cx, &c, type, out, depth + 1))
			return true;
		if (!tag__aggregate(tag) && tag != DW_TAG_typedef)
			continue;
		name = dwarf_diename(&c);
		if (name && !strcmp(name, tail) && !dwarf_hasattr(&c, DW_AT_declaration)) {
			struct dt_buf b = {};
			__u64 size;

			type__name(cx, &c, &b, 0);
			s = c;
			if (!strcmp(b.s, type) && type__strip(&s) &&
			    tag__aggregate(dwarf_tag(&s)) &&
			    !dwarf_hasattr(&s, DW_AT_declaration) && type__size(&s, &size)) {
				*out = s;
				return true;
			}
		}
		/* C++: classes declared inside classes */
		if (tag__aggregate(tag) && cx->cplus && layout__find(cx, &c, type, out, depth + 1))
			return true;
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

void datatype__layout_free(struct datatype_member *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(m[i].type);
		free(m[i].name);
	}
	free(m);
}

ssize_t datatype__layout(struct debuginfo *di, __u64 addr, const char *type,
			 struct datatype_member **out)
{
	struct dt_ctx cx = { .di = di };
	struct dt_layout l = {};
	Dwarf_Die agg;
	__u64 size;
	int e;

	*out = NULL;
	/* the unit of the code that touched it: where the compiler described the type it used */
	if (!di->dw || !debuginfo__cu(di, addr, &cx.cu))
		return -ENOENT;
	cx.cplus = cu__cplus(&cx.cu);
	if (!layout__find(&cx, &cx.cu, type, &agg, 0) || !type__size(&agg, &size))
		return -ENOENT;
	e = layout__push(&l, &cx, &agg, NULL, 0, size, 0, false)
		    ?: layout__members(&l, &cx, &agg, 0, 1);
	if (e) {
		datatype__layout_free(l.m, l.n);
		return e;
	}
	*out = l.m;
	return (ssize_t)l.n;
}
