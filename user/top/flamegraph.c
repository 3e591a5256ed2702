// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "user/top/flamegraph.h"
#include "user/top/toptable.h"
#include "user/report/svg.h"
#include "kernel/abi/datasrc.h"

#define FG_WIDTH   1200
#define FG_PAD	   10
#define FG_FRAME   16  /* a frame's height */
#define FG_TOP	   60  /* title, subtitle, search */
#define FG_LEGEND  40  /* under the frames */
#define FG_MIN_PX  0.1 /* narrower frames are not drawn (flamegraph.pl's minwidth) */
#define FG_CHAR_PX 7.0 /* a character of the 12px monospace font, about */

/* A colour per class: caches cool, DRAM warm, another core's modified line red. */
static const char *const class_fill[LDLAT_NCLASS] = {
	[LDLAT_CLASS_L1] = "#7fc97f",
	[LDLAT_CLASS_LFB] = "#a6dba0",
	[LDLAT_CLASS_L2] = "#66c2a5",
	[LDLAT_CLASS_L2_MHB] = "#8dd3c7",
	[LDLAT_CLASS_L3] = "#6baed6",
	[LDLAT_CLASS_L4] = "#9ecae1",
	[LDLAT_CLASS_MSC] = "#c6dbef",
	[LDLAT_CLASS_ANY_CACHE] = "#80b1d3",
	[LDLAT_CLASS_LOCAL_HITM] = "#e7298a",
	[LDLAT_CLASS_PEER_CACHE] = "#bc80bd",
	[LDLAT_CLASS_REMOTE_CACHE] = "#9e9ac8",
	[LDLAT_CLASS_REMOTE_CACHE_1HOP] = "#9e9ac8",
	[LDLAT_CLASS_REMOTE_CACHE_2HOP] = "#807dba",
	[LDLAT_CLASS_REMOTE_CACHE_3HOP] = "#6a51a3",
	[LDLAT_CLASS_REMOTE_HITM] = "#ce1256",
	[LDLAT_CLASS_LOCAL_RAM] = "#fd8d3c",
	[LDLAT_CLASS_REMOTE_RAM] = "#e6550d",
	[LDLAT_CLASS_REMOTE_RAM_1HOP] = "#e6550d",
	[LDLAT_CLASS_REMOTE_RAM_2HOP] = "#d94801",
	[LDLAT_CLASS_REMOTE_RAM_3HOP] = "#a63603",
	[LDLAT_CLASS_PMEM] = "#bf812d",
	[LDLAT_CLASS_CXL] = "#dfc27d",
	[LDLAT_CLASS_IO] = "#969696",
	[LDLAT_CLASS_UNCACHED] = "#bdbdbd",
	[LDLAT_CLASS_MISS] = "#fee08b",
};

/* flamegraph.pl's "hot" colours, by a hash of the name: the same name, the same colour. */
static void warm_fill(char *buf, size_t len, const char *name, size_t n)
{
	unsigned int h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	snprintf(buf, len, "rgb(%u,%u,%u)", 205 + h % 50, (h >> 8) % 230, (h >> 16) % 55);
}

struct fg_draw {
	FILE *out;
	const struct flamegraph *g;
	double total;		       /* the root's weight */
	double scale;		       /* px per weight */
	int depth;		       /* the deepest frame's depth */
	int height;		       /* of the image */
	__u64 drawn;		       /* frames drawn */
	__u64 per_class[LDLAT_NCLASS]; /* samples of the leaves, by class: the legend */
};

static int fg_depth(const struct callnode *n)
{
	int d = 0, c;
	size_t i;

	for (i = 0; i < n->nchild; i++) {
		c = fg_depth(&n->child[i]) + 1;
		if (c > d)
			d = c;
	}
	return d;
}

static void fg_frame(struct fg_draw *d, const struct callnode *n, double x, int depth)
{
	const struct flamegraph *g = d->g;
	double w = (double)callpath__weight(&n->v, g->weight) * d->scale, cx = x;
	double y = d->height - FG_LEGEND - (depth + 1) * FG_FRAME;
	unsigned int cls = top_val__dominant(&n->v);
	char fill[32];
	size_t i, chars;

	if (w < FG_MIN_PX)
		return;
	if (g->has_latency && cls != LDLAT_CLASS_UNKNOWN && class_fill[cls])
		snprintf(fill, sizeof(fill), "%s", class_fill[cls]);
	else
		warm_fill(fill, sizeof(fill), n->name, n->len);
	d->drawn++;
	svg__open(d->out, "g");
	svg__attr(d->out, "class", "f");
	svg__attr(d->out, "data-x", "%.6f", (x - FG_PAD) / (FG_WIDTH - 2 * FG_PAD));
	svg__attr(d->out, "data-w", "%.6f", w / (FG_WIDTH - 2 * FG_PAD));
	svg__attr(d->out, "data-d", "%d", depth);
	svg__attr(d->out, "data-n", "%llu", (unsigned long long)callpath__weight(&n->v, g->weight));
	svg__close(d->out, false);
	svg__open(d->out, "title");
	svg__close(d->out, false);
	svg__text(d->out, n->name, n->len);
	svg__textf(d->out, " (%llu %s, %.2f%%",
		   (unsigned long long)callpath__weight(&n->v, g->weight),
		   g->weight == CALLPATH_WEIGHT_LATENCY ? "cycles" : "samples",
		   d->total ? 100.0 * callpath__weight(&n->v, g->weight) / d->total : 0.0);
	if (g->has_latency && n->v.count)
		svg__textf(d->out, ", mean %.1f cycles, mostly %s",
			   (double)n->v.lat_sum / n->v.count, class__name(cls));
	svg__text(d->out, ")", 1);
	svg__end(d->out, "title", false);
	svg__open(d->out, "rect");
	svg__attr(d->out, "x", "%.2f", x);
	svg__attr(d->out, "y", "%.1f", y);
	svg__attr(d->out, "width", "%.2f", w);
	svg__attr(d->out, "height", "%d", FG_FRAME - 1);
	svg__attr(d->out, "fill", "%s", fill);
	svg__attr(d->out, "rx", "2");
	svg__close(d->out, true);
	chars = w > 3 * FG_CHAR_PX ? (size_t)((w - 3) / FG_CHAR_PX) : 0;
	svg__open(d->out, "text");
	svg__attr(d->out, "x", "%.2f", x + 3);
	svg__attr(d->out, "y", "%.1f", y + FG_FRAME - 4.5);
	svg__close(d->out, false);
	if (chars >= n->len) {
		svg__text(d->out, n->name, n->len);
	} else if (chars > 2) {
		svg__text(d->out, n->name, chars - 2);
		svg__text(d->out, "..", 2);
	}
	svg__end(d->out, "text", false);
	svg__end(d->out, "g", true);
	/* flamegraph.pl's order: callees by name, left to right */
	for (i = 0; i < n->nchild; i++) {
		fg_frame(d, &n->child[i], cx, depth + 1);
		cx += (double)callpath__weight(&n->child[i].v, g->weight) * d->scale;
	}
}

static int fg_cmp_name(const void *a, const void *b)
{
	const struct callnode *x = a, *y = b;

	return strncmp(x->name, y->name, x->len < y->len ? x->len : y->len)
		       ?: (x->len == y->len  ? 0
			   : x->len < y->len ? -1
					     : 1);
}

static void fg_sort(struct callnode *n)
{
	size_t i;

	if (n->nchild > 1)
		qsort(n->child, n->nchild, sizeof(*n->child), fg_cmp_name);
	for (i = 0; i < n->nchild; i++)
		fg_sort(&n->child[i]);
}

/* The leaves' samples by class: what the legend counts. */
static void fg_classes(struct fg_draw *d, const struct callnode *n)
{
	size_t i;
	unsigned int c;

	if (!n->nchild)
		for (c = 0; c < LDLAT_NCLASS; c++)
			d->per_class[c] += n->v.cls[c];
	for (i = 0; i < n->nchild; i++)
		fg_classes(d, &n->child[i]);
}

static const char fg_style[] =
	"text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; text-anchor: middle; }\n"
	"#subtitle { text-anchor: middle; fill: #444; }\n"
	".f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
	".f text { pointer-events: none; }\n"
	".hide { display: none; }\n"
	".parent rect { opacity: 0.5; }\n"
	".button { cursor: pointer; fill: #333; }\n"
	".button:hover { text-decoration: underline; }\n";

/*
 * Search: a regular expression over the frames' names; the matches turn
 * magenta and the share of the total they hold (their widest ancestors
 * only, not counted twice) is shown.  Zoom: a click makes a frame the
 * full width, its ancestors faded under it and its siblings hidden.
 */
static const char fg_script[] =
	"'use strict';\n"
	"var W, PAD, frames, zoomed = null, matchbox, details, resetbtn, total;\n"
	"function init() {\n"
	"  var svg = document.documentElement;\n"
	"  W = +svg.getAttribute('data-inner'); PAD = +svg.getAttribute('data-pad');\n"
	"  total = +svg.getAttribute('data-total');\n"
	"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
	"  matchbox = document.getElementById('matched');\n"
	"  details = document.getElementById('details');\n"
	"  resetbtn = document.getElementById('unzoom');\n"
	"  frames.forEach(function (g) {\n"
	"    g.addEventListener('click', function () { zoom(g); });\n"
	"    g.addEventListener('mouseover', function () {\n"
	"      details.textContent = g.querySelector('title').textContent; });\n"
	"    g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"  });\n"
	"  document.getElementById('search').addEventListener('click', search_prompt);\n"
	"  resetbtn.addEventListener('click', unzoom);\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { e.preventDefault(); "
	"search_prompt(); }\n"
	"    if (e.keyCode === 27) unzoom();\n"
	"  });\n"
	"}\n"
	"function attr(g, k) { return +g.getAttribute('data-' + k); }\n"
	"function label(g, w) {\n"
	"  var t = g.querySelector('text'), name = g.querySelector('title').textContent;\n"
	"  name = name.replace(/ \\([^(]*\\)$/, '');\n"
	"  var chars = w > 21 ? Math.floor((w - 3) / 7) : 0;\n"
	"  t.textContent = chars >= name.length ? name : chars > 2 ? name.substr(0, chars - 2) + "
	"'..' : '';\n"
	"}\n"
	"function place(g, x, w) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  r.setAttribute('x', PAD + x * W); r.setAttribute('width', w * W);\n"
	"  t.setAttribute('x', PAD + x * W + 3); label(g, w * W);\n"
	"}\n"
	"function zoom(node) {\n"
	"  var x0 = attr(node, 'x'), w0 = attr(node, 'w'), d0 = attr(node, 'd'), eps = 1e-9;\n"
	"  zoomed = node; resetbtn.classList.remove('hide');\n"
	"  frames.forEach(function (g) {\n"
	"    var x = attr(g, 'x'), w = attr(g, 'w'), d = attr(g, 'd');\n"
	"    g.classList.remove('hide'); g.classList.remove('parent');\n"
	"    if (d >= d0 && x >= x0 - eps && x + w <= x0 + w0 + eps) {\n"
	"      place(g, (x - x0) / w0, w / w0);\n"
	"    } else if (d < d0 && x <= x0 + eps && x + w >= x0 + w0 - eps) {\n"
	"      g.classList.add('parent'); place(g, 0, 1);\n"
	"    } else { g.classList.add('hide'); }\n"
	"  });\n"
	"}\n"
	"function unzoom() {\n"
	"  zoomed = null; resetbtn.classList.add('hide');\n"
	"  frames.forEach(function (g) {\n"
	"    g.classList.remove('hide'); g.classList.remove('parent');\n"
	"    place(g, attr(g, 'x'), attr(g, 'w'));\n"
	"  });\n"
	"}\n"
	"function search_prompt() {\n"
	"  var term = prompt('Search frames (a regular expression)', '');\n"
	"  if (term !== null) search(term);\n"
	"}\n"
	"function search(term) {\n"
	"  var re, sum = 0, ranges = [];\n"
	"  try { re = new RegExp(term); } catch (e) { matchbox.textContent = 'bad expression'; "
	"return 0; }\n"
	"  frames.forEach(function (g) {\n"
	"    var name = g.querySelector('title').textContent.replace(/ \\([^(]*\\)$/, '');\n"
	"    var r = g.querySelector('rect');\n"
	"    if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', "
	"r.getAttribute('fill'));\n"
	"    if (term !== '' && re.test(name)) {\n"
	"      r.setAttribute('fill', 'rgb(230,0,230)');\n"
	"      ranges.push([attr(g, 'x'), attr(g, 'x') + attr(g, 'w'), attr(g, 'n')]);\n"
	"    } else { r.setAttribute('fill', r.getAttribute('data-fill')); }\n"
	"  });\n"
	"  ranges.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"  var end = -1;\n"
	"  ranges.forEach(function (r) { if (r[0] >= end - 1e-9) { sum += r[2]; end = r[1]; } });\n"
	"  matchbox.textContent = term === '' ? ' ' : 'Matched: ' + (total ? (100 * sum / "
	"total).toFixed(1) : '0') + '%';\n"
	"  return sum;\n"
	"}\n"
	"window.addEventListener('load', init);\n";

/* "<text" with an id, a class and an anchor (each NULL: none) at x, y; its content follows. */
static void fg_label(FILE *out, const char *id, const char *cls, int x, int y, const char *anchor)
{
	svg__open(out, "text");
	if (id)
		svg__attr(out, "id", "%s", id);
	if (cls)
		svg__attr(out, "class", "%s", cls);
	svg__attr(out, "x", "%d", x);
	svg__attr(out, "y", "%d", y);
	if (anchor)
		svg__attr(out, "text-anchor", "%s", anchor);
	svg__close(out, false);
}

void flamegraph__render(FILE *out, const struct flamegraph *g)
{
	struct callnode *root =
		callpaths__tree(g->paths, "all", g->weight == CALLPATH_WEIGHT_SAMPLES);
	struct fg_draw d = { .out = out, .g = g };
	int inner = FG_WIDTH - 2 * FG_PAD, legend = 0;
	unsigned int c;
	double lx;

	if (!root) {
		svg__document(out, FG_WIDTH, FG_TOP);
		svg__close(out, true);
		return;
	}
	fg_sort(root);
	d.total = (double)callpath__weight(&root->v, g->weight);
	d.scale = d.total ? inner / d.total : 0;
	d.depth = fg_depth(root);
	d.height = FG_TOP + (d.depth + 1) * FG_FRAME + FG_LEGEND;
	fg_classes(&d, root);

	svg__document(out, FG_WIDTH, d.height);
	svg__attr(out, "data-inner", "%d", inner);
	svg__attr(out, "data-pad", "%d", FG_PAD);
	svg__attr(out, "data-total", "%llu",
		  (unsigned long long)callpath__weight(&root->v, g->weight));
	svg__attr(out, "data-weight", "%s",
		  g->weight == CALLPATH_WEIGHT_LATENCY ? "latency" : "samples");
	svg__attr(out, "data-paths", "%llu", (unsigned long long)g->paths->npaths);
	svg__close(out, false);
	fputc('\n', out);
	svg__cdata(out, "style", "text/css", fg_style);
	svg__cdata(out, "script", "text/ecmascript", fg_script);
	svg__open(out, "rect");
	svg__attr(out, "width", "100%%");
	svg__attr(out, "height", "100%%");
	svg__attr(out, "fill", "#f8f8f0");
	svg__close(out, true);
	fg_label(out, "title", NULL, FG_WIDTH / 2, 22, NULL);
	svg__textf(out, "Call paths of the kept samples%s",
		   g->weight == CALLPATH_WEIGHT_LATENCY ? ", by latency" : "");
	svg__end(out, "text", true);
	fg_label(out, "subtitle", NULL, FG_WIDTH / 2, 40, NULL);
	if (g->run)
		svg__textf(out, "%s on %s: ", g->run->event ? g->run->event : "",
			   g->run->target ? g->run->target : "");
	svg__textf(out, "%llu kept samples, %llu call paths", (unsigned long long)g->kept,
		   (unsigned long long)g->paths->npaths);
	svg__end(out, "text", true);
	fg_label(out, "unzoom", "button hide", FG_PAD, 22, NULL);
	svg__text(out, "Reset Zoom", 10);
	svg__end(out, "text", true);
	fg_label(out, "search", "button", FG_WIDTH - FG_PAD, 22, "end");
	svg__text(out, "Search", 6);
	svg__end(out, "text", true);
	fg_label(out, "matched", NULL, FG_WIDTH - FG_PAD, 40, "end");
	svg__text(out, " ", 1);
	svg__end(out, "text", true);
	fg_frame(&d, root, FG_PAD, 0);
	fg_label(out, "details", NULL, FG_PAD, d.height - FG_LEGEND + 14, NULL);
	svg__text(out, " ", 1);
	svg__end(out, "text", true);
	/* the legend: each class the leaves' samples have, its colour and count */
	lx = FG_PAD;
	svg__open(out, "g");
	svg__attr(out, "id", "legend");
	svg__close(out, false);
	for (c = 0; c < LDLAT_NCLASS; c++) {
		if (!d.per_class[c] || !g->has_latency || c == LDLAT_CLASS_UNKNOWN ||
		    !class_fill[c])
			continue;
		svg__open(out, "g");
		svg__attr(out, "class", "key");
		svg__attr(out, "data-class", "%s", class__token(c));
		svg__attr(out, "data-n", "%llu", (unsigned long long)d.per_class[c]);
		svg__close(out, false);
		svg__open(out, "rect");
		svg__attr(out, "x", "%.0f", lx);
		svg__attr(out, "y", "%d", d.height - FG_LEGEND + 22);
		svg__attr(out, "width", "12");
		svg__attr(out, "height", "12");
		svg__attr(out, "fill", "%s", class_fill[c]);
		svg__close(out, true);
		fg_label(out, NULL, NULL, (int)lx + 16, d.height - FG_LEGEND + 32, NULL);
		svg__textf(out, "%s %llu", class__name(c), (unsigned long long)d.per_class[c]);
		svg__end(out, "text", false);
		svg__end(out, "g", true);
		lx += 16 + FG_CHAR_PX * (strlen(class__name(c)) + 12);
		legend++;
	}
	if (!legend) {
		fg_label(out, NULL, NULL, (int)lx, d.height - FG_LEGEND + 32, NULL);
		svg__text(out, "no data source in these samples: colours tell frames apart by name",
			  200);
		svg__end(out, "text", false);
	}
	svg__end(out, "g", true);
	svg__end(out, "svg", true);
	callnode__free(root);
}
