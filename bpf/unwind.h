/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * unwind.h - user stacks without frame pointers: the unwind tables that
 * user space compiles out of each ELF file's call frame information
 * (.eh_frame, .debug_frame: user/symbols/unwind.c), and the walker that
 * reads them in the BPF program (ldlat_unwind_frame, below, one frame a
 * call of ldlat.bpf.c's ldlat_unwind_step), as the OpenTelemetry eBPF
 * profiler and Parca's agent do.
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
 * others LDLAT_UNWIND_CHUNK_ROWS rows each.  A lookup is three searches of
 * fixed steps: the process's mappings, the index, one block.
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
	LDLAT_CFA_RBX, /* CFA = RBX + row.cfa (the dynamic linker's lazy-binding trampoline) */
	LDLAT_CFA_KINDS,
};

/* Where the caller's frame pointer (RBP) is: bits 4 and 5 of row.kind. */
enum ldlat_unwind_fp {
	LDLAT_FP_SAME,	/* not changed by this frame */
	LDLAT_FP_AT,	/* saved at CFA + 8 * row.fp */
	LDLAT_FP_UNDEF, /* cannot be recovered (undefined, or a rule the walker does not evaluate) */
	LDLAT_FP_KINDS,
};

/*
 * Where the caller's RBX is: bits 6 and 7 of row.kind.  The walker needs
 * it only to reach a frame whose CFA is RBX-based (glibc's
 * _dl_runtime_resolve keeps the stack pointer it was called with there
 * while it realigns the stack): a row has one offset byte, so RBX's save
 * slot is kept where RBP's is not saved, or where it is the slot just
 * below RBP's (the order GCC's prologues push them); elsewhere it is lost.
 */
enum ldlat_unwind_rbx {
	LDLAT_RBX_SAME,	    /* not changed by this frame */
	LDLAT_RBX_AT,	    /* saved at CFA + 8 * row.fp (RBP not saved) */
	LDLAT_RBX_BELOW_FP, /* saved at CFA + 8 * (row.fp - 1), below RBP's slot */
	LDLAT_RBX_UNDEF,    /* cannot be recovered here */
	LDLAT_RBX_KINDS,
};

/*
 * One row.  A signal frame (the kernel's sigreturn trampoline, whose FDE
 * glibc marks 'S'): the interrupted SP is at SP + row.cfa and its PC right
 * after it, its RBP at SP + 8 * row.fp (struct ucontext_t's gregs).
 */
struct ldlat_unwind_row {
	__u32 pc;  /* from the table's base */
	__u16 cfa; /* the CFA's offset, PLT threshold, or signal frame's SP offset */
	__u8 kind; /* enum ldlat_unwind_cfa | enum ldlat_unwind_fp << 4 | enum ldlat_unwind_rbx << 6 */
	__s8 fp; /* the frame pointer's offset, in 8 bytes */
};

#define LDLAT_UNWIND_ROW_CFA(r) ((r)->kind & 15)
#define LDLAT_UNWIND_ROW_FP(r)	(((r)->kind >> 4) & 3)
#define LDLAT_UNWIND_ROW_RBX(r) ((r)->kind >> 6)

/*
 * Blocks of LDLAT_UNWIND_CHUNK_ROWS rows (8 KiB: a map value the verifier
 * bounds, searched in 10 steps); the index's first addresses of up to
 * LDLAT_UNWIND_CHUNKS of them (10 steps), so a file has at most 2^20 rows
 * (Debian 12's libc.so.6 compiles to 28,379: 29 blocks, 240 KiB).
 */
#define LDLAT_UNWIND_CHUNK_BITS	 10
#define LDLAT_UNWIND_CHUNK_ROWS	 (1u << LDLAT_UNWIND_CHUNK_BITS)
#define LDLAT_UNWIND_CHUNKS	 LDLAT_UNWIND_CHUNK_ROWS
#define LDLAT_UNWIND_INDEX_STEPS LDLAT_UNWIND_CHUNK_BITS
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
	/* a file whose table is being compiled or loaded: frame pointers, the sample deferred */
	LDLAT_MAP_PENDING,
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
	/*
	 * the inode of the program whose mappings these are (0: not
	 * checked): after an exec, until user space reads the new ones, the
	 * walker takes the process for one it has no tables of
	 */
	__u64 exe_ino;
	struct ldlat_unwind_map maps[LDLAT_UNWIND_MAPS];
};

/*
 * Why a walk ended (struct ldlat_top_stack.stop[0] holds it plus one).
 * Only END is a whole stack; the others leave its outer frames out.
 */
enum ldlat_unwind_stop {
	LDLAT_STOP_END,	 /* the outermost frame (its return address undefined, or 0) */
	LDLAT_STOP_MAX,	 /* --max-stack frames were taken */
	LDLAT_STOP_READ, /* reading the user stack failed (not present, or past its end) */
	LDLAT_STOP_NO_TABLE, /* no table covered the address (or it is on its way), and no frame pointer went on */
	LDLAT_STOP_NO_MAPPING,	/* the address was in no executable mapping the tables know */
	LDLAT_STOP_UNSUPPORTED, /* a rule the walker does not evaluate */
	LDLAT_STOP_BAD_FRAME,	/* the stack pointer did not move up (a corrupt stack) */
	LDLAT_STOP_NO_REGS,	/* no user registers (a kernel thread, or in an exec) */
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
	/*
	 * Walks without their tables yet (no process entry, or the first PC
	 * in a mapping whose table is pending) whose registers and stack
	 * copy went to the 'unwind_defer' ring; those the ring refused (full)
	 * and those past the generation's budget keep their frame-pointer
	 * walk alone.
	 */
	__u64 deferred;
	__u64 defer_full;
	__u64 defer_budget;
};

/*
 * A sample walked without its tables yet (struct ldlat_unwind_counters' deferred):
 * what user space needs to walk it again by the same rules once they are
 * in (user/top/unwinddefer.c), and to move its count from the path the
 * frame pointers gave: the sample's process, generation, class, latency
 * and that path's key in top_stack, the registers, the program it ran
 * (the tables it needs are of its mappings, not those of the program
 * before an exec), and a copy of the user stack from SP.  8 KiB, as
 * perf's --call-graph dwarf default: what cc1 and as need
 * (docs/callpaths.md); less where the stack ends nearer (up to the last 8
 * bytes that can be read, as perf's copy).
 */
#define LDLAT_UNWIND_COPY_BYTES 8192
#define LDLAT_UNWIND_COPY_TRIES 11 /* reads of 8 KiB down to 8 bytes */

struct ldlat_unwind_defer {
	__u32 tgid;
	__u32 gen;
	__u32 cls;
	__u32 len; /* bytes of stack[] read, from sp (0: none could be) */
	__u64 key; /* the frame-pointer walk's path in top_stack */
	__u64 lat;
	__u64 pc, sp, fp;
	__u64 bx, bx_known;
	__u64 exe_ino; /* the running program's (struct ldlat_unwind_proc's) */
	__u8 stack[LDLAT_UNWIND_COPY_BYTES];
};

#define LDLAT_UNWIND_MAX_STACK 127 /* --max-stack: the path's frames (LDLAT_STACK_DEPTH) */

/*
 * The searches below are branchless and unrolled: steps of fixed powers of
 * two, each taken or not by the sign of two subtractions, so the verifier
 * sees one path through them, not one per outcome of every comparison.
 * Each finds the last index below n whose key is at or below the one
 * sought, given that index 0's is.
 */
#ifdef __clang__
#define LDLAT_UNWIND_UNROLL _Pragma("unroll")
#else
#define LDLAT_UNWIND_UNROLL _Pragma("GCC unroll 16")
#endif
#define LDLAT_UNWIND_BELOW(a, b) ((__u64)((__u64)(a) - (__u64)(b)) >> 63) /* a < b: 1 */

/*
 * i & mask, the AND kept: the compiler may prove it changes nothing and
 * drop it, where the verifier cannot.
 */
LDLAT_INLINE __u32 ldlat_unwind_idx(__u32 i, __u32 mask)
{
	asm volatile("" : "+r"(i));
	return i & mask;
}

/* One step: base + step when that is below n and its key (at) is at or below key. */
#define LDLAT_UNWIND_STEP(base, step, n, key, at)                                                  \
	((base) + ((step) & (__u32) - (__s64)(LDLAT_UNWIND_BELOW((base) + (step), (n)) &           \
					      (LDLAT_UNWIND_BELOW((key), (at)) ^ 1))))

/* The last row at or before pc among rows[0, n) (n <= LDLAT_UNWIND_CHUNK_ROWS), or -1. */
LDLAT_INLINE int ldlat_unwind_row_find(const struct ldlat_unwind_row *rows, __u32 n, __u32 pc)
{
	__u32 base = 0, step, i;

	if (!n || n > LDLAT_UNWIND_CHUNK_ROWS || rows[0].pc > pc)
		return -1;
	LDLAT_UNWIND_UNROLL
	for (i = 1; i <= LDLAT_UNWIND_CHUNK_BITS; i++) {
		step = LDLAT_UNWIND_CHUNK_ROWS >> i;
		base = LDLAT_UNWIND_STEP(
			base, step, n, pc,
			rows[ldlat_unwind_idx(base + step, LDLAT_UNWIND_CHUNK_ROWS - 1)].pc);
	}
	return (int)ldlat_unwind_idx(base, LDLAT_UNWIND_CHUNK_ROWS - 1);
}

/* The block (from 0) whose rows hold pc's row, or -1 when pc is before the first. */
LDLAT_INLINE int ldlat_unwind_chunk_find(const struct ldlat_unwind_index *ix, __u32 pc)
{
	__u32 base = 0, n = ix->nchunks, step, i;

	if (!n || n > LDLAT_UNWIND_CHUNKS || ix->first[0] > pc)
		return -1;
	LDLAT_UNWIND_UNROLL
	for (i = 1; i <= LDLAT_UNWIND_INDEX_STEPS; i++) {
		step = LDLAT_UNWIND_CHUNKS >> i;
		base = LDLAT_UNWIND_STEP(
			base, step, n, pc,
			ix->first[ldlat_unwind_idx(base + step, LDLAT_UNWIND_CHUNKS - 1)]);
	}
	return (int)ldlat_unwind_idx(base, LDLAT_UNWIND_CHUNKS - 1);
}

/* The mapping of p that holds pc, or -1 (user addresses: below 2^63). */
LDLAT_INLINE int ldlat_unwind_map_find(const struct ldlat_unwind_proc *p, __u64 pc)
{
	__u32 base = 0, n = p->n, step, i;

	if (!n || n > LDLAT_UNWIND_MAPS || p->maps[0].start > pc)
		return -1;
	LDLAT_UNWIND_UNROLL
	for (i = 1; i <= LDLAT_UNWIND_MAP_STEPS; i++) {
		step = LDLAT_UNWIND_MAPS >> i;
		base = LDLAT_UNWIND_STEP(
			base, step, n, pc,
			p->maps[ldlat_unwind_idx(base + step, LDLAT_UNWIND_MAPS - 1)].start);
	}
	base = ldlat_unwind_idx(base, LDLAT_UNWIND_MAPS - 1);
	return pc < p->maps[base].end ? (int)base : -1;
}

/* The user registers a walk starts from. */
struct ldlat_unwind_regs {
	__u64 pc, sp, fp;
	__u64 bx, bx_known; /* RBX, when the registers had it (not the test entry's) */
};

/*
 * A walk between its frames, in per-CPU map memory: each frame is one call
 * of a global BPF function (ldlat_unwind_step in ldlat.bpf.c), which the
 * verifier checks once, not once per frame and per way the frame before
 * ended; and values read back from a map are unknowns to it, so no
 * constant of one frame multiplies the states of the next.
 */
struct ldlat_unwind_state {
	__u64 pc, sp, fp; /* fp 0: the frame pointer is lost */
	__u64 bx;	  /* RBX, when bx_known */
	__u64 bx_known;
	/*
	 * 1 when pc is a return address (its rule is that of pc - 1, as the
	 * call may be a function's last instruction), 0 for the first frame
	 * and a signal frame's
	 */
	__u64 back;
	__u64 frames_fp; /* frames found by a frame pointer */
	__u64 tmp;	 /* an index read back, unknown to the verifier */
	__u32 tgid;	 /* whose mappings */
	__u32 pad;
};

/*
 * The walker's two ways to memory, so that one rule set serves the BPF
 * program and user space (user/top/unwinddefer.c walks a sample's stack
 * copy with it): in BPF a table is an inner map of 'unwind_files' and the
 * stack the task's own; natively a table is its blocks read back from
 * that map and the stack a copy of it (struct ldlat_unwind_native).
 */
#ifdef __bpf__
#define LDLAT_UNWIND_TABLE(files, key) bpf_map_lookup_elem(files, key)
#define LDLAT_UNWIND_BLOCK(table, key) bpf_map_lookup_elem(table, key)

/* One word of the user stack; false when it cannot be read. */
static __always_inline bool ldlat_unwind_read(void *files, __u64 *v, __u64 addr)
{
	(void)files;
	return !bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}
#else
struct ldlat_unwind_native_table {
	__u32 nblocks; /* blocks[0] the index, then the rows */
	const union ldlat_unwind_block *blocks;
};

struct ldlat_unwind_native {
	const struct ldlat_unwind_native_table *tables; /* by slot of 'unwind_files' */
	__u32 ntables;
	__u32 len;	  /* bytes of the copy */
	__u64 at;	  /* the address of the copy's first byte */
	const void *copy; /* the user stack from 'at' */
};

LDLAT_INLINE void *ldlat_unwind_native_table(void *files, const __u32 *slot)
{
	const struct ldlat_unwind_native *n = files;

	if (*slot >= n->ntables || !n->tables[*slot].nblocks)
		return NULL;
	return (void *)&n->tables[*slot];
}

LDLAT_INLINE const union ldlat_unwind_block *ldlat_unwind_native_block(void *table, const __u32 *k)
{
	const struct ldlat_unwind_native_table *t = table;

	return *k < t->nblocks ? &t->blocks[*k] : NULL;
}

#define LDLAT_UNWIND_TABLE(files, key) ldlat_unwind_native_table(files, key)
#define LDLAT_UNWIND_BLOCK(table, key) ldlat_unwind_native_block(table, key)

/* One word of the copy; false outside it (as a read past the stack in BPF). */
LDLAT_INLINE bool ldlat_unwind_read(void *files, __u64 *v, __u64 addr)
{
	const struct ldlat_unwind_native *n = files;

	if (addr < n->at || n->len < sizeof(*v) || addr - n->at > n->len - sizeof(*v))
		return false;
	__builtin_memcpy(v, (const char *)n->copy + (addr - n->at), sizeof(*v));
	return true;
}
#endif

/* ldlat_unwind_rule's why for an address whose table is on its way: not a stop of its own */
#define LDLAT_UNWIND_WHY_PENDING (LDLAT_NSTOPS + 1)

/*
 * The row of the file that maps pc (a table's address: pc - 1 for a
 * return address, whose call may be a function's last instruction), into
 * *row; LDLAT_CFA_NONE when no table covers it, with why: NO_MAPPING (no
 * executable mapping of the process holds it), LDLAT_UNWIND_WHY_PENDING
 * (its mapping's table is on its way) or NO_TABLE.  files: the array of
 * maps of the tables.
 */

static __always_inline __u32 ldlat_unwind_rule(const struct ldlat_unwind_proc *p, void *files,
					       __u64 pc, struct ldlat_unwind_row *row, __u64 *tmp)
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
	*tmp = (__u32)i;
	asm volatile("" ::: "memory");
	i = (int)*tmp;
	m = &p->maps[i & (LDLAT_UNWIND_MAPS - 1)];
	if (m->kind == LDLAT_MAP_PENDING)
		return LDLAT_UNWIND_WHY_PENDING;
	if (m->kind != LDLAT_MAP_TABLE || pc - m->base >= (1ull << 32))
		return LDLAT_STOP_NO_TABLE;
	x = (__u32)(pc - m->base);
	key = m->file;
	table = LDLAT_UNWIND_TABLE(files, &key);
	if (!table)
		return LDLAT_STOP_NO_TABLE;
	key = 0;
	ix = LDLAT_UNWIND_BLOCK(table, &key);
	if (!ix)
		return LDLAT_STOP_NO_TABLE;
	k = ldlat_unwind_chunk_find(&ix->index, x);
	if (k < 0)
		return LDLAT_STOP_NO_TABLE;
	*tmp = (__u32)k;
	asm volatile("" ::: "memory");
	k = (int)*tmp;
	nrows = ix->index.nrows - (__u32)k * LDLAT_UNWIND_CHUNK_ROWS;
	if (nrows > LDLAT_UNWIND_CHUNK_ROWS)
		nrows = LDLAT_UNWIND_CHUNK_ROWS;
	key = (__u32)k + 1;
	blk = LDLAT_UNWIND_BLOCK(table, &key);
	if (!blk)
		return LDLAT_STOP_NO_TABLE;
	i = ldlat_unwind_row_find(blk->rows, nrows, x);
	if (i < 0)
		return LDLAT_STOP_NO_TABLE;
	*tmp = (__u32)i;
	asm volatile("" ::: "memory");
	i = (int)*tmp;
	*row = blk->rows[i & (LDLAT_UNWIND_CHUNK_ROWS - 1)];
	return LDLAT_STOP_NO_TABLE;
}

/*
 * One frame of the walk: from s's PC, SP and RBP to its caller's, by the
 * rows of the file that maps PC, or where none covers it by the frame
 * pointer (RBP, where the CFI left it known).  p: the process's mappings
 * (NULL: none known, frame pointers alone); files: the tables.  Returns
 * LDLAT_NSTOPS when the caller's frame is in s, else why the walk ends.
 */
static __always_inline __u32 ldlat_unwind_frame(struct ldlat_unwind_state *s,
						const struct ldlat_unwind_proc *p, void *files)
{
	__u64 pc = s->pc, sp = s->sp, fp = s->fp, bx = s->bx, bx_known = s->bx_known, cfa, ra, v;
	struct ldlat_unwind_row row;
	__u32 why, kind, fpk, bxk;

	why = ldlat_unwind_rule(p, files, pc - (s->back & 1), &row, &s->tmp);
	kind = LDLAT_UNWIND_ROW_CFA(&row);
	fpk = LDLAT_UNWIND_ROW_FP(&row);
	bxk = LDLAT_UNWIND_ROW_RBX(&row);
	if (kind == LDLAT_CFA_END)
		return LDLAT_STOP_END;
	if (kind == LDLAT_CFA_NONE) {
		/*
		 * a table on its way: the walk ends here, where the sample is
		 * deferred from (code without frame pointers leaves RBP any
		 * value, and a walk through it would end elsewhere, not deferred)
		 */
		if (why == LDLAT_UNWIND_WHY_PENDING)
			return LDLAT_STOP_NO_TABLE;
		/*
		 * so does a return address the rules gave (no frame pointer
		 * taken yet) in no mapping of a process whose entry has room:
		 * a mapping newer than the entry (a library mapped since)
		 */
		if (why == LDLAT_STOP_NO_MAPPING && p && !s->frames_fp && p->n < LDLAT_UNWIND_MAPS)
			return why;
		/* the frame pointer: the caller's RBP at RBP, its return address above */
		if (!fp || fp < sp || (fp & 7))
			return why;
		cfa = fp + 16;
		if (!ldlat_unwind_read(files, &ra, fp + 8) || !ldlat_unwind_read(files, &fp, fp))
			return LDLAT_STOP_READ;
		s->frames_fp++;
		/* where a frame without rules saved RBX is not known */
		bx_known = 0;
	} else if (kind == LDLAT_CFA_SIGNAL) {
		/* the interrupted state: SP, PC, RBP from the ucontext; its PC is exact */
		if (!ldlat_unwind_read(files, &cfa, sp + row.cfa) ||
		    !ldlat_unwind_read(files, &ra, sp + row.cfa + 8))
			return LDLAT_STOP_READ;
		v = 0;
		if (fpk == LDLAT_FP_AT && !ldlat_unwind_read(files, &v, sp + 8 * (__s64)row.fp))
			return LDLAT_STOP_READ;
		if (!ra)
			return LDLAT_STOP_END;
		/* the interrupted stack may be anywhere (sigaltstack): no check that it grows */
		s->pc = ra;
		s->sp = cfa;
		s->fp = v;
		s->bx_known = 0;
		s->back = 0;
		return LDLAT_NSTOPS;
	} else {
		if (kind == LDLAT_CFA_SP)
			cfa = sp + row.cfa;
		else if (kind == LDLAT_CFA_FP && fp)
			cfa = fp + row.cfa;
		else if (kind == LDLAT_CFA_PLT)
			cfa = sp + 8 + ((pc & 15) >= row.cfa ? 8 : 0);
		else if (kind == LDLAT_CFA_RBX && bx_known)
			cfa = bx + row.cfa;
		else
			return LDLAT_STOP_UNSUPPORTED;
		/* x86-64: the call pushed the return address just below the CFA */
		if (!ldlat_unwind_read(files, &ra, cfa - 8))
			return LDLAT_STOP_READ;
		if (fpk == LDLAT_FP_AT) {
			if (!ldlat_unwind_read(files, &fp, cfa + 8 * (__s64)row.fp))
				return LDLAT_STOP_READ;
		} else if (fpk == LDLAT_FP_UNDEF) {
			fp = 0;
		}
		if (bxk == LDLAT_RBX_AT || bxk == LDLAT_RBX_BELOW_FP) {
			v = cfa + 8 * ((__s64)row.fp - (bxk == LDLAT_RBX_BELOW_FP));
			bx_known = ldlat_unwind_read(files, &bx, v);
		} else if (bxk == LDLAT_RBX_UNDEF) {
			bx_known = 0;
		}
	}
	if (cfa <= sp)
		return LDLAT_STOP_BAD_FRAME;
	if (!ra)
		return LDLAT_STOP_END;
	s->pc = ra;
	s->sp = cfa;
	s->fp = fp;
	s->bx = bx;
	s->bx_known = bx_known;
	s->back = 1;
	return LDLAT_NSTOPS;
}

#ifndef __bpf__
_Static_assert(sizeof(struct ldlat_unwind_row) == 8, "a row is 8 bytes");
_Static_assert(sizeof(union ldlat_unwind_block) == 8192, "a block is 8 KiB");
_Static_assert(sizeof(struct ldlat_unwind_index) <= sizeof(union ldlat_unwind_block),
	       "the index fits a block");
_Static_assert((1u << LDLAT_UNWIND_INDEX_STEPS) >= LDLAT_UNWIND_CHUNKS &&
		       LDLAT_UNWIND_CHUNKS <= 2048,
	       "the index's steps and mask");
_Static_assert((1u << LDLAT_UNWIND_MAP_STEPS) == LDLAT_UNWIND_MAPS, "the mappings' steps");
_Static_assert(LDLAT_CFA_KINDS <= 16 && LDLAT_FP_KINDS <= 4 && LDLAT_RBX_KINDS <= 4,
	       "kinds share a byte");
#endif

#endif /* LDLAT_UNWIND_H */
