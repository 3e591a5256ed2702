/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * listevents.h - --list-events: the event a tool would open on this machine,
 * why (which tools.conf entry, option or kernel alias), and the encoded
 * perf_event_attr, without opening anything (no privilege needed).
 */
#ifndef LDLAT_LISTEVENTS_H
#define LDLAT_LISTEVENTS_H

#include <stdio.h>

#include "user/run/cli.h"

/* Prints to out, errors to stderr prefixed with tool.  Returns the exit status. */
int list_events(FILE *out, struct cli *cli, const char *tool);

#endif
