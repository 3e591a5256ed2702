// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-churn - a process whose threads come and go, for -p's tests: N
 * threads at a time (16 by default), each living a moment, until killed.  A
 * thread that /proc/PID/task lists may be gone by the time a tool opens its
 * event.  Each thread faults in one page.  Says "ready" on stderr once the churn has begun.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_THREADS 64

/* each thread faults in a page of its own: samples from threads that are not the first */
static void *brief(void *arg)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (p != MAP_FAILED) {
		*(volatile char *)p = 1;
		munmap(p, 4096);
	}
	usleep(100);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	int n = argc > 1 ? atoi(argv[1]) : 16, i, rounds = 0;

	if (n < 1 || n > MAX_THREADS) {
		fprintf(stderr, "usage: ldlat-churn [THREADS (1-%d)]\n", MAX_THREADS);
		return 2;
	}
	for (;;) {
		for (i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, brief, NULL))
				return 1;
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		if (++rounds == 1)
			fprintf(stderr, "ldlat-churn: ready\n");
	}
}
