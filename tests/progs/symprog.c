// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-symprog - a PIE program linked with libldlatsym.so, for the
 * symbolization tests.  It prints the run-time addresses of its functions
 * and variables (global and static, in .data and .bss), of the library's,
 * of a heap block and of a stack variable, one "name address" a line, then
 * waits for stdin to close.  The tests resolve those addresses and expect
 * the names back; built once with symbols and once stripped, with its
 * debug info in a separate file found by build ID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int symlib_sum(int n);
int *symlib_table_at(int i);

char prog_global[16384];
static char prog_static[8192];
long prog_data[512] = { 1 };

__attribute__((noinline)) int prog_hot(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += prog_global[i % sizeof(prog_global)];
	return s;
}

__attribute__((noinline)) static int prog_static_hot(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += prog_static[i % sizeof(prog_static)];
	return s;
}

int main(void)
{
	char *heap = malloc(1 << 16);
	int local = prog_hot(1) + prog_static_hot(1) + symlib_sum(1);
	char buf[16];

	/* function addresses plus a few bytes: an IP inside the function */
	printf("prog_hot %p\n", (void *)((char *)prog_hot + 4));
	printf("prog_static_hot %p\n", (void *)((char *)prog_static_hot + 4));
	printf("symlib_sum %p\n", (void *)((char *)symlib_sum + 4));
	printf("prog_global %p\n", (void *)(prog_global + 5000));
	printf("prog_static %p\n", (void *)(prog_static + 100));
	printf("prog_data %p\n", (void *)(prog_data + 3));
	printf("symlib_table %p\n", (void *)symlib_table_at(2000));
	printf("[heap] %p\n", (void *)(heap + 8));
	printf("[stack] %p\n", (void *)&local);
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	free(heap);
	return local == -1;
}
