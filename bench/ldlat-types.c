// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-types - what `ldlat-top --by type` and `--by srcline` cost in user
 * space per distinct instruction address, and how much of a program's code
 * they type: every instruction of FILE's functions that reads or writes
 * memory goes through the code-info cache once (codeinfo.h, cold: each
 * address is new to it), as the addresses of a report's kernel table would.
 *
 *   ldlat-types [--srcline] [--debuginfo PATH] [--list] FILE...
 *
 * prints per file: the instructions with a memory operand, the share typed
 * and the untyped ones by reason, the time to open the file's debug info,
 * and the mean microseconds per address for the type (and the source line
 * with --srcline); then "total" over the files.  --list prints each
 * address's answer ("ADDR<TAB>LABEL<TAB>FUNC"), for reading against the
 * source.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/symbols/codeinfo.h"
#include "user/symbols/debuginfo.h"
#include "user/symbols/dso.h"
#include "user/symbols/insn.h"

struct tally {
	__u64 insns, why[DATATYPE_NWHY];
	__u64 type_ns, line_ns, open_ns;
};

/* The memory-accessing instructions of each function of d, through ci. */
static void bench__file(const char *path, const char *debuginfo, bool srcline, bool list,
			struct tally *t)
{
	struct codeinfo *ci = codeinfo__new(debuginfo);
	struct insn_decoder *dec = insn_decoder__new();
	struct dso_cache dsos;
	struct debuginfo di;
	struct codeinfo_stats st;
	struct dso *d;
	int i;

	if (!ci || !dec || dso_cache__init(&dsos, debuginfo)) {
		fprintf(stderr, "ldlat-types: out of memory\n");
		exit(1);
	}
	d = dso_cache__get(&dsos, path);
	if (!d || !d->elf || debuginfo__open(&di, path, path, debuginfo)) {
		fprintf(stderr, "ldlat-types: %s: not an ELF file this can read\n", path);
		exit(2);
	}
	for (i = 0; i < d->nfuncs; i++) {
		const struct dso_sym *f = &d->funcs[i];
		const unsigned char *code;
		struct insn in;
		size_t len;
		__u64 a = f->start;

		code = debuginfo__code(&di, a, &len);
		while (code && a < f->start + f->size && len) {
			unsigned int k = insn_decoder__decode(dec, code, len, a, &in);
			const struct datatype *dt;

			if (!k)
				break;
			if (in.accesses) {
				dt = codeinfo__type(ci, path, a);
				t->insns++;
				t->why[dt->why]++;
				if (srcline)
					codeinfo__srcline(ci, path, a);
				if (list) {
					char label[512];

					datatype__label(dt, label, sizeof(label));
					printf("%llx\t%s\t%s\n", (unsigned long long)a, label,
					       f->name);
				}
			}
			code += k;
			len -= k;
			a += k;
		}
	}
	codeinfo__stats(ci, &st);
	t->type_ns += st.type_ns;
	t->line_ns += st.srcline_ns;
	t->open_ns += st.open_ns;
	debuginfo__close(&di);
	dso_cache__free(&dsos);
	insn_decoder__free(dec);
	codeinfo__free(ci);
}

static void tally__print(const char *name, const struct tally *t, bool srcline)
{
	double n = t->insns ? (double)t->insns : 1;
	int w;

	printf("%s: %llu instructions with a memory operand, %.1f%% typed", name,
	       (unsigned long long)t->insns, 100.0 * t->why[DATATYPE_TYPED] / n);
	for (w = 1; w < DATATYPE_NWHY; w++)
		if (t->why[w])
			printf("; %s %.1f%%", datatype__why_str(w), 100.0 * t->why[w] / n);
	printf("\n  debug info opened in %.1f ms; type %.1f us per address", t->open_ns / 1e6,
	       t->type_ns / 1e3 / n);
	if (srcline)
		printf(", source line %.1f us per address", t->line_ns / 1e3 / n);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "srcline", no_argument, NULL, 's' },
		{ "debuginfo", required_argument, NULL, 'd' },
		{ "list", no_argument, NULL, 'l' },
		{},
	};
	const char *debuginfo = NULL;
	bool srcline = false, list = false;
	struct tally total = {};
	int c, i, w;

	while ((c = getopt_long(argc, argv, "sd:l", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			srcline = true;
			break;
		case 'd':
			debuginfo = optarg;
			break;
		case 'l':
			list = true;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr,
			"usage: ldlat-types [--srcline] [--debuginfo PATH] [--list] FILE...\n");
		return 2;
	}
	for (i = optind; i < argc; i++) {
		struct tally t = {};
		char *path = realpath(argv[i], NULL);

		if (!path) {
			fprintf(stderr, "ldlat-types: %s: no such file\n", argv[i]);
			return 2;
		}
		bench__file(path, debuginfo, srcline, list, &t);
		free(path);
		tally__print(argv[i], &t, srcline);
		total.insns += t.insns;
		for (w = 0; w < DATATYPE_NWHY; w++)
			total.why[w] += t.why[w];
		total.type_ns += t.type_ns;
		total.line_ns += t.line_ns;
		total.open_ns += t.open_ns;
	}
	if (argc - optind > 1)
		tally__print("total", &total, srcline);
	return 0;
}
