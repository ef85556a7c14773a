/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A minimal test harness for the host-side ulib tests.
 *
 * TEST(name) { ... } registers a test.  Each test runs in its own forked
 * child so that a crash, an abort or a leaked fd fails that test only; the
 * parent prints one "ok"/"FAIL"/"skip" line per test and closes with
 * "N passed, N failed" (", N skipped" when some were skipped), exiting
 * non-zero if anything failed.  CHECK* macros record a failure and carry on.
 *
 *   harness [-v] [NAME-SUBSTRING...]   run all tests, or the matching ones
 */
#ifndef SV_TEST_HARNESS_H
#define SV_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct sv_test {
	const char *name;
	const char *file;
	int line;
	void (*fn)(void);
	struct sv_test *next;
};

void sv_test_register(struct sv_test *t);
void sv_test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Ends the current test as skipped (e.g. libibverbs not installed). */
void sv_test_skip(const char *why) __attribute__((noreturn));
/* Directory of the built library, from $ULIB (for .so-level tests). */
const char *sv_test_ulib_dir(void);

#define TEST(name)							\
	static void name(void);						\
	static struct sv_test name##_desc = {				\
		#name, __FILE__, __LINE__, name, NULL };		\
	__attribute__((constructor)) static void name##_register(void)	\
	{								\
		sv_test_register(&name##_desc);				\
	}								\
	static void name(void)

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			sv_test_fail(__FILE__, __LINE__, "%s", #cond);	\
	} while (0)

#define CHECK_INT(a, b)							\
	do {								\
		long long _a = (long long)(a), _b = (long long)(b);	\
		if (_a != _b)						\
			sv_test_fail(__FILE__, __LINE__,		\
				     "%s == %s: %lld != %lld", #a, #b,	\
				     _a, _b);				\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *_a = (a), *_b = (b);			\
		if (!_a || !_b || strcmp(_a, _b))			\
			sv_test_fail(__FILE__, __LINE__,		\
				     "%s == %s: \"%s\" != \"%s\"", #a,	\
				     #b, _a ? _a : "(null)",		\
				     _b ? _b : "(null)");		\
	} while (0)

#define CHECK_MEM(a, b, n)						\
	do {								\
		if (memcmp((a), (b), (n)))				\
			sv_test_fail(__FILE__, __LINE__,		\
				     "memcmp(%s, %s, %s) != 0", #a, #b,	\
				     #n);				\
	} while (0)

#endif /* SV_TEST_HARNESS_H */
