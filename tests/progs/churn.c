// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-churn - a process whose threads come and go, for -p's tests: N
 * threads at a time (16 by default), each living a moment, until killed.  A
 * thread that /proc/PID/task lists may be gone by the time a tool opens its
 * event.  Says "ready" on stderr once the churn has begun.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 64

static void *brief(void *arg)
{
	(void)arg;
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
