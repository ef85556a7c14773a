// SPDX-License-Identifier: GPL-2.0
/*
 * A small value tree (null, bool, integers, strings, arrays, objects) and
 * its JSON writer.  Every command builds its result as such a tree; out.c
 * prints it as JSON or as a table, so the two outputs cannot disagree.
 *
 * Memory exhaustion ends the program (a CLI has nothing better to do).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "svctl.h"

static void __attribute__((noreturn)) oom(void)
{
	fputs("svctl: out of memory\n", stderr);
	exit(SV_EXIT_FAIL);
}

void *xzalloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		oom();
	return d;
}

static struct jv *jv_new(enum jv_type type)
{
	struct jv *v = xzalloc(sizeof(*v));

	v->type = type;
	return v;
}

struct jv *jv_null(void)
{
	return jv_new(JV_NULL);
}

struct jv *jv_bool(bool b)
{
	struct jv *v = jv_new(JV_BOOL);

	v->b = b;
	return v;
}

struct jv *jv_u64(uint64_t u)
{
	struct jv *v = jv_new(JV_U64);

	v->u = u;
	return v;
}

struct jv *jv_s64(int64_t s)
{
	struct jv *v = jv_new(JV_S64);

	v->s = s;
	return v;
}

struct jv *jv_str(const char *s)
{
	struct jv *v = jv_new(JV_STR);

	v->str = xstrdup(s);
	return v;
}

struct jv *jv_strf(const char *fmt, ...)
{
	struct jv *v = jv_new(JV_STR);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&v->str, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return v;
}

struct jv *jv_arr(void)
{
	return jv_new(JV_ARR);
}

struct jv *jv_obj(void)
{
	return jv_new(JV_OBJ);
}

static void grow(struct jv *c)
{
	if (c->n < c->cap)
		return;
	c->cap = c->cap ? 2 * c->cap : 8;
	c->items = xrealloc(c->items, c->cap * sizeof(*c->items));
	if (c->type == JV_OBJ)
		c->keys = xrealloc(c->keys, c->cap * sizeof(*c->keys));
}

struct jv *jv_push(struct jv *arr, struct jv *val)
{
	grow(arr);
	arr->items[arr->n++] = val;
	return val;
}

struct jv *jv_set(struct jv *obj, const char *key, struct jv *val)
{
	size_t i;

	for (i = 0; i < obj->n; i++) {
		if (!strcmp(obj->keys[i], key)) {
			jv_free(obj->items[i]);
			obj->items[i] = val;
			return val;
		}
	}
	grow(obj);
	obj->keys[obj->n] = xstrdup(key);
	obj->items[obj->n++] = val;
	return val;
}

const struct jv *jv_get(const struct jv *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != JV_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return obj->items[i];
	return NULL;
}

void jv_free(struct jv *v)
{
	size_t i;

	if (!v)
		return;
	switch (v->type) {
	case JV_STR:
		free(v->str);
		break;
	case JV_OBJ:
		for (i = 0; i < v->n; i++)
			free(v->keys[i]);
		free(v->keys);
		/* fall through */
	case JV_ARR:
		for (i = 0; i < v->n; i++)
			jv_free(v->items[i]);
		free(v->items);
		break;
	default:
		break;
	}
	free(v);
}

/* RFC 8259 section 7: quote, backslash and control characters are escaped;
 * everything else (UTF-8 included) is written as it is. */
static void write_string(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void indent(FILE *f, bool pretty, int depth)
{
	if (!pretty)
		return;
	fputc('\n', f);
	while (depth-- > 0)
		fputs("    ", f);
}

static void write_value(FILE *f, const struct jv *v, bool pretty, int depth)
{
	size_t i;

	switch (v->type) {
	case JV_NULL:
		fputs("null", f);
		break;
	case JV_BOOL:
		fputs(v->b ? "true" : "false", f);
		break;
	case JV_U64:
		fprintf(f, "%llu", (unsigned long long)v->u);
		break;
	case JV_S64:
		fprintf(f, "%lld", (long long)v->s);
		break;
	case JV_STR:
		write_string(f, v->str);
		break;
	case JV_ARR:
	case JV_OBJ:
		fputc(v->type == JV_ARR ? '[' : '{', f);
		for (i = 0; i < v->n; i++) {
			if (i)
				fputc(',', f);
			indent(f, pretty, depth + 1);
			if (v->type == JV_OBJ) {
				write_string(f, v->keys[i]);
				fputs(pretty ? ": " : ":", f);
			}
			write_value(f, v->items[i], pretty, depth + 1);
		}
		if (v->n)
			indent(f, pretty, depth);
		fputc(v->type == JV_ARR ? ']' : '}', f);
		break;
	}
}

void jv_write(FILE *f, const struct jv *v, bool pretty)
{
	write_value(f, v, pretty, 0);
	fputc('\n', f);
}

void jv_text(FILE *f, const struct jv *v)
{
	size_t i;

	if (!v) {
		fputc('-', f);
		return;
	}
	switch (v->type) {
	case JV_STR:
		fputs(v->str, f);
		break;
	case JV_BOOL:
		fputs(v->b ? "yes" : "no", f);
		break;
	case JV_NULL:
		fputc('-', f);
		break;
	case JV_OBJ:
		/* driver attributes and the like: "key=value key=value" */
		for (i = 0; i < v->n; i++) {
			fprintf(f, "%s%s=", i ? " " : "", v->keys[i]);
			jv_text(f, v->items[i]);
		}
		break;
	case JV_ARR:
		for (i = 0; i < v->n; i++) {
			if (i)
				fputc(',', f);
			jv_text(f, v->items[i]);
		}
		break;
	default:
		write_value(f, v, false, 0);
	}
}
