// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-workload - loads with known sources and known addresses, for the
 * demo and the tests.
 *
 *   --fault-pages N   map N pages and write one byte to each: exactly N page
 *                     faults, in [base, base + N * page size)
 *   --read            with --fault-pages: read one byte of each page instead:
 *                     each fault maps the shared zero page, the cheapest
 *                     fault there is (no page allocated or cleared), where
 *                     the kernel has one for it (some do not)
 *   --release         with --fault-pages: give each 1,024 pages back
 *                     (MADV_DONTNEED) once touched, so that the workload's
 *                     RSS stays under 4 MiB either way; still exactly N
 *                     faults (no page is touched again)
 *   --chase           pointer-chase four buffers sized for L1, L2, L3 and
 *                     DRAM (half of each cache level from sysfs; DRAM 4x L3,
 *                     at least 64 MiB, at most 512 MiB),
 *                     first-touching every page
 *   --heap-pages N    grow the brk heap by N pages (sbrk) and write one byte
 *                     to each, before the fault pages: N page faults in [heap]
 *   --base ADDR       put the buffers at fixed addresses: ADDR, ADDR + 1 GiB,
 *                     ADDR + 2 GiB, ADDR + 3 GiB (the fault pages at ADDR)
 *   --print-ranges    print each buffer's address range
 *   --wait            read one byte from stdin before starting (saying so on
 *                     stderr first)
 *   --lock            mlockall(MCL_CURRENT) first: every page it has so far is
 *                     populated, so that the fault pages are the only page
 *                     faults it takes from then on (counting tests)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define LINE	      64
#define GIB	      (1ull << 30)
#define MAX_BUFFER    (512ull << 20)
#define RELEASE_PAGES 1024 /* --release: pages given back at a time */

struct buffer {
	const char *name;
	size_t size;
	char *mem;
};

static size_t cache_size(int want_level)
{
	char path[128], buf[64];
	size_t best = 0;
	int i, level;
	FILE *f;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		f = fopen(path, "r");
		if (!f)
			break;
		level = fscanf(f, "%d", &level) == 1 ? level : 0;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		f = fopen(path, "r");
		if (!f || !fgets(buf, sizeof(buf), f) || level != want_level ||
		    !strncmp(buf, "Instruction", 11)) {
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f)) {
			size_t v = strtoull(buf, NULL, 10);

			if (strchr(buf, 'K'))
				v <<= 10;
			else if (strchr(buf, 'M'))
				v <<= 20;
			if (v > best)
				best = v;
		}
		if (f)
			fclose(f);
	}
	return best;
}

static size_t round_pages(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

static char *map_at(uintptr_t base, size_t size)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (base ? MAP_FIXED_NOREPLACE : 0);
	char *p = mmap((void *)base, size, PROT_READ | PROT_WRITE, flags, -1, 0);

	if (p == MAP_FAILED || (base && (uintptr_t)p != base)) {
		fprintf(stderr, "ldlat-workload: cannot map %zu bytes at 0x%lx: %s\n", size,
			(unsigned long)base, strerror(errno));
		exit(1);
	}
	/* one fault per base page, so that page-fault counts are exact */
	madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/*
 * A random cycle through every cache line (Sattolo's algorithm), so that each
 * load depends on the previous one and the prefetchers cannot guess the next.
 * Writing the links first-touches every page, by a write.
 */
static void chase_init(struct buffer *b)
{
	size_t n = b->size / LINE, i, j, *order = malloc(n * sizeof(*order)), tmp;

	if (!order) {
		perror("ldlat-workload: malloc");
		exit(1);
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = rng() % i;
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (i = 0; i < n; i++)
		*(char **)(b->mem + order[i] * LINE) = b->mem + order[(i + 1) % n] * LINE;
	free(order);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Chases for about 'seconds'; returns nanoseconds per load. */
static double chase(struct buffer *b, double seconds)
{
	char **p = (char **)b->mem;
	double start = now(), t;
	uint64_t loads = 0;
	int i;

	do {
		for (i = 0; i < 100000; i++)
			p = (char **)*p;
		loads += 100000;
		t = now();
	} while (t - start < seconds);
	/* keep the chain alive for the compiler */
	if (!p)
		puts("");
	return (t - start) * 1e9 / (double)loads;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ldlat-workload [--heap-pages N] [--fault-pages N [--read] [--release]] "
		"[--chase] [--seconds S]\n"
		"                      [--base ADDR]\n"
		"                      [--sizes L1,L2,L3,DRAM] [--print-ranges] [--wait] "
		"[--lock]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fault-pages", required_argument, NULL, 'f' },
		{ "chase", no_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "base", required_argument, NULL, 'b' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "print-ranges", no_argument, NULL, 'r' },
		{ "wait", no_argument, NULL, 'w' },
		{ "read", no_argument, NULL, 'R' },
		{ "release", no_argument, NULL, 'D' },
		{ "lock", no_argument, NULL, 'l' },
		{ "heap-pages", required_argument, NULL, 'h' },
		{},
	};
	struct buffer bufs[4] = {
		{ "L1", 0, NULL }, { "L2", 0, NULL }, { "L3", 0, NULL }, { "DRAM", 0, NULL }
	};
	unsigned long long base = 0, pages = 0, heap_pages = 0;
	double seconds = 1;
	int c, i, do_chase = 0, print = 0, wait_stdin = 0, read_only = 0, lock = 0, release = 0;
	char *sizes = NULL, *end, byte;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			pages = strtoull(optarg, &end, 0);
			if (*end || !pages)
				usage();
			break;
		case 'c':
			do_chase = 1;
			break;
		case 's':
			seconds = strtod(optarg, &end);
			if (*end || seconds <= 0)
				usage();
			break;
		case 'b':
			base = strtoull(optarg, &end, 0);
			if (*end || base % GIB)
				usage();
			break;
		case 'z':
			sizes = optarg;
			break;
		case 'r':
			print = 1;
			break;
		case 'w':
			wait_stdin = 1;
			break;
		case 'R':
			read_only = 1;
			break;
		case 'D':
			release = 1;
			break;
		case 'l':
			lock = 1;
			break;
		case 'h':
			heap_pages = strtoull(optarg, &end, 0);
			if (*end || !heap_pages)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (!pages && !do_chase && !heap_pages))
		usage();

	if (lock && mlockall(MCL_CURRENT)) {
		perror("ldlat-workload: mlockall");
		return 1;
	}
	if (wait_stdin) {
		fputs("ldlat-workload: waiting for a byte on stdin\n", stderr);
		if (read(0, &byte, 1) != 1)
			return 1;
	}

	if (heap_pages) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE), i;
		char *top = sbrk(0), *heap;

		/* from a page boundary, so that N pages take exactly N faults */
		if (sbrk((char *)round_pages((size_t)top) - top) == (void *)-1 ||
		    (heap = sbrk(heap_pages * pg)) == (void *)-1) {
			perror("ldlat-workload: sbrk");
			return 1;
		}
		madvise(heap, heap_pages * pg, MADV_NOHUGEPAGE);
		for (i = 0; i < heap_pages; i++)
			heap[i * pg] = 1;
		if (print)
			printf("heap 0x%lx-0x%lx %llu pages\n", (unsigned long)heap,
			       (unsigned long)(heap + heap_pages * pg), heap_pages);
	}
	if (pages) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE), i;
		char *mem = map_at(base, pages * pg);
		volatile char sum = 0; /* keeps the reads */

		for (i = 0; i < pages; i++) {
			if (read_only)
				sum += mem[i * pg];
			else
				mem[i * pg] = 1;
			if (release && (i + 1) % RELEASE_PAGES == 0)
				madvise(mem + (i + 1 - RELEASE_PAGES) * pg, RELEASE_PAGES * pg,
					MADV_DONTNEED);
		}
		if (print)
			printf("faults 0x%lx-0x%lx %llu pages\n", (unsigned long)mem,
			       (unsigned long)(mem + pages * pg), pages);
		base = base ? base + ((pages * pg + GIB - 1) / GIB) * GIB : 0;
	}
	if (!do_chase)
		return 0;

	bufs[0].size = cache_size(1) / 2;
	bufs[1].size = cache_size(2) / 2;
	bufs[2].size = cache_size(3) / 2;
	if (!bufs[0].size)
		bufs[0].size = 16 << 10;
	if (!bufs[1].size)
		bufs[1].size = 256 << 10;
	if (!bufs[2].size)
		bufs[2].size = 4 << 20;
	bufs[3].size = cache_size(3) * 4 > (64u << 20) ? cache_size(3) * 4 : 64u << 20;
	if (sizes) {
		for (i = 0; i < 4; i++) {
			bufs[i].size = strtoull(sizes, &end, 0);
			if (*end == 'K' || *end == 'k')
				bufs[i].size <<= 10, end++;
			else if (*end == 'M' || *end == 'm')
				bufs[i].size <<= 20, end++;
			if ((*end != ',' && i < 3) || (*end && i == 3) || !bufs[i].size)
				usage();
			sizes = end + 1;
		}
	}
	for (i = 0; i < 4; i++) {
		bufs[i].size = round_pages(bufs[i].size);
		if (bufs[i].size > MAX_BUFFER)
			bufs[i].size = MAX_BUFFER;
		bufs[i].mem = map_at(base ? base + i * GIB : 0, bufs[i].size);
		chase_init(&bufs[i]);
		if (print)
			printf("%-4s 0x%lx-0x%lx %zu KiB\n", bufs[i].name,
			       (unsigned long)bufs[i].mem,
			       (unsigned long)(bufs[i].mem + bufs[i].size), bufs[i].size >> 10);
	}
	fflush(stdout);
	for (i = 0; i < 4; i++)
		printf("%-4s %6.1f ns/load\n", bufs[i].name, chase(&bufs[i], seconds / 4));
	return 0;
}
