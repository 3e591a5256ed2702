// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-callprog - call paths into functions that fault pages, for
 * ldlat-top --call-graph's tests: main -> path_one -> fault_pages faults
 * the first A pages of array_one, main -> path_two -> via_two ->
 * fault_pages the first B pages of array_two.  Under --source page-faults
 * that is exactly A samples on the first path and B on the second, each
 * with the same leaf.  Built at -O0 with frame pointers (the Makefile), so
 * that the kernel's frame-pointer walk of the user stack sees every frame.
 *
 *   ldlat-callprog [--fork] [--name NAME] [A [B [C]]]
 *   ldlat-callprog --fan DEPTH
 *
 * A, B and C default to 300, 120 and 0, at most 512.  --fork: path_one
 * runs in a child process (forked, no exec), which exits; the parent waits
 * for it.  --name NAME: after the two paths a second thread names itself
 * NAME (a COMM record without exec: the process keeps its name) and ends.
 * C above 0: last, main -> path_three -> fault_and_exit faults the first C
 * pages of array_three and exits the process; the call that ends
 * path_three is its last instruction, so the return address the stack
 * holds is the first byte after path_three (the next function's).
 * --fan: 2^DEPTH call paths
 * (DEPTH 1 to 13), each faulting one page of array_fan of its own: path i
 * goes main -> fan_out -> fan, then, for each bit of i from the top,
 * fan_left (0) or fan_right (1) -> fan, down to fault_pages.  So 2^DEPTH
 * distinct user stacks, one sample each, of 2 x DEPTH + 4 frames below main.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE	  4096
#define MAX_PAGES 512
#define MAX_DEPTH 13

/* page-aligned, in .bss: nothing touches them before main */
char array_one[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_two[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_fan[(1 << MAX_DEPTH) * PAGE] __attribute__((aligned(PAGE)));
char array_three[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));

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

__attribute__((noinline, noreturn)) void fault_and_exit(char *base, int pages)
{
	fault_pages(base, pages);
	exit(0);
}

/* Ends with its call of fault_and_exit: nothing of it follows the call. */
__attribute__((noinline)) void path_three(int pages)
{
	fault_and_exit(array_three, pages);
}

/* Laid out after path_three (-O0 keeps the source's order): where its return address falls. */
__attribute__((noinline)) int after_three(int pages)
{
	return pages + 1;
}

static void *name_self(void *name)
{
	prctl(PR_SET_NAME, name);
	return NULL;
}

/* path_one in a forked child; its status. */
static int path_one_forked(int pages)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(path_one(pages) == pages + 1 ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return pages + 1;
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	int fork_one = 0, n[3] = { 300, 120, 0 }, i, k = 0, r;
	pthread_t t;

	if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-' && argv[1][2] == 'f' &&
	    argv[1][3] == 'a' && argv[1][4] == 'n' && !argv[1][5])
		return fan_main(argv);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fork"))
			fork_one = 1;
		else if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (k < 3)
			n[k++] = atoi(argv[i]);
		else
			k = 4;
	}
	if (k > 3 || n[0] < 0 || n[0] > MAX_PAGES || n[1] < 0 || n[1] > MAX_PAGES || n[2] < 0 ||
	    n[2] > MAX_PAGES) {
		fprintf(stderr,
			"usage: ldlat-callprog [--fork] [--name NAME] [A [B [C]]] (0 to %d pages "
			"each)\n",
			MAX_PAGES);
		return 2;
	}
	r = (fork_one ? path_one_forked(n[0]) : path_one(n[0])) + path_two(n[1]) == n[0] + n[1] + 3
		    ? 0
		    : 1;
	if (name && (pthread_create(&t, NULL, name_self, (void *)name) || pthread_join(t, NULL)))
		r = 1;
	if (n[2] && !r)
		path_three(n[2]);
	return r + after_three(0) - 1;
}
