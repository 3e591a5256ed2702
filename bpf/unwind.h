/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * unwind.h - user stacks without frame pointers: the unwind tables that
 * user space compiles out of each ELF file's call frame information
 * (.eh_frame, .debug_frame: user/symbols/unwind.c), and the walker that
 * reads them in the BPF program (ldlat_unwind_walk, below), as the
 * OpenTelemetry eBPF profiler and Parca's agent do.
 *
 * A file's table is a step function over its addresses: row i's rules hold
 * from rows[i].pc up to rows[i + 1].pc.  A row says where the caller's
 * frame is (the CFA: the stack pointer's value before the call), where the
 * caller's frame pointer is, and so where the return address is: on x86-64
 * always at CFA - 8 (the call pushed it).  Rows are 8 bytes; addresses are
 * 32-bit offsets from the table's base (the file's first address with a
 * rule), so a file's code must span less than 4 GiB.
 *
 * In BPF a table is one inner map of an array of maps (the slot user space
 * gives the file, shared by every process that maps it): an array of
 * blocks, block 0 the index (the first address of every later block), the
 * others LDLAT_UNWIND_CHUNK_ROWS rows each.  A lookup is two binary
 * searches of fixed steps, over the index and in one block.
 */
#ifndef LDLAT_UNWIND_H
#define LDLAT_UNWIND_H

#ifndef __bpf__
#include <linux/types.h>
#include <stdbool.h>
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#ifndef LDLAT_INLINE
#define LDLAT_INLINE static __always_inline
#endif

/* What the caller's frame (the CFA) is: enum ldlat_unwind_cfa, the low nibble of row.kind. */
enum ldlat_unwind_cfa {
	LDLAT_CFA_NONE,	       /* no rule covers the address: the frame pointer, if any */
	LDLAT_CFA_SP,	       /* CFA = SP + row.cfa */
	LDLAT_CFA_FP,	       /* CFA = FP + row.cfa */
	LDLAT_CFA_PLT,	       /* a PLT entry: CFA = SP + 8, + 8 when (PC & 15) >= row.cfa */
	LDLAT_CFA_SIGNAL,      /* a signal frame: SP, PC, FP saved in the ucontext (below) */
	LDLAT_CFA_END,	       /* the outermost frame: the return address is undefined */
	LDLAT_CFA_UNSUPPORTED, /* an expression or register the walker does not evaluate */
	LDLAT_CFA_KINDS,
};

/* Where the caller's frame pointer (RBP) is: the high nibble of row.kind. */
enum ldlat_unwind_fp {
	LDLAT_FP_SAME,	/* not changed by this frame */
	LDLAT_FP_AT,	/* saved at CFA + 8 * row.fp */
	LDLAT_FP_UNDEF, /* cannot be recovered (undefined, or a rule the walker does not evaluate) */
	LDLAT_FP_KINDS,
};

/*
 * One row.  A signal frame (the kernel's sigreturn trampoline, whose FDE
 * glibc marks 'S'): the interrupted SP is at SP + row.cfa and its PC right
 * after it, its RBP at SP + 8 * row.fp (struct ucontext_t's gregs).
 */
struct ldlat_unwind_row {
	__u32 pc;  /* from the table's base */
	__u16 cfa; /* the CFA's offset, PLT threshold, or signal frame's SP offset */
	__u8 kind; /* enum ldlat_unwind_cfa | enum ldlat_unwind_fp << 4 */
	__s8 fp;   /* the frame pointer's offset, in 8 bytes */
};

#define LDLAT_UNWIND_ROW_CFA(r) ((r)->kind & 15)
#define LDLAT_UNWIND_ROW_FP(r)	((r)->kind >> 4)

/*
 * Blocks of LDLAT_UNWIND_CHUNK_ROWS rows (8 KiB: a map value the verifier
 * bounds, searched in 10 steps); the index's first addresses of up to
 * LDLAT_UNWIND_CHUNKS of them (11 steps), so a file has at most about 2
 * million rows (GCC 12's cc1, 33 MB, compiles to about 200,000).
 */
#define LDLAT_UNWIND_CHUNK_BITS	 10
#define LDLAT_UNWIND_CHUNK_ROWS	 (1u << LDLAT_UNWIND_CHUNK_BITS)
#define LDLAT_UNWIND_CHUNKS	 (2 * LDLAT_UNWIND_CHUNK_ROWS - 2)
#define LDLAT_UNWIND_INDEX_STEPS 11
#define LDLAT_UNWIND_MAX_ROWS	 ((__u64)LDLAT_UNWIND_CHUNKS * LDLAT_UNWIND_CHUNK_ROWS)

struct ldlat_unwind_index {
	__u32 nchunks;			  /* blocks of rows after this one */
	__u32 nrows;			  /* rows in all */
	__u32 first[LDLAT_UNWIND_CHUNKS]; /* each block's first row's pc */
};

/* An element of a file's inner map: block 0 is the index, the others rows. */
union ldlat_unwind_block {
	struct ldlat_unwind_index index;
	struct ldlat_unwind_row rows[LDLAT_UNWIND_CHUNK_ROWS];
};

/*
 * A process's executable mappings, sorted by start: where each file's
 * table applies (pc - base is the table's address), searched in
 * LDLAT_UNWIND_MAP_STEPS steps.  A process with more executable mappings
 * keeps the first LDLAT_UNWIND_MAPS (user space counts the others).
 */
#define LDLAT_UNWIND_MAPS      128
#define LDLAT_UNWIND_MAP_STEPS 7

enum ldlat_unwind_map_kind {
	LDLAT_MAP_TABLE, /* a file whose table is loaded at slot 'file' */
	LDLAT_MAP_NO_TABLE, /* a file without one (no CFI, or it could not be loaded): frame pointers */
	LDLAT_MAP_JIT,	    /* anonymous executable memory (JIT code): frame pointers */
};

struct ldlat_unwind_map {
	__u64 start, end; /* [start, end) */
	__u64 base;	  /* the table's address of pc is pc - base */
	__u32 file;	  /* the table's slot (LDLAT_MAP_TABLE) */
	__u32 kind;	  /* enum ldlat_unwind_map_kind */
};

struct ldlat_unwind_proc {
	__u32 n; /* mappings in maps[] */
	__u32 pad;
	struct ldlat_unwind_map maps[LDLAT_UNWIND_MAPS];
};

/*
 * Why a walk ended (struct ldlat_top_stack.stop[0] holds it plus one).
 * Only END is a whole stack; the others leave its outer frames out.
 */
enum ldlat_unwind_stop {
	LDLAT_STOP_END,		/* the outermost frame (its return address undefined, or 0) */
	LDLAT_STOP_MAX,		/* --max-stack frames were taken */
	LDLAT_STOP_READ,	/* reading the user stack failed (not present, or past its end) */
	LDLAT_STOP_NO_TABLE,	/* no table covered the address, and no frame pointer went on */
	LDLAT_STOP_NO_MAPPING,	/* the address was in no executable mapping the tables know */
	LDLAT_STOP_UNSUPPORTED, /* a rule the walker does not evaluate */
	LDLAT_STOP_BAD_FRAME,	/* the stack pointer did not move up (a corrupt stack) */
	LDLAT_STOP_NO_REGS,	/* no user registers (a kernel thread) */
	LDLAT_NSTOPS,
};

/*
 * The walks of one drain generation (the 'unwind_counters' per-CPU array
 * has two, at gen & 1, as ldlat-top's counters): the user stacks walked,
 * their frames, by the table or by the frame pointer, the walks of
 * processes the tables did not know (all frame pointers), and why each
 * walk ended.
 */
struct ldlat_unwind_counters {
	__u64 walks;
	__u64 frames;
	__u64 frames_fp;  /* of them, found by a frame pointer */
	__u64 no_process; /* walks of a process with no tables */
	__u64 stop[LDLAT_NSTOPS];
};

#define LDLAT_UNWIND_MAX_STACK 127 /* --max-stack: the path's frames (LDLAT_STACK_DEPTH) */

/* The last row at or before pc among rows[0, n) (n <= LDLAT_UNWIND_CHUNK_ROWS), or -1. */
LDLAT_INLINE int ldlat_unwind_row_find(const struct ldlat_unwind_row *rows, __u32 n, __u32 pc)
{
	__u32 lo = 0, hi = n, mid, i;

	if (!n || rows[0].pc > pc)
		return -1;
	/* rows[lo].pc <= pc < rows[hi].pc (hi == n: past the end) */
	for (i = 0; i < LDLAT_UNWIND_CHUNK_BITS; i++) {
		if (lo + 1 >= hi)
			break;
		mid = (lo + hi) / 2;
		if (rows[mid & (LDLAT_UNWIND_CHUNK_ROWS - 1)].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return (int)lo;
}

/* The block (from 0) whose rows hold pc's row, or -1 when pc is before the first. */
LDLAT_INLINE int ldlat_unwind_chunk_find(const struct ldlat_unwind_index *ix, __u32 pc)
{
	__u32 lo = 0, hi = ix->nchunks, mid, i;

	if (!hi || hi > LDLAT_UNWIND_CHUNKS || ix->first[0] > pc)
		return -1;
	for (i = 0; i < LDLAT_UNWIND_INDEX_STEPS; i++) {
		if (lo + 1 >= hi)
			break;
		mid = (lo + hi) / 2;
		if (mid >= LDLAT_UNWIND_CHUNKS)
			break;
		if (ix->first[mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return (int)lo;
}

/* The mapping of p that holds pc, or -1. */
LDLAT_INLINE int ldlat_unwind_map_find(const struct ldlat_unwind_proc *p, __u64 pc)
{
	__u32 lo = 0, hi = p->n, mid, i;

	if (!hi || hi > LDLAT_UNWIND_MAPS || p->maps[0].start > pc)
		return -1;
	for (i = 0; i < LDLAT_UNWIND_MAP_STEPS; i++) {
		if (lo + 1 >= hi)
			break;
		mid = (lo + hi) / 2;
		if (p->maps[mid & (LDLAT_UNWIND_MAPS - 1)].start <= pc)
			lo = mid;
		else
			hi = mid;
	}
	lo &= LDLAT_UNWIND_MAPS - 1;
	return pc < p->maps[lo].end ? (int)lo : -1;
}

#ifdef __bpf__
/* The user registers a walk starts from. */
struct ldlat_unwind_regs {
	__u64 pc, sp, fp;
};

/* How a walk went: its frames in ips[0, nr), why it ended, how many a frame pointer gave. */
struct ldlat_unwind_result {
	__u32 nr;
	__u32 stop;	 /* enum ldlat_unwind_stop */
	__u32 frames_fp; /* frames found by a frame pointer */
};

/*
 * The row of the file that maps pc (a table's address: pc - 1 for a
 * return address, whose call may be a function's last instruction), into
 * *row; LDLAT_CFA_NONE when no table covers it, with why: NO_MAPPING (no
 * executable mapping of the process holds it) or NO_TABLE.  files: the
 * array of maps of the tables.
 */
static __always_inline __u32 ldlat_unwind_rule(const struct ldlat_unwind_proc *p, void *files,
					       __u64 pc, struct ldlat_unwind_row *row)
{
	const union ldlat_unwind_block *ix, *blk;
	const struct ldlat_unwind_map *m;
	__u32 key, nrows, x;
	void *table;
	int i, k;

	row->kind = LDLAT_CFA_NONE;
	if (!p)
		return LDLAT_STOP_NO_MAPPING;
	i = ldlat_unwind_map_find(p, pc);
	if (i < 0)
		return LDLAT_STOP_NO_MAPPING;
	m = &p->maps[i & (LDLAT_UNWIND_MAPS - 1)];
	if (m->kind != LDLAT_MAP_TABLE || pc - m->base >= (1ull << 32))
		return LDLAT_STOP_NO_TABLE;
	x = (__u32)(pc - m->base);
	key = m->file;
	table = bpf_map_lookup_elem(files, &key);
	if (!table)
		return LDLAT_STOP_NO_TABLE;
	key = 0;
	ix = bpf_map_lookup_elem(table, &key);
	if (!ix)
		return LDLAT_STOP_NO_TABLE;
	k = ldlat_unwind_chunk_find(&ix->index, x);
	if (k < 0)
		return LDLAT_STOP_NO_TABLE;
	nrows = ix->index.nrows - (__u32)k * LDLAT_UNWIND_CHUNK_ROWS;
	if (nrows > LDLAT_UNWIND_CHUNK_ROWS)
		nrows = LDLAT_UNWIND_CHUNK_ROWS;
	key = (__u32)k + 1;
	blk = bpf_map_lookup_elem(table, &key);
	if (!blk)
		return LDLAT_STOP_NO_TABLE;
	i = ldlat_unwind_row_find(blk->rows, nrows, x);
	if (i < 0)
		return LDLAT_STOP_NO_TABLE;
	*row = blk->rows[i & (LDLAT_UNWIND_CHUNK_ROWS - 1)];
	return LDLAT_STOP_NO_TABLE;
}

/* One word of the user stack; false when it cannot be read. */
static __always_inline bool ldlat_unwind_read(__u64 *v, __u64 addr)
{
	return !bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

/*
 * Walks the user stack from r: up to max frames (at most
 * LDLAT_UNWIND_MAX_STACK) into ips, innermost first, each found by the
 * rows of the file that maps it, or where none covers it by the frame
 * pointer (RBP, where the CFI left it known).  p: the process's mappings
 * (NULL: none known, frame pointers alone); files: the tables.
 */
static __always_inline void ldlat_unwind_walk(const struct ldlat_unwind_regs *r,
					      const struct ldlat_unwind_proc *p, void *files,
					      __u64 *ips, __u32 max,
					      struct ldlat_unwind_result *res)
{
	__u64 pc = r->pc, sp = r->sp, fp = r->fp, cfa, ra;
	bool exact = true, fp_ok = true;
	struct ldlat_unwind_row row;
	__u32 i, n = 0, stop = LDLAT_STOP_MAX, why, kind, fpk;

	res->frames_fp = 0;
	for (i = 0; i < LDLAT_UNWIND_MAX_STACK; i++) {
		if (i >= max)
			break;
		ips[i] = pc;
		n = i + 1;
		why = ldlat_unwind_rule(p, files, exact ? pc : pc - 1, &row);
		kind = LDLAT_UNWIND_ROW_CFA(&row);
		fpk = LDLAT_UNWIND_ROW_FP(&row);
		if (kind == LDLAT_CFA_END) {
			stop = LDLAT_STOP_END;
			break;
		}
		if (kind == LDLAT_CFA_NONE) {
			/* the frame pointer: the caller's RBP at RBP, its return address above */
			if (!fp_ok || fp < sp || (fp & 7)) {
				stop = why;
				break;
			}
			cfa = fp + 16;
			if (!ldlat_unwind_read(&ra, fp + 8) || !ldlat_unwind_read(&fp, fp)) {
				stop = LDLAT_STOP_READ;
				break;
			}
			res->frames_fp++;
			exact = false;
		} else if (kind == LDLAT_CFA_SIGNAL) {
			/* the interrupted state: SP, PC, RBP from the ucontext; its PC is exact */
			if (!ldlat_unwind_read(&cfa, sp + row.cfa) ||
			    !ldlat_unwind_read(&ra, sp + row.cfa + 8) ||
			    (fpk == LDLAT_FP_AT &&
			     !ldlat_unwind_read(&fp, sp + 8 * (__s64)row.fp))) {
				stop = LDLAT_STOP_READ;
				break;
			}
			fp_ok = fpk == LDLAT_FP_AT;
			exact = true;
			sp = cfa; /* the interrupted stack may be anywhere (sigaltstack) */
			pc = ra;
			if (!pc) {
				stop = LDLAT_STOP_END;
				break;
			}
			continue;
		} else {
			if (kind == LDLAT_CFA_SP) {
				cfa = sp + row.cfa;
			} else if (kind == LDLAT_CFA_FP && fp_ok) {
				cfa = fp + row.cfa;
			} else if (kind == LDLAT_CFA_PLT) {
				cfa = sp + 8 + ((pc & 15) >= row.cfa ? 8 : 0);
			} else {
				stop = LDLAT_STOP_UNSUPPORTED;
				break;
			}
			/* x86-64: the call pushed the return address just below the CFA */
			if (!ldlat_unwind_read(&ra, cfa - 8) ||
			    (fpk == LDLAT_FP_AT &&
			     !ldlat_unwind_read(&fp, cfa + 8 * (__s64)row.fp))) {
				stop = LDLAT_STOP_READ;
				break;
			}
			if (fpk == LDLAT_FP_AT)
				fp_ok = true;
			else if (fpk == LDLAT_FP_UNDEF)
				fp_ok = false;
			exact = false;
		}
		if (cfa <= sp) {
			stop = LDLAT_STOP_BAD_FRAME;
			break;
		}
		sp = cfa;
		pc = ra;
		if (!pc) {
			stop = LDLAT_STOP_END;
			break;
		}
	}
	res->nr = n;
	res->stop = stop;
}
#endif /* __bpf__ */

#ifndef __bpf__
_Static_assert(sizeof(struct ldlat_unwind_row) == 8, "a row is 8 bytes");
_Static_assert(sizeof(union ldlat_unwind_block) == 8192, "a block is 8 KiB");
_Static_assert(sizeof(struct ldlat_unwind_index) <= sizeof(union ldlat_unwind_block),
	       "the index fits a block");
_Static_assert((1u << LDLAT_UNWIND_INDEX_STEPS) >= LDLAT_UNWIND_CHUNKS, "the index's steps");
_Static_assert((1u << LDLAT_UNWIND_MAP_STEPS) >= LDLAT_UNWIND_MAPS, "the mappings' steps");
_Static_assert(LDLAT_CFA_KINDS <= 16 && LDLAT_FP_KINDS <= 16, "kinds share a byte");
#endif

#endif /* LDLAT_UNWIND_H */
