// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-stackprobe - a frame bigger than a page, probed a page at a time
 * (built with -fstack-clash-protection and frame pointers: the Makefile):
 * each probe faults at the stack pointer itself, on a page not there yet,
 * so a sample of it has no stack above SP to copy, while its frame pointer
 * still leads to main.  Its paths under --source page-faults are
 * main -> big, about one sample per page of big's 256 KiB.  It lives a
 * second after, so that a tool that loads its unwind tables meanwhile
 * (ldlat-top --call-graph=dwarf) can walk those samples again.
 *
 *   ldlat-stackprobe
 */
#include <unistd.h>

#define LIFETIME_US 1000000

static volatile int sink;

__attribute__((noinline)) int big(int n)
{
	volatile char buf[256 * 1024];

	buf[n] = 1;
	return buf[0];
}

int main(void)
{
	sink = big(7);
	/* alive a while after: long enough for a tool to load its unwind tables */
	usleep(LIFETIME_US);
	return 0;
}
