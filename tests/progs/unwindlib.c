// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libldlatunwind.so - the shared library of ldlat-unwindprog
 * (tests/progs/unwindprog.c): a function its caller reaches through the
 * PLT, built at -O2 without frame pointers, as the program is.
 */
#define PAGE 4096

__attribute__((noinline)) int unwindlib_touch(char *base, int pages)
{
	volatile char *p = base;
	int i;

	for (i = 0; i < pages; i++)
		p[(long)i * PAGE] = 1;
	return pages;
}
