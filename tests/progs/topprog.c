// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-topprog - two hot functions and two large global arrays, for
 * ldlat-top's end-to-end tests: touch_a() writes one byte to each of the
 * first A pages of array_a, touch_b() to the first B pages of array_b.
 * Under --source page-faults that is exactly A samples at IPs of touch_a and
 * data addresses in array_a, and B for touch_b and array_b.  Then the
 * kernel fills the first C pages of array_c from /dev/zero: C samples at
 * kernel IPs, with data addresses in array_c.
 *
 *   ldlat-topprog [--after N] [--wait] [--thread] [A [B [C]]] [--exec PROGRAM [ARGS...]]
 *
 * A, B, C default to 200, 100, 0, at most 512.  --wait reads one byte from
 * stdin before touching anything; --exec runs PROGRAM in the same process
 * afterwards (a sample before and after an exec, of one PID).  --after N
 * maps N anonymous pages right after the program's .bss (the kernel merges
 * them into its mapping) and, after the wait, touches each: N samples that
 * are not the program's.  --thread runs touch_b() in a second thread (its
 * thread ID is not the process ID), joined before anything else.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE	  4096
#define MAX_PAGES 512

/* page-aligned, in .bss: nothing touches them before main */
char array_a[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_b[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_c[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));

__attribute__((noinline)) void touch_a(int pages)
{
	volatile char *p = array_a;
	int i;

	for (i = 0; i < pages; i++)
		p[(size_t)i * PAGE] = 1;
}

__attribute__((noinline)) void touch_b(int pages)
{
	volatile char *p = array_b;
	int i;

	for (i = 0; i < pages; i++)
		p[(size_t)i * PAGE] = 2;
}

static void *touch_b_thread(void *pages)
{
	touch_b(*(int *)pages);
	return NULL;
}

/* n pages mapped right after the mapping that holds the .bss; NULL on failure. */
static char *map_after_bss(int n)
{
	unsigned long lo, hi, start = 0, end = 0, bss = (unsigned long)array_a;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	void *p;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && bss >= lo && bss < hi) {
			start = lo;
			end = hi;
		}
	if (f)
		fclose(f);
	if (!end)
		return NULL;
	p = mmap((void *)end, (size_t)n * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)end)
		return NULL;
	/* the same flags as the .bss mapping: one mapping, as after a brk-less malloc arena */
	madvise((void *)start, end - start + (size_t)n * PAGE, MADV_NOHUGEPAGE);
	return p;
}

int main(int argc, char **argv)
{
	int a = 200, b = 100, c = 0, i = 1, fd, after = 0;
	char byte, *extra = NULL;
	bool thread = false;
	pthread_t t;

	if (i + 1 < argc && !strcmp(argv[i], "--after")) {
		after = atoi(argv[i + 1]);
		i += 2;
		extra = after > 0 ? map_after_bss(after) : NULL;
		if (!extra)
			return 1;
	}

	if (i < argc && !strcmp(argv[i], "--wait")) {
		if (read(0, &byte, 1) != 1)
			return 1;
		i++;
	}
	if (i < argc && !strcmp(argv[i], "--thread")) {
		thread = true;
		i++;
	}
	if (i < argc && strcmp(argv[i], "--exec"))
		a = atoi(argv[i++]);
	if (i < argc && strcmp(argv[i], "--exec"))
		b = atoi(argv[i++]);
	if (i < argc && strcmp(argv[i], "--exec"))
		c = atoi(argv[i++]);
	if (a < 0 || a > MAX_PAGES || b < 0 || b > MAX_PAGES || c < 0 || c > MAX_PAGES) {
		fprintf(stderr,
			"usage: ldlat-topprog [--wait] [A [B [C]]] [--exec PROGRAM [ARGS...]] (0 "
			"to "
			"%d pages)\n",
			MAX_PAGES);
		return 2;
	}
	/* one fault per base page: no transparent huge page may back them */
	madvise(array_a, sizeof(array_a), MADV_NOHUGEPAGE);
	madvise(array_b, sizeof(array_b), MADV_NOHUGEPAGE);
	madvise(array_c, sizeof(array_c), MADV_NOHUGEPAGE);
	touch_a(a);
	if (thread) {
		if (pthread_create(&t, NULL, touch_b_thread, &b) || pthread_join(t, NULL))
			return 1;
	} else {
		touch_b(b);
	}
	for (fd = 0; fd < after; fd++)
		extra[(size_t)fd * PAGE] = 3;
	if (c) {
		fd = open("/dev/zero", O_RDONLY);
		if (fd < 0 || read(fd, array_c, (size_t)c * PAGE) != (ssize_t)c * PAGE)
			return 1;
		close(fd);
	}
	if (i + 1 < argc && !strcmp(argv[i], "--exec")) {
		execv(argv[i + 1], argv + i + 1);
		return 127;
	}
	return 0;
}
