// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-cxxnames - C++ names and libc's aliases as perf names them: first
 * touches of fresh pages from a method with parameters
 * (store::Table::fill(long, long, int)), two overloads of one name
 * (store::touch), a function template (store::put<long>), and libc's
 * memmove, whose code has several names at one address
 * (__memmove_*_unaligned_erms and __memcpy_*_unaligned_erms: perf keeps
 * one); and a fault whose call chain is broken (store::broken touches a
 * page with its frame pointer at a zeroed frame: the kernel's walk gives a
 * return address of 0, perf's [unknown]).  Built with frame pointers, so
 * that the kernel walks its stack.  Prints nothing.
 */
#include <sys/mman.h>
#include <cstdlib>
#include <cstring>

#define PAGE  4096L
#define NOIPA __attribute__((noipa))

namespace store {

class Table {
public:
	char *mem;
	NOIPA void fill(long from, long n, int v);
};

void Table::fill(long from, long n, int v)
{
	for (long i = from; i < from + n; i++)
		mem[i * PAGE] = (char)v;
}

NOIPA void touch(char *p)
{
	p[0] = 1;
}

NOIPA void touch(char *p, int v)
{
	p[0] = (char)v;
}

template <typename T> NOIPA void put(T *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i * (PAGE / (long)sizeof(T))] = (T)i;
}

/* a frame of {next frame 0, return address 0}: the walk ends at a 0 */
static unsigned long zero_frame[2];

NOIPA void broken(char *p)
{
	__asm__ volatile("push %%rbp\n\tmov %1, %%rbp\n\tmovb $1, (%0)\n\tpop %%rbp"
			 :
			 : "r"(p), "r"(zero_frame)
			 : "memory");
}

} // namespace store

static char *fresh(long pages)
{
	void *p = mmap(nullptr, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		std::exit(1);
	return static_cast<char *>(p);
}

/* called through a volatile pointer: the compiler may not inline libc's copy */
static void *(*volatile copy)(void *, const void *, size_t) = memmove;

int main()
{
	store::Table t;
	char *src = fresh(32), *dst = fresh(32);
	long i;

	t.mem = fresh(48);
	t.fill(0, 48, 1);
	for (i = 0; i < 8; i++)
		store::touch(fresh(1));
	for (i = 0; i < 4; i++)
		store::touch(fresh(1), 2);
	store::put<long>(reinterpret_cast<long *>(fresh(16)), 16);
	store::broken(fresh(1));
	std::memset(src, 3, 32 * PAGE);
	copy(dst, src, 32 * PAGE);
	return dst[5] == 3 ? 0 : 1;
}
