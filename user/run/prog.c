// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "user/run/prog.h"

int prog__open(struct prog *p, struct tool *t, struct err *err)
{
	p->opened = true;
	return p->ops->open(p, t, err);
}

int prog__attach(struct prog *p, struct evlist *evlist, struct err *err)
{
	const char *name;
	int i, e;

	if (!p->program)
		return 0;
	p->links = calloc(evlist->nfds, sizeof(*p->links));
	if (!p->links)
		return err__set(err, -ENOMEM, "out of memory");
	for (i = 0; i < evlist->nfds; i++) {
		LIBBPF_OPTS(bpf_perf_event_opts, opts);

		name = evlist->evsel[evlist->fds[i].evsel].name;
		/* before the attach, which enables the event */
		if (p->ops->cookie && (e = p->ops->cookie(p, evlist, i, &opts.bpf_cookie, err)))
			return err__system(err, e);
		p->links[i] =
			bpf_program__attach_perf_event_opts(p->program, evlist->fds[i].fd, &opts);
		if (!p->links[i]) {
			e = -errno;
			err__msg(err, "cannot attach the BPF program to %s: %s", name,
				 strerror(-e));
			/* a refusal (EINVAL, EPERM from a policy) is no fault of the user's input */
			return err__system(err, e);
		}
		/* the link closes the perf fd when destroyed */
		evlist->fds[i].owned_elsewhere = true;
		p->nlinks++;
	}
	return 0;
}

int prog__read(struct prog *p, void *model, bool last, struct err *err)
{
	return p->ops->read(p, model, last, err);
}

void prog__close(struct prog *p)
{
	int i;

	for (i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	free(p->links);
	p->links = NULL;
	p->nlinks = 0;
	if (p->opened && p->ops->close)
		p->ops->close(p);
	p->opened = false;
	p->program = NULL;
}
