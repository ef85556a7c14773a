// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test runner: see harness.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define EXIT_SKIP 77

static struct sv_test *tests;
static int failures;	/* in the child: checks failed in this test */

void sv_test_register(struct sv_test *t)
{
	t->next = tests;
	tests = t;
}

void sv_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	failures++;
}

void sv_test_skip(const char *why)
{
	printf("    skipped: %s\n", why);
	fflush(stdout);
	_exit(EXIT_SKIP);
}

const char *sv_test_ulib_dir(void)
{
	const char *d = getenv("ULIB");

	return d && *d ? d : "../../ulib";
}

static int cmp_test(const void *a, const void *b)
{
	const struct sv_test *ta = *(struct sv_test *const *)a;
	const struct sv_test *tb = *(struct sv_test *const *)b;
	int c = strcmp(ta->file, tb->file);

	return c ? c : ta->line - tb->line;
}

static int selected(const struct sv_test *t, int argc, char **argv)
{
	int i;

	if (argc <= 0)
		return 1;
	for (i = 0; i < argc; i++)
		if (strstr(t->name, argv[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	struct sv_test **all, *t;
	size_t n = 0, i;

	for (t = tests; t; t = t->next)
		n++;
	all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		return 1;
	for (t = tests, i = 0; t; t = t->next)
		all[i++] = t;
	qsort(all, n, sizeof(*all), cmp_test);

	for (i = 0; i < n; i++) {
		int status;
		pid_t pid;

		t = all[i];
		if (!selected(t, argc - 1, argv + 1))
			continue;
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			t->fn();
			fflush(stdout);
			_exit(failures ? 1 : 0);
		}
		if (waitpid(pid, &status, 0) < 0) {
			perror("waitpid");
			return 1;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("ok   %s\n", t->name);
			passed++;
		} else if (WIFEXITED(status) &&
			   WEXITSTATUS(status) == EXIT_SKIP) {
			printf("skip %s\n", t->name);
			skipped++;
		} else {
			if (WIFSIGNALED(status))
				printf("    killed by signal %d\n",
				       WTERMSIG(status));
			printf("FAIL %s\n", t->name);
			failed++;
		}
	}
	free(all);

	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed,
		       skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
