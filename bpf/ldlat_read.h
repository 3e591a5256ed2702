/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ldlat_read.h - the BPF programs' reading of perf_sample_data, shared by
 * ldlat.bpf.c and c2c.bpf.c.  The including program has a 'cfg' with
 * 'need' (LDLAT_HAS_*) and 'weight_struct'.
 */
#ifndef LDLAT_READ_H
#define LDLAT_READ_H

/*
 * Address, latency and data source from 'src': the kernel's
 * perf_sample_data in the live programs (ldlat's and ldlat-c2c's), a struct ldlat_test_data (the same
 * member names) in ldlat_test_data, so that BPF_PROG_TEST_RUN checks which
 * field each is read from.  A field not flagged is not read.
 */
#define LDLAT_READ_DATA(smp, src, sflags)                                                          \
	do {                                                                                       \
		if ((sflags)&PERF_SAMPLE_ADDR) {                                                   \
			(smp)->addr = (src)->addr;                                                 \
			(smp)->flags |= LDLAT_HAS_ADDR;                                            \
		}                                                                                  \
		if ((cfg.need & LDLAT_HAS_LAT) && ((sflags)&PERF_SAMPLE_WEIGHT_TYPE)) {            \
			(smp)->lat =                                                               \
				cfg.weight_struct ? (src)->weight.var1_dw : (src)->weight.full;    \
			(smp)->flags |= LDLAT_HAS_LAT;                                             \
		}                                                                                  \
		if ((cfg.need & LDLAT_HAS_DSRC) && ((sflags)&PERF_SAMPLE_DATA_SRC)) {              \
			(smp)->data_src = (src)->data_src.val;                                     \
			(smp)->flags |= LDLAT_HAS_DSRC;                                            \
		}                                                                                  \
	} while (0)

#endif
