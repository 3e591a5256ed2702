// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The C++ part of ldlat-typeprog (typeprog.c): a class that inherits a
 * field.  Session::id is Base's, reached through a Session pointer: a
 * base class adds no name to the member's ("class Session.id").
 */
#include <sys/mman.h>
#include <cstdlib>

#define PAGE  4096
#define NOIPA __attribute__((noipa))

class Base {
public:
	long id;
	char base_pad[PAGE];
};

class Session : public Base {
public:
	long seq;
	char pad0[PAGE];
	long bytes;
	char pad1[PAGE];
};

NOIPA void session_id(Session *s)
{
	s->id = 1; /* type: class Session.id */
}

NOIPA void session_seq(Session *s)
{
	s->seq = 2; /* type: class Session.seq */
}

NOIPA void session_bytes(Session *s)
{
	s->bytes = 3; /* type: class Session.bytes */
}

extern "C" void session_touch(int nid, int nseq, int nbytes)
{
	void *p = mmap(nullptr, 14 * sizeof(Session), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	Session *s = static_cast<Session *>(p);
	int i;

	if (p == MAP_FAILED)
		std::exit(1);
	for (i = 0; i < nid; i++)
		session_id(&s[i]);
	for (i = 0; i < nseq; i++)
		session_seq(&s[i]);
	for (i = 0; i < nbytes; i++)
		session_bytes(&s[i]);
}
