// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-falseshare - false sharing for the data-type tests of ldlat-c2c:
 * two threads write two fields of one struct that lie in one cache line,
 * each its own field, taking turns.
 *
 *   struct stats.hits 7      (thread "hits")
 *   struct stats.misses 5    (thread "misses")
 *
 * The struct lies 0x50 bytes into a page of its own (an mmap), so that a
 * field's offset in its cache line is not its offset in the struct; the
 * main thread drops the page (MADV_DONTNEED) after each write, so that
 * under --source page-faults each write is one sample at the store's
 * address and IP, and a field's count is its thread's writes.  It prints
 * "stats at 0xADDR": the tests place perf's sample addresses in the struct
 * with it and pahole's offsets.
 *
 *   ldlat-falseshare
 *
 * Built at -O0 and -O2 with -g (the Makefile's FALSESHARE_ELFS); the
 * thread functions are noipa so that each keeps its parameter's debug info.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE	     4096
#define STATS_OFFSET 0x50
#define NOIPA	     __attribute__((noipa))

struct stats {
	int flags;
	long hits;
	char name[12];
	long misses;
};

struct turn {
	struct stats *s;
	sem_t go, done;
	int n;
};

static NOIPA void *hits_thread(void *arg)
{
	struct turn *t = arg;
	struct stats *s = t->s;
	int i;

	for (i = 0; i < t->n; i++) {
		sem_wait(&t->go);
		s->hits = i + 1; /* type: struct stats.hits */
		sem_post(&t->done);
	}
	return NULL;
}

static NOIPA void *misses_thread(void *arg)
{
	struct turn *t = arg;
	struct stats *s = t->s;
	int i;

	for (i = 0; i < t->n; i++) {
		sem_wait(&t->go);
		s->misses = i + 1; /* type: struct stats.misses */
		sem_post(&t->done);
	}
	return NULL;
}

int main(void)
{
	char *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct turn th[2] = { { .n = 7 }, { .n = 5 } };
	void *(*fn[2])(void *) = { hits_thread, misses_thread };
	pthread_t tid[2];
	int i, k;

	if (page == MAP_FAILED)
		return 1;
	printf("stats at %p\n", (void *)(page + STATS_OFFSET));
	fflush(stdout);
	for (k = 0; k < 2; k++) {
		th[k].s = (struct stats *)(page + STATS_OFFSET);
		if (sem_init(&th[k].go, 0, 0) || sem_init(&th[k].done, 0, 0) ||
		    pthread_create(&tid[k], NULL, fn[k], &th[k]))
			return 1;
	}
	/* one write at a time, each to a page just dropped: one fault each */
	for (i = 0; i < th[0].n || i < th[1].n; i++)
		for (k = 0; k < 2; k++) {
			if (i >= th[k].n)
				continue;
			sem_post(&th[k].go);
			sem_wait(&th[k].done);
			if (madvise(page, PAGE, MADV_DONTNEED))
				return 1;
		}
	for (k = 0; k < 2; k++)
		pthread_join(tid[k], NULL);
	return 0;
}
