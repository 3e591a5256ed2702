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
 *   ldlat-callprog --fan DEPTH
 *
 * A and B default to 300 and 120, at most 512.  --fan: 2^DEPTH call paths
 * (DEPTH 1 to 13), each faulting one page of array_fan of its own: path i
 * goes main -> fan_out -> fan, then, for each bit of i from the top,
 * fan_left (0) or fan_right (1) -> fan, down to fault_pages.  So 2^DEPTH
 * distinct user stacks, one sample each, of 2 x DEPTH + 4 frames below main.
 */
#include <stdio.h>
#include <stdlib.h>

#define PAGE	  4096
#define MAX_PAGES 512
#define MAX_DEPTH 13

/* page-aligned, in .bss: nothing touches them before main */
char array_one[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_two[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_fan[(1 << MAX_DEPTH) * PAGE] __attribute__((aligned(PAGE)));

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

int fan(unsigned int path, int left);

__attribute__((noinline)) int fan_left(unsigned int path, int left)
{
	return fan(path, left) + 1;
}

__attribute__((noinline)) int fan_right(unsigned int path, int left)
{
	return fan(path, left) + 1;
}

/* path's turns still to take: its 'left' low bits, the highest first */
__attribute__((noinline)) int fan(unsigned int path, int left)
{
	if (!left)
		return fault_pages(array_fan + (size_t)path * PAGE, 1);
	return (path >> (left - 1)) & 1 ? fan_right(path, left - 1) : fan_left(path, left - 1);
}

__attribute__((noinline)) int fan_out(int depth)
{
	unsigned int i, n = 1u << depth;
	int sum = 0;

	for (i = 0; i < n; i++)
		sum += fan(i, depth) - depth;
	return sum == (int)n ? 0 : 1;
}

/*
 * --fan DEPTH.  main calls nothing of libc's first for it, nor anything
 * between itself and path_one: the two paths' samples and frames stay
 * those of the program before --fan.
 */
static int fan_main(char **argv)
{
	int depth = argv[2] ? atoi(argv[2]) : 0;

	if (depth < 1 || depth > MAX_DEPTH) {
		fprintf(stderr, "usage: ldlat-callprog --fan DEPTH (1 to %d)\n", MAX_DEPTH);
		return 2;
	}
	return fan_out(depth);
}

int main(int argc, char **argv)
{
	int a, b;

	if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-' && argv[1][2] == 'f' &&
	    argv[1][3] == 'a' && argv[1][4] == 'n' && !argv[1][5])
		return fan_main(argv);
	a = argc > 1 ? atoi(argv[1]) : 300;
	b = argc > 2 ? atoi(argv[2]) : 120;
	if (a < 0 || a > MAX_PAGES || b < 0 || b > MAX_PAGES) {
		fprintf(stderr, "usage: ldlat-callprog [A [B]] (0 to %d pages each)\n", MAX_PAGES);
		return 2;
	}
	return path_one(a) + path_two(b) == a + b + 3 ? 0 : 1;
}
