// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-dlchurn - loads and unloads shared libraries, for the soak test: each
 * of ROUNDS rounds dlopen()s every LIB given, touches a page of the heap, and
 * dlclose()s them; then exits.  Run in a shell loop it makes the exec and
 * mmap/munmap churn a long-running ldlat-top must follow with bounded memory.
 * Exit status 0, or 1 with the library dlopen() refused.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	void *h[64];
	int rounds = argc > 1 ? atoi(argv[1]) : 1, n = argc - 2, r, i;

	if (argc < 3 || rounds < 1 || n > 64) {
		fprintf(stderr, "usage: ldlat-dlchurn ROUNDS LIB... (at most 64)\n");
		return 2;
	}
	for (r = 0; r < rounds; r++) {
		char *p = malloc(4096 * 4);

		for (i = 0; i < n; i++) {
			h[i] = dlopen(argv[i + 2], RTLD_NOW | RTLD_LOCAL);
			if (!h[i]) {
				fprintf(stderr, "ldlat-dlchurn: %s\n", dlerror());
				return 1;
			}
		}
		if (p)
			memset(p, r, 4096 * 4);
		free(p);
		for (i = n - 1; i >= 0; i--)
			dlclose(h[i]);
	}
	return 0;
}
