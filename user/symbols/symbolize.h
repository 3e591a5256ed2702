/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * symbolize.h - names for the addresses of ldlat-top's tables.
 *
 * Instruction pointers: a user IP goes through the process's mappings
 * (procmaps.h) to an ELF file and its function (dso.h); a kernel IP to
 * /proc/kallsyms.  Data addresses: a global or static variable (STT_OBJECT,
 * with its size) and the offset into it; else the mapping ([heap], [stack],
 * [anon], a file) and the offset into it; else [unknown].  A process whose
 * mappings were never learned and that is gone gives [exited].
 */
#ifndef LDLAT_SYMBOLIZE_H
#define LDLAT_SYMBOLIZE_H

#include <stdbool.h>
#include <linux/types.h>

#include "user/symbols/buildid.h"
#include "user/symbols/codeinfo.h"
#include "user/symbols/dso.h"
#include "user/symbols/kallsyms.h"
#include "user/symbols/procmaps.h"

enum sym_kind {
	SYM_RESOLVED, /* a function, or a variable */
	SYM_MAPPING,  /* no symbol: the mapping (and the file address, for code) */
	SYM_UNKNOWN,  /* no mapping holds the address */
	SYM_EXITED,   /* the process is gone and its mappings were never learned */
};

struct sym {
	enum sym_kind kind;
	bool kernel;
	char name[256]; /* function, variable, or mapping name; "0x..." for code without one */
	__s64 offset; /* from the function, variable or mapping start (a block may start before a variable) */
	char where
		[512]; /* the ELF file, [kernel.kallsyms], [module]; for data mappings, the process */
	/*
	 * symbolizer__ip, for code in a mapping: the mapping (map_name NULL:
	 * none; interned by the process model, valid while it holds the
	 * process) and its file's GNU build ID in hex ("" when it has none or
	 * the file could not be read), what a profile carries so that a backend
	 * can name the address itself.
	 */
	const char *map_name;
	__u64 map_start, map_end, map_pgoff;
	char build_id[2 * BUILDID_MAX + 1];
};

struct symbolizer {
	struct procmaps *pm; /* the caller's */
	struct dso_cache dsos;
	struct kallsyms ksyms;
	const char *kallsyms_path; /* NULL: /proc/kallsyms */
	bool ksyms_tried;
	bool kernel_raw; /* kernel addresses stay unnamed (a file from another kernel) */
	void *elves;	 /* tsearch set of symbolizer__elf_for's answers */
	void *refreshed; /* tsearch set of the TGIDs re-read from /proc in this report */
	void *files;	 /* live: the mapped files met, and whether each is still at its path */
	/*
	 * Live: the tool's name; deleted files are looked for (SYM_DELETED),
	 * and "TOOL: note: ..." goes to stderr once per one not named.  NULL:
	 * offline, where build IDs say which file to read.
	 */
	const char *note_tool;
	struct codeinfo *ci; /* what the debug info says of code: made on first use */
	char *debuginfo;     /* its debuginfo path (NULL: the default) */
};

/* debuginfo: libdwfl's debuginfo path (NULL: ":.debug:/usr/lib/debug"). */
int symbolizer__init(struct symbolizer *z, struct procmaps *pm, const char *debuginfo);
void symbolizer__free(struct symbolizer *z);

/*
 * Starts a report: a live process whose mappings lack an address is read
 * again from /proc, once per report.
 */
void symbolizer__begin(struct symbolizer *z);

/* The function of an instruction pointer of process tgid. */
void symbolizer__ip(struct symbolizer *z, __u32 tgid, __u64 ip, struct sym *out);

/*
 * Which ELF file to read for a file that was mapped as name and whose build
 * ID perf recorded as id (len bytes): NULL when name itself has that build
 * ID; else a copy in perf's build-ID cache (buildid.h) that has it; else ""
 * (name differs, is missing or cannot be read, and no copy has it): its
 * addresses are then not named, and their DSO says "(recorded file not
 * found)".  For "[vdso]", this process's vDSO stands for name.  NULL also
 * when out of memory.  Valid until symbolizer__free.
 */
const char *symbolizer__elf_for(struct symbolizer *z, const char *name, const unsigned char *id,
				int len);

/* What a DSO that symbolizer__elf_for found no file for says after its name. */
#define SYM_BUILD_ID_MISMATCH " (recorded file not found)"

/*
 * Live, a mapped file that is no longer at its path (deleted, or replaced by
 * a new file there: /proc/PID/maps says "(deleted)") is read through
 * <proc_root>/PID/map_files/ while its process lives; either way its DSO
 * says this after its name.  Where that cannot be read (the process has
 * exited), its addresses are not named, with a note once per file.  A file
 * at its path only in the process's mount namespace (a container's) is read
 * through map_files too, without the mark.
 */
#define SYM_DELETED " (deleted)"

/*
 * What a data block [addr, addr + len) of process tgid belongs to: the
 * variable that holds addr, else one that starts inside the block, else the
 * mapping.
 */
void symbolizer__data(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len, struct sym *out);

/*
 * Where an answer of symbolizer__data holds for a range: every address in
 * [lo, hi) of process tgid has its kind, name and where, at offset
 * addr - base (hi 0: none; until the process model changes).
 */
struct sym_span {
	__u32 tgid;
	__u64 lo, hi;
	__u64 base;
};

/*
 * symbolizer__data, and its span: the mapping of a block that no file's
 * symbols name (an anonymous mapping, the heap, the stack), so that a
 * caller names the blocks of a mapping once, not once per block.
 */
void symbolizer__data_span(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len, struct sym *out,
			   struct sym_span *span);

/*
 * The code behind instruction pointer ip of process tgid: the ELF file to
 * read (the mapped file, the copy with the recorded build ID, the
 * map_files link of a deleted one) into file, and the file address into
 * *vaddr.  Returns 0, else why there is none: DATATYPE_KERNEL or
 * DATATYPE_NO_FILE (no mapping, an anonymous one, a file not read).
 */
enum datatype_why symbolizer__code(struct symbolizer *z, __u32 tgid, __u64 ip, char *file,
				   size_t len, __u64 *vaddr);

/* The function an address is in, by the file's symbol table: [lo, hi) file addresses, 0 0 when none. */
struct symbolizer_func {
	__u64 lo, hi;
};

/* symbolizer__code, and the function around the address into *fn. */
enum datatype_why symbolizer__code_func(struct symbolizer *z, __u32 tgid, __u64 ip, char *file,
					size_t len, __u64 *vaddr, struct symbolizer_func *fn);

/* The type of file address vaddr of file (symbolizer__code's): never NULL, valid until symbolizer__free. */
const struct datatype *symbolizer__datatype_at(struct symbolizer *z, const char *file, __u64 vaddr);

/* The layout of type as the code at vaddr of file sees it, as codeinfo__layout (free with datatype__layout_free). */
ssize_t symbolizer__layout(struct symbolizer *z, const char *file, __u64 vaddr, const char *type,
			   struct datatype_member **out);

/* The instructions of [lo, hi) of file, as codeinfo__disasm (free *out). */
ssize_t symbolizer__disasm(struct symbolizer *z, const char *file, __u64 lo, __u64 hi,
			   struct codeinfo_insn **out);

/*
 * The data type and member the instruction at ip touches (codeinfo.h):
 * never NULL, valid until symbolizer__free.
 */
const struct datatype *symbolizer__datatype(struct symbolizer *z, __u32 tgid, __u64 ip);

/*
 * The source line of the instruction at ip: n 0 when none is known; never
 * NULL, valid until symbolizer__free.
 */
const struct srcline *symbolizer__srcline(struct symbolizer *z, __u32 tgid, __u64 ip);

#endif
