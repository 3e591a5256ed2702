// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_c2c - ldlat-c2c --input on perf.data files written by perfwrite with
 * load and store samples (mem-loads and mem-stores, Intel's data sources,
 * HITM local and remote): every column of every line of the Shared Data
 * Cache Line Table equals perf c2c report's on the same file, or differs by
 * the loads perf 6.1 counts twice, as docs/c2c.md states column by column;
 * false and true sharing rank first with their offsets and threads; a line
 * of one thread without HITM is not in the table; private lines of two
 * processes at one virtual address stay apart, and a MAP_SHARED mapping's
 * line is one whatever address each process maps it at.  No root needed.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/c2c.h"
#include "user/c2c/c2cbpf.h"
#include "user/c2c/c2cevents.h"
#include "user/c2c/c2ctable.h"
#include "user/run/session.h"
#include "tests/lib/datasrc_cases.h"
#include "tests/lib/perfwrite.h"
#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"

static void write_c2c(const char *path, int nrandom)
{
	ck_assert_int_eq(pw_write_c2c(path, nrandom), 0);
}

/*
 * A row of a Shared Data Cache Line Table: its address, Hitm% as printed,
 * and its counts, each column by perf's name (perf 6.1's order; ours names
 * them as the comments say).
 */
enum col {
	C_HITM,	       /* Tot Hitm Total; ours Hitm */
	C_LCL_HITM,    /* Load Hitm LclHitm; ours LclHitm */
	C_RMT_HITM,    /* Load Hitm RmtHitm; ours RmtHitm */
	C_RECORDS,     /* Total records; ours Records */
	C_LOADS,       /* Total Loads; ours Loads */
	C_STORES,      /* Total Stores; ours Stores */
	C_ST_L1HIT,    /* Stores L1Hit; ours StL1Hit */
	C_ST_L1MISS,   /* Stores L1Miss; ours StL1Miss */
	C_ST_NA,       /* Stores N/A; ours StN/A */
	C_FB,	       /* Core Load Hit FB; ours FB */
	C_L1,	       /* Core Load Hit L1; ours L1 */
	C_L2,	       /* Core Load Hit L2; ours L2 */
	C_LLC_HIT,     /* LLC Load Hit LclHit; ours LLC */
	C_LLC_HITM,    /* LLC Load Hit LclHitm; ours LclHitm again */
	C_RMT_HIT,     /* RMT Load Hit RmtHit; ours RmtHit */
	C_RMT_LD_HITM, /* RMT Load Hit RmtHitm; ours RmtHitm again */
	C_LCL_DRAM,    /* Load Dram Lcl; ours LclDram */
	C_RMT_DRAM,    /* Load Dram Rmt; ours RmtDram */
	C_PEER,	       /* ours Peer (perf 6.1 has no column) */
	NCOLS
};

static const char *const col_name[NCOLS] = {
	"Hitm",	     "LclHitm",	    "RmtHitm",	"records",  "Loads", "Stores", "St L1Hit",
	"St L1Miss", "St N/A",	    "FB",	"L1",	    "L2",    "LclHit", "LLC LclHitm",
	"RmtHit",    "RMT RmtHitm", "Dram Lcl", "Dram Rmt", "Peer",
};

/* each column's word in a row of perf's table and of ours (-1: none) */
static const int perf_word[NCOLS] = { 5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
				      15, 16, 17, 18, 19, 20, 21, 22, -1 };
static const int ours_word[NCOLS] = { 4,  5,  6,  7, 8,	 9, 10, 11, 12, 13,
				      14, 15, 16, 5, 18, 6, 19, 20, 17 };

struct row {
	unsigned long long addr;
	char share[16]; /* Hitm% */
	unsigned long long c[NCOLS];
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->c[C_HITM] < y->c[C_HITM] ? -1 : x->c[C_HITM] > y->c[C_HITM];
}

/*
 * The rows of the table after the line holding 'title', up to the first
 * empty line: the address is word 1, Hitm% word share_at, the counts at
 * the words 'word' names.
 */
static int table_rows(char *text, const char *title, int share_at, const int *word,
		      struct row *rows, int max)
{
	char *p = strstr(text, title), *line, *save = NULL;
	int n = 0, c;

	ck_assert_msg(p, "no '%s' in:\n%s", title, text);
	p = strchr(p, '\n');
	for (line = strtok_r(p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *w[32], *tok, *s2 = NULL;
		int nw = 0;

		if (line[0] == '#' || strstr(line, "Address") || (line[0] == '=' && !n))
			continue;
		if (line[0] == '=' || !strstr(line, "0x"))
			break;
		for (tok = strtok_r(line, " ", &s2); tok && nw < 32; tok = strtok_r(NULL, " ", &s2))
			w[nw++] = tok;
		ck_assert_int_gt(nw, 22);
		ck_assert_int_lt(n, max);
		rows[n].addr = strtoull(w[1], NULL, 16);
		snprintf(rows[n].share, sizeof(rows[n].share), "%s", w[share_at]);
		for (c = 0; c < NCOLS; c++)
			rows[n].c[c] = word[c] < 0 ? 0 : strtoull(w[word[c]], NULL, 10);
		n++;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	return n;
}

/*
 * perf's own decoding of each load (perf script): per 64-byte line, the
 * loads from remote DRAM with a snoop hit whose data source has the remote
 * bit and no hop count.  Such a source's level perf prints "Remote ..." with
 * no hop words; the test's files have no hop counts at all.
 */
static int mrem_dram_hits(const char *path, unsigned long long *line, unsigned long long *n,
			  int max)
{
	char *out, *l, *save = NULL;
	int nl = 0, i;

	ck_assert_int_eq(sh(&out, NULL, "perf script -i %s -F addr,data_src 2>/dev/null", path), 0);
	for (l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a = strtoull(l, NULL, 16) & ~63ull;

		ck_assert_msg(!strstr(l, "same node") && !strstr(l, "same socket") &&
				      !strstr(l, "same board"),
			      "a hop count: %s", l);
		if (!strstr(l, "|OP LOAD|LVL Remote") || !strstr(l, "Remote RAM") ||
		    !strstr(l, "|SNP Hit|"))
			continue;
		for (i = 0; i < nl && line[i] != a; i++)
			;
		if (i == nl) {
			ck_assert_int_lt(nl, max);
			line[nl] = a;
			n[nl++] = 0;
		}
		n[i]++;
	}
	free(out);
	return nl;
}

/*
 * Every line of perf c2c report's Shared Data Cache Line Table is in ours,
 * and each of its columns has perf's count but where perf 6.1 counts a
 * load twice (docs/c2c.md): a load whose data source says remote with no
 * hop count (c2c_decode_stats' mrem) is remote DRAM as well when it is a
 * remote cache hit or HITM, and a remote cache hit (RmtHit) as well when it
 * is remote DRAM with a snoop hit; its Total records and Total Loads count
 * each time.  ldlat-c2c counts each load once, by its class.  So, column by
 * column: perf's Rmt DRAM is ours plus our RmtHit and RmtHitm; perf's RmtHit
 * is ours plus the remote DRAM snoop hits perf script shows on that line;
 * perf's records and loads are ours plus the three.  Node is not compared
 * (perf 6.1 prints N/A: the file has no memory topology header), nor PA cnt
 * (ldlat-c2c has no physical addresses); Peer has no perf column, and the
 * file no peer-cache source (perf 6.1 would count one in LclHit).
 */
START_TEST(test_vs_perf_c2c)
{
	const char *path = tmp("c2c.data");
	char *perf_argv[] = { "perf",	 "c2c", "report",      "-i", (char *)path,
			      "--stdio", "-f",	"--no-source", NULL };
	char *ours_argv[] = {
		(char *)build_path("ldlat-c2c"), "--input", (char *)path, "-n", "0", NULL
	};
	char *ptext, *perr, *otext, *oerr;
	static struct row pr[256], orow[256];
	static unsigned long long mline[256], mcount[256];
	unsigned long long want[NCOLS], twice = 0;
	int np, no, nm, i, j, c;

	write_c2c(path, _i ? 3000 : 0);
	ck_assert_msg(run(perf_argv, 300, &ptext, &perr) == 0, "perf c2c report: %s", perr);
	run_expect(ours_argv, 0, &otext, &oerr);
	np = table_rows(ptext, "Shared Data Cache Line Table", 4, perf_word, pr, 256);
	no = table_rows(otext, "Shared Data Cache Line Table", 3, ours_word, orow, 256);
	nm = mrem_dram_hits(path, mline, mcount, 256);
	ck_assert_int_ge(np, 4);
	ck_assert_int_eq(no, np);
	for (i = 0; i < np; i++) {
		const struct row *o = &orow[i];
		unsigned long long m = 0;

		for (j = 0; j < nm; j++)
			if (mline[j] == pr[i].addr)
				m = mcount[j];
		/* two rows at one address (two processes' private lines): none has such loads */
		ck_assert(!m || ((!i || pr[i - 1].addr != pr[i].addr) &&
				 (i + 1 == np || pr[i + 1].addr != pr[i].addr)));
		memcpy(want, o->c, sizeof(want));
		want[C_RMT_DRAM] += o->c[C_RMT_HIT] + o->c[C_RMT_HITM];
		want[C_RMT_HIT] += m;
		want[C_RECORDS] += o->c[C_RMT_HIT] + o->c[C_RMT_HITM] + m;
		want[C_LOADS] += o->c[C_RMT_HIT] + o->c[C_RMT_HITM] + m;
		twice += o->c[C_RMT_HIT] + o->c[C_RMT_HITM] + m;
		ck_assert_msg(pr[i].addr == o->addr && !strcmp(pr[i].share, o->share),
			      "line %#llx Hitm%% %s: ours %#llx %s", pr[i].addr, pr[i].share,
			      o->addr, o->share);
		ck_assert_msg(!o->c[C_PEER], "line %#llx: %llu peer-cache loads", o->addr,
			      o->c[C_PEER]);
		for (c = 0; c < C_PEER; c++)
			ck_assert_msg(pr[i].c[c] == want[c],
				      "line %#llx (%d of %d): perf's %s %llu, ours %llu, expected "
				      "%llu",
				      pr[i].addr, i, np, col_name[c], pr[i].c[c], o->c[c], want[c]);
	}
	/* the differences are real: the random lines have every kind of them */
	if (_i)
		ck_assert_uint_gt(twice, 100);
	free(ptext);
	free(perr);
	free(otext);
	free(oerr);
}
END_TEST

/* A row of a Shared Cache Line Distribution Pareto: one offset of a line from one code address. */
struct prow {
	unsigned long long line, off, ip;
	char pct[5][16]; /* RmtHitm, LclHitm, store L1 hit, L1 miss, N/A: as printed */
	double rmt, lcl; /* mean cycles of the remote and local HITM loads */
	int cpus;
};

static int prow_cmp(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/*
 * The Pareto's rows, sorted.  perf: a line's header is its index, its
 * HITM and store counts and its address (7 words), between dashed lines;
 * a row is 5 percentages, offset, node, PA cnt, code address, the cycles
 * (rmt hitm, lcl hitm, load), records, cpu cnt.  ldlat-c2c: a line's
 * header is "#N ADDRESS ...", a row 5 percentages, offset, code address,
 * rmt-cyc, lcl-cyc, ld-cyc, records, CPUs.
 */
static int pareto_rows(char *text, bool perf, struct prow *rows, int max)
{
	char *p = strstr(text, "Shared Cache Line Distribution Pareto"), *line, *save = NULL;
	unsigned long long at = 0;
	int n = 0, k;

	ck_assert_msg(p, "no Pareto in:\n%s", text);
	for (line = strtok_r(p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *w[32], *tok, *s2 = NULL;
		int nw = 0;

		for (tok = strtok_r(line, " ", &s2); tok && nw < 32; tok = strtok_r(NULL, " ", &s2))
			w[nw++] = tok;
		if (!nw || w[0][0] == '-')
			continue;
		if (perf && nw == 7 && !strncmp(w[6], "0x", 2) && w[0][0] != '#') {
			at = strtoull(w[6], NULL, 16);
			continue;
		}
		if (!perf && w[0][0] == '#' && nw > 1 && !strncmp(w[1], "0x", 2)) {
			at = strtoull(w[1], NULL, 16);
			continue;
		}
		if (nw < (perf ? 14 : 12) || !strchr(w[0], '%'))
			continue;
		/* perf leaves out the rows of loads alone (no HITM, no store) */
		for (k = 0; k < 5 && !strcmp(w[k], "0.00%"); k++)
			;
		if (k == 5 && !perf)
			continue;
		ck_assert_int_lt(n, max);
		rows[n].line = at;
		for (k = 0; k < 5; k++)
			snprintf(rows[n].pct[k], sizeof(rows[n].pct[k]), "%s", w[k]);
		rows[n].off = strtoull(w[5], NULL, 16);
		rows[n].ip = strtoull(w[perf ? 8 : 6], NULL, 16);
		rows[n].rmt = strtod(w[perf ? 9 : 7], NULL);
		rows[n].lcl = strtod(w[perf ? 10 : 8], NULL);
		rows[n].cpus = atoi(w[perf ? 13 : 11]);
		n++;
	}
	qsort(rows, n, sizeof(*rows), prow_cmp);
	return n;
}

/*
 * Every row of perf c2c report's Pareto is one of ours and the other way
 * round (but ours of loads without HITM, which perf leaves out): each
 * offset of each line from each code address, with perf's
 * shares of the line's remote and local HITM and of its stores by L1
 * outcome, the mean cycles of its remote and of its local HITM loads
 * (both printed rounded: within 1), and its CPUs.  perf's "load" cycles
 * (the loads that are not HITM) and records (the loads counted twice) are
 * not ours (docs/c2c.md).
 */
START_TEST(test_pareto_vs_perf_c2c)
{
	const char *path = tmp("pareto.data");
	char *perf_argv[] = { "perf",	 "c2c", "report",      "-i", (char *)path,
			      "--stdio", "-f",	"--no-source", NULL };
	char *ours_argv[] = {
		(char *)build_path("ldlat-c2c"), "--input", (char *)path, "-n", "0", NULL
	};
	char *ptext, *perr, *otext, *oerr;
	static struct prow pr[4096], orow[4096];
	int np, no, i, k, hitm = 0;

	write_c2c(path, _i ? 3000 : 0);
	ck_assert_msg(run(perf_argv, 300, &ptext, &perr) == 0, "perf c2c report: %s", perr);
	run_expect(ours_argv, 0, &otext, &oerr);
	np = pareto_rows(ptext, true, pr, 4096);
	no = pareto_rows(otext, false, orow, 4096);
	ck_assert_int_ge(np, 9);
	ck_assert_int_eq(no, np);
	for (i = 0; i < np; i++) {
		const struct prow *a = &pr[i], *b = &orow[i];

		ck_assert_msg(!prow_cmp(a, b),
			      "perf's row %#llx+%#llx at %#llx, ours %#llx+%#llx at %#llx", a->line,
			      a->off, a->ip, b->line, b->off, b->ip);
		for (k = 0; k < 5; k++)
			ck_assert_msg(!strcmp(a->pct[k], b->pct[k]),
				      "line %#llx+%#llx at %#llx: perf's share %d %s, ours %s",
				      a->line, a->off, a->ip, k, a->pct[k], b->pct[k]);
		ck_assert_msg(fabs(a->rmt - b->rmt) <= 1 && fabs(a->lcl - b->lcl) <= 1,
			      "line %#llx+%#llx at %#llx: perf's rmt/lcl hitm cycles %.0f %.0f, "
			      "ours %.0f %.0f",
			      a->line, a->off, a->ip, a->rmt, a->lcl, b->rmt, b->lcl);
		ck_assert_int_eq(a->cpus, b->cpus);
		hitm += a->rmt > 0 && a->lcl == 0;
	}
	/* rows of remote HITM loads only: the cycles columns tell local from remote */
	ck_assert_int_gt(hitm, 0);
	free(ptext);
	free(perr);
	free(otext);
	free(oerr);
}
END_TEST

static void assert_jq(const char *doc, const char *expr)
{
	ck_assert_msg(jq_true(doc, expr), "jq -e '%s' fails", expr);
}

/*
 * False sharing ranks first with both offsets and both threads and its
 * HITM; true sharing next; the line of one thread without HITM is not in
 * the table (it is with --all); private lines at one address stay apart;
 * the shared file's line is one line of both processes.
 */
START_TEST(test_sharing)
{
	const char *path = tmp("sharing.data");
	char *argv[] = { (char *)build_path("ldlat-c2c"),
			 "--input",
			 (char *)path,
			 "--format",
			 "json",
			 "-n",
			 "0",
			 NULL,
			 NULL };
	char *out, *err;

	write_c2c(path, 0);
	run_expect(argv, 0, &out, &err);
	assert_jq(out, ".shared_lines[0] | .address == 139637976731648 and .pid == 100 and "
		       ".local_hitm == 20 and .remote_hitm == 20 and .stores == 40 and "
		       ".threads == [100, 101] and .cpus == [0, 2] and .nodes == [0, 1] and "
		       "([.pareto[].offset] | unique) == [0, 8]");
	assert_jq(out, ".shared_lines[0].pareto | map(select(.offset == 0)) | "
		       "(map(.local_hitm) | add) == 20 and (map(.store_l1_miss) | add) == 5");
	assert_jq(out, ".shared_lines[1] | .address == 139637976735808 and .local_hitm == 10 and "
		       ".threads == [100, 101] and ([.pareto[].offset] | unique) == [16]");
	assert_jq(out, "[.shared_lines[] | select(.address == 139637976739840)] | length == 0");
	assert_jq(out, "[.shared_lines[] | select(.address == 139637976731648) | .pid] | sort == "
		       "[100, 200]");
	assert_jq(out, "[.shared_lines[] | select(.object == \"/dev/shm/c2c-test\")] | length == 1 "
		       "and .[0].processes == [100, 300] and .[0].object_offset == 4352 and "
		       ".[0].remote_hitm == 5 and .[0].stores == 5");
	assert_jq(out, ".total.records == 135 and .not_counted.lost == 0 and .lines == 5");
	free(out);
	free(err);
	argv[7] = "--all";
	run_expect(argv, 0, &out, &err);
	assert_jq(out, "[.shared_lines[] | select(.address == 139637976739840)] | length == 1");
	free(out);
	free(err);
}
END_TEST

/*
 * The NUMA view of the same file: node 0 (CPUs 0-1) ran 35 loads, 20 from a
 * remote cache; node 1 ran 35, 5 remote; process 300 read only remote
 * lines, process 100 on node 0 two remote loads in three.
 */
START_TEST(test_numa)
{
	const char *path = tmp("numa.data");
	char *argv[] = { (char *)build_path("ldlat-c2c"),
			 "--input",
			 (char *)path,
			 "--format",
			 "json",
			 "--by",
			 "node",
			 NULL };
	char *out, *err;

	write_c2c(path, 0);
	run_expect(argv, 0, &out, &err);
	assert_jq(out,
		  ".nodes | sort_by(.node) | .[0].node == 0 and .[0].loads == 35 and "
		  ".[0].remote_cache == 20 and .[0].local_cache == 15 and .[0].stores == 45 and "
		  ".[1].node == 1 and .[1].loads == 35 and .[1].remote_cache == 5 and "
		  ".[1].local_cache == 30 and (.[1].remote_share - 5 / 35 | fabs) < 1e-5 and "
		  "length == 2");
	free(out);
	free(err);
	argv[6] = "process";
	run_expect(argv, 0, &out, &err);
	assert_jq(out, ".processes | map(select(.pid == 300)) | length == 1 and .[0].node == 1 and "
		       ".[0].command == \"peer\" and .[0].remote_share == 1");
	assert_jq(out,
		  ".processes | map(select(.pid == 100 and .node == 0)) | .[0].loads == 30 and "
		  ".[0].remote_cache == 20 and .[0].command == \"fs\"");
	free(out);
	free(err);
}
END_TEST

/* A CGROUP record's ID and path, padded to 8 bytes. */
static void cgroup_record(struct pw *w, __u64 id, const char *path)
{
	unsigned char b[128] = { 0 };
	size_t n = 8 + (strlen(path) + 1 + 7) / 8 * 8;

	memcpy(b, &id, 8);
	memcpy(b + 8, path, strlen(path));
	pw_record(w, PERF_RECORD_CGROUP, 0, b, n);
}

/* Samples with a cgroup ID (perf record --all-cgroups): --by process names each one's cgroup. */
START_TEST(test_numa_cgroup)
{
	const char *path = tmp("cgroup.data");
	char *argv[] = { (char *)build_path("ldlat-c2c"),
			 "--input",
			 (char *)path,
			 "--format",
			 "json",
			 "--by",
			 "process",
			 NULL };
	struct pw_event ev;
	struct pw_sample smp = {};
	struct pw w;
	char *out, *err;
	int i;

	pw_mem_loads_event(&ev, 100);
	ev.attr.sample_type |= PERF_SAMPLE_CGROUP;
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, false), 0);
	pw_comm(&w, 100, 100, "db", 10);
	pw_comm(&w, 200, 200, "shell", 11);
	cgroup_record(&w, 11, "/system.slice/db.service");
	cgroup_record(&w, 22, "/user.slice");
	for (i = 0; i < 6; i++) {
		smp.ip = 0x401000;
		smp.pid = smp.tid = i % 3 ? 100 : 200;
		smp.time = 1000 + i;
		smp.addr = 0x7f0000001000ull + i * 64;
		smp.id = 100;
		smp.period = 1;
		smp.weight = 100;
		smp.data_src = GEN_07;
		smp.cgroup = i % 3 ? 11 : 22;
		pw_sample(&w, 0, &smp);
	}
	ck_assert_int_eq(pw_close(&w), 0);
	run_expect(argv, 0, &out, &err);
	assert_jq(out,
		  ".processes | map({pid, command, cgroup, loads}) | sort_by(.pid) == "
		  "[{\"pid\": 100, \"command\": \"db\", \"cgroup\": \"/system.slice/db.service\", "
		  "\"loads\": 4}, {\"pid\": 200, \"command\": \"shell\", \"cgroup\": "
		  "\"/user.slice\", \"loads\": 2}]");
	free(out);
	free(err);
}
END_TEST

/* A file without stores' fields, a missing file, a format it has not: one sentence, exit 2. */
#define C2C_BAD(args)                                                                              \
	{                                                                                          \
		.cmd = "$C2C --input " args, .rc = 2, .err_starts = "ldlat-c2c: "                  \
	}

/* Bad input on a file of page faults ($PF) or none ($MISSING): exit 2, one sentence. */
static const struct cli_case bad_inputs[] = {
	C2C_BAD("$MISSING"),
	C2C_BAD("$PF --by nowhere"),
	C2C_BAD("$PF --format openmetrics"),
	C2C_BAD("$PF -n many"),
};

START_TEST(test_bad_input)
{
	struct cli_result r;

	ck_assert_int_eq(pw_write_layout(tmp("pf.data"), PW_ADDR_ONLY, 10, false), 0);
	cli_var_set("PF", tmp("pf.data"));
	cli_var_set("MISSING", tmp("missing.data"));
	cli_case__run(&bad_inputs[_i], &r);
	/* argp adds its "Try --help" line after a bad option's sentence */
	ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1 || strstr(r.err, "\nTry "),
		      "not one sentence: %s", r.err);
	cli_result__free(&r);
}
END_TEST

/*
 * A page-fault recording (perf record -e page-faults -d) is read as a live
 * run's page faults are: each fault a load of unknown source at its
 * address.  Threads that come and go fault on the pages the last ones
 * freed: per line and per offset, the threads ldlat-c2c names (the text's
 * "threads N (a,b,...)" and Tids column, the JSON's lists) are those perf
 * script gives for the samples of that line, thread by thread.
 */
START_TEST(test_perf_threads)
{
	char data[256], *out, *err, *script, *line, *save;
	char cmd[1024], expr[4096];
	long addr, pid, tid;
	__u64 ln;
	/*
	 * (process, line, tid) from perf script, and the lines' thread counts:
	 * a private line is its process's own (a forked child touches its
	 * parent's addresses: timeout's child before its exec)
	 */
	static struct {
		__u64 line;
		long pid, tid;
	} pairs[65536];
	static bool shared[65536];
	static __u64 file_lines[4096];
	int nfile = 0;
	char *lines;
	char pidstr[32];
	int npairs = 0, i, j, n;

	if (!need_root("perf record of page faults"))
		return;
	snprintf(data, sizeof(data), "%s", tmp("churn.data"));
	ck_assert_int_eq(
		sh(&out, &err,
		   "perf record -q -e page-faults -d -o %s -- timeout -s KILL 1 %s 4; test -s %s",
		   data, build_path("tests/ldlat-churn"), data),
		0);
	free(out);
	free(err);
	ck_assert_int_eq(sh(&script, NULL, "perf script -i %s -F pid,tid,addr 2>/dev/null", data),
			 0);
	for (line = strtok_r(script, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, " %ld/%ld %lx", &pid, &tid, &addr) != 3)
			continue;
		ln = (__u64)addr & ~63ull;
		for (j = 0; j < npairs &&
			    !(pairs[j].line == ln && pairs[j].pid == pid && pairs[j].tid == tid);
		     j++)
			;
		if (j == npairs && npairs < (int)ARRAY_SIZE(pairs)) {
			pairs[npairs].line = ln;
			pairs[npairs].pid = pid;
			pairs[npairs++].tid = tid;
		}
	}
	free(script);
	ck_assert_msg(npairs > 1, "perf script gave %d (line, thread) pairs", npairs);
	snprintf(cmd, sizeof(cmd), "%s --input %s --all -n 0 --format json",
		 build_path("ldlat-c2c"), data);
	ck_assert_int_eq(sh(&out, &err, "%s", cmd), 0);
	/* the recording is read, not refused: every line of perf's is there */
	assert_jq(out, ".line_size == 64");
	/*
	 * a line of a shared file mapping is its file's, whoever touched it
	 * (timeout loads the gconv cache when it kills its command): its
	 * threads are all the processes' there
	 */
	ck_assert_int_eq(sh(&lines, NULL,
			    "%s | jq -r '.shared_lines[] | select(.pid == null) | .address'", cmd),
			 0);
	for (line = strtok_r(lines, "\n", &save); line && nfile < (int)ARRAY_SIZE(file_lines);
	     line = strtok_r(NULL, "\n", &save))
		file_lines[nfile++] = strtoull(line, NULL, 10);
	free(lines);
	for (i = 0; i < npairs; i++) {
		for (j = 0, shared[i] = false; j < nfile && !shared[i]; j++)
			shared[i] = file_lines[j] == pairs[i].line;
		for (j = 0, n = 0; j < npairs; j++)
			n += pairs[j].line == pairs[i].line &&
			     (shared[i] || pairs[j].pid == pairs[i].pid);
		snprintf(
			expr, sizeof(expr),
			"[.shared_lines[] | select(.address == %llu and .pid == %s)] | length == "
			"1 and "
			"(.[0].threads | length) == %d and (.[0].threads | index(%ld)) != null and "
			"any(.[0].pareto[]; .threads | index(%ld) != null)",
			(unsigned long long)pairs[i].line,
			shared[i] ? "null"
				  : (snprintf(pidstr, sizeof(pidstr), "%ld", pairs[i].pid), pidstr),
			n, pairs[i].tid, pairs[i].tid);
		assert_jq(out, expr);
	}
	free(out);
	free(err);
	/* the text: each line's Pareto header names its threads, as many as perf's */
	ck_assert_int_eq(sh(&out, &err, "%s --input %s --all -n 0", build_path("ldlat-c2c"), data),
			 0);
	for (i = 0; i < npairs; i++) {
		char want[128], *p;

		for (j = 0, n = 0; j < npairs; j++)
			n += pairs[j].line == pairs[i].line &&
			     (shared[i] || pairs[j].pid == pairs[i].pid);
		if (shared[i])
			snprintf(want, sizeof(want), " %#llx  /",
				 (unsigned long long)pairs[i].line);
		else
			snprintf(want, sizeof(want), " %#llx  PID %ld ",
				 (unsigned long long)pairs[i].line, pairs[i].pid);
		p = strstr(out, want);
		ck_assert_msg(p, "no line %s in:\n%s", want, out);
		snprintf(want, sizeof(want), "threads %d (", n);
		ck_assert_msg(strstr(p, want) && strstr(p, want) < strchr(p, '\n'),
			      "line %#llx: want '%s'", (unsigned long long)pairs[i].line, want);
	}
	free(out);
	free(err);
	unlink(data);
}
END_TEST

/*
 * The line size is this machine's, from sysfs (as perf c2c takes it), and
 * said: a fixture of 128-byte lines makes lines of 128 bytes; the
 * real machine's agrees with glibc's (getconf, from the CPU's cache leaves).
 */
START_TEST(test_line_size)
{
	char root[256], dir[512], path[600], *out, *err, *gc;
	FILE *f;

	ck_assert_int_eq(pw_write_layout(tmp("lines.data"), PW_ADDR_ONLY, 40, false), 0);
	snprintf(root, sizeof(root), "%s", tmp("sys128"));
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu0/cache/index0", root);
	ck_assert_int_eq(sh(NULL, NULL, "mkdir -p %s", dir), 0);
	snprintf(path, sizeof(path), "%s/coherency_line_size", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("128\n", f);
	fclose(f);
	ck_assert_int_eq(sh(&out, &err, "LDLAT_SYSFS=%s %s --input %s --all -n 0 --format json",
			    root, build_path("ldlat-c2c"), tmp("lines.data")),
			 0);
	assert_jq(out, ".line_size == 128 and (.line_size_from | test(\"coherency_line_size\")) "
		       "and all(.shared_lines[]; .address % 128 == 0)");
	free(out);
	free(err);
	ck_assert_int_eq(sh(&out, &err, "LDLAT_SYSFS=%s %s --input %s", root,
			    build_path("ldlat-c2c"), tmp("lines.data")),
			 0);
	ck_assert_msg(
		strstr(out,
		       " cache lines of 128 bytes (from this machine's sysfs coherency_line_size"),
		"%s", out);
	free(out);
	free(err);
	/* this machine: the size glibc reads from the CPU */
	ck_assert_int_eq(sh(&gc, NULL, "getconf LEVEL1_DCACHE_LINESIZE"), 0);
	ck_assert_int_eq(sh(&out, &err, "%s --input %s --format json", build_path("ldlat-c2c"),
			    tmp("lines.data")),
			 0);
	if (atoi(gc) > 0) {
		snprintf(path, sizeof(path), ".line_size == %d", atoi(gc));
		assert_jq(out, path);
	}
	free(gc);
	free(out);
	free(err);
}
END_TEST

/* ---- the stores' event ---- */

static const struct {
	const char *sysfs, *loads;
	int want;
	__u64 config; /* the fixture's events/mem-stores */
} stores_cases[] = {
	{ "sysfs/skylake", "cpu/mem-loads,ldlat=30/P", 1, 0x82d0 },
	{ "sysfs/sapphire-rapids", "cpu/mem-loads,ldlat=30/P", 1, 0x02cd },
	{ "sysfs/alderlake", "cpu_core/mem-loads,ldlat=30/P", 1, 0x02cd },
	{ "sysfs/zen4", "ibs_op//", 0, 0 },
	{ "sysfs/skylake", "page-faults", 0, 0 },
};

/*
 * Beside an Intel load-latency event, PMU/mem-stores/P as sysfs encodes it,
 * precise, with the loads' sample fields and rate; on AMD (IBS op samples
 * stores already) and for page faults, none.
 */
START_TEST(test_stores_event)
{
	struct evsel loads = {}, st;
	struct err err = {};
	int e;

	setenv("LDLAT_SYSFS", fixture_path(stores_cases[_i].sysfs), 1);
	snprintf(loads.name, sizeof(loads.name), "%s", stores_cases[_i].loads);
	loads.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
				 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT;
	loads.attr.freq = 1;
	loads.attr.sample_freq = 4000;
	e = c2c_stores_evsel(&loads, &st, &err);
	unsetenv("LDLAT_SYSFS");
	ck_assert_msg(e == stores_cases[_i].want, "%d: %s", e, err.msg);
	if (!e)
		return;
	ck_assert_uint_eq(st.attr.config, stores_cases[_i].config);
	ck_assert_uint_eq(st.attr.sample_type, loads.attr.sample_type);
	ck_assert_uint_eq(st.attr.freq, 1);
	ck_assert_uint_eq(st.attr.sample_freq, 4000);
	ck_assert_uint_gt(st.attr.precise_ip, 0);
	ck_assert_ptr_nonnull(strstr(st.name, "/mem-stores/P"));
	cpumap__free(&st.cpus);
}
END_TEST

/* ---- the kernel's tables, through the test entry ---- */

struct synth {
	struct c2c_session sess;
	struct c2c_table native; /* the same samples through the native build */
	int ncpus_online;
};

static void synth_open(struct synth *y, __u32 entries)
{
	struct ldlat_config cfg = {
		.nranges = 1,
		.max_lat = ~0ull,
		.class_mask = LDLAT_ALL_CLASSES,
		.op_mask = PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE,
		.need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
		.weight_struct = 1,
	};
	struct err err = {};

	char why[256];
	/* before Linux 6.2 the live program is the address-only one; the test entry is the same */
	bool addr_only = session__read_path(why, sizeof(why)) != SESSION_PATH_KERN_CTX;

	ck_assert_msg(c2c_session__open(&y->sess, &cfg, 6, entries, addr_only, true, &err) == 0,
		      "%s", err.msg);
	y->sess.proc_root = NULL; /* the synthetic processes have no maps */
	c2c_table__init(&y->native, 6);
	y->ncpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* One sample into the kernel's tables on CPU cpu, and into the native table. */
static void synth(struct synth *y, __u32 tgid, __u32 tid, int cpu, __u64 addr, __u64 ip, __u64 ds)
{
	struct ldlat_c2c_test_ctx c = {
		.s = { .addr = addr,
		       .lat = 100 + tid % 7,
		       .data_src = ds,
		       .ip = ip,
		       .tgid = tgid,
		       .flags = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
		       .period = 1 },
		.tid = tid,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &c, .ctx_size_in = sizeof(c),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu % y->ncpus_online);

	ck_assert_int_eq(bpf_prog_test_run_opts(c2c_session__test_fd(&y->sess), &opts), 0);
	c2c_table__add(&y->native, 0, addr, addr, NULL, ip, tgid, tid, cpu % y->ncpus_online, -1,
		       ds, c.s.lat);
}

#define X 0x7f0000001000ull /* false sharing */
#define Y 0x7f0000002040ull /* true sharing */
#define Z 0x7f0000003000ull /* one thread */

/*
 * The table's lookups, by the arithmetic of what is added: a shared line
 * that two processes touch at each of 16 offsets from one code address has
 * 32 entries of two loads each (a line of many entries is found by hash;
 * a hash that left the process out merged the two processes' entries), and
 * 10,000 lines more are each found again, before and after the table is
 * sorted (the sort moves the lines the hash names by index).
 */
START_TEST(test_table_lookups)
{
	const __u64 ds = (__u64)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT;
	static const __u32 tgids[2] = { 100, 300 };
	struct c2c_space sp = { .maj = 8, .min = 1, .ino = 42 };
	bool seen[16][2] = { { false } };
	struct c2c_table t;
	struct c2c_line *l;
	__u64 space;
	int round, off, p, i, sorted;

	c2c_table__init(&t, 6);
	space = c2c_table__space(&t, &sp);
	ck_assert_uint_ne(space, 0);
	for (round = 0; round < 2; round++)
		for (off = 0; off < 16; off++)
			for (p = 0; p < 2; p++)
				ck_assert_ptr_nonnull(c2c_table__add(
					&t, space, 0x1100 + off * 4, 0x7f0000000100ull + off * 4,
					NULL, 0x401000, tgids[p], tgids[p], 0, -1, ds, 50));
	ck_assert_int_eq(t.nlines, 1);
	l = t.lines[0];
	ck_assert_int_eq(l->nent, 32);
	for (i = 0; i < l->nent; i++) {
		off = (int)l->ent[i].offset;
		p = l->ent[i].tgid == 300;
		ck_assert_uint_eq(l->ent[i].c.loads, 2);
		ck_assert_int_eq(off % 4, 0);
		ck_assert(!seen[off / 4][p]);
		seen[off / 4][p] = true;
	}
	for (i = 0; i < 10000; i++)
		ck_assert_ptr_nonnull(c2c_table__add(&t, 0, 0x7f1000000000ull + (__u64)i * 64,
						     0x7f1000000000ull + (__u64)i * 64, NULL,
						     0x401000, 7, 7, 0, -1, ds, 50));
	ck_assert_int_eq(t.nlines, 10001);
	for (sorted = 0; sorted < 2; sorted++) {
		if (sorted)
			c2c_table__sort(&t);
		for (i = 0; i < 10000; i++) {
			l = c2c_table__find(&t, 7, 0x7f1000000000ull + (__u64)i * 64);
			ck_assert_ptr_nonnull(l);
			ck_assert_uint_eq(l->addr, 0x7f1000000000ull + (__u64)i * 64);
			ck_assert_uint_eq(l->c.loads, 1);
		}
		ck_assert_ptr_null(c2c_table__find(&t, 7, 0x7f0000000000ull));
		l = c2c_table__find(&t, space, 0x1100);
		ck_assert_ptr_nonnull(l);
		ck_assert_uint_eq(l->c.loads, 64);
	}
	c2c_table__free(&t);
}
END_TEST

/*
 * Two threads writing different offsets of one line (false sharing) and one
 * reading what the other wrote (true sharing), a line of one thread, and
 * another process's private line at the same address: the false sharing
 * line ranks first with both offsets, both threads, both CPUs and its HITM;
 * true sharing next; the one-thread line is not in the shared table;
 * the other process's line stays apart.  Every line and entry equals the
 * native build's count of the same samples.
 */
START_TEST(test_bpf_sharing)
{
	struct ldlat_c2c_counters cnt;
	struct c2c_table t;
	struct synth y;
	const struct c2c_line *l;
	int i, k, offs[2] = { 0 };
	__u64 hitm;

	if (!need_root("the BPF test entry"))
		return;
	synth_open(&y, 64);
	for (i = 0; i < 20; i++) {
		synth(&y, 4242, 4242, 0, X, 0x401000, i % 4 ? PW_C2C_ST_L1HIT : PW_C2C_ST_L1MISS);
		synth(&y, 4242, 4243, 1, X + 8, 0x402000, PW_C2C_ST_L1HIT);
		if (i % 2) {
			synth(&y, 4242, 4243, 1, X, 0x402010, GEN_07);
			synth(&y, 4242, 4242, 0, X + 8, 0x401010, GEN_09);
		}
	}
	for (i = 0; i < 7; i++) {
		synth(&y, 4242, 4242, 0, Y + 0x10, 0x403000, PW_C2C_ST_L1HIT);
		synth(&y, 4242, 4243, 1, Y + 0x10, 0x403010, GEN_07);
	}
	for (i = 0; i < 30; i++)
		synth(&y, 4242, 4242, 0, Z + 0x20, 0x404000, GEN_01);
	for (i = 0; i < 3; i++)
		synth(&y, 5000, 5000, 1, X, 0x405000, GEN_07);

	c2c_table__init(&t, 6);
	ck_assert_int_eq(c2c_session__read(&y.sess, &t, &cnt), 0);
	ck_assert_uint_eq(cnt.kept, 40 + 20 + 14 + 30 + 3);
	for (k = 0; k < LDLAT_C2C_TABLES; k++)
		ck_assert_uint_eq(cnt.full[k] + cnt.failed[k], 0);
	c2c_table__sort(&t);
	c2c_table__sort(&y.native);
	hitm = ldlat_c2c_hitm(&t.total);
	ck_assert_uint_eq(hitm, 10 + 10 + 7 + 3);
	ck_assert_int_eq(t.nlines, 4);

	l = t.lines[0];
	ck_assert_uint_eq(l->vaddr, X);
	ck_assert_uint_eq(l->tgid, 4242);
	ck_assert_uint_eq(l->c.load_cls[LDLAT_CLASS_LOCAL_HITM], 10);
	ck_assert_uint_eq(l->c.load_cls[LDLAT_CLASS_REMOTE_HITM], 10);
	ck_assert_uint_eq(l->c.stores, 40);
	ck_assert_uint_eq(l->c.store[LDLAT_C2C_ST_L1MISS], 5);
	ck_assert_int_eq(l->tids.n, 2);
	ck_assert_uint_eq(c2c_set__values(&l->tids)[0], 4242);
	ck_assert_uint_eq(c2c_set__values(&l->tids)[1], 4243);
	ck_assert_int_eq(l->cpus.n, y.ncpus_online > 1 ? 2 : 1);
	for (k = 0; k < l->nent; k++)
		offs[l->ent[k].offset == 8] += l->ent[k].offset == 0 || l->ent[k].offset == 8;
	ck_assert_int_eq(offs[0] + offs[1], l->nent);
	ck_assert_int_gt(offs[0], 0);
	ck_assert_int_gt(offs[1], 0);
	ck_assert(c2c_line__shared(l, hitm));

	l = t.lines[1];
	ck_assert_uint_eq(l->vaddr, Y);
	ck_assert_uint_eq(l->c.load_cls[LDLAT_CLASS_LOCAL_HITM], 7);
	ck_assert_int_eq(l->tids.n, 2);
	ck_assert(c2c_line__shared(l, hitm));

	l = t.lines[2];
	ck_assert_uint_eq(l->vaddr, X);
	ck_assert_uint_eq(l->tgid, 5000);
	ck_assert_uint_eq(ldlat_c2c_hitm(&l->c), 3);
	ck_assert_int_eq(l->tids.n, 1);

	l = t.lines[3];
	ck_assert_uint_eq(l->vaddr, Z);
	ck_assert(!c2c_line__shared(l, hitm));

	/* the kernel's counts are the native build's */
	ck_assert_int_eq(y.native.nlines, t.nlines);
	for (i = 0; i < t.nlines; i++) {
		const struct c2c_line *a = t.lines[i], *b = y.native.lines[i];

		ck_assert_uint_eq(a->vaddr, b->vaddr);
		ck_assert_uint_eq(a->tgid, b->tgid);
		ck_assert_msg(!memcmp(&a->c, &b->c, sizeof(a->c)), "line %d's counts differ", i);
		ck_assert_int_eq(a->tids.n, b->tids.n);
		ck_assert_int_eq(a->cpus.n, b->cpus.n);
		ck_assert_int_eq(a->nent, b->nent);
		c2c_line__sort((struct c2c_line *)a);
		c2c_line__sort((struct c2c_line *)b);
		for (k = 0; k < a->nent; k++) {
			ck_assert_uint_eq(a->ent[k].offset, b->ent[k].offset);
			ck_assert_uint_eq(a->ent[k].ip, b->ent[k].ip);
			ck_assert_msg(!memcmp(&a->ent[k].c, &b->ent[k].c, sizeof(a->ent[k].c)),
				      "line %d entry %d's counts differ", i, k);
		}
	}
	c2c_table__free(&t);
	c2c_table__free(&y.native);
	c2c_session__close(&y.sess);
}
END_TEST

/*
 * Two processes' lines of one MAP_SHARED file, mapped at different
 * addresses and from different file offsets ('s' in their /proc/PID/maps,
 * here a fixture: 4242 maps it from its second page), are one line of the
 * file, at its offset in the file; their private lines at one address stay
 * two.
 */
START_TEST(test_bpf_shared)
{
	struct ldlat_c2c_counters cnt;
	struct c2c_table t;
	struct synth y;
	const struct c2c_line *shl = NULL;
	int i, privs = 0;

	if (!need_root("the BPF test entry"))
		return;
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "mkdir -p %s/proc/4242 %s/proc/4343 && "
		   "printf '7e0000000000-7e0000010000 rw-s 00001000 00:19 777 "
		   "/dev/shm/c2c-test\\n7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \\n' "
		   "> %s/proc/4242/maps && "
		   "printf '7d0000000000-7d0000011000 rw-s 00000000 00:19 777 "
		   "/dev/shm/c2c-test\\n7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \\n' "
		   "> %s/proc/4343/maps",
		   suite_dir(), suite_dir(), suite_dir(), suite_dir()),
		0);
	synth_open(&y, 64);
	for (i = 0; i < 4; i++) {
		synth(&y, 4242, 4242, 0, 0x7e0000000100ull, 0x401000, PW_C2C_ST_L1HIT);
		synth(&y, 4343, 4343, 1, 0x7d0000001108ull, 0x402000, GEN_09);
		synth(&y, 4242, 4242, 0, 0x7f0000001000ull, 0x401000, GEN_07);
		synth(&y, 4343, 4343, 1, 0x7f0000001000ull, 0x402000, GEN_07);
	}
	y.sess.proc_root = tmp("proc");
	c2c_table__init(&t, 6);
	ck_assert_int_eq(c2c_session__read(&y.sess, &t, &cnt), 0);
	ck_assert_int_eq(t.nlines, 3);
	for (i = 0; i < t.nlines; i++) {
		if (t.lines[i]->object)
			shl = t.lines[i];
		else
			privs += t.lines[i]->vaddr == 0x7f0000001000ull;
	}
	ck_assert_int_eq(privs, 2);
	ck_assert_ptr_nonnull(shl);
	ck_assert_str_eq(shl->object, "/dev/shm/c2c-test");
	ck_assert_uint_eq(shl->addr, 0x1100);
	ck_assert_int_eq(shl->tgids.n, 2);
	ck_assert_int_eq(shl->tids.n, 2);
	ck_assert_uint_eq(shl->c.stores, 4);
	ck_assert_uint_eq(shl->c.load_cls[LDLAT_CLASS_REMOTE_HITM], 4);
	ck_assert_int_eq(shl->nent, 2);
	c2c_table__free(&t);
	c2c_table__free(&y.native);
	c2c_session__close(&y.sess);
}
END_TEST

/* Tables of 2 lines: the samples of further lines are counted as full, the rest still counted. */
START_TEST(test_bpf_full)
{
	struct ldlat_c2c_counters cnt;
	struct c2c_table t;
	struct synth y;
	int i;

	if (!need_root("the BPF test entry"))
		return;
	synth_open(&y, 2);
	for (i = 0; i < 5; i++)
		synth(&y, 4242, 4242, 0, X + i * 64, 0x401000, GEN_07);
	c2c_table__init(&t, 6);
	ck_assert_int_eq(c2c_session__read(&y.sess, &t, &cnt), 0);
	ck_assert_uint_eq(cnt.kept, 5);
	ck_assert_uint_eq(cnt.full[LDLAT_C2C_LINES], 3);
	ck_assert_uint_eq(cnt.full[LDLAT_C2C_ENTS], 0); /* 4 * entries keys: 8 */
	ck_assert_uint_eq(cnt.full[LDLAT_C2C_TIDS], 1); /* 2 * entries keys: 4 */
	ck_assert_uint_eq(t.total.records, 2);
	c2c_table__free(&t);
	c2c_table__free(&y.native);
	c2c_session__close(&y.sess);
}
END_TEST

/* ---- live, with page faults: plumbing and targets ---- */

#define LIVE_BASE  "0x200000000000"
#define LIVE_PAGES 300

/*
 * A command that faults LIVE_PAGES pages from LIVE_BASE: each page's first
 * line is a line of the command's process, one sample each; nothing else of
 * that range; no table full.  --by process names the command.
 */
START_TEST(test_live_command)
{
	char pages[16];
	char *argv[] = { (char *)build_path("ldlat-c2c"),
			 "--source",
			 "page-faults",
			 "--all",
			 "-n",
			 "0",
			 "--format",
			 "json",
			 "--",
			 (char *)build_path("ldlat-workload"),
			 "--fault-pages",
			 pages,
			 "--base",
			 LIVE_BASE,
			 NULL };
	char *out, *err;

	if (!need_root("ldlat-c2c's live runs"))
		return;
	snprintf(pages, sizeof(pages), "%d", LIVE_PAGES);
	run_expect(argv, 0, &out, &err);
	assert_jq(out, "[.shared_lines[] | select(.address >= 35184372088832 and .address < "
		       "35184372088832 + 300 * 4096)] | length == 300 and "
		       "all(.records == 1 and (.address % 4096) == 0 and .threads == [.pid] and "
		       "(.pareto | length) == 1)");
	assert_jq(out, ".not_counted.table_full == {\"lines\": 0, \"line_entries\": 0, "
		       "\"threads\": 0} and .not_counted.update_failed.lines == 0");
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* -p: only that process's lines; --entries 16: the rest counted as lost to a full table. */
START_TEST(test_live_pid_full)
{
	char *wargv[] = { (char *)build_path("ldlat-workload"),
			  "--wait",
			  "--fault-pages",
			  "300",
			  "--base",
			  LIVE_BASE,
			  NULL };
	char pid[16];
	char *argv[] = { (char *)build_path("ldlat-c2c"),
			 "--source",
			 "page-faults",
			 "--all",
			 "-n",
			 "0",
			 "--format",
			 "json",
			 "--entries",
			 "16",
			 "-p",
			 pid,
			 NULL };
	struct child w, t;
	char *out, *err, expr[512];

	if (!need_root("ldlat-c2c's live runs"))
		return;
	child_spawn(&w, wargv);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	ck_assert(child_spawn_started(&t, argv, 30));
	ck_assert(child_go(&w));
	ck_assert_int_eq(child_finish(&w, 60), 0);
	ck_assert_int_eq(child_finish(&t, 60), 0);
	out = t.outbuf;
	err = t.errbuf;
	snprintf(expr, sizeof(expr),
		 ".lines == 16 and all(.shared_lines[]; .pid == %d) and "
		 ".not_counted.table_full.lines >= 284",
		 (int)w.pid);
	ck_assert_msg(jq_true(out, expr), "jq -e '%s' fails; stderr: %s", expr, err);
	child_free(&w);
	child_free(&t);
	assert_nothing_left();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("c2c");
	TCase *tc;
	int failed;

	suite_dir_make("c2c");
	tc = tcase_create("input");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_vs_perf_c2c, 0, 2);
	tcase_add_loop_test(tc, test_pareto_vs_perf_c2c, 0, 2);
	tcase_add_test(tc, test_sharing);
	tcase_add_test(tc, test_numa);
	tcase_add_test(tc, test_numa_cgroup);
	tcase_add_loop_test(tc, test_bad_input, 0, ARRAY_SIZE(bad_inputs));
	tcase_add_loop_test(tc, test_stores_event, 0, ARRAY_SIZE(stores_cases));
	tcase_add_test(tc, test_perf_threads);
	tcase_add_test(tc, test_line_size);
	tcase_add_test(tc, test_table_lookups);
	suite_add_tcase(s, tc);
	tc = tcase_create("bpf");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_bpf_sharing);
	tcase_add_test(tc, test_bpf_shared);
	tcase_add_test(tc, test_bpf_full);
	suite_add_tcase(s, tc);
	tc = tcase_create("live");
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_live_command);
	tcase_add_test(tc, test_live_pid_full);
	suite_add_tcase(s, tc);
	failed = run_suite(s);
	suite_dir_remove();
	return failed ? 1 : 0;
}
