/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * svg.h - the one SVG (XML) writer: elements, attributes and character
 * data, each escaped here, for the pictures the tools draw (flame graphs,
 * heat maps).  A renderer opens an element, adds attributes, closes its
 * start tag (or the whole element), writes text, and ends it.
 */
#ifndef LDLAT_SVG_H
#define LDLAT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The XML declaration and "<svg" with its namespace, size and viewBox: add attributes, then svg__close. */
void svg__document(FILE *out, int width, int height);

/* "<tag": attributes follow. */
void svg__open(FILE *out, const char *tag);

/* ' name="value"', the value formatted and escaped. */
void svg__attr(FILE *out, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Ends the start tag: ">" (content follows), or "/>" and a newline with empty. */
void svg__close(FILE *out, bool empty);

/* "</tag>", a newline after it with newline. */
void svg__end(FILE *out, const char *tag, bool newline);

/* Character data: at most len bytes of s (up to its end), escaped. */
void svg__text(FILE *out, const char *s, size_t len);

/* Character data, formatted and escaped. */
void svg__textf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* <tag type="type"> and body as CDATA (a style sheet, a script), then </tag>. */
void svg__cdata(FILE *out, const char *tag, const char *type, const char *body);

#endif
