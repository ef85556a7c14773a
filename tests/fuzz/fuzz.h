/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz targets share: CHECK(), which on a false property prints
 * it, the target's input in hex and aborts, so libFuzzer stops and saves
 * the input as a crash artifact; and a buffer of exactly a given size,
 * so that AddressSanitizer catches a read one byte past what the kernel
 * code was given.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the input being run, for the report (set by each target) */
extern const uint8_t *fuzz_input;
extern size_t fuzz_input_len;

void fuzz_fail(const char *file, int line, const char *cond,
	       const char *fmt, ...) __attribute__((noreturn, format(printf, 4, 5)));

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

/*
 * Read @len bytes at @p, for AddressSanitizer to check that they are
 * inside the buffer (the sum goes to a volatile, so the reads stay).
 */
extern volatile unsigned int fuzz_sink;

static inline void fuzz_touch(const void *p, size_t len)
{
	const unsigned char *b = p;
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < len; i++)
		sum += b[i];
	fuzz_sink += sum;
}

/* a copy of @len bytes of @src in a heap block of exactly @len bytes */
static inline uint8_t *fuzz_exact_copy(const void *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (!p)
		abort();
	if (len)
		memcpy(p, src, len);
	return p;
}

#endif /* FUZZ_H */
