// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-unwindprog - call paths with no frame pointers, for the unwinding
 * from .eh_frame (--call-graph dwarf): built at -O2 -fomit-frame-pointer
 * (the Makefile), as Debian builds its packages, so a frame-pointer walk
 * loses every caller.  Each path first-touches pages of an array of its
 * own, so under --source page-faults each takes one sample per page:
 *
 *   main -> path_alpha -> touch_pages                  A pages
 *   main -> path_beta -> touch_pages                   B pages
 *   main -> path_lib -> unwindlib_touch (libldlatunwind.so, through the PLT)  C
 *   main -> raise -> (signal frame) on_signal -> touch_pages                  D
 *   (thread) start_thread -> path_thread -> touch_pages                       E
 *   main -> path_realign -> realign_call -> touch_pages_leaf                   F
 *
 * realign_call (assembly) is built as glibc's lazy-binding trampoline
 * (_dl_runtime_resolve) is: it keeps the stack pointer it was called with
 * in RBX and aligns the stack, so its CFA is RBX-based; touch_pages_leaf
 * leaves RBX as it was, so the walk needs the sample's own RBX.
 *
 *   ldlat-unwindprog [--wait] [A [B [C [D [E [F]]]]]]
 *
 * Defaults 1000, 500, 200, 100, 50 and 30, at most 2048 each.  --wait:
 * read a byte from stdin before the paths (a test starts its recording
 * first).
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE	  4096
#define MAX_PAGES 2048

char array_alpha[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_beta[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_lib[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_signal[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_thread[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));
char array_realign[MAX_PAGES * PAGE] __attribute__((aligned(PAGE)));

int realign_call(char *base, int pages);

/*
 * realign_call(base, pages): touch_pages_leaf(base, pages) with the stack
 * aligned to 64 bytes, its caller's stack pointer in RBX;
 * touch_pages_leaf(base, pages): a byte of each page written, RBX
 * untouched.
 */
__asm__(".text\n"
	".globl realign_call\n"
	".type realign_call, @function\n"
	"realign_call:\n"
	"	.cfi_startproc\n"
	"	pushq %rbx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %rbx, 0\n"
	"	movq %rsp, %rbx\n"
	"	.cfi_def_cfa_register %rbx\n"
	"	andq $-64, %rsp\n"
	"	subq $64, %rsp\n"
	"	call touch_pages_leaf\n"
	"	movq %rbx, %rsp\n"
	"	.cfi_def_cfa_register %rsp\n"
	"	popq %rbx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %rbx\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size realign_call, .-realign_call\n"
	".globl touch_pages_leaf\n"
	".type touch_pages_leaf, @function\n"
	"touch_pages_leaf:\n"
	"	.cfi_startproc\n"
	"	xorl %eax, %eax\n"
	"	testl %esi, %esi\n"
	"	jle 2f\n"
	"1:	movb $1, (%rdi)\n"
	"	addq $4096, %rdi\n"
	"	incl %eax\n"
	"	cmpl %esi, %eax\n"
	"	jl 1b\n"
	"2:	ret\n"
	"	.cfi_endproc\n"
	".size touch_pages_leaf, .-touch_pages_leaf\n");

int unwindlib_touch(char *base, int pages);

static int signal_pages;
/* what each path returned: used after the calls, so none is a tail call */
static volatile int sink;

__attribute__((noinline)) int touch_pages(char *base, int pages)
{
	volatile char *p = base;
	int i;

	for (i = 0; i < pages; i++)
		p[(long)i * PAGE] = 1;
	return pages;
}

__attribute__((noinline)) int path_alpha(int pages)
{
	int n = touch_pages(array_alpha, pages);

	sink += n;
	return n + 1;
}

__attribute__((noinline)) int path_beta(int pages)
{
	int n = touch_pages(array_beta, pages);

	sink += n;
	return n + 2;
}

__attribute__((noinline)) int path_lib(int pages)
{
	int n = unwindlib_touch(array_lib, pages);

	sink += n;
	return n + 3;
}

static void on_signal(int sig)
{
	sink += touch_pages(array_signal, signal_pages) + sig;
}

__attribute__((noinline)) int path_realign(int pages)
{
	int n = realign_call(array_realign, pages);

	sink += n;
	return n + 4;
}

__attribute__((noinline)) static void *path_thread(void *arg)
{
	sink += touch_pages(array_thread, (int)(long)arg);
	return NULL;
}

static int arg(int argc, char **argv, int i, int def)
{
	int v = i < argc ? atoi(argv[i]) : def;

	return v < 0 ? 0 : v > MAX_PAGES ? MAX_PAGES : v;
}

int main(int argc, char **argv)
{
	int first = 1, a, b, c, e, f;
	pthread_t t;
	char go;

	if (argc > 1 && !strcmp(argv[1], "--wait")) {
		first = 2;
		if (read(0, &go, 1) < 0)
			return 1;
	}
	a = arg(argc, argv, first, 1000);
	b = arg(argc, argv, first + 1, 500);
	c = arg(argc, argv, first + 2, 200);
	signal_pages = arg(argc, argv, first + 3, 100);
	e = arg(argc, argv, first + 4, 50);
	f = arg(argc, argv, first + 5, 30);
	signal(SIGUSR1, on_signal);
	sink += path_alpha(a);
	sink += path_beta(b);
	sink += path_lib(c);
	sink += path_realign(f);
	raise(SIGUSR1);
	if (pthread_create(&t, NULL, path_thread, (void *)(long)e) || pthread_join(t, NULL))
		return 1;
	return sink == 0;
}
