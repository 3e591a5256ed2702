// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * gen-perfdata - writes a perf.data file like perf mem record's on Intel
 * (cpu/mem-loads,ldlat=30/P with WEIGHT_STRUCT and DATA_SRC), for the offline
 * benchmark and for trying the reader by hand:
 *
 *   gen-perfdata [--samples N] [--pipe] [--stores] FILE
 *   gen-perfdata --layout L [--samples N] [--pipe] FILE
 *   gen-perfdata --c2c [--samples N] FILE
 *
 * Samples cycle through every data source each platform's kernel emits
 * (tests/lib/datasrc_cases.h), latencies spread over 1 to 2^20 cycles, data
 * addresses in four 1 GiB ranges from 0x7f0000000000 and below them, and
 * four processes (PIDs 1000-1003), each announced by COMM and MMAP2 records.
 * --stores adds a second event (mem-stores) and gives it every eighth
 * sample, its data source's op a store (PERF_MEM_OP_STORE) as the kernel
 * reports for that event.  --layout writes samples of one of the layouts of perfwrite.h
 * (0 to PW_NLAYOUTS - 1: every sample_type field, branch counters, a group
 * read, the empty-branch quirk, address only) instead.  --c2c writes
 * perf c2c record's load and store samples: false and true sharing, a
 * shared file, then N samples over 64 lines (pw_write_c2c).  The output is the
 * same for the same arguments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/datasrc_cases.h"
#include "tests/lib/perfwrite.h"

int main(int argc, char **argv)
{
	struct pw_event ev[2];
	struct pw_sample s = {};
	struct pw w;
	unsigned long long n = 1000000, i;
	const char *path = NULL;
	bool pipe = false, stores = false, c2c = false, counted = false;
	int layout = -1;
	const struct ds_case *dc;
	const unsigned int nds = ds_nvalues();
	__u64 rng = 0x9e3779b97f4a7c15ull;
	__u32 pid;
	int a, e;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--samples") && a + 1 < argc) {
			n = strtoull(argv[++a], NULL, 0);
			counted = true;
		} else if (!strcmp(argv[a], "--pipe"))
			pipe = true;
		else if (!strcmp(argv[a], "--stores"))
			stores = true;
		else if (!strcmp(argv[a], "--c2c"))
			c2c = true;
		else if (!strcmp(argv[a], "--layout") && a + 1 < argc)
			layout = atoi(argv[++a]);
		else if (argv[a][0] != '-' && !path)
			path = argv[a];
		else {
			fprintf(stderr, "usage: gen-perfdata [--samples N] [--pipe] [--stores | "
					"--layout L | --c2c] FILE\n");
			return 2;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: gen-perfdata [--samples N] [--pipe] [--stores | --layout "
				"L] FILE\n");
		return 2;
	}
	if (c2c) {
		/* without --samples: the false and true sharing and the shared file alone */
		e = pw_write_c2c(path, counted ? (int)n : 0);
		if (e)
			fprintf(stderr, "gen-perfdata: cannot write %s: %s\n", path, strerror(-e));
		return !!e;
	}
	if (layout >= 0) {
		e = pw_write_layout(path, layout, n, pipe);
		if (e == -EINVAL)
			fprintf(stderr, "gen-perfdata: no layout %d (0 to %d)\n", layout,
				PW_NLAYOUTS - 1);
		else if (e)
			fprintf(stderr, "gen-perfdata: cannot write %s: %s\n", path, strerror(-e));
		return e == -EINVAL ? 2 : !!e;
	}
	pw_mem_loads_event(&ev[0], 100);
	pw_mem_loads_event(&ev[1], 200);
	ev[1].attr.config = 0x82d0; /* mem-stores */
	ev[1].attr.config1 = 0;
	ev[1].name = "cpu/mem-stores/P";
	e = pw_open(&w, path, ev, stores ? 2 : 1, pipe);
	if (e) {
		fprintf(stderr, "gen-perfdata: cannot write %s: %s\n", path, strerror(-e));
		return 1;
	}
	for (pid = 1000; pid < 1004; pid++) {
		pw_comm(&w, pid, pid, "ldlat-gen", 1000);
		pw_mmap2(&w, pid, 0x400000, 0x10000, 0, "/usr/bin/ldlat-gen", 1000);
	}
	for (i = 0; i < n; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		s.pid = s.tid = 1000 + (rng & 3);
		s.ip = 0x401000 + (rng >> 8 & 0xfff);
		s.time = 1000000 + i * 100;
		/* four ranges of 1 GiB, and a ninth of the samples below them */
		s.addr = 0x7f0000000000ull + ((rng >> 12) & 3) * (1ull << 30) +
			 (rng >> 20 & 0xfffffff);
		if ((rng >> 40) % 9 == 0)
			s.addr = 0x500000 + (rng >> 20 & 0xffff);
		s.cpu = rng >> 30 & 3;
		s.period = 1;
		/* var1_dw the cache latency, var2_w an instruction latency (Sapphire Rapids) */
		s.weight = 1ull << (rng >> 44) % 20 | (rng >> 50 & 0xff) | (rng & 0x3ff) << 32;
		s.data_src = ds_value(i % nds, &dc);
		if (stores && i % 8 == 7)
			s.data_src = (s.data_src & ~(0x1full << PERF_MEM_OP_SHIFT)) |
				     (__u64)PERF_MEM_OP_STORE << PERF_MEM_OP_SHIFT;
		pw_sample(&w, stores && i % 8 == 7 ? 1 : 0, &s);
	}
	for (pid = 1000; pid < 1004; pid++)
		pw_exit(&w, pid, 1, s.time + 1);
	e = pw_close(&w);
	if (e) {
		fprintf(stderr, "gen-perfdata: cannot write %s: %s\n", path, strerror(-e));
		return 1;
	}
	return 0;
}
