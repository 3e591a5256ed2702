// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-bigtouch - first touches of two large global arrays, more pages than
 * ldlat-top's tables hold keys: touch_big_a() writes one byte to each of the
 * first N pages of big_a, then touch_big_b() to the first N of big_b.  Under
 * --source page-faults that is N samples at IPs of each function and N data
 * addresses in each array, N distinct lines and pages per array.
 *
 *   ldlat-bigtouch [N]      N defaults to 16384 (64 MiB per array), at most 32768
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE	  4096
#define MAX_PAGES 32768

/* page-aligned, in .bss: nothing touches them before main */
char big_a[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char big_b[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));

__attribute__((noinline)) void touch_big_a(long pages)
{
	volatile char *p = big_a;
	long i;

	for (i = 0; i < pages; i++)
		p[i * PAGE] = 1;
}

__attribute__((noinline)) void touch_big_b(long pages)
{
	volatile char *p = big_b;
	long i;

	for (i = 0; i < pages; i++)
		p[i * PAGE] = 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 16384;

	if (n < 0 || n > MAX_PAGES) {
		fprintf(stderr, "ldlat-bigtouch: N is 0 to %d pages\n", MAX_PAGES);
		return 2;
	}
	/* one fault per page, whatever the machine's transparent huge pages */
	madvise(big_a, sizeof(big_a), MADV_NOHUGEPAGE);
	madvise(big_b, sizeof(big_b), MADV_NOHUGEPAGE);
	touch_big_a(n);
	touch_big_b(n);
	return 0;
}
