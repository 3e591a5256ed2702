// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-datarows - data rows as perf report --mem-mode names their DSOs:
 * an executable linked at a fixed address (built -no-pie) that first
 * touches pages of its .data (data_pages), of its .bss beyond the file's
 * last page (bss_pages), of two anonymous mappings, and of the heap; one
 * page of the first mapping (the higher one) is touched three times
 * (MADV_DONTNEED between, six faults), so the hottest block of the anonymous memory is
 * not in the lowest mapping.  Prints nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096

char data_pages[8 * PAGE] = { 1 };
char bss_pages[32 * PAGE];

static void touch(volatile char *p, int pages)
{
	int i;

	for (i = 0; i < pages; i++)
		p[(long)i * PAGE] = 1;
}

static char *anon(int pages)
{
	void *p = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	return p;
}

int main(void)
{
	char *hi = anon(16), *lo = anon(16), *heap;
	int i;

	touch(data_pages, 8);
	touch(bss_pages, 32);
	touch(lo, 16);
	touch(hi, 16);
	for (i = 0; i < 5; i++) {
		madvise(hi + 8 * PAGE, PAGE, MADV_DONTNEED);
		touch(hi + 8 * PAGE, 1);
	}
	heap = malloc(64 * 1024);
	if (!heap)
		return 1;
	memset(heap, 2, 64 * 1024);
	return heap[100] == 2 ? 0 : 1;
}
