/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * dso.h - the symbols of an ELF file (an executable, a shared library, the
 * vDSO), read once through elfutils' libdwfl: .symtab, else .dynsym, with
 * separate debug info found by build ID or debuglink under the debuginfo
 * path (default ":.debug:/usr/lib/debug"), and the minidebuginfo section.
 * Addresses are the file's own virtual addresses (p_vaddr); a mapping's
 * load bias turns process addresses into them.
 */
#ifndef LDLAT_DSO_H
#define LDLAT_DSO_H

#include <gelf.h>
#include <stdbool.h>
#include <linux/types.h>

enum dso_sym_kind {
	SYM_FUNC,
	SYM_OBJECT,
};

struct dso_sym {
	__u64 start, size;
	const char *name;
	const char *module; /* kallsyms: the kernel module, NULL for the kernel itself */
	unsigned char rank; /* SYM_RANK_*: where two share an address, the lower is kept */
	unsigned char kind; /* enum dso_sym_kind */
	unsigned int order; /* the order read in, for dso_syms__finish */
};

/*
 * Ranks of symbols at one address, as perf's choose_best_symbol orders
 * their bindings (global, then local, then weak); a label (STT_NOTYPE in
 * code, a PLT stub) after any function, as perf 6.5 and later take it.
 */
enum {
	SYM_RANK_GLOBAL = 0,
	SYM_RANK_LOCAL = 1,
	SYM_RANK_WEAK = 2,
	SYM_RANK_LABEL = 3,
};

struct dso_seg {
	__u64 vaddr, memsz, offset, filesz; /* a PT_LOAD segment */
};

struct dso {
	char *path;		    /* as mapped: a path, or "[vdso]" */
	char *file;		    /* the file read (dso_cache__get_as's); NULL: path */
	bool elf;		    /* an ELF file whose headers could be read */
	bool pie;		    /* ET_DYN */
	char *symfile;		    /* where the symbols came from, when not the file itself */
	unsigned char build_id[20]; /* NT_GNU_BUILD_ID, build_id_len bytes (0: none) */
	int build_id_len;
	int nsegs, nfuncs, nobjs;
	struct dso_seg *segs;
	struct dso_sym *funcs; /* STT_FUNC and STT_GNU_IFUNC, sorted by start */
	struct dso_sym *objs;  /* STT_OBJECT with a size, sorted by start */
	char *names;	       /* the symbols' names, back to back */
};

struct dso_cache {
	void *tree;	 /* of struct dso, by path */
	size_t n;	 /* how many it holds */
	char *debuginfo; /* libdwfl's debuginfo path; NULL: its default */
};

/* The section of elf called name (its header in sh), or NULL. */
Elf_Scn *elf__section(Elf *elf, const char *name, GElf_Shdr *sh);

/* debuginfo: where separate debug info lives (NULL: ":.debug:/usr/lib/debug"). */
int dso_cache__init(struct dso_cache *c, const char *debuginfo);
void dso_cache__free(struct dso_cache *c);

/* The DSO at path, loaded on first use; NULL only when out of memory. */
struct dso *dso_cache__get(struct dso_cache *c, const char *path);

/* The same, cached as key, read from file (a /proc/PID/map_files link, named by the file it is). */
struct dso *dso_cache__get_as(struct dso_cache *c, const char *key, const char *file);

/*
 * Past max entries, forgets those that are not ELF files it could read (a
 * temporary file, an object, a file gone: one per name a busy machine
 * maps); the ELF files stay, bounded by what is installed.
 */
void dso_cache__trim(struct dso_cache *c, size_t max);

/*
 * The load bias of a mapping of d that starts at start with file offset
 * pgoff: file address = process address - bias.  False when no PT_LOAD
 * segment holds that offset.
 */
bool dso__bias(const struct dso *d, __u64 start, __u64 pgoff, __u64 *bias);

/*
 * Where the ELF file at path ends in a process that maps it with a mapping
 * at start of file offset pgoff: its last PT_LOAD segment's end (its .bss
 * included), rounded up to a page.  Reads the program headers only; 0 when
 * the file cannot be read or no segment holds pgoff.
 */
__u64 dso__file_end(const char *path, __u64 start, __u64 pgoff);

/* Whether a file address lies inside one of d's PT_LOAD segments (incl. .bss). */
bool dso__has_vaddr(const struct dso *d, __u64 vaddr);

/*
 * The file address its image starts at: its first PT_LOAD segment's, to a
 * page (0 in a shared object or a PIE; 0x400000 in an executable linked
 * there).
 */
__u64 dso__image_start(const struct dso *d);

/* Whether d is an ELF file whose build ID is id (len bytes). */
bool dso__has_build_id(const struct dso *d, const unsigned char *id, int len);

/* The function that holds vaddr, or NULL. */
const struct dso_sym *dso__func(const struct dso *d, __u64 vaddr);

/*
 * The variable that holds vaddr, else the first one that starts inside
 * [vaddr, vaddr + len) (a block that begins before it); NULL when neither.
 */
const struct dso_sym *dso__object(const struct dso *d, __u64 vaddr, __u64 len);

/* The last component of an absolute path; anything else ("[vdso]") as it is. */
const char *dso__short_name(const char *path);

/*
 * Symbol tables: sorts, keeps one symbol per address (the one perf keeps of
 * aliases: see sym__cmp), sizes 0-sized ones to the next.
 */
int dso_syms__finish(struct dso_sym *s, int n, bool size_to_next);

/* The symbol that holds addr in a table sorted by dso_syms__finish, or -1. */
int dso_syms__find(const struct dso_sym *s, int n, __u64 addr);

#endif
