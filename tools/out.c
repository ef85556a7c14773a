// SPDX-License-Identifier: GPL-2.0
/*
 * Printing a command's result: the rows a command built (json.c) go out as
 * one JSON document with -j, or as an aligned table of the columns the
 * command declared.  Both come from the same tree.
 */
#include <stdlib.h>
#include <string.h>

#include "svctl.h"

struct line {
	const struct jv *row;
	const struct jv *elem;	/* element of the exploded array, or NULL */
};

/* The object that holds a column's key, and the key within it */
static const struct jv *cell_obj(const struct line *l, const char *key,
				 const char *explode, const char **subkey)
{
	size_t n = explode ? strlen(explode) : 0;

	/* "ports.state" reads "state" from the element of "ports" */
	if (n && !strncmp(key, explode, n) && key[n] == '.') {
		*subkey = key + n + 1;
		return l->elem;
	}
	*subkey = key;
	return l->row;
}

static char *cell_text(const struct sv_col *col, const struct line *l,
		       const char *explode)
{
	const struct jv *obj, *v;
	const char *key;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f) {
		fputs("svctl: out of memory\n", stderr);
		exit(SV_EXIT_FAIL);
	}
	obj = cell_obj(l, col->key, explode, &key);
	v = jv_get(obj, key);
	if (col->text && v)
		col->text(f, obj, v);
	else
		jv_text(f, v);
	fclose(f);
	if (!len) {
		free(s);
		s = xstrdup("-");
	}
	return s;
}

static void print_table(struct svctl *sv, const struct jv *rows,
			const struct sv_col *cols, size_t ncols,
			const char *explode)
{
	struct line *lines = NULL;
	size_t nlines = 0, i, c, last = 0;
	char ***cells;
	size_t *width;
	bool *shown;

	for (i = 0; i < rows->n; i++) {
		const struct jv *row = rows->items[i];
		const struct jv *arr = explode ? jv_get(row, explode) : NULL;
		bool each = arr && arr->type == JV_ARR && arr->n;
		size_t k, m = each ? arr->n : 1;

		lines = xrealloc(lines, (nlines + m) * sizeof(*lines));
		for (k = 0; k < m; k++) {
			lines[nlines].row = row;
			lines[nlines].elem = each ? arr->items[k] : NULL;
			nlines++;
		}
	}
	if (!nlines)
		return;

	cells = xzalloc(nlines * sizeof(*cells));
	width = xzalloc(ncols * sizeof(*width));
	shown = xzalloc(ncols * sizeof(*shown));
	for (c = 0; c < ncols; c++) {
		shown[c] = sv->details || !(cols[c].flags & SV_COL_DETAIL);
		width[c] = strlen(cols[c].head);
	}
	for (i = 0; i < nlines; i++) {
		cells[i] = xzalloc(ncols * sizeof(**cells));
		for (c = 0; c < ncols; c++) {
			if (!shown[c])
				continue;
			cells[i][c] = cell_text(&cols[c], &lines[i], explode);
			if (strlen(cells[i][c]) > width[c])
				width[c] = strlen(cells[i][c]);
		}
	}
	/* optional columns only when some line has a value */
	for (c = 0; c < ncols; c++) {
		bool have = false;

		if (!shown[c] || !(cols[c].flags & SV_COL_OPT))
			continue;
		for (i = 0; i < nlines && !have; i++)
			have = strcmp(cells[i][c], "-") != 0;
		shown[c] = have;
	}

	for (c = 0; c < ncols; c++)
		if (shown[c])
			last = c;
	/* the header, then the lines; the last column is not padded */
	for (i = 0; i <= nlines; i++) {
		bool first = true;

		for (c = 0; c < ncols; c++) {
			const char *t;
			int w = (int)width[c];

			if (!shown[c])
				continue;
			t = i ? cells[i - 1][c] : cols[c].head;
			if (!first)
				fputs("  ", sv->out);
			first = false;
			if (cols[c].flags & SV_COL_RIGHT)
				fprintf(sv->out, "%*s", w, t);
			else if (c == last)
				fputs(t, sv->out);
			else
				fprintf(sv->out, "%-*s", w, t);
		}
		fputc('\n', sv->out);
	}

	for (i = 0; i < nlines; i++) {
		for (c = 0; c < ncols; c++)
			free(cells[i][c]);
		free(cells[i]);
	}
	free(cells);
	free(width);
	free(shown);
	free(lines);
}

void sv_print(struct svctl *sv, struct jv *rows, const struct sv_col *cols,
	      size_t ncols, const char *explode)
{
	if (sv->json)
		jv_write(sv->out, rows, sv->pretty);
	else
		print_table(sv, rows, cols, ncols, explode);
	jv_free(rows);
}
