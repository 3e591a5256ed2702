// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-typeprog - first touches of the fields of known layouts, for the
 * data-type tests: a struct on the heap through a pointer, an array of
 * structs, a struct nested in another, a union, a C++ class that inherits
 * a field (typeclass.cc), a global array of structs, and a struct on the
 * stack.  Each field lies a page and more from every other field and from
 * the ends of its type, and each memory block is fresh (mmap, .bss, new
 * stack), so under --source page-faults every store below is one sample at
 * the IP of the store, and a field's count is how many times it is touched:
 *
 *   struct conn.rx_bytes 11    .tx_bytes 7    .state 5     (heap, pointer)
 *   struct item.key 13         .val 9                      (array of structs)
 *   struct outer.hdr 3         .in.x 6        .in.y 4      (nested)
 *   union msg.hdr.len 8        .raw 2                      (union)
 *   class Session.id 12        .seq 10        .bytes 14    (C++, Base::id)
 *   struct config.flags 15     .limit 1                    (global array)
 *   struct frame.a 16          .b 8                        (stack, recursion)
 *
 *   ldlat-typeprog [--wait]
 *
 * Each store's line says what it touches ("type: struct conn.rx_bytes"): the
 * tests read it beside objdump's instructions and line numbers and pahole's
 * offsets.  --wait reads a byte from stdin first (a test attaches to the
 * PID).  Built at -O0 and -O2 with -g, stripped with its debug info apart,
 * and without debug info (the Makefile's TYPE_ELFS); the functions are
 * noipa so that each keeps its signature and its parameters' debug info.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE  4096
#define NOIPA __attribute__((noipa))

struct conn {
	long rx_bytes;
	char pad0[PAGE];
	long tx_bytes;
	char pad1[PAGE];
	int state;
	char pad2[PAGE];
};

struct item {
	long key;
	char pad0[PAGE];
	long val;
	char pad1[PAGE];
};

struct inner {
	long x;
	char pad0[PAGE];
	long y;
	char pad1[PAGE];
};

struct outer {
	long hdr;
	char pad0[PAGE];
	struct inner in;
};

union msg {
	struct {
		long kind;
		char pad0[PAGE];
		long len;
		char pad1[PAGE];
	} hdr;
	unsigned char raw[3 * PAGE];
};

struct config {
	long flags;
	char pad0[PAGE];
	long limit;
	char pad1[PAGE];
};

struct frame {
	char lead[PAGE];
	long a;
	char pad0[PAGE];
	long b;
	char pad1[PAGE];
};

#define NCFG 16
/* page-aligned, in .bss: nothing shares the pages of its fields */
struct config g_cfgs[NCFG] __attribute__((aligned(PAGE)));

void session_touch(int nid, int nseq, int nbytes); /* typeclass.cc */

/* a build of its own (make's ldlat-typeprog-remote): another build ID, the same code */
#ifdef TYPEPROG_VARIANT
__attribute__((used)) static const char variant[] = TYPEPROG_VARIANT;
#endif

static void *fresh(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("ldlat-typeprog: mmap");
		exit(1);
	}
	return p;
}

NOIPA void conn_rx(struct conn *c)
{
	c->rx_bytes = 1; /* type: struct conn.rx_bytes */
}

NOIPA void conn_tx(struct conn *c)
{
	c->tx_bytes = 2; /* type: struct conn.tx_bytes */
}

NOIPA void conn_state(struct conn *c)
{
	c->state = 3; /* type: struct conn.state */
}

NOIPA void items_touch(struct item *items, int nkey, int nval)
{
	int i;

	for (i = 0; i < nkey; i++)
		items[i].key = i; /* type: struct item.key */
	for (i = 0; i < nval; i++)
		items[i].val = i; /* type: struct item.val */
}

NOIPA void outer_hdr(struct outer *o)
{
	o->hdr = 4; /* type: struct outer.hdr */
}

NOIPA void outer_x(struct outer *o)
{
	o->in.x = 5; /* type: struct outer.in.x */
}

NOIPA void outer_y(struct outer *o)
{
	o->in.y = 6; /* type: struct outer.in.y */
}

NOIPA void msg_len(union msg *m)
{
	m->hdr.len = 7; /* type: union msg.hdr.len */
}

NOIPA void msg_raw(union msg *m)
{
	m->raw[2 * PAGE + 100] = 8; /* type: union msg.raw */
}

NOIPA void config_touch(int nflags, int nlimit)
{
	int i;

	for (i = 0; i < nflags; i++)
		g_cfgs[i].flags = i; /* type: struct config.flags */
	for (i = 0; i < nlimit; i++)
		g_cfgs[i].limit = i; /* type: struct config.limit */
}

NOIPA void frame_sink(struct frame *f)
{
	(void)f;
}

/* Each level's frame is below the last one's: fresh stack pages. */
NOIPA void frame_touch(int depth)
{
	struct frame f;

	f.a = depth; /* type: struct frame.a */
	if (depth % 2 == 0)
		f.b = depth; /* type: struct frame.b */
	if (depth > 1)
		frame_touch(depth - 1);
	frame_sink(&f);
}

NOIPA void stack_gap(void *p)
{
	(void)p;
}

/*
 * The recursion starts a megabyte below this frame, untouched (the stack is
 * not probed: -fno-stack-clash-protection), where the loader's and libc's
 * start-up code never reached.
 */
NOIPA void frame_start(int depth)
{
	stack_gap(__builtin_alloca(1 << 20));
	frame_touch(depth);
}

int main(int argc, char **argv)
{
	struct conn *conns = fresh(11 * sizeof(*conns));
	struct item *items = fresh(13 * sizeof(*items));
	struct outer *outers = fresh(6 * sizeof(*outers));
	union msg *msgs = fresh(8 * sizeof(*msgs));
	char byte;
	int i;

	if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-' && argv[1][2] == 'w') {
		fprintf(stderr, "ldlat-typeprog: waiting for a byte on stdin\n");
		if (read(0, &byte, 1) < 0)
			return 1;
	}
	for (i = 0; i < 11; i++)
		conn_rx(&conns[i]);
	for (i = 0; i < 7; i++)
		conn_tx(&conns[i]);
	for (i = 0; i < 5; i++)
		conn_state(&conns[i]);
	items_touch(items, 13, 9);
	for (i = 0; i < 3; i++)
		outer_hdr(&outers[i]);
	for (i = 0; i < 6; i++)
		outer_x(&outers[i]);
	for (i = 0; i < 4; i++)
		outer_y(&outers[i]);
	for (i = 0; i < 8; i++)
		msg_len(&msgs[i]);
	for (i = 0; i < 2; i++)
		msg_raw(&msgs[i]);
	session_touch(12, 10, 14);
	config_touch(15, 1);
	frame_start(16);
	return 0;
}
