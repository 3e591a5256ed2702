// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-callprog - two call paths into one function that faults pages, for
 * ldlat-top --call-graph's tests: main -> path_one -> fault_pages faults
 * the first A pages of array_one, main -> path_two -> via_two ->
 * fault_pages the first B pages of array_two.  Under --source page-faults
 * that is exactly A samples on the first path and B on the second, each
 * with the same leaf.  Built at -O0 with frame pointers (the Makefile), so
 * that the kernel's frame-pointer walk of the user stack sees every frame.
 *
 *   ldlat-callprog [A [B]]
 *
 * A and B default to 300 and 120, at most 512.
 */
#include <stdio.h>
#include <stdlib.h>

#define PAGE	  4096
#define MAX_PAGES 512

/* page-aligned, in .bss: nothing touches them before main */
char array_one[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_two[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));

__attribute__((noinline)) int fault_pages(char *base, int pages)
{
	volatile char *p = base;
	int i;

	for (i = 0; i < pages; i++)
		p[(size_t)i * PAGE] = 1;
	return pages;
}

__attribute__((noinline)) int path_one(int pages)
{
	return fault_pages(array_one, pages) + 1;
}

__attribute__((noinline)) int via_two(int pages)
{
	return fault_pages(array_two, pages) + 1;
}

__attribute__((noinline)) int path_two(int pages)
{
	return via_two(pages) + 1;
}

int main(int argc, char **argv)
{
	int a = argc > 1 ? atoi(argv[1]) : 300, b = argc > 2 ? atoi(argv[2]) : 120;

	if (a < 0 || a > MAX_PAGES || b < 0 || b > MAX_PAGES) {
		fprintf(stderr, "usage: ldlat-callprog [A [B]] (0 to %d pages each)\n", MAX_PAGES);
		return 2;
	}
	return path_one(a) + path_two(b) == a + b + 3 ? 0 : 1;
}
