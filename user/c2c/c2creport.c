// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/datasrc.h"
#include "kernel/lib/util.h"
#include "user/c2c/c2creport.h"
#include "user/report/output.h"
#include "user/report/json.h"
#include "user/report/table.h"
#include "user/report/typedata.h"
#include "kernel/lib/unctrl.h"
#include "kernel/lib/notice.h"

/* Loads of a group of classes, as perf c2c's columns group them. */
enum ld_group {
	LD_FB,
	LD_L1,
	LD_L2,
	LD_LLC,
	LD_PEER,
	LD_RMT_HIT,
	LD_LCL_DRAM,
	LD_RMT_DRAM,
	LD_OTHER
};

static enum ld_group ld_group(unsigned int cls)
{
	switch (cls) {
	case LDLAT_CLASS_LFB:
		return LD_FB;
	case LDLAT_CLASS_L1:
		return LD_L1;
	case LDLAT_CLASS_L2:
	case LDLAT_CLASS_L2_MHB:
		return LD_L2;
	case LDLAT_CLASS_L3:
	case LDLAT_CLASS_L4:
	case LDLAT_CLASS_MSC:
	case LDLAT_CLASS_ANY_CACHE:
		return LD_LLC;
	case LDLAT_CLASS_PEER_CACHE:
		return LD_PEER;
	case LDLAT_CLASS_REMOTE_CACHE:
	case LDLAT_CLASS_REMOTE_CACHE_1HOP:
	case LDLAT_CLASS_REMOTE_CACHE_2HOP:
	case LDLAT_CLASS_REMOTE_CACHE_3HOP:
		return LD_RMT_HIT;
	case LDLAT_CLASS_LOCAL_RAM:
		return LD_LCL_DRAM;
	case LDLAT_CLASS_REMOTE_RAM:
	case LDLAT_CLASS_REMOTE_RAM_1HOP:
	case LDLAT_CLASS_REMOTE_RAM_2HOP:
	case LDLAT_CLASS_REMOTE_RAM_3HOP:
		return LD_RMT_DRAM;
	default:
		return LD_OTHER;
	}
}

static __u64 ld(const struct ldlat_c2c_counts *c, enum ld_group g)
{
	__u64 n = 0;
	unsigned int k;

	for (k = 0; k < LDLAT_NCLASS; k++)
		if (k != LDLAT_CLASS_LOCAL_HITM && k != LDLAT_CLASS_REMOTE_HITM && ld_group(k) == g)
			n += c->load_cls[k];
	return n;
}

#define LCL_HITM(c) ((c)->load_cls[LDLAT_CLASS_LOCAL_HITM])
#define RMT_HITM(c) ((c)->load_cls[LDLAT_CLASS_REMOTE_HITM])

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double mean(__u64 sum, __u64 n)
{
	return n ? (double)sum / (double)n : 0.0;
}

/* "0,1" of the nodes in a mask; "-" when none is known. */
static char *nodes_text(__u64 mask, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < 64 && n < len; i++)
		if (mask & (1ull << i))
			n += snprintf(buf + n, len - n, "%s%d", n ? "," : "", i);
	if (!n)
		snprintf(buf, len, "-");
	return buf;
}

/*
 * The thread IDs of a set, in order, comma-separated ("101,102"), the first
 * C2C_TIDS_SHOWN and "+N" for the rest; "-" for none (a live run's entry:
 * the kernel's tables keep threads per line only).
 */
#define C2C_TIDS_SHOWN 16
static char *tids_text(const struct c2c_set *s, char *buf, size_t len)
{
	const __u32 *v = c2c_set__values(s);
	size_t n = 0;
	int i;

	buf[0] = '\0';
	if (!s->n) {
		snprintf(buf, len, "-");
		return buf;
	}
	for (i = 0; i < s->n && i < C2C_TIDS_SHOWN && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%u", i ? "," : "", v[i]);
	if (s->n > C2C_TIDS_SHOWN && n < len)
		snprintf(buf + n, len - n, ",+%d", s->n - C2C_TIDS_SHOWN);
	return buf;
}

/* The line's object (a file or a symbol: named by others, so escaped), or its process. */
static void line_where(const struct c2c_line *l, char *buf, size_t len)
{
	if (l->object)
		unctrl__str(buf, len, l->object);
	else
		snprintf(buf, len, "PID %u", l->tgid);
}

static __u64 total_hitm(const struct c2c_report *v)
{
	return ldlat_c2c_hitm(&v->t->total);
}

static bool shown(const struct c2c_report *v, const struct c2c_line *l)
{
	return v->all || c2c_line__shared(l, total_hitm(v));
}

/* ---- data types ---- */

/* What an entry's instruction touches; an entry never typed is in no file. */
static const struct datatype *entry_type(const struct c2c_entry *e)
{
	static const struct datatype none = { .why = DATATYPE_NO_FILE };

	return e->dt ? e->dt : &none;
}

/* The samples of every line entry by why their data is untyped (why[0]: typed); returns their sum. */
static __u64 typed_samples(const struct c2c_table *t, __u64 *why)
{
	__u64 n = 0;
	int i, k;

	memset(why, 0, DATATYPE_NWHY * sizeof(*why));
	for (i = 0; i < t->nlines; i++)
		for (k = 0; k < t->lines[i]->nent; k++) {
			const struct c2c_entry *e = &t->lines[i]->ent[k];

			why[entry_type(e)->why] += e->c.records;
			n += e->c.records;
		}
	return n;
}

/* "Data types of the entries' instructions: typed: 40 of 135 samples (29.6%); untyped: 95 no ELF file" */
static void typed_text(FILE *f, const struct c2c_table *t)
{
	__u64 why[DATATYPE_NWHY], n = typed_samples(t, why);

	fputs("Data types of the entries' instructions: ", f);
	typedata__text(f, why, n);
}

/* Whether an answer is typed, and gives the same label as typed answer b (or b is NULL). */
static bool typed_as(const struct datatype *a, const struct datatype *b)
{
	if (a->why != DATATYPE_TYPED || !a->type)
		return false;
	if (!b || a == b)
		return true;
	if (strcmp(a->type, b->type) || !a->member != !b->member)
		return false;
	if (a->member && strcmp(a->member, b->member))
		return false;
	return a->offset_known == b->offset_known && (!a->offset_known || a->offset == b->offset);
}

/* Whether entry k of l is typed and no entry before it has its offset and label. */
static bool first_member(const struct c2c_line *l, int k)
{
	const struct datatype *d = entry_type(&l->ent[k]);
	int i;

	if (!typed_as(d, NULL))
		return false;
	for (i = 0; i < k; i++)
		if (l->ent[i].offset == l->ent[k].offset && typed_as(entry_type(&l->ent[i]), d))
			return false;
	return true;
}

/*
 * The members a line's typed entries touch, by offset (false sharing reads
 * "data: struct X.a (0x8), struct X.b (0x30)"): each (offset, label) once,
 * the first C2C_MEMBERS_SHOWN, then "+N"; nothing when no entry is typed.
 */
#define C2C_MEMBERS_SHOWN 8
static void members_text(FILE *f, const struct c2c_line *l)
{
	char label[512];
	int k, n = 0;

	for (k = 0; k < l->nent; k++) {
		if (!first_member(l, k))
			continue;
		if (n++ >= C2C_MEMBERS_SHOWN)
			continue;
		datatype__label(entry_type(&l->ent[k]), label, sizeof(label));
		fputs(n > 1 ? ", " : "  data: ", f);
		/* a type's and its members' names come from a file's DWARF: escaped */
		unctrl__fputs(f, label);
		fprintf(f, " (0x%x)", l->ent[k].offset);
	}
	if (n > C2C_MEMBERS_SHOWN)
		fprintf(f, ", +%d", n - C2C_MEMBERS_SHOWN);
	if (n)
		fputc('\n', f);
}

/* ---- the NUMA view ---- */

struct numa_sums {
	__u64 loads, lcl_cache, rmt_cache, lcl_dram, rmt_dram, stores, lat, lat_n;
};

static void numa_sum(struct numa_sums *n, const struct ldlat_c2c_counts *c)
{
	unsigned int k;

	n->loads += c->loads;
	n->stores += c->stores;
	n->lat += c->lat_load;
	n->lat_n += c->lat_n;
	for (k = 0; k < LDLAT_NCLASS; k++) {
		enum ld_group g = ld_group(k);

		if (k == LDLAT_CLASS_REMOTE_HITM || g == LD_RMT_HIT)
			n->rmt_cache += c->load_cls[k];
		else if (g == LD_LCL_DRAM)
			n->lcl_dram += c->load_cls[k];
		else if (g == LD_RMT_DRAM)
			n->rmt_dram += c->load_cls[k];
		else if (k == LDLAT_CLASS_LOCAL_HITM || (g != LD_OTHER))
			n->lcl_cache += c->load_cls[k];
	}
}

static double numa_remote(const struct numa_sums *n)
{
	return pct(n->rmt_cache + n->rmt_dram,
		   n->lcl_cache + n->rmt_cache + n->lcl_dram + n->rmt_dram);
}

static const struct table_column node_cols[] = {
	{ "PID", 7, TABLE_RIGHT, NULL },      { "Command", 15, TABLE_LEFT, "  " },
	{ "Node", 4, TABLE_RIGHT, "  " },     { "Loads", 8, TABLE_RIGHT, "  " },
	{ "LclCache", 8, TABLE_RIGHT, "  " }, { "RmtCache", 8, TABLE_RIGHT, "  " },
	{ "LclDram", 8, TABLE_RIGHT, "  " },  { "RmtDram", 8, TABLE_RIGHT, "  " },
	{ "Remote%", 7, TABLE_RIGHT, "  " },  { "MeanLat", 7, TABLE_RIGHT, "  " },
	{ "Stores", 8, TABLE_RIGHT, "  " },   { "Cgroup", 0, TABLE_LEFT, "  " },
};
/* --by node: the same columns without the process's */
static const struct table_column node_only_cols[] = {
	{ "Node", 4, TABLE_RIGHT, NULL },     { "Loads", 8, TABLE_RIGHT, "  " },
	{ "LclCache", 8, TABLE_RIGHT, "  " }, { "RmtCache", 8, TABLE_RIGHT, "  " },
	{ "LclDram", 8, TABLE_RIGHT, "  " },  { "RmtDram", 8, TABLE_RIGHT, "  " },
	{ "Remote%", 7, TABLE_RIGHT, "  " },  { "MeanLat", 7, TABLE_RIGHT, "  " },
	{ "Stores", 8, TABLE_RIGHT, "  " },
};
static const struct table node_table = { node_only_cols, ARRAY_SIZE(node_only_cols) };
static const struct table process_table = { node_cols, ARRAY_SIZE(node_cols) };

/* The rows of the view: per node (tgid 0), or per process and node, in t->numa's order. */
static int numa_rows(const struct c2c_report *v, struct c2c_numa **out)
{
	const struct c2c_table *t = v->t;
	struct c2c_numa *rows = calloc(t->nnuma ? t->nnuma : 1, sizeof(*rows));
	int i, k, n = 0;

	if (!rows)
		return -1;
	for (i = 0; i < t->nnuma; i++) {
		const struct c2c_numa *r = &t->numa[i];

		if (v->by == C2C_BY_PROCESS) {
			rows[n++] = *r;
			continue;
		}
		for (k = 0; k < n && rows[k].node != r->node; k++)
			;
		if (k == n) {
			rows[n].node = r->node;
			n++;
		}
		c2c_counts__add(&rows[k].c, &r->c);
	}
	*out = rows;
	return n;
}

static int numa_cmp(const void *a, const void *b)
{
	const struct c2c_numa *x = a, *y = b;

	if (x->c.loads != y->c.loads)
		return x->c.loads > y->c.loads ? -1 : 1;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->node - y->node;
}

static void numa_text(FILE *f, const struct c2c_report *v)
{
	const struct table *tb = v->by == C2C_BY_PROCESS ? &process_table : &node_table;
	struct c2c_numa *rows;
	int i, n = numa_rows(v, &rows);

	fprintf(f, "\nLoads by %s (local and remote as the data source says; latency in cycles)\n",
		v->by == C2C_BY_PROCESS ? "process and the node of the CPU that ran them"
					: "the node of the CPU that ran them");
	if (n < 0) {
		fprintf(f, "(out of memory)\n");
		return;
	}
	qsort(rows, n, sizeof(*rows), numa_cmp);
	table__header(f, tb);
	for (i = 0; i < n && (!v->nrows || i < v->nrows); i++) {
		struct numa_sums s = {};
		struct table_row r;

		numa_sum(&s, &rows[i].c);
		table__row_begin(&r, f, tb);
		if (v->by == C2C_BY_PROCESS) {
			table__cell(&r, "%u", rows[i].tgid);
			table__cell(&r, "%s", rows[i].comm[0] ? rows[i].comm : "?");
		}
		if (rows[i].node >= 0)
			table__cell(&r, "%d", rows[i].node);
		else
			table__cell(&r, "?");
		table__cell(&r, "%llu", (unsigned long long)s.loads);
		table__cell(&r, "%llu", (unsigned long long)s.lcl_cache);
		table__cell(&r, "%llu", (unsigned long long)s.rmt_cache);
		table__cell(&r, "%llu", (unsigned long long)s.lcl_dram);
		table__cell(&r, "%llu", (unsigned long long)s.rmt_dram);
		table__cell(&r, "%.1f%%", numa_remote(&s));
		if (s.lat_n)
			table__cell(&r, "%.0f", mean(s.lat, s.lat_n));
		else
			table__cell(&r, "-");
		table__cell(&r, "%llu", (unsigned long long)s.stores);
		if (v->by == C2C_BY_PROCESS)
			table__cell(&r, "%s", rows[i].cgroup[0] ? rows[i].cgroup : "-");
		table__row_end(&r);
	}
	if (!n)
		fprintf(f, "(no sample)\n");
	free(rows);
}

static void numa_json(struct json *j, const struct c2c_report *v)
{
	struct c2c_numa *rows;
	int i, n = numa_rows(v, &rows);

	json__array_begin(j, v->by == C2C_BY_PROCESS ? "processes" : "nodes");
	for (i = 0; i < n; i++) {
		struct numa_sums s = {};

		numa_sum(&s, &rows[i].c);
		json__object_begin(j, NULL);
		if (v->by == C2C_BY_PROCESS) {
			json__u64(j, "pid", rows[i].tgid);
			json__string(j, "command", rows[i].comm);
			json__string(j, "cgroup", rows[i].cgroup);
		}
		if (rows[i].node >= 0)
			json__u64(j, "node", rows[i].node);
		else
			json__null(j, "node");
		json__u64(j, "loads", s.loads);
		json__u64(j, "local_cache", s.lcl_cache);
		json__u64(j, "remote_cache", s.rmt_cache);
		json__u64(j, "local_dram", s.lcl_dram);
		json__u64(j, "remote_dram", s.rmt_dram);
		json__double(j, "remote_share", numa_remote(&s) / 100.0);
		json__double(j, "mean_load_latency", s.lat_n ? mean(s.lat, s.lat_n) : NAN);
		json__u64(j, "stores", s.stores);
		json__object_end(j);
	}
	json__array_end(j);
	if (n >= 0)
		free(rows);
}

/* ---- text ---- */

static const struct table_column line_cols[] = {
	{ "#", 4, TABLE_RIGHT, NULL },	    { "Address", 18, TABLE_RIGHT, "  " },
	{ "Node", 4, TABLE_LEFT, "  " },    { "Hitm%", 7, TABLE_RIGHT, "  " },
	{ "Hitm", 6, TABLE_RIGHT, " " },    { "LclHitm", 7, TABLE_RIGHT, " " },
	{ "RmtHitm", 7, TABLE_RIGHT, " " }, { "Records", 7, TABLE_RIGHT, " " },
	{ "Loads", 6, TABLE_RIGHT, " " },   { "Stores", 6, TABLE_RIGHT, " " },
	{ "StL1Hit", 7, TABLE_RIGHT, " " }, { "StL1Miss", 8, TABLE_RIGHT, " " },
	{ "StN/A", 5, TABLE_RIGHT, " " },   { "FB", 5, TABLE_RIGHT, " " },
	{ "L1", 5, TABLE_RIGHT, " " },	    { "L2", 5, TABLE_RIGHT, " " },
	{ "LLC", 5, TABLE_RIGHT, " " },	    { "Peer", 5, TABLE_RIGHT, " " },
	{ "RmtHit", 6, TABLE_RIGHT, " " },  { "LclDram", 7, TABLE_RIGHT, " " },
	{ "RmtDram", 7, TABLE_RIGHT, " " }, { "Thr", 4, TABLE_RIGHT, " " },
	{ "CPUs", 4, TABLE_RIGHT, " " },    { "Where", 0, TABLE_LEFT, "  " },
};
static const struct table line_table = { line_cols, ARRAY_SIZE(line_cols) };

static const struct table_column pareto_cols[] = {
	{ "RmtHitm", 8, TABLE_RIGHT, "      " },
	{ "LclHitm", 8, TABLE_RIGHT, " " },
	{ "StL1Hit", 8, TABLE_RIGHT, " " },
	{ "StL1Miss", 8, TABLE_RIGHT, " " },
	{ "StN/A", 7, TABLE_RIGHT, " " },
	{ "Off", 4, TABLE_RIGHT, "  " },
	{ "Code address", 14, TABLE_RIGHT, "  " },
	{ "rmt-cyc", 7, TABLE_RIGHT, "  " },
	{ "lcl-cyc", 7, TABLE_RIGHT, " " },
	{ "ld-cyc", 7, TABLE_RIGHT, " " },
	{ "Records", 7, TABLE_RIGHT, " " },
	{ "CPUs", 4, TABLE_RIGHT, " " },
	{ "PID", 7, TABLE_RIGHT, " " },
	{ "Tids", 7, TABLE_LEFT, " " },
	{ "Node", 4, TABLE_LEFT, "  " },
	{ "Data", 22, TABLE_LEFT, "  " },
	{ "Symbol", 0, TABLE_LEFT, "  " },
};
static const struct table pareto_table = { pareto_cols, ARRAY_SIZE(pareto_cols) };

static void text_notes(FILE *f, const struct c2c_report *v)
{
	const struct c2c_table *t = v->t;

	fprintf(f,
		"Not in any line: %llu samples the kernel lost, %llu without a data address, "
		"%llu neither load nor store, %llu dropped by the filters, %llu of other events, "
		"%llu malformed, %llu of no event, %llu for want of memory\n",
		(unsigned long long)v->lost, (unsigned long long)t->no_addr,
		(unsigned long long)t->other, (unsigned long long)v->filtered,
		(unsigned long long)v->other, (unsigned long long)v->malformed,
		(unsigned long long)v->unknown_id, (unsigned long long)t->nomem);
	if (v->live)
		fprintf(f,
			"Not counted for a full table: %llu in lines, %llu in line entries, %llu "
			"in "
			"threads; failed updates: %llu, %llu, %llu\n",
			(unsigned long long)v->full[LDLAT_C2C_LINES],
			(unsigned long long)v->full[LDLAT_C2C_ENTS],
			(unsigned long long)v->full[LDLAT_C2C_TIDS],
			(unsigned long long)v->failed[LDLAT_C2C_LINES],
			(unsigned long long)v->failed[LDLAT_C2C_ENTS],
			(unsigned long long)v->failed[LDLAT_C2C_TIDS]);
}

static void text_render(FILE *f, const struct c2c_report *v)
{
	const struct c2c_table *t = v->t;
	const struct ldlat_c2c_counts *c = &t->total;
	__u64 hitm = total_hitm(v);
	int i, k, nshown = 0, nshared = 0;
	char nodes[64], where[300], tids[200], label[512];

	for (i = 0; i < t->nlines; i++)
		nshared += c2c_line__shared(t->lines[i], hitm);
	/* a file's name and its events' names, escaped as the table's cells are */
	fputs("ldlat-c2c: ", f);
	unctrl__fputs(f, v->target);
	fputs(": ", f);
	unctrl__fputs(f, v->events);
	fputc('\n', f);
	fprintf(f,
		"Samples: %llu (%llu loads, %llu stores); HITM %llu (local %llu, remote %llu); "
		"peer-cache hits %llu; %d cache lines of %d bytes (%s), %d shared\n",
		(unsigned long long)c->records, (unsigned long long)c->loads,
		(unsigned long long)c->stores, (unsigned long long)hitm,
		(unsigned long long)LCL_HITM(c), (unsigned long long)RMT_HITM(c),
		(unsigned long long)ld(c, LD_PEER), t->nlines, 1 << t->line_shift,
		v->line_from ? v->line_from : "the default", nshared);
	text_notes(f, v);
	if (v->by != C2C_BY_LINE) {
		numa_text(f, v);
		return;
	}
	typed_text(f, t);
	fprintf(f, "\nShared Data Cache Line Table (%s, most HITM first)\n",
		v->all ? "every line" : "lines with at least 0.1% of the HITM");
	table__header(f, &line_table);
	for (i = 0; i < t->nlines; i++) {
		const struct c2c_line *l = t->lines[i];
		struct table_row r;

		if (!shown(v, l))
			continue;
		if (v->nrows && nshown >= v->nrows)
			break;
		line_where(l, where, sizeof(where));
		table__row_begin(&r, f, &line_table);
		table__cell(&r, "%d", nshown);
		table__cell(&r, "%#llx", (unsigned long long)l->vaddr);
		table__cell(&r, "%s", nodes_text(l->nodes, nodes, sizeof(nodes)));
		table__cell(&r, "%.2f%%", pct(ldlat_c2c_hitm(&l->c), hitm));
		table__cell(&r, "%llu", (unsigned long long)ldlat_c2c_hitm(&l->c));
		table__cell(&r, "%llu", (unsigned long long)LCL_HITM(&l->c));
		table__cell(&r, "%llu", (unsigned long long)RMT_HITM(&l->c));
		table__cell(&r, "%llu", (unsigned long long)l->c.records);
		table__cell(&r, "%llu", (unsigned long long)l->c.loads);
		table__cell(&r, "%llu", (unsigned long long)l->c.stores);
		for (k = 0; k < LDLAT_C2C_NST; k++)
			table__cell(&r, "%llu", (unsigned long long)l->c.store[k]);
		for (k = LD_FB; k < LD_OTHER; k++)
			table__cell(&r, "%llu", (unsigned long long)ld(&l->c, k));
		table__cell(&r, "%d", l->tids.n);
		table__cell(&r, "%d", l->cpus.n);
		table__cell(&r, "%s", where);
		table__row_end(&r);
		nshown++;
	}
	if (!nshown)
		fprintf(f, "(no line)\n");
	fprintf(f, "\nShared Cache Line Distribution Pareto\n");
	nshown = 0;
	for (i = 0; i < t->nlines; i++) {
		const struct c2c_line *l = t->lines[i];

		if (!shown(v, l))
			continue;
		if (v->nrows && nshown >= v->nrows)
			break;
		line_where(l, where, sizeof(where));
		fprintf(f,
			"\n#%d %#llx  %s  HITM %llu (local %llu, remote %llu), stores %llu, "
			"threads %d (%s), CPUs %d, nodes %s\n",
			nshown, (unsigned long long)l->vaddr, where,
			(unsigned long long)ldlat_c2c_hitm(&l->c),
			(unsigned long long)LCL_HITM(&l->c), (unsigned long long)RMT_HITM(&l->c),
			(unsigned long long)l->c.stores, l->tids.n,
			tids_text(&l->tids, tids, sizeof(tids)), l->cpus.n,
			nodes_text(l->nodes, nodes, sizeof(nodes)));
		members_text(f, l);
		table__header(f, &pareto_table);
		for (k = 0; k < l->nent; k++) {
			const struct c2c_entry *e = &l->ent[k];
			struct table_row r;

			table__row_begin(&r, f, &pareto_table);
			table__cell(&r, "%.2f%%", pct(RMT_HITM(&e->c), RMT_HITM(&l->c)));
			table__cell(&r, "%.2f%%", pct(LCL_HITM(&e->c), LCL_HITM(&l->c)));
			table__cell(&r, "%.2f%%",
				    pct(e->c.store[LDLAT_C2C_ST_L1HIT],
					l->c.store[LDLAT_C2C_ST_L1HIT]));
			table__cell(&r, "%.2f%%",
				    pct(e->c.store[LDLAT_C2C_ST_L1MISS],
					l->c.store[LDLAT_C2C_ST_L1MISS]));
			table__cell(&r, "%.2f%%",
				    pct(e->c.store[LDLAT_C2C_ST_NA], l->c.store[LDLAT_C2C_ST_NA]));
			table__cell(&r, "0x%x", e->offset);
			table__cell(&r, "%#llx", (unsigned long long)e->ip);
			table__cell(&r, "%.0f", mean(e->c.lat_rmt_hitm, RMT_HITM(&e->c)));
			table__cell(&r, "%.0f", mean(e->c.lat_lcl_hitm, LCL_HITM(&e->c)));
			table__cell(&r, "%.0f", mean(e->c.lat_load, e->c.lat_n));
			table__cell(&r, "%llu", (unsigned long long)e->c.records);
			table__cell(&r, "%d", e->cpus.n);
			table__cell(&r, "%u", e->tgid);
			table__cell(&r, "%s", tids_text(&e->tids, tids, sizeof(tids)));
			table__cell(&r, "%s", nodes_text(e->nodes, nodes, sizeof(nodes)));
			datatype__label(entry_type(e), label, sizeof(label));
			table__cell(&r, "%s", label);
			table__cell(&r, "%s  %s", e->symbol ? e->symbol : "?",
				    e->object ? e->object : "?");
			table__row_end(&r);
		}
		nshown++;
	}
}

/* ---- JSON ---- */

static void json_counts(struct json *j, const struct ldlat_c2c_counts *c)
{
	unsigned int k;

	json__u64(j, "records", c->records);
	json__u64(j, "loads", c->loads);
	json__u64(j, "stores", c->stores);
	json__u64(j, "hitm", ldlat_c2c_hitm(c));
	json__u64(j, "local_hitm", LCL_HITM(c));
	json__u64(j, "remote_hitm", RMT_HITM(c));
	json__u64(j, "peer", ld(c, LD_PEER));
	json__u64(j, "store_l1_hit", c->store[LDLAT_C2C_ST_L1HIT]);
	json__u64(j, "store_l1_miss", c->store[LDLAT_C2C_ST_L1MISS]);
	json__u64(j, "store_na", c->store[LDLAT_C2C_ST_NA]);
	json__object_begin(j, "loads_by_class");
	for (k = 0; k < LDLAT_NCLASS; k++)
		if (c->load_cls[k])
			json__u64(j, class__token(k), c->load_cls[k]);
	json__object_end(j);
	json__double(j, "mean_load_latency", c->lat_n ? mean(c->lat_load, c->lat_n) : NAN);
}

static void json_set(struct json *j, const char *key, const struct c2c_set *s)
{
	const __u32 *v = c2c_set__values(s);
	int i;

	json__array_begin(j, key);
	for (i = 0; i < s->n; i++)
		json__u64(j, NULL, v[i]);
	json__array_end(j);
}

static void json_nodes(struct json *j, __u64 mask)
{
	int i;

	json__array_begin(j, "nodes");
	for (i = 0; i < 64; i++)
		if (mask & (1ull << i))
			json__u64(j, NULL, i);
	json__array_end(j);
}

static void json_render(FILE *f, const struct c2c_report *v)
{
	const struct c2c_table *t = v->t;
	__u64 hitm = total_hitm(v), why[DATATYPE_NWHY];
	struct json j;
	int i, k, nshown = 0;

	json__init(&j, f);
	json__object_begin(&j, NULL);
	json__string(&j, "tool", "ldlat-c2c");
	json__string(&j, "target", v->target);
	json__string(&j, "events", v->events);
	json__u64(&j, "line_size", 1u << t->line_shift);
	json__string(&j, "line_size_from", v->line_from ? v->line_from : "the default");
	json__u64(&j, "lines", t->nlines);
	json__object_begin(&j, "total");
	json_counts(&j, &t->total);
	json__object_end(&j);
	json__object_begin(&j, "not_counted");
	json__u64(&j, "lost", v->lost);
	json__u64(&j, "no_address", t->no_addr);
	json__u64(&j, "not_load_or_store", t->other);
	json__u64(&j, "filtered", v->filtered);
	json__u64(&j, "other_events", v->other);
	json__u64(&j, "malformed", v->malformed);
	json__u64(&j, "unknown_event", v->unknown_id);
	json__u64(&j, "out_of_memory", t->nomem);
	if (v->live) {
		static const char *const names[] = { "lines", "line_entries", "threads" };
		int k2;

		json__object_begin(&j, "table_full");
		for (k2 = 0; k2 < LDLAT_C2C_TABLES; k2++)
			json__u64(&j, names[k2], v->full[k2]);
		json__object_end(&j);
		json__object_begin(&j, "update_failed");
		for (k2 = 0; k2 < LDLAT_C2C_TABLES; k2++)
			json__u64(&j, names[k2], v->failed[k2]);
		json__object_end(&j);
	}
	json__object_end(&j);
	if (v->by != C2C_BY_LINE) {
		numa_json(&j, v);
		json__object_end(&j);
		json__end_line(&j);
		return;
	}
	typed_samples(t, why);
	typedata__why_json(&j, why);
	json__bool(&j, "all_lines", v->all);
	json__array_begin(&j, "shared_lines");
	for (i = 0; i < t->nlines; i++) {
		const struct c2c_line *l = t->lines[i];

		if (!shown(v, l))
			continue;
		if (v->nrows && nshown >= v->nrows)
			break;
		json__object_begin(&j, NULL);
		json__u64(&j, "index", nshown++);
		json__u64(&j, "address", l->vaddr);
		if (l->object) {
			json__string(&j, "object", l->object);
			json__u64(&j, "object_offset", l->addr);
		} else {
			json__u64(&j, "pid", l->tgid);
		}
		json__double(&j, "hitm_share", pct(ldlat_c2c_hitm(&l->c), hitm) / 100.0);
		json_counts(&j, &l->c);
		json_set(&j, "threads", &l->tids);
		json_set(&j, "processes", &l->tgids);
		json_set(&j, "cpus", &l->cpus);
		json_nodes(&j, l->nodes);
		json__array_begin(&j, "pareto");
		for (k = 0; k < l->nent; k++) {
			const struct c2c_entry *e = &l->ent[k];

			json__object_begin(&j, NULL);
			json__u64(&j, "offset", e->offset);
			json__u64(&j, "ip", e->ip);
			json__u64(&j, "pid", e->tgid);
			json__string(&j, "symbol", e->symbol ? e->symbol : "");
			json__string(&j, "dso", e->object ? e->object : "");
			/* its data: the keys of ldlat-top's type rows */
			json__object_begin(&j, "data");
			typedata__json(&j, entry_type(e), NULL);
			json__object_end(&j);
			json_counts(&j, &e->c);
			json_set(&j, "cpus", &e->cpus);
			if (e->tids_known)
				json_set(&j, "threads", &e->tids);
			else
				json__null(&j, "threads");
			json_nodes(&j, e->nodes);
			json__object_end(&j);
		}
		json__array_end(&j);
		json__object_end(&j);
	}
	json__array_end(&j);
	json__object_end(&j);
	json__end_line(&j);
}

static void c2c_text(FILE *f, const void *report)
{
	text_render(f, report);
}

static void c2c_json(FILE *f, const void *report)
{
	json_render(f, report);
}

const struct output_formats c2c_formats = { "ldlat-c2c", .text = c2c_text, .json = c2c_json,
					    .lacks = OUTPUT_TOTALS, .why_not = "use text or json" };
