// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fuzz_perfdata - libFuzzer target for the perf.data reader: every input is
 * opened as a file, every record walked, every sample and symbolization
 * record parsed (and decoded as the process model gets it), and every byte
 * a parsed pointer claims is read, so that AddressSanitizer sees any claim
 * that reaches outside the input.  Built with
 * clang -fsanitize=fuzzer,address,undefined (make tests); tests/fuzz/fuzz.sh runs
 * it on the seeds in tests/fuzz/corpus for a bounded time.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/abi/perfdata.h"
#include "kernel/abi/sideband.h"

static volatile unsigned long long sink;

static void touch(const void *p, unsigned long long len)
{
	const unsigned char *b = p;
	unsigned long long i, sum = 0;

	for (i = 0; i < len; i++)
		sum += b[i];
	sink += sum;
}

static void walk_sample(const struct perf_file *f, const struct perf_sample *s)
{
	const struct perf_file_event *ev = &f->events[s->event];

	touch(s->read, s->read_size);
	touch(s->callchain, s->callchain_nr * 8);
	touch(s->raw, s->raw_size);
	touch(s->branch_entries, s->branch_nr * sizeof(struct perf_branch_entry));
	if (s->branch_counters)
		touch(s->branch_counters, s->branch_nr * 8);
	if (s->regs_user)
		touch(s->regs_user, ev->nregs_user * 8ull);
	if (s->regs_intr)
		touch(s->regs_intr, ev->nregs_intr * 8ull);
	touch(s->stack_user, s->stack_user_size);
	touch(s->aux, s->aux_size);
	sink += perf_sample__latency(s) + s->data_src + s->addr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_file f;
	struct perf_cursor c;
	struct perf_record r;
	struct perf_sample s;
	struct perf_mmap_event m;
	struct perf_comm_event cm;
	struct perf_task_event t;
	struct perf_sample_id sid;
	struct sideband_rec sb;
	struct perf_file_stats st = {};
	struct perf_build_id b;
	struct err err = {};
	int i;

	if (perf_file__open_mem(&f, data, size, "fuzz", &err))
		return 0;
	for (i = 0; i < f.nevents; i++)
		sink += strlen(f.events[i].name);
	if (f.hostname)
		sink += strlen(f.hostname);
	perf_file__rewind(&f, &c);
	while (perf_file__next(&f, &c, &r, &st, &err) > 0) {
		touch(r.data, r.size);
		/* as the process model gets it */
		if (!perf_file__parse_sideband(&f, &r, &sb)) {
			if (sb.str)
				sink += strlen(sb.str);
			touch(sb.build_id, sb.build_id_size);
		}
		switch (r.type) {
		case PERF_RECORD_SAMPLE:
			if (!perf_file__parse_sample(&f, &r, &s))
				walk_sample(&f, &s);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			if (!perf_file__parse_mmap(&f, &r, &m)) {
				sink += strlen(m.filename);
				if (m.has_build_id)
					touch(m.build_id, m.build_id_size);
			}
			break;
		case PERF_RECORD_COMM:
			if (!perf_file__parse_comm(&f, &r, &cm))
				sink += strlen(cm.comm);
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			if (!perf_file__parse_task(&f, &r, &t))
				sink += t.time;
			break;
		case PERF_RECORD_HEADER_BUILD_ID:
			if (!perf_file__parse_build_id(&r, &b)) {
				touch(b.id, b.size);
				sink += strlen(b.filename);
			}
			break;
		default:
			perf_file__parse_sample_id(&f, &r, &sid);
			sink += sid.time;
			break;
		}
	}
	/* the build IDs of the feature section */
	perf_file__build_id_section(&f, &c);
	while (perf_file__next(&f, &c, &r, NULL, &err) > 0) {
		touch(r.data, r.size);
		if (!perf_file__parse_build_id(&r, &b)) {
			touch(b.id, b.size);
			sink += strlen(b.filename);
		}
	}
	perf_file__close(&f);
	return 0;
}
