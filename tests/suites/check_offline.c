// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_offline - the perf.data reader and ldlat-hist --input.
 *
 * - reader: files written by tests/lib/perfwrite.c in every sample layout, in
 *   the file and the pipe format, read back field by field, and read by
 *   perf script too (two readers, one file); bad files of every kind.
 * - cli: live-only options refused; bad files named; no privilege needed;
 *   samples of every data-source class whose class counts and histograms
 *   must match what perf script decodes from the same file.
 * - recorded (root): files Debian's perf records on this machine
 *   (perf record -e page-faults -c 1 -d, with the options that change the
 *   sample layout): per-range counts equal perf script -F addr's; the same
 *   workload sampled live and recorded by perf at once gives the same output.
 * - bpf (root): synthetic samples through the BPF program's test entry and,
 *   written to a perf.data file, through --input: the same counters and
 *   histograms.
 */
#include <argp.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/ldlat.h"
#include "kernel/abi/datasrc.h"
#include "kernel/abi/perfdata.h"
#include "user/run/cli.h"
#include "user/offline/offline.h"
#include "user/report/render.h"
#include "user/run/session.h"
#include "user/report/snapshot.h"
#include "tests/lib/datasrc_cases.h"
#include "tests/lib/perfwrite.h"
#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

#define BASE	   "0x200000000000"
#define BASE_RANGE BASE "+16M"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	ck_assert_int_eq(fread(buf, 1, n, f), n);
	buf[n] = '\0'; /* for the callers that read it as text */
	fclose(f);
	*len = n;
	return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "we");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static void write_layout(const char *path, int layout, int n, bool pipe)
{
	ck_assert_int_eq(pw_write_layout(path, layout, n, pipe), 0);
}

static void open_file(struct perf_file *f, const char *path)
{
	struct err err = {};

	ck_assert_msg(perf_file__open(f, path, &err) == 0, "%s", err.msg);
}

/*
 * The last n (1 or 2) words of a perf script line: weight (decimal) and
 * phys_addr (hex) follow data_src's decode, whose words vary.
 */
static int last_words(const char *line, int n, unsigned long long *a, unsigned long long *b)
{
	const char *end = line + strlen(line), *p = end;
	const char *w[2];
	int k;

	for (k = 0; k < n; k++) {
		while (p > line && p[-1] == ' ')
			p--;
		while (p > line && p[-1] != ' ')
			p--;
		w[n - 1 - k] = p;
	}
	if (sscanf(w[0], "%llu", a) != 1)
		return 0;
	return n == 1 ? 1 : 1 + (sscanf(w[1], "%llx", b) == 1);
}

/* ---- reader: every layout, field by field --------------------------------- */

static void check_sample(const struct perf_file *f, const struct perf_sample *p, int layout, int i)
{
	const struct perf_file_event *ev = &f->events[p->event];
	const struct perf_event_attr *a = &ev->attr;
	struct pw_sample w;
	__u64 t = a->sample_type, k;

	pw_layout_sample(&w, layout, i);
	ck_assert_int_eq(p->event, 0);
	ck_assert_uint_eq(p->type, t);
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		ck_assert_uint_eq(p->id, 100);
	if (t & PERF_SAMPLE_IP)
		ck_assert_uint_eq(p->ip, w.ip);
	if (t & PERF_SAMPLE_TID) {
		ck_assert_uint_eq(p->pid, w.pid);
		ck_assert_uint_eq(p->tid, w.tid);
	}
	if (t & PERF_SAMPLE_TIME)
		ck_assert_uint_eq(p->time, w.time);
	ck_assert_uint_eq(p->addr, w.addr);
	if (t & PERF_SAMPLE_STREAM_ID)
		ck_assert_uint_eq(p->stream_id, w.stream_id);
	if (t & PERF_SAMPLE_CPU)
		ck_assert_uint_eq(p->cpu, w.cpu);
	if (t & PERF_SAMPLE_PERIOD)
		ck_assert_uint_eq(p->period, w.period);
	if (t & PERF_SAMPLE_READ) {
		if (a->read_format & PERF_FORMAT_GROUP) {
			/* nr, time_enabled, then {value, id, lost} per member */
			ck_assert_uint_eq(p->read_size, 8 * (2 + 3 * w.group_nr));
			ck_assert_uint_eq(perf_u64(p->read, 0), w.group_nr);
			ck_assert_uint_eq(perf_u64(p->read, 1), w.time_enabled);
			ck_assert_uint_eq(perf_u64(p->read, 2), w.group_value[0]);
			ck_assert_uint_eq(perf_u64(p->read, 3), 100);
			ck_assert_uint_eq(perf_u64(p->read, 5), w.group_value[1]);
			ck_assert_uint_eq(perf_u64(p->read, 6), 200);
		} else {
			ck_assert_uint_eq(p->read_size, 8 * 5);
			ck_assert_uint_eq(perf_u64(p->read, 0), w.read_value);
			ck_assert_uint_eq(perf_u64(p->read, 2), w.time_running);
			ck_assert_uint_eq(perf_u64(p->read, 4), w.read_lost);
		}
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		ck_assert_uint_eq(p->callchain_nr, w.callchain_nr);
		for (k = 0; k < p->callchain_nr; k++)
			ck_assert_uint_eq(perf_u64(p->callchain, k), w.callchain[k]);
	}
	if (t & PERF_SAMPLE_RAW) {
		ck_assert_uint_eq(p->raw_size, w.raw_size);
		ck_assert_mem_eq(p->raw, w.raw, w.raw_size);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		ck_assert_uint_eq(p->branch_nr, w.branch_nr);
		ck_assert_int_eq(p->branch_has_hw_idx, ev->branch_hw_idx && !w.branch_no_hw_idx);
		if (p->branch_has_hw_idx)
			ck_assert_uint_eq(p->branch_hw_idx, w.hw_idx);
		for (k = 0; k < p->branch_nr; k++) {
			ck_assert_uint_eq(perf_u64(p->branch_entries, 3 * k), w.branch[k].from);
			ck_assert_uint_eq(perf_u64(p->branch_entries, 3 * k + 1), w.branch[k].to);
		}
		ck_assert_int_eq(p->branch_counters != NULL, layout == PW_BRANCH_COUNTERS);
		for (k = 0; p->branch_counters && k < p->branch_nr; k++)
			ck_assert_uint_eq(perf_u64(p->branch_counters, k), w.branch_cntr[k]);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		ck_assert_uint_eq(p->regs_user_abi, w.regs_user_abi);
		ck_assert_int_eq(p->regs_user != NULL,
				 w.regs_user_abi != PERF_SAMPLE_REGS_ABI_NONE);
		for (k = 0; p->regs_user && k < ev->nregs_user; k++)
			ck_assert_uint_eq(perf_u64(p->regs_user, k), w.regs_user[k]);
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		ck_assert_uint_eq(p->stack_user_size, w.stack_size);
		if (w.stack_size) {
			ck_assert_mem_eq(p->stack_user, w.stack, w.stack_size);
			ck_assert_uint_eq(p->stack_user_dyn_size, w.stack_dyn_size);
		}
	}
	if (t & PERF_SAMPLE_WEIGHT_TYPE) {
		ck_assert_uint_eq(p->weight, w.weight);
		ck_assert_uint_eq(perf_sample__latency(p), (t & PERF_SAMPLE_WEIGHT_STRUCT)
								   ? (w.weight & 0xffffffff)
								   : w.weight);
	}
	if (t & PERF_SAMPLE_DATA_SRC)
		ck_assert_uint_eq(p->data_src, w.data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		ck_assert_uint_eq(p->transaction, w.transaction);
	if (t & PERF_SAMPLE_REGS_INTR) {
		ck_assert_uint_eq(p->regs_intr_abi, w.regs_intr_abi);
		ck_assert_uint_eq(perf_u64(p->regs_intr, 1), w.regs_intr[1]);
	}
	if (t & PERF_SAMPLE_PHYS_ADDR)
		ck_assert_uint_eq(p->phys_addr, w.phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		ck_assert_uint_eq(p->cgroup, w.cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		ck_assert_uint_eq(p->data_page_size, w.data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		ck_assert_uint_eq(p->code_page_size, w.code_page_size);
	if (t & PERF_SAMPLE_AUX) {
		ck_assert_uint_eq(p->aux_size, w.aux_size);
		ck_assert_mem_eq(p->aux, w.aux, w.aux_size);
	}
}

/* The records around the samples: COMM, MMAP2, FORK, EXIT and their sample_id trailers. */
static void check_other_record(const struct perf_file *f, const struct perf_record *r, int *seen)
{
	struct perf_mmap_event m;
	struct perf_comm_event c;
	struct perf_task_event t;
	bool trailer = f->events[0].attr.sample_id_all;

	switch (r->type) {
	case PERF_RECORD_COMM:
		ck_assert_int_eq(perf_file__parse_comm(f, r, &c), 0);
		ck_assert_str_eq(c.comm, "layout-test");
		ck_assert_uint_eq(c.pid, 100);
		ck_assert(c.exec);
		ck_assert_int_eq(c.sid.event, trailer ? 0 : -1);
		if (trailer && (f->events[0].attr.sample_type & PERF_SAMPLE_TIME))
			ck_assert_uint_eq(c.sid.time, 500);
		break;
	case PERF_RECORD_MMAP2:
		ck_assert_int_eq(perf_file__parse_mmap(f, r, &m), 0);
		ck_assert_str_eq(m.filename, "/usr/bin/layout-test");
		ck_assert_uint_eq(m.start, 0x400000);
		ck_assert_uint_eq(m.len, 0x10000);
		ck_assert_uint_eq(m.pgoff, 0x1000);
		ck_assert_uint_eq(m.ino, 4242);
		ck_assert_uint_eq(m.prot, 5);
		ck_assert(m.mmap2 && !m.has_build_id);
		if (trailer && (f->events[0].attr.sample_type & PERF_SAMPLE_TID))
			ck_assert_uint_eq(m.sid.pid, 100);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		ck_assert_int_eq(perf_file__parse_task(f, r, &t), 0);
		ck_assert_uint_eq(t.pid, 101);
		ck_assert_uint_eq(t.ppid, 100);
		ck_assert_uint_eq(t.time, r->type == PERF_RECORD_FORK ? 700 : 900);
		ck_assert_int_eq(t.exit, r->type == PERF_RECORD_EXIT);
		break;
	default:
		return;
	}
	(*seen)++;
}

static void read_layout(const char *path, int layout, int n)
{
	struct perf_file f;
	struct perf_cursor c;
	struct perf_record r;
	struct perf_sample p;
	struct perf_file_stats st = {};
	struct err err = {};
	int i = 0, others = 0, e;

	open_file(&f, path);
	perf_file__rewind(&f, &c);
	while ((e = perf_file__next(&f, &c, &r, &st, &err)) > 0) {
		if (r.type == PERF_RECORD_SAMPLE) {
			ck_assert_msg(perf_file__parse_sample(&f, &r, &p) == 0,
				      "layout %d sample %d", layout, i);
			check_sample(&f, &p, layout, i++);
		} else {
			check_other_record(&f, &r, &others);
		}
	}
	ck_assert_msg(e == 0, "%s", err.msg);
	ck_assert_int_eq(i, n);
	ck_assert_int_eq(others, 4);
	ck_assert_uint_eq(st.unknown_types, 0);
	ck_assert_str_eq(f.events[0].name, layout == PW_EVERY_FIELD	  ? "every-field"
					   : layout == PW_BRANCH_COUNTERS ? "branch-counters"
					   : layout == PW_GROUP_READ	  ? "group-read"
					   : layout == PW_EMPTY_BRANCH	  ? "empty-branch"
									  : "page-faults");
	/* the pipe format's come in HEADER_FEATURE records */
	ck_assert_str_eq(f.hostname, "ldlat-test");
	ck_assert_str_eq(f.osrelease, "6.1.0-test");
	ck_assert_str_eq(f.arch, "x86_64");
	perf_file__close(&f);
}

START_TEST(test_layout_roundtrip)
{
	int layout = _i / 2;
	bool pipe = _i % 2;
	const char *path = tmp(pipe ? "layout-pipe.data" : "layout.data");

	write_layout(path, layout, 60, pipe);
	read_layout(path, layout, 60);
}
END_TEST

/*
 * perf script reads the same files: its addr, weight, data_src and
 * phys_addr (the fields after every variable part) equal ours, sample by
 * sample.  A group read makes perf script print each sample once per member:
 * only the leader's lines count.
 */
START_TEST(test_layout_vs_perf_script)
{
	int layout = _i;
	const char *path = tmp("perf-script.data");
	char *argv[] = { "perf",       "script", "-i",
			 (char *)path, "-F",	 "event,addr,weight,data_src,phys_addr",
			 NULL };
	char *out, *err, *line, *save = NULL, evname[64];
	struct perf_file f;
	struct perf_cursor c;
	struct perf_record r;
	struct perf_sample p;
	unsigned long long addr, weight, ds, phys;
	struct err errbuf = {};
	int n = 0;

	if (!PW_PERF_READS(layout))
		return;
	if (layout == PW_ADDR_ONLY)
		argv[5] = "event,addr";
	write_layout(path, layout, 40, false);
	ck_assert_msg(run(argv, 60, &out, &err) == 0, "perf script: %s", err);
	open_file(&f, path);
	perf_file__rewind(&f, &c);
	line = strtok_r(out, "\n", &save);
	while (perf_file__next(&f, &c, &r, NULL, &errbuf) > 0) {
		if (r.type != PERF_RECORD_SAMPLE)
			continue;
		ck_assert_int_eq(perf_file__parse_sample(&f, &r, &p), 0);
		while (line && strncmp(line + strspn(line, " "), f.events[0].name,
				       strlen(f.events[0].name)))
			line = strtok_r(NULL, "\n", &save);
		ck_assert_msg(line != NULL, "perf script printed fewer samples than %d", n + 1);
		weight = ds = phys = 0;
		ck_assert_int_ge(sscanf(line, " %63[^:]: %llx %llx", evname, &addr, &ds), 2);
		ck_assert_uint_eq(addr, p.addr);
		if (layout != PW_ADDR_ONLY) {
			/* data_src's decode, then weight and phys_addr: the last two words */
			ck_assert_int_eq(last_words(line, 2, &weight, &phys), 2);
			ck_assert_uint_eq(ds, p.data_src);
			ck_assert_msg(weight == perf_sample__latency(&p),
				      "sample %d: perf's weight %llu, ours %llu", n, weight,
				      (unsigned long long)perf_sample__latency(&p));
			ck_assert_uint_eq(phys, p.phys_addr);
		}
		line = strtok_r(NULL, "\n", &save);
		n++;
	}
	ck_assert_int_eq(n, 40);
	perf_file__close(&f);
	free(out);
	free(err);
}
END_TEST

/* Two events: names from HEADER_EVENT_DESC, samples attributed by ID; an unknown ID is skipped. */
START_TEST(test_events_and_ids)
{
	const char *path = tmp("two-events.data");
	struct pw_event ev[2];
	struct pw_sample s = {};
	struct perf_file f;
	struct perf_cursor c;
	struct perf_record r;
	struct perf_sample p;
	struct pw w;
	struct err err = {};
	int count[2] = { 0 }, unknown = 0, e, i;

	pw_mem_loads_event(&ev[0], 100);
	pw_mem_loads_event(&ev[1], 200);
	ev[1].name = "cpu/mem-stores/P";
	ev[1].attr.config = 0x82d0;
	ck_assert_int_eq(pw_open(&w, path, ev, 2, false), 0);
	for (i = 0; i < 30; i++) {
		s.addr = i;
		pw_sample(&w, i % 3 == 0, &s);
	}
	/* a sample whose IDENTIFIER names no event */
	ev[1].ids[0] = 999;
	pw_sample(&w, 1, &s);
	ev[1].ids[0] = 201; /* the event's second ID (another CPU) */
	pw_sample(&w, 1, &s);
	ck_assert_int_eq(pw_close(&w), 0);

	open_file(&f, path);
	ck_assert_int_eq(f.nevents, 2);
	ck_assert_str_eq(f.events[0].name, "cpu/mem-loads,ldlat=30/P");
	ck_assert_str_eq(f.events[1].name, "cpu/mem-stores/P");
	ck_assert_int_eq(perf_file__event_of_id(&f, 101), 0);
	ck_assert_int_eq(perf_file__event_of_id(&f, 201), 1);
	ck_assert_int_eq(perf_file__event_of_id(&f, 5), -1);
	perf_file__rewind(&f, &c);
	while ((e = perf_file__next(&f, &c, &r, NULL, &err)) > 0) {
		if (r.type != PERF_RECORD_SAMPLE)
			continue;
		e = perf_file__parse_sample(&f, &r, &p);
		if (e == -ENOENT)
			unknown++;
		else if (!e)
			count[p.event]++;
	}
	ck_assert_int_eq(count[0], 20);
	ck_assert_int_eq(count[1], 11);
	ck_assert_int_eq(unknown, 1);
	perf_file__close(&f);
}
END_TEST

/* Without feature sections, events are named from their attributes. */
START_TEST(test_no_features)
{
	const char *path = tmp("no-features.data");
	struct pw_event ev[2];
	struct pw w;
	struct perf_file f;

	pw_mem_loads_event(&ev[0], 100);
	pw_layout_event(&ev[1], PW_ADDR_ONLY, 200);
	ev[1].attr.sample_type = ev[0].attr.sample_type;
	ev[1].attr.sample_id_all = 1;
	ck_assert_int_eq(pw_open(&w, path, ev, 2, false), 0);
	w.no_features = true;
	ck_assert_int_eq(pw_close(&w), 0);
	open_file(&f, path);
	ck_assert_str_eq(f.events[0].name, "type 4 config 0x1cd");
	ck_assert_str_eq(f.events[1].name, "page-faults");
	ck_assert_ptr_null(f.hostname);
	perf_file__close(&f);
}
END_TEST

/* ---- reader: bad files ---------------------------------------------------- */

static char *good_file(size_t *len)
{
	const char *path = tmp("good.data");

	write_layout(path, PW_EVERY_FIELD, 6, false);
	return slurp(path, len);
}

/* Opens buf (a copy of exactly len bytes, so a read past it is a read past the file). */
static int open_copy(struct perf_file *f, const void *buf, size_t len, struct err *err, void **copy)
{
	*copy = malloc(len ? len : 1);
	memcpy(*copy, buf, len);
	return perf_file__open_mem(f, *copy, len, "bad.data", err);
}

/* Reads every record and sample; returns the iteration's end (0 or -EINVAL). */
static int drain(struct perf_file *f, struct perf_file_stats *st, __u64 *samples, __u64 *malformed,
		 struct err *err)
{
	struct perf_cursor c;
	struct perf_record r;
	struct perf_sample p;
	int e;

	*samples = *malformed = 0;
	perf_file__rewind(f, &c);
	while ((e = perf_file__next(f, &c, &r, st, err)) > 0) {
		if (r.type != PERF_RECORD_SAMPLE)
			continue;
		if (perf_file__parse_sample(f, &r, &p))
			(*malformed)++;
		else
			(*samples)++;
	}
	return e;
}

/* Cut at every byte: an error that says so, or (cut in the features) all samples. */
START_TEST(test_truncated_everywhere)
{
	struct perf_file f;
	struct perf_file_stats st;
	size_t len, cut;
	struct err err = {};
	char *buf = good_file(&len);
	__u64 data_end, n, bad;
	void *copy;
	int e;

	memcpy(&data_end, buf + 40, 8);
	memcpy(&n, buf + 48, 8);
	data_end += n;
	for (cut = 0; cut < len; cut++) {
		memset(&st, 0, sizeof(st));
		e = open_copy(&f, buf, cut, &err, &copy);
		if (cut < data_end) {
			ck_assert_msg(e == -EINVAL, "cut at %zu of %zu opened", cut, len);
			ck_assert_msg(strstr(err.msg, "bad.data") &&
					      (strstr(err.msg, "truncated") ||
					       strstr(err.msg, "too short") ||
					       strstr(err.msg, "cut short") ||
					       strstr(err.msg, "does not fit")),
				      "cut at %zu: %s", cut, err.msg);
		} else {
			ck_assert_msg(e == 0, "cut at %zu in the features: %s", cut, err.msg);
			ck_assert_int_eq(drain(&f, &st, &n, &bad, &err), 0);
			ck_assert_uint_eq(n, 6);
			perf_file__close(&f);
		}
		free(copy);
	}
	free(buf);
}
END_TEST

static void patch64(char *buf, size_t off, __u64 v)
{
	memcpy(buf + off, &v, 8);
}

static void patch32(char *buf, size_t off, __u32 v)
{
	memcpy(buf + off, &v, 4);
}

/* The offset of the n-th record of a type in the data section. */
static size_t record_at(const char *buf, __u32 type, int nth)
{
	__u64 off, end;
	struct perf_event_header h;

	memcpy(&off, buf + 40, 8);
	memcpy(&end, buf + 48, 8);
	end += off;
	while (off < end) {
		memcpy(&h, buf + off, sizeof(h));
		if (h.type == type && nth-- == 0)
			return off;
		off += h.size;
	}
	ck_abort_msg("no record of type %u", type);
	return 0;
}

static const struct {
	const char *what;
	const char *want; /* in the error; NULL: opens */
} header_cases[] = {
	{ "big-endian", "big-endian machine" },
	{ "version 1", "first file format" },
	{ "not perf", "not a perf.data file" },
	{ "header size", "header size 4096" },
	{ "attr section past the end", "does not fit in the file" },
	{ "attr entries too small", "does not fit in the file" },
	{ "no events", "has no events" },
	{ "attr size past its entry", "attribute of 4000 bytes" },
	{ "ids past the end", "lie outside the file" },
	{ "huge ids section", "lie outside the file" },
	{ "data past the end", "is truncated" },
	{ "unfinished", "not finished by perf record" },
	{ "compressed", "perf record -z" },
	{ "directory format", "perf record --threads" },
	{ "feature table past the end", NULL },
	{ "event desc count huge", NULL }, /* the first name is read, then the table ends */
	{ "event desc string huge", NULL },
};

START_TEST(test_bad_header)
{
	struct perf_file f;
	size_t len;
	struct err err = {};
	char *buf = good_file(&len);
	__u64 attrs, data_off, data_size;
	void *copy;
	int e;

	memcpy(&attrs, buf + 24, 8);
	memcpy(&data_off, buf + 40, 8);
	memcpy(&data_size, buf + 48, 8);
	switch (_i) {
	case 0:
		memcpy(buf, "2ELIFREP", 8);
		break;
	case 1:
		memcpy(buf, "PERFFILE", 8);
		break;
	case 2:
		memcpy(buf, "ELF\x7f....", 8);
		break;
	case 3:
		patch64(buf, 8, 4096);
		break;
	case 4:
		patch64(buf, 32, 1ull << 62);
		break;
	case 5:
		patch64(buf, 16, 8);
		break;
	case 6:
		patch64(buf, 32, 0);
		break;
	case 7:
		patch32(buf, attrs + 4, 4000);
		break;
	case 8:
		patch64(buf, attrs + sizeof(struct perf_event_attr), len + 8);
		break;
	case 9:
		patch64(buf, attrs + sizeof(struct perf_event_attr) + 8, ~0ull);
		break;
	case 10:
		patch64(buf, 48, len);
		break;
	case 11:
		patch64(buf, 48, 0);
		break;
	case 12:
		buf[72 + 27 / 8] |= 1 << (27 % 8);
		break;
	case 13:
		buf[72 + 24 / 8] |= 1 << (24 % 8);
		break;
	case 14:
		/* every feature bit: the section table runs out of the file */
		memset(buf + 72, 0xff, 32);
		buf[72] &= ~1;
		buf[72 + 3] &= ~(1 << 3 | 1 << 0); /* not COMPRESSED (27), DIR_FORMAT (24) */
		break;
	case 15:
	case 16: {
		/* the event desc body is the last feature: nr, or its name's length, huge */
		__u64 table = data_off + data_size, body, blen;

		memcpy(&body, buf + table + 4 * 16, 8);
		memcpy(&blen, buf + table + 4 * 16 + 8, 8);
		ck_assert_uint_eq(body + blen, len);
		if (_i == 15)
			patch32(buf, body, 0xffffffff);
		else
			patch32(buf, body + 8 + sizeof(struct perf_event_attr) + 4, 0xfffffff0);
		break;
	}
	}
	e = open_copy(&f, buf, len, &err, &copy);
	if (header_cases[_i].want) {
		ck_assert_msg(e == -EINVAL, "%s: opened", header_cases[_i].what);
		ck_assert_msg(strstr(err.msg, header_cases[_i].want) && strstr(err.msg, "bad.data"),
			      "%s: %s", header_cases[_i].what, err.msg);
	} else {
		ck_assert_msg(e == 0, "%s: %s", header_cases[_i].what, err.msg);
		/* names could not be read: the event is named from its attribute */
		ck_assert_str_eq(f.events[0].name,
				 _i == 15 ? "every-field" : "type 4 config 0x1cd");
		perf_file__close(&f);
	}
	free(copy);
	free(buf);
}
END_TEST

static const char *const record_cases[] = {
	"a record of 0 bytes",
	"runs past the end of the data section",
	"unknown type",
	"huge callchain",
	"huge branch stack",
	"huge raw size",
	"auxtrace payload",
	"auxtrace payload past the end",
	"unknown sample_type bit",
	"lost samples",
};

START_TEST(test_bad_records)
{
	struct perf_file f;
	struct perf_file_stats st = {};
	size_t len, s1 = 0;
	struct err err = {};
	char *buf = good_file(&len);
	__u64 n, bad;
	void *copy;
	int e;

	s1 = record_at(buf, PERF_RECORD_SAMPLE, 1);
	switch (_i) {
	case 0:
		patch32(buf, s1 + 4, 0); /* misc 0, size 0 */
		break;
	case 1:
		patch32(buf, s1 + 4, 0xfff80000); /* size 65528 */
		break;
	case 2:
		patch32(buf, s1, 200);
		break;
	case 3:
		/* every-field: identifier, ip, tid, time, addr, id, stream, cpu, period,
		 * read (5 words), then the callchain's nr */
		patch64(buf, s1 + 8 + 8 * 14, 1ull << 61);
		break;
	case 4: {
		__u64 nr;

		/* the branch stack's nr follows the callchain (nr 1: one ip) and raw (16) */
		memcpy(&nr, buf + s1 + 8 + 8 * 14, 8);
		ck_assert_uint_eq(nr, 1);
		patch64(buf, s1 + 8 + 8 * 16 + 16, 1ull << 59);
		break;
	}
	case 5:
		patch32(buf, s1 + 8 + 8 * 16, 0xfffffff0);
		break;
	case 6:
	case 7:
		/* the COMM record becomes an AUXTRACE (48 bytes) whose payload follows it */
		s1 = record_at(buf, PERF_RECORD_COMM, 0);
		patch32(buf, s1, PERF_RECORD_AUXTRACE);
		patch64(buf, s1 + 8, _i == 6 ? 0 : len);
		break;
	case 8: {
		__u64 attrs;

		memcpy(&attrs, buf + 24, 8);
		buf[attrs + offsetof(struct perf_event_attr, sample_type) + 3] |= 0x40;
		break;
	}
	case 9: {
		/* the COMM record becomes LOST_SAMPLES: 1234 lost */
		s1 = record_at(buf, PERF_RECORD_COMM, 0);
		patch32(buf, s1, 13);
		patch64(buf, s1 + 8, 1234);
		break;
	}
	}
	e = open_copy(&f, buf, len, &err, &copy);
	ck_assert_msg(e == 0, "%s: %s", record_cases[_i], err.msg);
	e = drain(&f, &st, &n, &bad, &err);
	switch (_i) {
	case 0:
		ck_assert_int_eq(e, -EINVAL);
		ck_assert_msg(strstr(err.msg, "a record of 0 bytes"), "%s", err.msg);
		ck_assert_uint_eq(n, 1); /* the sample before it */
		break;
	case 1:
	case 7:
		ck_assert_int_eq(e, -EINVAL);
		ck_assert_msg(strstr(err.msg, "run") &&
				      strstr(err.msg, "past the end of the data section"),
			      "%s", err.msg);
		break;
	case 2:
		ck_assert_int_eq(e, 0);
		ck_assert_uint_eq(st.unknown_types, 1);
		ck_assert_uint_eq(n, 5);
		break;
	case 3:
	case 4:
	case 5:
		ck_assert_int_eq(e, 0);
		ck_assert_uint_eq(bad, 1);
		ck_assert_uint_eq(n, 5);
		break;
	case 6:
		ck_assert_int_eq(e, 0);
		ck_assert_uint_eq(n, 6);
		break;
	case 8:
		ck_assert_int_eq(e, 0);
		ck_assert_msg(strstr(f.events[0].unparseable, "this build does not know"), "%s",
			      f.events[0].unparseable);
		ck_assert_uint_eq(n, 0);
		break;
	case 9:
		ck_assert_int_eq(e, 0);
		ck_assert_uint_eq(st.lost, 1234);
		break;
	}
	perf_file__close(&f);
	free(copy);
	free(buf);
}
END_TEST

/* An AUXTRACE record's payload (outside its header.size) is skipped, not read as records. */
START_TEST(test_auxtrace_payload)
{
	const char *path = tmp("auxtrace.data");
	struct pw_event ev;
	struct pw_sample s = {};
	struct pw w;
	struct perf_file f;
	struct perf_file_stats st = {};
	unsigned char body[40] = { 0 }, junk[64];
	__u64 size = sizeof(junk), n, bad;
	struct err err = {};

	pw_mem_loads_event(&ev, 100);
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, false), 0);
	pw_sample(&w, 0, &s);
	memcpy(body, &size, 8);
	pw_record(&w, PERF_RECORD_AUXTRACE, 0, body, sizeof(body));
	memset(junk, 0, sizeof(junk)); /* zeros: read as records, a record of size 0 */
	fwrite(junk, sizeof(junk), 1, w.f);
	pw_sample(&w, 0, &s);
	ck_assert_int_eq(pw_close(&w), 0);
	open_file(&f, path);
	ck_assert_int_eq(drain(&f, &st, &n, &bad, &err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(st.auxtrace, 1);
	perf_file__close(&f);
}
END_TEST

/* Files from a directory, an empty file, a FIFO: refused with the reason. */
START_TEST(test_not_files)
{
	struct perf_file f;
	struct err err = {};

	ck_assert_int_eq(perf_file__open(&f, suite_dir(), &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "is a directory"));
	spit(tmp("empty.data"), "", 0);
	ck_assert_int_eq(perf_file__open(&f, tmp("empty.data"), &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "too short"));
	ck_assert_int_eq(perf_file__open(&f, tmp("no-such.data"), &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "No such file"));
	mkfifo(tmp("fifo.data"), 0600);
	ck_assert_int_eq(perf_file__open(&f, tmp("fifo.data"), &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a regular file"));
}
END_TEST

/* ---- ldlat-hist --input ------------------------------------------------------- */

static int run_hist(char **argv, char **out, char **err)
{
	return run(argv, 120, out, err);
}

/*
 * A bad command line of ldlat-hist on the file $FILE ($PINNED: a directory
 * that must not be made): exit 2, a sentence that starts with the tool's
 * name, nothing on stdout.
 */
#define HIST_FILE_BAD(cmd_, starts, message)                                                       \
	{                                                                                          \
		.cmd = cmd_, .rc = 2, .err = { message }, .err_starts = starts, .empty_out = true, \
		.seconds = 120                                                                     \
	}
#define REPORT_REFUSES(args, message)                                                              \
	HIST_FILE_BAD("$HIST --input $FILE " args, "ldlat-hist: ", message)
#define WORD_REFUSES(args, message) HIST_FILE_BAD("$HIST " args, "ldlat-hist", message)

/*
 * Options of the other modes (live sampling, list-events, the pinned sets'):
 * not options of ldlat-hist report (--input FILE), which names the one given.
 */
static const struct cli_case live_only[] = {
	REPORT_REFUSES("--source page-faults", "--source is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("-L 50", "-L is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("-c 10", "-c is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("-F 100", "-F is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("-C 0", "-C is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("-G /sys/fs/cgroup", "-G is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("-d 1", "-d is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("-i 1", "-i is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("-- true", "a command ('true') is not an argument of 'ldlat-hist report'"),
	REPORT_REFUSES("--event cpu/mem-loads,ldlat=30/P",
		       "--event is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("--config tools.conf", "--config is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("--loads", "--loads is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("--loads=mem_inst_retired.all_loads",
		       "--loads is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("--list-events", "--list-events is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("--pin $PINNED", "--pin is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("--detach", "--detach is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("--show $PINNED", "--show is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("--delta", "--delta is not an option of 'ldlat-hist report'"),
	REPORT_REFUSES("--unpin $PINNED", "--unpin is not an option of 'ldlat-hist report'"),
};

START_TEST(test_cli_live_only)
{
	const char *path = tmp("cli.data");
	const char *pinned = tmp("pinned");

	write_layout(path, PW_EVERY_FIELD, 3, false);
	cli_var_set("FILE", path);
	cli_var_set("PINNED", pinned);
	cli_case__check(&live_only[_i]);
	ck_assert_int_ne(access(pinned, F_OK), 0); /* nothing pinned or created */
}
END_TEST

/* Runs argv (NULL-ended) and returns its exit status, with stdout and stderr. */
static int run_words(char *const argv[], char **out, char **err)
{
	char *copy[16];
	int i;

	for (i = 0; argv[i] && i < 15; i++)
		copy[i] = argv[i];
	copy[i] = NULL;
	return run_hist(copy, out, err);
}

/*
 * ldlat-hist report FILE is ldlat-hist --input FILE: the same report and
 * messages, byte for byte, with the options before or after FILE.
 */
START_TEST(test_cli_report_word)
{
	const char *path = tmp("word.data");
	char *flag[] = { (char *)hist(), "--input", (char *)path, "-s", "ram,l1",
			 "--by",	 "both",    "-v",	  NULL };
	char *word[] = { (char *)hist(), "report", (char *)path, "-s", "ram,l1",
			 "--by",	 "both",   "-v",	 NULL };
	char *word2[] = { (char *)hist(), "report", "-s",	  "ram,l1", "--by",
			  "both",	  "-v",	    (char *)path, NULL };
	char *fout, *ferr, *out, *err;

	write_layout(path, PW_EVERY_FIELD, 40, false);
	ck_assert_int_eq(run_words(flag, &fout, &ferr), 0);
	ck_assert_ptr_nonnull(strstr(fout, "source"));
	ck_assert_int_eq(run_words(word, &out, &err), 0);
	ck_assert_str_eq(out, fout);
	ck_assert_str_eq(err, ferr);
	free(out);
	free(err);
	ck_assert_int_eq(run_words(word2, &out, &err), 0);
	ck_assert_str_eq(out, fout);
	ck_assert_str_eq(err, ferr);
	free(out);
	free(err);
	free(fout);
	free(ferr);
}
END_TEST

/* The word forms refuse what their mode does not take: exit 2, the option named. */
static const struct cli_case word_refused[] = {
	WORD_REFUSES("report $FILE -i 1", "-i is not an option of 'ldlat-hist report'"),
	WORD_REFUSES("report $FILE --pin $PINNED", "--pin is not an option of 'ldlat-hist report'"),
	WORD_REFUSES("report $FILE --input $FILE", "'ldlat-hist report' takes its FILE once"),
	{ .argv = { "$HIST", "report", "" },
	  .rc = 2,
	  .err = { "--input: empty file name" },
	  .err_starts = "ldlat-hist",
	  .empty_out = true,
	  .seconds = 120 },
	WORD_REFUSES("report $FILE -- true",
		     "a command ('true') is not an argument of 'ldlat-hist report'"),
	WORD_REFUSES("report $FILE $FILE", "a command ('"),
	WORD_REFUSES("report -s ram", "'ldlat-hist report' needs FILE"),
	WORD_REFUSES("list-events --input $FILE",
		     "--input is not an option of 'ldlat-hist list-events'"),
	WORD_REFUSES("show $PINNED --input $FILE", "--input is not an option of 'ldlat-hist show'"),
	WORD_REFUSES("unpin $PINNED -a 0x1000+4K", "-a is not an option of 'ldlat-hist unpin'"),
	WORD_REFUSES("sample --input $FILE", "--input is not an option of 'ldlat-hist sample'"),
};

START_TEST(test_cli_word_refused)
{
	const char *path = tmp("refused.data"), *pinned = tmp("pinned");

	write_layout(path, PW_EVERY_FIELD, 3, false);
	cli_var_set("FILE", path);
	cli_var_set("PINNED", pinned);
	cli_case__check(&word_refused[_i]);
	ck_assert_int_ne(access(pinned, F_OK), 0);
}
END_TEST

static const char *const bad_cli[][4] = {
	{ "truncated", "is truncated" },
	{ "big-endian", "big-endian" },
	{ "missing", "No such file" },
	{ "-s on page faults",
	  "-s/--class needs latency and data source, which page-fault samples" },
	{ "mapping without -p", "need a single -p process" },
	{ "-p without TID", "-p needs the process of each sample" },
	{ "unknown sample_type", "bits this build does not know" },
	{ "no data event", "has no event whose samples carry" },
	{ "too many -p", "at most 16 processes" },
};

START_TEST(test_cli_bad_input)
{
	const char *path = tmp("bad-cli.data");
	char *argv[8] = { (char *)hist(), "--input", (char *)path };
	char *out, *err, *buf;
	size_t len;
	__u64 attrs;

	write_layout(path, _i == 3 || _i == 5 ? PW_ADDR_ONLY : PW_EVERY_FIELD, 4, false);
	buf = slurp(path, &len);
	memcpy(&attrs, buf + 24, 8);
	switch (_i) {
	case 0: {
		__u64 data;

		memcpy(&data, buf + 40, 8);
		spit(path, buf, data + 20);
		break;
	}
	case 1:
		memcpy(buf, "2ELIFREP", 8);
		spit(path, buf, len);
		break;
	case 2:
		argv[2] = (char *)tmp("missing.data");
		break;
	case 3:
		argv[3] = "-s";
		argv[4] = "l3";
		break;
	case 4:
		argv[3] = "-a";
		argv[4] = "[heap]";
		break;
	case 5:
		argv[3] = "-p";
		argv[4] = "100";
		break;
	case 6:
		buf[attrs + offsetof(struct perf_event_attr, sample_type) + 3] |= 0x40;
		spit(path, buf, len);
		break;
	case 7:
		patch64(buf, attrs + offsetof(struct perf_event_attr, sample_type),
			PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
		spit(path, buf, len);
		break;
	case 8:
		argv[3] = "-p";
		argv[4] = "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17";
		break;
	}
	ck_assert_int_eq(run_hist(argv, &out, &err), 2);
	ck_assert_msg(strncmp(err, "ldlat-hist: ", 12) == 0, "%s", err);
	ck_assert_msg(strstr(err, bad_cli[_i][1]), "%s: %s", bad_cli[_i][0], err);
	ck_assert_str_eq(out, "");
	free(buf);
	free(out);
	free(err);
}
END_TEST

/* --input needs no privilege: run as nobody, with every capability dropped. */
START_TEST(test_cli_unprivileged)
{
	/* $AS_NOBODY: setpriv as nobody, every capability dropped, when this is root */
	static const struct cli_case nobody = {
		.sh = "$AS_NOBODY $COPY --input $FILE -a 0x7f0000000000+1M",
		.seconds = 120,
		/* addresses 0x7f0000000000 + i * 4097: 256 fit in 1 MiB, all 50 here */
		.out = { "          50  0x7f0000000000+1M" },
	};
	const char *path = tmp("nobody.data");

	write_layout(path, PW_ADDR_ONLY, 50, false);
	chmod(path, 0644);
	cli_var_set("AS_NOBODY", geteuid() ? "" : AS_NOBODY_NO_CAPS);
	cli_var_set("COPY", reachable_copy(hist()));
	cli_var_set("FILE", path);
	cli_case__check(&nobody);
}
END_TEST

/* ---- output formats ------------------------------------------------------------- */

enum { FMT_TEXT, FMT_JSON, FMT_OPENMETRICS, FMT_PROMETHEUS, NFMTS };

static const char *const fmt_names[NFMTS] = { "text", "json", "openmetrics", "prometheus" };

/* Deletes what follows each needle in s up to the first character of stop. */
static void blank(char *s, const char *needle, const char *stop)
{
	char *p = s;
	size_t k;

	while ((p = strstr(p, needle))) {
		p += strlen(needle);
		k = strcspn(p, stop);
		memmove(p, p + k, strlen(p + k) + 1);
	}
}

/*
 * What two reports of the same samples may differ in: the clock readings
 * (JSON's time, interval and started, OpenMetrics' start time); with
 * other_run, the event and target names too (a live run's and a file's).
 */
static void blank_run(char *s, bool other_run)
{
	static const char *const clock[][2] = {
		{ "\"time\":", ",}" },	  { "\"start\":", ",}" },
		{ "\"end\":", ",}" },	  { "\"seconds\":", ",}" },
		{ "\"started\":", ",}" }, { "ldlat_start_time_seconds{", "\n" },
	};
	static const char *const names[] = { "\"event\":\"", "\"target\":\"", "event=\"",
					     "target=\"" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(clock); i++)
		blank(s, clock[i][0], clock[i][1]);
	for (i = 0; other_run && i < ARRAY_SIZE(names); i++)
		blank(s, names[i], "\"");
}

/*
 * JSON through the schema checker, OpenMetrics through the OpenMetrics parser
 * of Debian's python3-prometheus-client, the Prometheus text format through
 * promtool; text as it is.
 */
static void check_format(int fmt, const char *path)
{
	char cmd[1024], *argv[] = { "sh", "-c", cmd, NULL }, *out, *err;

	if (fmt == FMT_TEXT)
		return;
	if (fmt == FMT_JSON)
		snprintf(cmd, sizeof(cmd), "python3 %s < %s", json_schema(), path);
	else if (fmt == FMT_OPENMETRICS)
		snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s < %s",
			 fixture_path("../lib/openmetrics_parse.py"), path);
	else
		snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
	ck_assert_msg(run(argv, 60, &out, &err) == 0, "%s: %s%s", cmd, out, err);
	free(out);
	free(err);
}

/* The report r of s as ldlat-hist prints it in fmt; malloc'd. */
static char *render_fmt(int fmt, const struct hist_view *r, const struct snapshot *s)
{
	char *text;
	size_t len;
	FILE *mem = open_memstream(&text, &len);

	if (fmt == FMT_TEXT)
		render_text(mem, r, s);
	else if (fmt == FMT_JSON)
		render_json(mem, r, s);
	else if (fmt == FMT_OPENMETRICS)
		render_openmetrics(mem, r, s);
	else
		render_prometheus(mem, r, s);
	fclose(mem);
	return text;
}

/*
 * --output FILE offline: the file holds what stdout would (but for the clock
 * readings), nothing is printed, and it passes its format's checker; here
 * for samples without latency (JSON's nulls, OpenMetrics' per-range counts).
 */
START_TEST(test_cli_output)
{
	const char *path = tmp("output.data"), *saved = tmp("output.txt");
	char *argv[] = { (char *)hist(),
			 "--input",
			 (char *)path,
			 "-a",
			 "0x7f0000000000+1M",
			 "--format",
			 (char *)fmt_names[_i],
			 NULL,
			 NULL,
			 NULL };
	char *out, *err, *file;
	size_t len;

	write_layout(path, PW_ADDR_ONLY, 50, false);
	ck_assert_msg(run_hist(argv, &out, &err) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, _i == FMT_TEXT ? "          50  0x7f0000000000+1M"
					  : _i == FMT_JSON
						  ? "\"seen\":50,\"kept\":50,"
						  : "ldlat_samples_kept_total{target=\"file "));
	argv[7] = "--output";
	argv[8] = (char *)saved;
	free(err);
	ck_assert_msg(run_hist(argv, &file, &err) == 0, "%s", err);
	ck_assert_str_eq(file, "");
	free(file);
	file = slurp(saved, &len);
	check_format(_i, saved);
	blank_run(out, false);
	blank_run(file, false);
	ck_assert_msg(!strcmp(out, file), "stdout:\n%s\n--output:\n%s", out, file);
	free(file);
	free(out);
	free(err);
}
END_TEST

/*
 * Data sources of every class: each entry of each platform's kernel table
 * (datasrc_cases.h), with one of the per-sample bit combinations that kernel
 * ORs onto it in turn, and for the classes no kernel table emits today,
 * encodings the UAPI allows.  The class each must count in comes from the
 * tables, not from ldlat_classify().
 */
static const struct ds_case extra_cases[] = {
	{ "any cache", P(OP, LOAD) | P(LVL, HIT) | LN(ANY_CACHE), LDLAT_CLASS_ANY_CACHE },
	{ "remote cache 2 hops", OP_LH | LN(L3) | REM | HOPS(2), LDLAT_CLASS_REMOTE_CACHE_2HOP },
	{ "remote cache 3 hops", OP_LH | LN(L3) | REM | HOPS(3), LDLAT_CLASS_REMOTE_CACHE_3HOP },
	{ "remote RAM 2 hops", OP_LH | LN(RAM) | REM | HOPS(2), LDLAT_CLASS_REMOTE_RAM_2HOP },
	{ "remote RAM 3 hops", OP_LH | LN(RAM) | REM | HOPS(3), LDLAT_CLASS_REMOTE_RAM_3HOP },
	{ "a store", P(OP, STORE) | L(L1) | LN(L1), LDLAT_CLASS_L1 },
};

static struct ds_case cases[1024];
static unsigned int ncases;

/* Fills cases[] (before the tests fork). */
static void cases_init(void)
{
	const struct ds_case *dc;
	unsigned int p, c;

	for (p = 0; p < NDS_PLATFORMS; p++) {
		const struct ds_platform *pf = &ds_platforms[p];

		for (c = 0; c < pf->ncases && ncases < ARRAY_SIZE(cases); c++) {
			cases[ncases].ds =
				ds_platform__value(pf, c * pf->nbits + c % pf->nbits, &dc);
			cases[ncases].what = dc->what;
			cases[ncases++].cls = dc->cls;
		}
	}
	for (c = 0; c < ARRAY_SIZE(extra_cases) && ncases < ARRAY_SIZE(cases); c++)
		cases[ncases++] = extra_cases[c];
}

/* The class file: ncases data sources x 7 latencies x 3 processes, addresses in 2 ranges. */
static void write_classes(const char *path)
{
	static const __u64 lats[] = { 0, 3, 30, 31, 250, 4096, 1u << 31 };
	struct pw_event ev;
	struct pw_sample s = {};
	struct pw w;
	unsigned int i, k;

	pw_mem_loads_event(&ev, 100);
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, false), 0);
	for (i = 0; i < ncases; i++) {
		for (k = 0; k < 3 * ARRAY_SIZE(lats); k++) {
			s.pid = s.tid = 1000 + k % 3;
			s.addr = 0x7f0000000000ull + (k % 2) * (1ull << 30) + i * 64 + k;
			s.time = 1000 + i * 100 + k;
			/* var2_w (instruction latency) set too: only var1_dw counts */
			s.weight = lats[k / 3] | (__u64)(k + 1) << 32;
			s.data_src = cases[i].ds;
			pw_sample(&w, 0, &s);
		}
	}
	ck_assert_int_eq(pw_close(&w), 0);
}

struct perf_view {
	__u32 pid;
	__u64 period, addr, weight, data_src;
};

/* perf script's reading of the file: pid, period, addr, weight, data_src per sample. */
static int perf_script_view(const char *path, struct perf_view **out)
{
	char *argv[] = { "perf",       "script", "-i",
			 (char *)path, "-F",	 "pid,period,addr,weight,data_src",
			 NULL };
	char *text, *err, *line, *save = NULL;
	struct perf_view *v = NULL;
	int n = 0;

	ck_assert_msg(run(argv, 120, &text, &err) == 0, "perf script: %s", err);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long period, addr, ds, weight, unused;
		unsigned int pid;

		ck_assert_int_eq(sscanf(line, " %u %llu %llx %llx", &pid, &period, &addr, &ds), 4);
		/* after data_src's decode, the weight: the last word */
		ck_assert_int_eq(last_words(line, 1, &weight, &unused), 1);
		v = realloc(v, (n + 1) * sizeof(*v));
		v[n++] = (struct perf_view){ pid, period, addr, weight, ds };
	}
	free(text);
	free(err);
	*out = v;
	return n;
}

static int cli_parse(struct cli *c, char **args)
{
	char *argv[16] = { "ldlat-hist" };
	int n = 1;
	static const struct opt_group *const groups[] = { &cli_sample_opts, NULL };
	static const struct opt_place places[] = { { &cli_home, 0 }, {} };

	while (args[n - 1])
		argv[n] = args[n - 1], n++;
	cli__init(c);
	return argp_parse(opts__argp(groups, places, NULL, NULL, NULL), n, argv,
			  ARGP_NO_EXIT | ARGP_SILENT, NULL, c);
}

static const char *const class_filters[][8] = {
	{ NULL },
	{ "-s", "l3,hitm,ram", NULL },
	{ "--min-lat", "30", "--max-lat", "4096", NULL },
	{ "-a", "0x7f0000000000+1G", "-a", "0x7f0040000000+16K", "--by", "both", NULL },
	{ "-p", "1000,1002", "--linear", "100", "--by", "none", NULL },
	{ "--op", "any", "-s", "remote-cache,remote-ram", "--by", "range", NULL },
};

/*
 * The class counts and histograms ldlat-hist --input prints equal those of
 * the data sources and weights perf script decodes from the same file, in
 * every format: the whole output is compared with the report built from
 * perf's view through the same logic (but for the clock readings); JSON
 * passes the schema checker, OpenMetrics promtool; and each class's count
 * is the tables' class of perf's data_src values.
 */
#define NCLASS_FILTERS (ARRAY_SIZE(class_filters))

/*
 * The report ldlat-hist --input should print for perf's view of the file:
 * perf's samples through the same logic, under the options filt (of the
 * shared ones, --by and --linear of ldlat-hist's own), in format fmt.
 */
static char *render_perf_view(const char *path, const char *const *filt, int fmt,
			      const struct perf_view *v, int n)
{
	char *shared[16], *want;
	struct offline o;
	struct snapshot snap;
	struct hist_view r;
	struct run_info run;
	struct timespec never = {};
	struct cli c;
	struct err oerr = {};
	int i, m = 0;
	__u32 linear = 0;
	enum hist_by by = BY_CLASS;

	for (i = 0; filt[i]; i++) {
		if (!strcmp(filt[i], "--linear")) {
			linear = atoi(filt[++i]);
			continue;
		}
		if (!strcmp(filt[i], "--by")) {
			i++;
			by = !strcmp(filt[i], "both")	? BY_BOTH
			     : !strcmp(filt[i], "none") ? BY_NONE
							: BY_RANGE;
			continue;
		}
		shared[m++] = (char *)filt[i];
	}
	shared[m] = NULL;
	ck_assert_int_eq(cli_parse(&c, shared), 0);
	ck_assert_msg(offline__open(&o, path, &c, linear, &oerr) == 0, "%s", oerr.msg);
	ck_assert_int_eq(snapshot__init(&snap, o.cfg.nranges), 0);
	for (i = 0; i < n; i++) {
		struct ldlat_sample s = { .addr = v[i].addr,
					  .period = v[i].period,
					  .lat = v[i].weight,
					  .data_src = v[i].data_src,
					  .tgid = v[i].pid,
					  .flags =
						  LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC };

		snapshot__account(&snap, &o.cfg, &s);
	}
	offline__run_info(&o, "ldlat-hist", &never, &run);
	r = (struct hist_view){ .run = &run,
				.src = &o.src,
				.ranges = &c.ranges,
				.by = by,
				.linear_step = linear,
				.has_latency = true,
				.period_weighted = offline__freq(&o) };
	want = render_fmt(fmt, &r, &snap);
	snapshot__free(&snap);
	offline__close(&o);
	return want;
}

START_TEST(test_classes_vs_perf_script)
{
	const char *path = tmp("classes.data"), *saved = tmp("classes.out");
	const char *const *filt = class_filters[_i % NCLASS_FILTERS];
	const int fmt = _i / NCLASS_FILTERS;
	char *argv[16] = { (char *)hist(), "--input", (char *)path, "--format",
			   (char *)fmt_names[fmt] };
	char *out, *err, *want;
	struct perf_view *v;
	int n, i, k, a = 5;

	write_classes(path);
	n = perf_script_view(path, &v);
	ck_assert_uint_eq(n, ncases * 21);
	for (i = 0; filt[i]; i++)
		argv[a++] = (char *)filt[i];
	ck_assert_msg(run_hist(argv, &out, &err) == 0, "%s", err);
	spit(saved, out, strlen(out));
	check_format(fmt, saved);

	want = render_perf_view(path, filt, fmt, v, n);
	blank_run(out, false);
	blank_run(want, false);
	ck_assert_msg(!strcmp(out, want), "ldlat-hist --input:\n%s\nperf script's samples:\n%s",
		      out, want);

	/* without filters, every class is there, with as many samples as the tables say */
	if (_i == 0) {
		unsigned int j, per_class[LDLAT_NCLASS] = { 0 };

		for (i = 0; i < n; i++)
			for (j = 0; j < ncases; j++)
				if (cases[j].ds == v[i].data_src) {
					if ((cases[j].ds & 0x1f) == PERF_MEM_OP_LOAD)
						per_class[cases[j].cls]++;
					break;
				}
		for (k = 0; k < LDLAT_NCLASS; k++) {
			char title[128], *p;
			unsigned int count = per_class[k];

			snprintf(title, sizeof(title), "source %s\n", class__name(k));
			p = strstr(out, title);
			ck_assert_msg(p && count, "class %s: no samples (perf decoded %u)",
				      class__name(k), count);
			/* its summary line: "  N samples (S% of kept)..." */
			p = strstr(p, " samples (");
			ck_assert_ptr_nonnull(p);
			while (p[-1] != '\n')
				p--;
			ck_assert_msg(strtoul(p, NULL, 10) == count, "class %s: %lu, perf %u",
				      class__name(k), strtoul(p, NULL, 10), count);
		}
	}
	free(v);
	free(want);
	free(out);
	free(err);
}
END_TEST

/* ---- a recording made on real hardware --------------------------------------------- */

/*
 * tests/fixtures/recordings/skylake-sp-load-latency.data: MEM_TRANS_RETIRED.
 * LOAD_LATENCY (ldlat 64) on a Xeon Platinum 8173M, weights in
 * PERF_SAMPLE_WEIGHT_STRUCT (the fixtures' README says where it comes from).
 * Its 14 samples as perf decodes them, per class: perf's own level names
 * (perf script's "|LVL ...|"), each with the class ldlat names it.
 */
static const struct {
	const char *perf_lvl, *ldlat_class;
} real_levels[] = {
	{ "L1 or L1 hit", "L1 hit" },
	{ "LFB/MAB or LFB/MAB hit", "L1 fill buffer hit" },
	{ "L2 or L2 hit", "L2 hit" },
	{ "L3 or L3 hit", "L3 hit" },
};

#define REAL_RECORDING "recordings/skylake-sp-load-latency.data"
#define REAL_SAMPLES   14

/*
 * ldlat-hist --input of the real recording, in every format, equals the
 * report of perf script's samples through the same logic; and in text each
 * class's count, minimum, maximum and mean are those of the samples perf
 * names with that level (perf script -F weight,data_src), every sample in
 * one of them.
 */
/*
 * perf mem report's own table of the file by level (--sort mem): each
 * level's samples and share of the total weight equal ldlat-hist's count
 * and latency sum of its class, in the JSON report doc.
 */
static void mem_report_vs(const char *path, const char *doc)
{
	char *argv[] = { "perf",    "mem",    "report", "-i", (char *)path,
			 "--stdio", "--sort", "mem",	NULL };
	char *text, *err, *p, expr[512];
	unsigned long long total;
	unsigned int j, samples;
	double share;

	ck_assert_msg(run(argv, 120, &text, &err) == 0, "perf mem report: %s", err);
	p = strstr(text, "# Total weight : ");
	ck_assert_msg(p && sscanf(p, "# Total weight : %llu", &total) == 1 && total,
		      "perf mem report: no total weight in:\n%s", text);
	for (j = 0; j < ARRAY_SIZE(real_levels); j++) {
		char *line = text;

		/* "    42.26%             5  LFB/MAB or LFB/MAB hit  " */
		while ((line = strstr(line, real_levels[j].perf_lvl)) &&
		       (line[strlen(real_levels[j].perf_lvl)] != ' ' || line[-1] != ' '))
			line++;
		ck_assert_msg(line, "perf mem report: no row %s in:\n%s", real_levels[j].perf_lvl,
			      text);
		while (line > text && line[-1] != '\n')
			line--;
		ck_assert_int_eq(sscanf(line, " %lf%% %u", &share, &samples), 2);
		snprintf(expr, sizeof(expr),
			 ".histograms[] | select(.class_name == \"%s\") | .count == %u and "
			 "((.sum * 100 / %llu - %.2f) | if . < 0 then -. else . end) <= 0.00501",
			 real_levels[j].ldlat_class, samples, total, share);
		ck_assert_msg(jq_true(doc, expr),
			      "class %s: not perf mem report's %u samples, %.2f%%",
			      real_levels[j].ldlat_class, samples, share);
	}
	free(text);
	free(err);
}

START_TEST(test_real_recording)
{
	const char *path = fixture_path(REAL_RECORDING), *saved = tmp("real.out");
	const char *const none[] = { NULL };
	char *argv[] = { (char *)hist(),	"--input", (char *)path, "--format",
			 (char *)fmt_names[_i], NULL };
	char *out, *err, *want;
	struct perf_view *v;
	int n;

	n = perf_script_view(path, &v);
	ck_assert_int_eq(n, REAL_SAMPLES);
	ck_assert_msg(run_hist(argv, &out, &err) == 0, "%s", err);
	spit(saved, out, strlen(out));
	check_format(_i, saved);
	if (_i == FMT_JSON) {
		char *pargv[] = { "perf", "report", "-i", (char *)path, "--stdio", NULL };
		char *text, *perr, *p, expr[128];
		unsigned long long events;

		ck_assert_msg(run(pargv, 120, &text, &perr) == 0, "perf report: %s", perr);
		p = strstr(text, "# Event count (approx.): ");
		ck_assert_msg(p && sscanf(p, "# Event count (approx.): %llu", &events) == 1,
			      "perf report: no event count in:\n%s", text);
		snprintf(expr, sizeof(expr), "(.histograms | map(.events) | add) == %llu", events);
		ck_assert_msg(jq_true(out, expr), "ldlat-hist's events are not perf report's %llu",
			      events);
		free(text);
		free(perr);
		mem_report_vs(path, out);
	}
	want = render_perf_view(path, none, _i, v, n);
	blank_run(out, false);
	blank_run(want, false);
	spit(tmp("real.want"), want, strlen(want));
	ck_assert_msg(!strcmp(out, want),
		      "ldlat-hist --input (%s) differs from perf script's samples (%s)", saved,
		      tmp("real.want"));

	if (_i == FMT_TEXT) {
		char *pargv[] = { "perf", "script",	     "-i", (char *)path,
				  "-F",	  "weight,data_src", NULL };
		char *text, *perr, *line, *save = NULL;
		unsigned long long cnt[ARRAY_SIZE(real_levels)] = { 0 },
				   sum[ARRAY_SIZE(real_levels)] = { 0 };
		unsigned long long lo[ARRAY_SIZE(real_levels)], hi[ARRAY_SIZE(real_levels)] = { 0 };
		unsigned int j, named = 0;

		memset(lo, 0xff, sizeof(lo));
		ck_assert_msg(run(pargv, 120, &text, &perr) == 0, "perf script: %s", perr);
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			unsigned long long w, unused;
			const char *lvl = strstr(line, "|LVL ");

			ck_assert_msg(lvl && last_words(line, 1, &w, &unused) == 1,
				      "perf script: %s", line);
			for (j = 0; j < ARRAY_SIZE(real_levels); j++) {
				size_t len = strlen(real_levels[j].perf_lvl);

				if (strncmp(lvl + 5, real_levels[j].perf_lvl, len) ||
				    lvl[5 + len] != '|')
					continue;
				cnt[j]++;
				sum[j] += w;
				lo[j] = w < lo[j] ? w : lo[j];
				hi[j] = w > hi[j] ? w : hi[j];
				named++;
			}
		}
		ck_assert_uint_eq(named, REAL_SAMPLES);
		for (j = 0; j < ARRAY_SIZE(real_levels); j++) {
			char title[128], want_line[256], *p;

			ck_assert_msg(cnt[j], "perf names no sample %s", real_levels[j].perf_lvl);
			snprintf(title, sizeof(title), "source %s\n", real_levels[j].ldlat_class);
			p = strstr(out, title);
			ck_assert_msg(p, "no class %s in:\n%s", real_levels[j].ldlat_class, out);
			snprintf(want_line, sizeof(want_line), "  %llu samples (", cnt[j]);
			ck_assert_msg(strstr(p, want_line), "class %s: want %s",
				      real_levels[j].ldlat_class, want_line);
			snprintf(want_line, sizeof(want_line),
				 "latency: mean %.1f cycles, min %llu,", (double)sum[j] / cnt[j],
				 lo[j]);
			ck_assert_msg(strstr(p, want_line), "class %s: want '%s'",
				      real_levels[j].ldlat_class, want_line);
			snprintf(want_line, sizeof(want_line), ", max %llu (", hi[j]);
			ck_assert_msg(strstr(p, want_line), "class %s: want '%s'",
				      real_levels[j].ldlat_class, want_line);
		}
		free(text);
		free(perr);
	}
	free(v);
	free(want);
	free(out);
	free(err);
}
END_TEST

/* ---- files Debian's perf records on this machine ---------------------------------- */

/* perf record's events and the options that change the sample layout */
static const struct {
	const char *events; /* perf record -e */
	const char *opts;
	int per_fault; /* samples per page fault (two events both sample it) */
} record_variants[] = {
	{ "page-faults", "", 1 },
	{ "page-faults", "-g", 1 },
	{ "page-faults", "--call-graph=dwarf,1024", 1 },
	{ "page-faults", "--user-regs=ip,sp --intr-regs=ip,sp", 1 },
	{ "page-faults", "--phys-data --data-page-size --code-page-size", 1 },
	{ "page-faults", "-W --transaction --sample-cpu -T", 1 },
	{ "page-faults", "-R --all-cgroups", 1 },
	{ "page-faults -e minor-faults", "", 2 },    /* two events: sample IDs */
	{ "'{page-faults,minor-faults}:S'", "", 1 }, /* a group read by its leader */
	{ "page-faults", "pipe", 1 },		     /* perf record -o - > file */
};

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A file Debian's perf records on this machine: every sample address of its
 * first event as we read it equals perf script -F event,addr's, and the
 * per-range counts of ldlat-hist --input are perf script's.
 */
START_TEST(test_perf_recorded)
{
	const char *path = tmp("recorded.data");
	bool pipe = !strcmp(record_variants[_i].opts, "pipe");
	char cmd[2048], *argv[] = { "sh", "-c", cmd, NULL };
	char *hargv[] = { (char *)hist(),
			  "--input",
			  (char *)path,
			  "-a",
			  BASE_RANGE,
			  "-a",
			  "0x7f0000000000-0x800000000000",
			  "--by",
			  "range",
			  NULL };
	char *pargv[] = { "perf", "script", "-i", (char *)path, "-F", "event,addr", NULL };
	char *out, *err, *line, *save = NULL, ev0[64], want[256];
	__u64 *perf_addr = NULL, *our_addr = NULL;
	struct perf_file f;
	struct perf_cursor c;
	struct perf_record r;
	struct perf_sample p;
	struct err errbuf = {};
	int np = 0, no = 0, i, in_base = 0, in_high = 0;

	if (!need_root("check_offline (perf record)"))
		return;
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -e %s -c 1 -d %s -o %s -- %s --fault-pages 64 --base " BASE " %s",
		 record_variants[_i].events, pipe ? "" : record_variants[_i].opts,
		 pipe ? "-" : path, workload(), pipe ? "2>/dev/null >" : ">/dev/null");
	if (pipe)
		strncat(cmd, path, sizeof(cmd) - strlen(cmd) - 1);
	ck_assert_msg(run(argv, 120, &out, &err) == 0, "%s: %s", cmd, err);
	free(out);
	free(err);

	/* our reading: the first event's sample addresses */
	open_file(&f, path);
	ck_assert_int_eq(f.pipe, pipe);
	snprintf(ev0, sizeof(ev0), "%s", f.events[0].name);
	perf_file__rewind(&f, &c);
	while (perf_file__next(&f, &c, &r, NULL, &errbuf) > 0) {
		if (r.type != PERF_RECORD_SAMPLE)
			continue;
		ck_assert_int_eq(perf_file__parse_sample(&f, &r, &p), 0);
		if (p.event != 0)
			continue;
		our_addr = realloc(our_addr, (no + 1) * sizeof(*our_addr));
		our_addr[no++] = p.addr;
	}
	perf_file__close(&f);

	/* perf's (a group read prints each sample once per member: the leader's lines count) */
	ck_assert_msg(run(pargv, 120, &out, &err) == 0, "perf script: %s", err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned long long a;

		ck_assert_int_eq(sscanf(line, " %63[^:]: %llx", name, &a), 2);
		if (strcmp(name, ev0))
			continue;
		perf_addr = realloc(perf_addr, (np + 1) * sizeof(*perf_addr));
		perf_addr[np++] = a;
		if (a >= 0x200000000000ull && a < 0x200001000000ull)
			in_base++;
		else if (a >= 0x7f0000000000ull && a < 0x800000000000ull)
			in_high++;
	}
	free(out);
	free(err);
	ck_assert_int_eq(no, np);
	qsort(our_addr, no, sizeof(*our_addr), cmp_u64);
	qsort(perf_addr, np, sizeof(*perf_addr), cmp_u64);
	for (i = 0; i < no; i++)
		ck_assert_msg(our_addr[i] == perf_addr[i], "address %d: ours 0x%llx, perf's 0x%llx",
			      i, (unsigned long long)our_addr[i], (unsigned long long)perf_addr[i]);
	ck_assert_msg(in_base == 64, "perf script: %d samples in " BASE_RANGE, in_base);

	ck_assert_msg(run_hist(hargv, &out, &err) == 0, "%s", err);
	snprintf(want, sizeof(want), "%12d  " BASE_RANGE, record_variants[_i].per_fault * in_base);
	ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
	snprintf(want, sizeof(want), "%12d  0x7f0000000000-0x800000000000",
		 record_variants[_i].per_fault * in_high);
	ck_assert_msg(record_variants[_i].per_fault > 1 || strstr(out, want), "want '%s' in:\n%s",
		      want, out);
	free(out);
	free(err);
	free(our_addr);
	free(perf_addr);
}
END_TEST

/*
 * --by on a written file of ten load samples whose keys the test chose
 * (two processes, three threads, four CPUs on two NUMA nodes, two cgroups,
 * memory regions MEM0, MEM3, MEM7 and none): each split's rows are those
 * keys with their counts, in the order of their first sample; with fewer
 * rows than keys the others hold the rest.  A file without a NUMA
 * topology or cgroups is refused --by node and --by cgroup, naming it.
 * Needs no root.
 */
static const struct {
	const char *by; /* --by and the JSON member */
	const char *opts;
	const char *want;
} split_written[] = {
	{ "pid", "", "100 8\n200 2\n" },
	{ "tid", "", "100 5\n101 3\n200 2\n" },
	{ "cpu", "", "0 3\n1 3\n2 2\n3 2\n" },
	{ "node", "", "0 6\n1 4\n" },
	{ "cgroup", "", "7100 8\n7200 2\n" },
	{ "region", "", "0 4\n3 2\n7 1\nothers 3\n" },
	{ "tid", "--by-keys 2", "100 5\n101 3\nothers 2\n" },
};

START_TEST(test_split_written)
{
	static const __u32 pid[] = { 100, 100, 200, 100, 100, 100, 200, 100, 100, 100 };
	static const __u32 tid[] = { 100, 101, 200, 100, 100, 101, 200, 100, 101, 100 };
	static const int region[] = { 0, 0, 3, -1, 3, 0, -1, 0, -1, 7 }; /* MEMn, -1 none */
	const char *path = tmp("split-written.data"), *bare = tmp("split-bare.data");
	const __u64 l1 = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L1);
	char *out = NULL, *err = NULL;
	struct pw_event ev;
	struct pw_sample smp = {};
	struct pw w;
	unsigned int i, pass;
	int rc;

	for (pass = 0; pass < 2; pass++) {
		pw_mem_loads_event(&ev, 100);
		if (!pass)
			ev.attr.sample_type |= PERF_SAMPLE_CGROUP;
		ck_assert_int_eq(pw_open(&w, pass ? bare : path, &ev, 1, false), 0);
		if (!pass) { /* the topology pw_close writes */
			w.node_cpus[0] = "0-1";
			w.node_cpus[1] = "2-3";
			w.nnodes = 2;
		}
		for (i = 0; i < ARRAY_SIZE(pid); i++) {
			smp.pid = pid[i];
			smp.tid = tid[i];
			smp.cpu = i % 4;
			smp.cgroup = 7000 + pid[i];
			smp.addr = 0x1000 + i * 64;
			smp.period = 1;
			smp.weight = 50;
			smp.id = 100;
			smp.data_src = l1;
			if (region[i] >= 0)
				smp.data_src |= (__u64)(PERF_MEM_REGION_MEM0 + region[i])
						<< PERF_MEM_REGION_SHIFT;
			pw_sample(&w, 0, &smp);
		}
		ck_assert_int_eq(pw_close(&w), 0);
	}
	rc = sh(&out, &err,
		"j=$(%s --input %s --by %s,none %s --format json) && printf '%%s\\n' \"$j\" | "
		"jq -r '.histograms[] | \"\\(.%s) \\(.count)\"' | LC_ALL=C sort",
		hist(), path, split_written[_i].by, split_written[_i].opts, split_written[_i].by);
	ck_assert_msg(rc == 0, "--by %s %s: exit %d: %s", split_written[_i].by,
		      split_written[_i].opts, rc, err);
	ck_assert_msg(!strcmp(out, split_written[_i].want), "--by %s %s:\n%s\nwant:\n%s\n%s",
		      split_written[_i].by, split_written[_i].opts, out, split_written[_i].want,
		      err);
	free(out);
	free(err);
	if (_i)
		return;
	ck_assert_int_eq(sh(NULL, &err, "%s --input %s --by node", hist(), bare), 2);
	ck_assert_msg(strstr(err, "--by node needs the NUMA node of each sample's CPU, and ") &&
			      strstr(err, bare) && strstr(err, "holds no NUMA topology"),
		      "%s", err);
	free(err);
	ck_assert_int_eq(sh(NULL, &err, "%s --input %s --by cgroup", hist(), bare), 2);
	ck_assert_msg(strstr(err, "--by cgroup needs the cgroup of each sample, which ") &&
			      strstr(err, bare) &&
			      strstr(err, "'s event 'cpu/mem-loads,ldlat=30/P' did not record"),
		      "%s", err);
	free(err);
}
END_TEST

/*
 * --by pid, tid, cpu, node (loops 0-3) on a file perf recorded: two
 * processes, each on a CPU of its own (taskset).  Each row's count is the
 * number of samples perf script prints with that key (node: of the CPUs of
 * that node), exactly, and the others hold none.  With one row (--by-keys
 * 1) the others hold the rest, in text, JSON and Prometheus.  A key the
 * file does not record (cgroup: no --all-cgroups) is refused, naming it.
 */
static const char *const split_fields[] = { "pid", "tid", "cpu", "node" };

START_TEST(test_split_recorded)
{
	const char *path = tmp("split.data"), *key = split_fields[_i];
	int cpu[2], ncpu = cpus_allowed(cpu, 2);
	char *ours = NULL, *perfs = NULL, *out, *err;
	char *cargv[] = { (char *)hist(), "--input", (char *)path, "--by", "cgroup", NULL };
	long first = -1, total = -1, others = -1;

	if (!need_root("check_offline (perf record)"))
		return;
	ck_assert_int_ge(ncpu, 1);
	ck_assert_int_eq(sh(NULL, NULL,
			    "perf record -q --sample-cpu -e page-faults -c 1 -d -o %s -- sh -c "
			    "'taskset -c %d %s --fault-pages 64 --base %s & taskset -c %d %s "
			    "--fault-pages 32 --base %s; wait' >/dev/null",
			    path, cpu[0], workload(), BASE, ncpu > 1 ? cpu[1] : cpu[0], workload(),
			    BASE),
			 0);
	/* ours: KEY COUNT per row, and none in the others */
	ck_assert_int_eq(
		sh(&ours, NULL,
		   "j=$(%s --input %s --by %s --format json) && printf '%%s\\n' \"$j\" | "
		   "jq -e '.split.others == 0' >/dev/null && printf '%%s\\n' \"$j\" | jq -r "
		   "'.histograms[] | \"\\(.%s) \\(.count)\"' | LC_ALL=C sort",
		   hist(), path, key, key),
		0);
	/* perf's: the key of each sample perf script prints, counted (a node: its CPUs') */
	if (_i < 3)
		ck_assert_int_eq(sh(&perfs, NULL,
				    "perf script -i %s -F %s | tr -d '[] ' | awk '{ n[$1 + 0]++ } "
				    "END { for (k in n) print k, n[k] }' | LC_ALL=C sort",
				    path, key),
				 0);
	else
		ck_assert_int_eq(
			sh(&perfs, NULL,
			   "for c in /sys/devices/system/cpu/cpu[0-9]*; do for n in $c/node*; do "
			   "echo \"${c##*cpu} ${n##*node}\"; done; done > %s.nodes && perf script "
			   "-i "
			   "%s -F cpu | tr -d '[] ' | awk 'NR == FNR { node[$1] = $2; next } { "
			   "n[node[$1 + 0]]++ } END { for (k in n) print k, n[k] }' %s.nodes - | "
			   "LC_ALL=C sort",
			   path, path, path),
			0);
	ck_assert_msg(*ours && !strcmp(ours, perfs), "--by %s:\n%s\nperf script's:\n%s", key, ours,
		      perfs);
	free(ours);
	free(perfs);
	if (_i)
		return;

	/* one row: the first process's, and the others hold the rest, in every format */
	ck_assert_int_eq(
		sh(&out, NULL,
		   "j=$(%s --input %s --by pid --by-keys 1 --format json) && printf "
		   "'%%s\\n' \"$j\" | jq -r '[.histograms[0].count, ([.histograms[].count] | "
		   "add), .split.others] | map(tostring) | join(\" \")'",
		   hist(), path),
		0);
	ck_assert_int_eq(sscanf(out, "%ld %ld %ld", &first, &total, &others), 3);
	free(out);
	ck_assert_msg(first > 0 && others > 0 && first + others == total, "%ld + %ld != %ld", first,
		      others, total);
	ck_assert_int_eq(
		sh(&out, NULL,
		   "%s --input %s --by pid --by-keys 1 && %s --input %s --by pid --by-keys 1 "
		   "--format prometheus | promtool check metrics >&2 && %s --input %s --by "
		   "pid --by-keys 1 --format prometheus | grep "
		   "'^ldlat_split_others_samples_total{'",
		   hist(), path, hist(), path, hist(), path),
		0);
	{
		char want[128];

		snprintf(
			want, sizeof(want),
			"by pid: 1 of 1 rows hold samples; others (no row left for their pid): %ld "
			"samples\n",
			others);
		ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
		snprintf(want, sizeof(want), "by=\"pid\"} %ld\n", others);
		ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
	}
	free(out);

	/* a key the file lacks: refused, naming the file */
	ck_assert_int_eq(run_hist(cargv, &out, &err), 2);
	ck_assert_msg(strstr(err, "--by cgroup needs the cgroup of each sample, which ") &&
			      strstr(err, path) &&
			      strstr(err, "did not record (PERF_SAMPLE_CGROUP: record with perf "
					  "record --all-cgroups)"),
		      "%s", err);
	free(out);
	free(err);
}
END_TEST

/*
 * One workload, sampled live by ldlat-hist and recorded by perf record at
 * the same time (both attached before it runs): ldlat-hist --input on perf's
 * file prints exactly what the live run printed, in each format (but for
 * the clock readings, and the event and target names in JSON and
 * OpenMetrics: a live run's and a file's).
 */
START_TEST(test_live_vs_recorded)
{
	static const char *const counted[NFMTS][2] = {
		{ "          30  0x200000000000+120K",
		  "         270  0x20000001e000-0x200000200000" },
		{ "\"count\":30,", "\"count\":270," },
		{ "range=\"0x200000000000+120K (0x200000000000-0x20000001e000)\"} 30\n",
		  "range=\"0x20000001e000-0x200000200000\"} 270\n" },
		{ "range=\"0x200000000000+120K (0x200000000000-0x20000001e000)\"} 30\n",
		  "range=\"0x20000001e000-0x200000200000\"} 270\n" },
	};
	struct perf_recorder rec;
	struct child w, live;
	char pid[32];
	const char *path = tmp("live.data");
	char *wargv[] = {
		(char *)workload(), "--wait", "--fault-pages", "300", "--base", BASE, NULL
	};
	/* the same filters and format, live and on perf's file */
	char *const common[] = { "-p",	     pid,
				 "-a",	     BASE "+120K",
				 "-a",	     "0x20000001e000-0x200000200000",
				 "-a",	     "[stack]",
				 "--format", (char *)fmt_names[_i] };
	char *largv[16] = { (char *)hist(), "--source", "page-faults" };
	char *oargv[16] = { (char *)hist(), "--input", (char *)path };
	char *pargv[] = { "perf",     "record", "-q",	       "-D",	     "-1", "--control",
			  rec.ctlarg, "-e",	"page-faults", "-c",	     "1",  "-d",
			  "-p",	      pid,	"-o",	       (char *)path, NULL };
	struct rlimit stack8m = { 8 << 20, RLIM_INFINITY };
	char *out, *err;
	unsigned int i;

	if (!need_root("check_offline (live BPF sampling)"))
		return;
	for (i = 0; i < ARRAY_SIZE(common); i++)
		largv[3 + i] = oargv[3 + i] = common[i];
	perf_record_fifos(&rec, suite_dir());

	/* [stack] reaches RLIMIT_STACK below the stack live, Linux's default 8 MiB offline */
	ck_assert_int_eq(setrlimit(RLIMIT_STACK, &stack8m), 0);
	child_spawn(&w, wargv);
	snprintf(pid, sizeof(pid), "%d", w.pid);
	perf_record_start(&rec, pargv);
	child_spawn(&live, largv);
	ck_assert_msg(child_wait_stderr(&live, "Ctrl-C to end", 30), "%s", live.errbuf);
	/* go */
	ck_assert_int_eq(write(w.in, "g", 1), 1);
	ck_assert_int_eq(child_finish(&w, 60), 0);
	ck_assert_int_eq(child_finish(&live, 60), 0);
	perf_record_stop(&rec);

	ck_assert_msg(run_hist(oargv, &out, &err) == 0, "%s", err);
	ck_assert_msg(strstr(live.outbuf, counted[_i][0]), "%s", live.outbuf);
	ck_assert_msg(strstr(live.outbuf, counted[_i][1]), "%s", live.outbuf);
	ck_assert_msg(strstr(live.outbuf, _i == FMT_TEXT   ? "\nunseen: 0 samples"
					  : _i == FMT_JSON ? "\"unseen\":{\"samples\":0,"
							   : "ldlat_samples_unseen_total{"),
		      "%s", live.outbuf);
	drop_unseen(live.outbuf);
	blank_run(live.outbuf, true);
	blank_run(out, true);
	ck_assert_msg(!strcmp(out, live.outbuf), "live:\n%s\noffline:\n%s", live.outbuf, out);
	child_free(&w);
	child_free(&live);
	free(out);
	free(err);
}
END_TEST

/* A JSON report's counter "key" (the first one), or -1. */
static long json_counter(const char *doc, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(doc, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/*
 * gen-perfdata --stores: every eighth sample is the mem-stores event's, with
 * a store's data source, so --op store keeps exactly those, --op any all,
 * and the default (loads) none of them.  The text names what the op filter
 * dropped by the ops asked for.
 */
static const char *const gen_ops[] = { "store", "any", "load" };

START_TEST(test_gen_stores)
{
	const char *path = tmp("stores.data");
	char *gen[] = { (char *)build_path("tests/gen-perfdata"),
			"--stores",
			"--samples",
			"8000",
			(char *)path,
			NULL };
	char *argv[] = { (char *)hist(), "--input", (char *)path, "--op", (char *)gen_ops[_i],
			 "--by",	 "none",    "--format",	  "json", NULL };
	char *out, *err;
	long kept, op;

	run_expect(gen, 0, &out, &err);
	free(out);
	free(err);
	ck_assert_msg(run_hist(argv, &out, &err) == 0, "%s", err);
	kept = json_counter(out, "kept");
	op = json_counter(out, "op_filtered");
	if (_i == 0) {
		ck_assert_msg(kept == 1000 && op == 7000, "--op store: %s", out);
		free(out);
		free(err);
		argv[8] = "text";
		ck_assert_msg(run_hist(argv, &out, &err) == 0, "%s", err);
		ck_assert_msg(strstr(out, "; dropped: 7000 not a store\n"), "%s", out);
	} else if (_i == 1) {
		ck_assert_msg(kept == 8000 && op == 0, "--op any: %s", out);
	} else {
		/*
		 * the stores, and the loads whose data source has no op (Panther
		 * Cove's reserved OMR source leaves mem_op 0)
		 */
		ck_assert_msg(op >= 1000 && op < 1400 && kept + op == 8000, "--op load: %s", out);
	}
	free(out);
	free(err);
}
END_TEST
/*
 * A file with no mapping of the process -p names, and every layout of
 * perfwrite.h (none of which records one): the VMA list, the side band
 * and the report's rows are empty.  ldlat-hist -a [heap] says there is
 * none (exit 2), ldlat-top reports nothing (exit 0).  Under
 * -fsanitize=undefined (make test-asan) this caught qsort given a NULL
 * base for 0 elements.
 */
START_TEST(test_gen_no_mappings)
{
	const char *path = tmp("nomaps.data");
	char layout[8];
	char *gen[] = { (char *)build_path("tests/gen-perfdata"),
			"--layout",
			layout,
			"--samples",
			"50",
			(char *)path,
			NULL };
	char *hist_heap[] = { (char *)hist(), "--input", (char *)path, "-p",
			      "4242",	      "-a",	 "[heap]",     NULL };
	char *top[] = { (char *)build_path("ldlat-top"),
			"--input",
			(char *)path,
			"-p",
			"4242",
			"--by",
			"ip",
			NULL };
	char *out, *err;

	snprintf(layout, sizeof(layout), "%d", _i);
	run_expect(gen, 0, &out, &err);
	free(out);
	free(err);
	if (_i == 0) {
		ck_assert_int_eq(run_hist(hist_heap, &out, &err), 2);
		ck_assert_msg(strstr(err, "no mapping '[heap]' in the target process"), "%s", err);
		ck_assert_msg(!strstr(err, "runtime error"), "%s", err);
		free(out);
		free(err);
	}
	ck_assert_msg(run_hist(top, &out, &err) == 0, "%s", err);
	ck_assert_msg(!strstr(err, "runtime error"), "%s", err);
	free(out);
	free(err);
}
END_TEST

/* ---- the BPF program's test entry and --input, on the same samples ---------------- */

START_TEST(test_bpf_vs_offline)
{
	static char *const configs[][12] = {
		{ NULL },
		{ "-a", "0x7f0000000000+1G", "-a", "0x7f0080000000+64M", "-p", "41,43", "--min-lat",
		  "20", "--max-lat", "5000", NULL },
		{ "-s", "l1,l3,hitm,local-ram,remote-ram-1hop,unknown", "--op", "load,store",
		  NULL },
	};
	enum { N = 6000 };
	const char *path = tmp("bpf.data");
	__u64 rng = 0x9e3779b97f4a7c15ull + _i;
	struct pw_event ev;
	struct pw_sample *ps = calloc(N, sizeof(*ps));
	struct pw w;
	struct session sess;
	struct snapshot got, want;
	struct ldlat_sample s;
	struct offline o;
	struct cli c;
	struct err err = {};
	unsigned int i, idx;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s));

	if (!need_root("check_offline (BPF_PROG_TEST_RUN)"))
		return;
	/* samples in and out of the ranges, over every bucket, every class, loads and stores */
	for (i = 0; i < N; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		ps[i].pid = ps[i].tid = 40 + rng % 4;
		ps[i].addr = rng % 5 ? 0x7f0000000000ull + (rng >> 8) % (3ull << 30) : rng >> 3;
		if (rng % 17 == 0)
			ps[i].addr = 0;
		ps[i].weight = (rng >> 20) % 7 ? (rng >> 24) % 8000 : rng >> (rng % 64);
		ps[i].weight = (__u32)ps[i].weight | (rng & 0xffff) << 32;
		ps[i].data_src = cases[(rng >> 40) % ncases].ds;
		if (rng % 11 == 0)
			ps[i].data_src = (ps[i].data_src & ~0x1full) | PERF_MEM_OP_STORE;
		ps[i].period = 1 + (rng >> 12) % 5000; /* frequency mode: each its own */
	}
	/* --input on a file of them */
	pw_mem_loads_event(&ev, 100);
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, false), 0);
	for (i = 0; i < N; i++)
		pw_sample(&w, 0, &ps[i]);
	ck_assert_int_eq(pw_close(&w), 0);
	ck_assert_int_eq(cli_parse(&c, (char **)configs[_i]), 0);
	ck_assert_msg(offline__open(&o, path, &c, 0, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(snapshot__init(&want, o.cfg.nranges), 0);
	ck_assert_int_eq(offline__run(&o, &want, &err), 0);
	ck_assert_uint_eq(want.counters.seen, N);

	/* the program, configured as --input configured the logic, on its test entry */
	ck_assert_msg(session__open(&sess, &o.cfg, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(snapshot__init(&got, o.cfg.nranges), 0);
	for (i = 0; i < N; i++) {
		/* what the perf_event program reads: var1_dw with WEIGHT_STRUCT */
		s = (struct ldlat_sample){ .addr = ps[i].addr,
					   .lat = (__u32)ps[i].weight,
					   .data_src = ps[i].data_src,
					   .tgid = ps[i].pid,
					   .flags = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
					   .period = ps[i].period };
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	}
	ck_assert_int_eq(session__read(&sess, &got), 0);
	ck_assert_mem_eq(&got.counters, &want.counters, sizeof(got.counters));
	for (idx = 0; idx < o.cfg.nranges * LDLAT_NCLASS; idx++) {
		ck_assert_mem_eq(got.cells[idx].slot, want.cells[idx].slot,
				 sizeof(got.cells[idx].slot));
		ck_assert_uint_eq(got.cells[idx].sum, want.cells[idx].sum);
		ck_assert_uint_eq(got.cells[idx].unmeasured, want.cells[idx].unmeasured);
		ck_assert_uint_eq(got.cells[idx].period, want.cells[idx].period);
		ck_assert_uint_eq(got.cells[idx].min, want.cells[idx].min);
		ck_assert_uint_eq(got.cells[idx].max, want.cells[idx].max);
	}
	/* every filter the configuration turns on dropped something */
	ck_assert_uint_gt(want.counters.kept, 0);
	ck_assert(!o.cfg.nspans || want.counters.outside_ranges);
	ck_assert(!o.cfg.ntgids || want.counters.tgid_filtered);
	ck_assert(o.cfg.class_mask == LDLAT_ALL_CLASSES || want.counters.class_filtered);
	snapshot__free(&got);
	snapshot__free(&want);
	session__close(&sess);
	offline__close(&o);
	free(ps);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("offline");
	TCase *tc;
	int failed;

	cases_init();
	/* the files of a test live in one directory per run, made before the tests fork */
	suite_dir_make("offline");

	tc = tcase_create("reader");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_layout_roundtrip, 0, 2 * PW_NLAYOUTS);
	tcase_add_loop_test(tc, test_layout_vs_perf_script, 0, PW_NLAYOUTS);
	tcase_add_test(tc, test_events_and_ids);
	tcase_add_test(tc, test_no_features);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_loop_test(tc, test_bad_header, 0, ARRAY_SIZE(header_cases));
	tcase_add_loop_test(tc, test_bad_records, 0, ARRAY_SIZE(record_cases));
	tcase_add_test(tc, test_auxtrace_payload);
	tcase_add_test(tc, test_not_files);
	suite_add_tcase(s, tc);

	tc = tcase_create("cli");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_cli_live_only, 0, ARRAY_SIZE(live_only));
	tcase_add_test(tc, test_cli_report_word);
	tcase_add_loop_test(tc, test_cli_word_refused, 0, ARRAY_SIZE(word_refused));
	tcase_add_loop_test(tc, test_cli_bad_input, 0, ARRAY_SIZE(bad_cli));
	tcase_add_test(tc, test_cli_unprivileged);
	tcase_add_loop_test(tc, test_cli_output, 0, NFMTS);
	tcase_add_loop_test(tc, test_classes_vs_perf_script, 0, NCLASS_FILTERS * NFMTS);
	tcase_add_loop_test(tc, test_gen_stores, 0, ARRAY_SIZE(gen_ops));
	tcase_add_loop_test(tc, test_gen_no_mappings, 0, 4);
	suite_add_tcase(s, tc);

	tc = tcase_create("real");
	tcase_add_loop_test(tc, test_real_recording, 0, NFMTS);
	suite_add_tcase(s, tc);

	tc = tcase_create("split");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_split_written, 0, ARRAY_SIZE(split_written));
	suite_add_tcase(s, tc);

	tc = tcase_create("recorded");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_perf_recorded, 0, ARRAY_SIZE(record_variants));
	tcase_add_loop_test(tc, test_live_vs_recorded, 0, NFMTS);
	tcase_add_loop_test(tc, test_split_recorded, 0, ARRAY_SIZE(split_fields));
	suite_add_tcase(s, tc);

	tc = tcase_create("bpf");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_bpf_vs_offline, 0, 3);
	suite_add_tcase(s, tc);

	failed = run_suite(s);
	suite_dir_remove();
	return failed ? 1 : 0;
}
