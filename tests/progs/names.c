// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-names - symbols named as perf names them: a C++ method and a Rust
 * function (their mangled names given as asm labels, so that no C++ or Rust
 * compiler is needed), a PLT stub (getpid@plt), and a label of size 0 in
 * .text (as ld.so's _start is).  Each is called once.
 */
#include <stdio.h>
#include <unistd.h>

/* ldlat::Table::lookup(int) */
__attribute__((noinline)) int table_lookup(int k) __asm__("_ZN5ldlat5Table6lookupEi");
int table_lookup(int k)
{
	return k * 3;
}

/* ldlat::rust::walk, Rust's legacy mangling (a hash, dropped when demangled) */
__attribute__((noinline)) int rust_walk(int k) __asm__("_ZN5ldlat4rust4walk17h0123456789abcdefE");
int rust_walk(int k)
{
	return k + 7;
}

/* a label with no type and no size, in code */
__asm__(".text\n.globl zero_label\nzero_label:\n\tmovl $42, %eax\n\tret\n");
int zero_label(void);

int main(void)
{
	return printf("%d %d %d %d\n", table_lookup(1), rust_walk(2), (int)getpid() > 0,
		      zero_label()) < 0;
}
