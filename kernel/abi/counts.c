// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "kernel/abi/counts.h"

int count__read_fd(int fd, struct count *c)
{
	__u64 buf[3] = { 0 };
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return -errno;
	if (n != sizeof(buf))
		return -EIO;
	c->val = buf[0];
	c->ena = buf[1];
	c->run = buf[2];
	return 0;
}

int counts__read_evlist(const struct evlist *evlist, struct count *counts)
{
	struct count c = { 0 };
	int i, e;

	memset(counts, 0, evlist->nevsel * sizeof(*counts));
	for (i = 0; i < evlist->nfds; i++) {
		e = count__read_fd(evlist->fds[i].fd, &c);
		if (e)
			return e;
		counts[evlist->fds[i].evsel].val += c.val;
		counts[evlist->fds[i].evsel].ena += c.ena;
		counts[evlist->fds[i].evsel].run += c.run;
	}
	return 0;
}

struct count count__sub(const struct count *a, const struct count *b)
{
	struct count d = {
		.val = a->val >= b->val ? a->val - b->val : 0,
		.ena = a->ena >= b->ena ? a->ena - b->ena : 0,
		.run = a->run >= b->run ? a->run - b->run : 0,
	};

	return d;
}

double count__running(const struct count *c)
{
	if (!c->ena)
		return c->run ? 1.0 : 0.0;
	if (c->run >= c->ena)
		return 1.0;
	return (double)c->run / (double)c->ena;
}

double count__scaled(const struct count *c)
{
	if (!c->run)
		return 0.0;
	if (c->run >= c->ena)
		return (double)c->val;
	return (double)c->val * ((double)c->ena / (double)c->run);
}

void count_series__tick(struct count_series *s, const struct count *cur)
{
	struct count d = count__sub(cur, &s->last);
	double rate, delta;

	s->last = *cur;
	if (!d.run)
		return;
	rate = (double)d.val / (double)d.run;
	s->k++;
	delta = rate - s->mean;
	s->mean += delta / (double)s->k;
	s->m2 += delta * (rate - s->mean);
}

double count_series__error(const struct count_series *s, const struct count *total)
{
	double unseen, sd;

	if (total->run >= total->ena)
		return 0.0;
	if (s->k < 2)
		return -1.0;
	unseen = (double)(total->ena - total->run);
	sd = sqrt(s->m2 / (double)(s->k - 1));
	return unseen * sd / sqrt((double)s->k);
}
