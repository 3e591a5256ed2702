// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "user/top/topreport.h"
#include "user/report/json.h"
#include "user/report/render.h"
#include "user/report/table.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/util.h"

static void top_row__free(struct top_row *r)
{
	free(r->name);
	free(r->where);
}

void top_rows__free(struct top_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		top_row__free(&rows->r[i]);
	free(rows->r);
	memset(rows, 0, sizeof(*rows));
}

static int row__cmp_key(const struct top_row *a, const struct top_row *b, bool offset)
{
	int c = strcmp(a->name, b->name);

	if (!c)
		c = strcmp(a->where, b->where);
	if (!c && a->kernel != b->kernel)
		c = a->kernel ? 1 : -1;
	if (!c && offset && a->offset != b->offset)
		c = a->offset < b->offset ? -1 : 1;
	return c;
}

static int row__cmp_block(const void *a, const void *b)
{
	return row__cmp_key(a, b, true);
}

static int row__cmp_object(const void *a, const void *b)
{
	return row__cmp_key(a, b, false);
}

/*
 * Sorts by key and folds equal keys into one row; with blocks, a row counts
 * the rows it folds and keeps the offset of the one with most samples.
 */
static void top_rows__fold(struct top_rows *rows, bool offset, bool blocks)
{
	size_t i, k = 0;
	struct top_row *dst;

	if (rows->n) /* no rows: r may be NULL, which qsort may not be given */
		qsort(rows->r, rows->n, sizeof(*rows->r),
		      offset ? row__cmp_block : row__cmp_object);
	for (i = 0; i < rows->n; i++) {
		struct top_row *r = &rows->r[i];

		if (blocks) {
			r->blocks = 1;
			r->hot = r->v.count;
		}
		if (k && !row__cmp_key(&rows->r[k - 1], r, offset)) {
			dst = &rows->r[k - 1];
			top_val__add(&dst->v, &r->v);
			if (blocks) {
				dst->blocks++;
				if (r->hot > dst->hot) {
					dst->hot = r->hot;
					dst->offset = r->offset;
				}
			}
			top_row__free(r);
			continue;
		}
		rows->r[k++] = *r;
	}
	rows->n = k;
}

typedef void (*resolve_fn)(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len,
			   struct sym *out);

static void resolve_ip(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len, struct sym *out)
{
	(void)len;
	symbolizer__ip(z, tgid, addr, out);
}

/* One row per table entry, named. */
static int top_rows__resolve(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			     resolve_fn resolve, __u64 len)
{
	struct sym s;
	size_t i;

	memset(rows, 0, sizeof(*rows));
	rows->r = calloc(t->n ? t->n : 1, sizeof(*rows->r));
	if (!rows->r)
		return -ENOMEM;
	symbolizer__begin(z);
	for (i = 0; i < t->n; i++) {
		struct top_row *r = &rows->r[rows->n];

		resolve(z, t->e[i].tgid, t->e[i].addr, len, &s);
		r->name = strdup(s.name);
		r->where = strdup(s.where);
		if (!r->name || !r->where) {
			top_row__free(r);
			top_rows__free(rows);
			return -ENOMEM;
		}
		r->kind = s.kind;
		r->kernel = s.kernel;
		r->offset = s.offset;
		r->v = t->e[i].v;
		rows->n++;
		rows->total += r->v.count;
	}
	rows->full = t->full;
	rows->failed = t->failed;
	rows->total += t->full + t->failed;
	return 0;
}

int top_rows__ip(struct top_rows *rows, const struct top_table *t, struct symbolizer *z)
{
	int e = top_rows__resolve(rows, t, z, resolve_ip, 1);

	if (!e)
		top_rows__fold(rows, false, false);
	return e;
}

int top_rows__data(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
		   __u32 shift, enum top_data_by by)
{
	int e = top_rows__resolve(rows, t, z, symbolizer__data, 1ull << shift);

	if (e)
		return e;
	/* the same block of two processes of one program is one block */
	top_rows__fold(rows, true, false);
	if (by == TOP_DATA_OBJECT)
		top_rows__fold(rows, false, true);
	else
		for (size_t i = 0; i < rows->n; i++)
			rows->r[i].blocks = 1;
	return 0;
}

static double row__mean(const struct top_row *r)
{
	return r->v.count ? (double)r->v.lat_sum / (double)r->v.count : 0;
}

static int row__cmp_sort(const void *a, const void *b, void *arg)
{
	const struct top_row *x = a, *y = b;
	enum top_sort sort = *(const enum top_sort *)arg;
	double mx = row__mean(x), my = row__mean(y);

	if (sort == TOP_SORT_LATENCY && mx != my)
		return mx > my ? -1 : 1;
	if (sort == TOP_SORT_TOTAL && x->v.lat_sum != y->v.lat_sum)
		return x->v.lat_sum > y->v.lat_sum ? -1 : 1;
	if (x->v.count != y->v.count)
		return x->v.count > y->v.count ? -1 : 1;
	return row__cmp_key(x, y, true);
}

void top_rows__sort(struct top_rows *rows, enum top_sort sort)
{
	if (rows->n) /* no rows: r may be NULL, which qsort_r may not be given */
		qsort_r(rows->r, rows->n, sizeof(*rows->r), row__cmp_sort, &sort);
}

/* ---- text ---------------------------------------------------------------- */

static double percent(__u64 n, __u64 total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

/* "L3 hit", or "L3 hit 62%" when other classes share the row. */
static void row__source(const struct top_report *r, const struct top_row *row, char *buf,
			size_t len)
{
	unsigned int c = top_val__dominant(&row->v);

	if (!r->has_latency) {
		snprintf(buf, len, "-");
		return;
	}
	if (row->v.cls[c] == row->v.count)
		snprintf(buf, len, "%s", class__name(c));
	else
		snprintf(buf, len, "%s %.0f%%", class__name(c),
			 percent(row->v.cls[c], row->v.count));
}

static void row__latency(const struct top_report *r, const struct top_row *row, char *mean,
			 char *max, size_t len)
{
	if (!r->has_latency) {
		snprintf(mean, len, "-");
		snprintf(max, len, "-");
		return;
	}
	snprintf(mean, len, "%.0f", row__mean(row));
	snprintf(max, len, "%llu", (unsigned long long)row->v.lat_max);
}

static void offset__text(__s64 off, char *buf, size_t len)
{
	if (off < 0)
		snprintf(buf, len, "-0x%llx", (unsigned long long)-off);
	else
		snprintf(buf, len, "+0x%llx", (unsigned long long)off);
}

static void rows__not_attributed(FILE *out, const struct top_rows *rows)
{
	if (rows->full)
		fprintf(out, "%llu samples not attributed: table full, raise --entries\n",
			(unsigned long long)rows->full);
	if (rows->failed)
		fprintf(out,
			"%llu samples not attributed: the kernel could not update the table "
			"(bucket busy in NMI)\n",
			(unsigned long long)rows->failed);
}

/* The columns both tables begin with; row__cells writes their cells. */
// clang-format off
#define TOP_COMMON_COLUMNS \
	{ .header = "samples", .width = 10, .align = TABLE_RIGHT }, \
	{ .header = "percent", .width = 7, .align = TABLE_RIGHT, .sep = "  " }, \
	{ .header = "mean lat", .width = 8, .align = TABLE_RIGHT, .sep = "  " }, \
	{ .header = "max lat", .width = 8, .align = TABLE_RIGHT, .sep = "  " }, \
	{ .header = "source", .width = 22, .align = TABLE_LEFT, .sep = "  " }
// clang-format on

static const struct table_column ip_columns[] = {
	TOP_COMMON_COLUMNS,
	{ .header = "function", .width = 40, .align = TABLE_LEFT, .sep = " " },
	{ .header = "DSO", .align = TABLE_LEFT, .sep = " " },
};
static const struct table ip_table = { ip_columns, ARRAY_SIZE(ip_columns) };

/* samples, percent, mean and max latency, source */
static void row__cells(struct table_row *tr, const struct top_report *r, const struct top_row *row,
		       const struct top_rows *rows)
{
	char mean[32], max[32], src[64];

	row__latency(r, row, mean, max, sizeof(mean));
	row__source(r, row, src, sizeof(src));
	table__cell(tr, "%llu", (unsigned long long)row->v.count);
	table__cell(tr, "%.2f%%", percent(row->v.count, rows->total));
	table__cell(tr, "%s", mean);
	table__cell(tr, "%s", max);
	table__cell(tr, "%s", src);
}

/* The rows past --rows, summed: their samples and share, then how many (from the third column). */
static void rows__more(FILE *out, const struct table *t, const struct top_rows *rows, size_t shown)
{
	struct table_row tr;
	__u64 rest = 0;
	size_t i;

	if (shown >= rows->n)
		return;
	for (i = shown; i < rows->n; i++)
		rest += rows->r[i].v.count;
	table__row_begin(&tr, out, t);
	table__cell(&tr, "%llu", (unsigned long long)rest);
	table__cell(&tr, "%.2f%%", percent(rest, rows->total));
	table__cell(&tr, "... %zu more rows", rows->n - shown);
	table__row_end(&tr);
}

static void render_ip_text(FILE *out, const struct top_report *r, const struct top_rows *rows)
{
	char func[300];
	size_t i, n = r->nrows < 0 || (size_t)r->nrows > rows->n ? rows->n : (size_t)r->nrows;
	struct table_row tr;

	fprintf(out, "code: %llu samples, by function\n", (unsigned long long)rows->total);
	table__header(out, &ip_table);
	for (i = 0; i < n; i++) {
		const struct top_row *row = &rows->r[i];

		snprintf(func, sizeof(func), "[%c] %s", row->kernel ? 'k' : '.', row->name);
		table__row_begin(&tr, out, &ip_table);
		row__cells(&tr, r, row, rows);
		table__cell(&tr, "%s", func);
		table__cell(&tr, "%s", dso__short_name(row->where));
		table__row_end(&tr);
	}
	rows__more(out, &ip_table, rows, n);
	rows__not_attributed(out, rows);
}

static void render_data_text(FILE *out, const struct top_report *r, const struct top_rows *rows)
{
	const char *unit = r->shift == 12 ? "pages" : r->shift == 6 ? "lines" : "blocks";
	char off[32];
	size_t i, n = r->nrows < 0 || (size_t)r->nrows > rows->n ? rows->n : (size_t)r->nrows;
	bool by_object = r->data_by == TOP_DATA_OBJECT;
	const struct table_column cols[] = {
		TOP_COMMON_COLUMNS,
		/* by object: how many blocks the object's samples touched, and the hottest */
		{ .header = by_object ? unit : "", .width = 6, .align = TABLE_RIGHT, .sep = " " },
		{ .header = by_object ? "hottest" : "offset",
		  .width = 10,
		  .align = TABLE_LEFT,
		  .sep = " " },
		{ .header = "variable or mapping", .width = 32, .align = TABLE_LEFT, .sep = " " },
		{ .header = "in", .align = TABLE_LEFT, .sep = " " },
	};
	const struct table t = { cols, ARRAY_SIZE(cols) };
	struct table_row tr;

	fprintf(out, "data: %llu samples, by %s (%llu-byte %s)\n", (unsigned long long)rows->total,
		by_object ? "variable or mapping" : "block", 1ull << r->shift, unit);
	table__header(out, &t);
	for (i = 0; i < n; i++) {
		const struct top_row *row = &rows->r[i];

		if (row->kind == SYM_UNKNOWN || row->kind == SYM_EXITED)
			snprintf(off, sizeof(off), "-");
		else
			offset__text(row->offset, off, sizeof(off));
		table__row_begin(&tr, out, &t);
		row__cells(&tr, r, row, rows);
		if (by_object)
			table__cell(&tr, "%llu", (unsigned long long)row->blocks);
		else
			table__cell(&tr, "%s", "");
		table__cell(&tr, "%s", off);
		table__cell(&tr, "%s", row->name);
		table__cell(&tr, "%s", dso__short_name(row->where));
		table__row_end(&tr);
	}
	rows__more(out, &t, rows, n);
	rows__not_attributed(out, rows);
}

void top_render_text(FILE *out, const struct top_report *r, const struct top_rows *ip,
		     const struct top_rows *data, const struct snapshot *s)
{
	char when[32];
	struct tm tm;

	if (r->clear)
		fputs("\033[H\033[2J", out);
	if (r->intervals) {
		localtime_r(&s->taken.tv_sec, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		fprintf(out, "%s\n", when);
	}
	if (r->by & TOP_BY_IP)
		render_ip_text(out, r, ip);
	if (r->by == TOP_BY_BOTH)
		fputc('\n', out);
	if (r->by & TOP_BY_DATA)
		render_data_text(out, r, data);
	if (!r->has_latency)
		fprintf(out, "%s samples carry no latency or data source: counts only.\n",
			r->src && r->src->kind == SOURCE_PAGE_FAULTS ? "page-fault" : "these");
	render_counters(out, s, r->run ? r->run->cfg : NULL);
}

/* ---- JSON ---------------------------------------------------------------- */

static void row__json_common(struct json *j, const struct top_report *r, const struct top_row *row,
			     const struct top_rows *rows)
{
	unsigned int c;

	json__u64(j, "samples", row->v.count);
	json__double(j, "percent", percent(row->v.count, rows->total));
	if (r->has_latency) {
		json__double(j, "mean_latency", row__mean(row));
		json__u64(j, "max_latency", row->v.lat_max);
		json__u64(j, "latency_sum", row->v.lat_sum);
		json__string(j, "source", class__token(top_val__dominant(&row->v)));
		json__object_begin(j, "sources");
		for (c = 0; c < LDLAT_NCLASS; c++)
			if (row->v.cls[c])
				json__u64(j, class__token(c), row->v.cls[c]);
		json__object_end(j);
	} else {
		json__null(j, "mean_latency");
		json__null(j, "max_latency");
		json__null(j, "source");
	}
}

static const char *kind__name(enum sym_kind k, bool data)
{
	switch (k) {
	case SYM_RESOLVED:
		return data ? "variable" : "function";
	case SYM_MAPPING:
		return data ? "mapping" : "no symbol";
	case SYM_EXITED:
		return "exited";
	default:
		return "unknown";
	}
}

static void rows__json(struct json *j, const char *key, const struct top_report *r,
		       const struct top_rows *rows, bool data)
{
	size_t i, n = r->nrows < 0 || (size_t)r->nrows > rows->n ? rows->n : (size_t)r->nrows;

	json__object_begin(j, key);
	json__u64(j, "samples", rows->total);
	json__object_begin(j, "not_attributed");
	json__u64(j, "table_full", rows->full);
	json__u64(j, "update_failed", rows->failed);
	json__object_end(j);
	json__u64(j, "rows_total", rows->n);
	json__array_begin(j, "rows");
	for (i = 0; i < n; i++) {
		const struct top_row *row = &rows->r[i];

		json__object_begin(j, NULL);
		row__json_common(j, r, row, rows);
		json__string(j, data ? "object" : "function", row->name);
		json__string(j, "kind", kind__name(row->kind, data));
		json__bool(j, "kernel", row->kernel);
		if (data) {
			if (row->kind == SYM_RESOLVED || row->kind == SYM_MAPPING)
				json__i64(j,
					  r->data_by == TOP_DATA_OBJECT ? "hottest_offset"
									: "offset",
					  row->offset);
			json__u64(j, "blocks", row->blocks);
			json__string(j, "in", row->where);
		} else {
			json__string(j, "dso", row->where);
		}
		json__object_end(j);
	}
	json__array_end(j);
	json__object_end(j);
}

void top_render_json(FILE *out, const struct top_report *r, const struct top_rows *ip,
		     const struct top_rows *data, const struct snapshot *s)
{
	struct json j;

	json__init(&j, out);
	json__object_begin(&j, NULL);
	render_json_run(&j, r->run, r->src, s);
	json__bool(&j, "latency", r->has_latency);
	json__u64(&j, "block_bytes", 1ull << r->shift);
	if (r->by & TOP_BY_IP)
		rows__json(&j, "code", r, ip, false);
	if (r->by & TOP_BY_DATA)
		rows__json(&j, "data", r, data, true);
	render_json_counters(&j, s);
	json__object_end(&j);
	json__end_line(&j);
}
