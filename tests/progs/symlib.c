// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* libldlatsym.so - a shared library for the symbolization tests (see symprog.c). */
int symlib_table[4096];

__attribute__((noinline)) int symlib_sum(int n)
{
	int i, s = 0;

	for (i = 0; i < n && i < 4096; i++)
		s += symlib_table[i];
	return s;
}

/* the program asks for the address: a reference of its own would copy-relocate the table */
int *symlib_table_at(int i)
{
	return &symlib_table[i];
}
