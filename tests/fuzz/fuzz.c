// SPDX-License-Identifier: GPL-2.0
/* The failure report of the fuzz targets (fuzz.h). */
#include <stdarg.h>

#include "fuzz.h"

const uint8_t *fuzz_input;
size_t fuzz_input_len;
volatile unsigned int fuzz_sink;

void fuzz_fail(const char *file, int line, const char *cond,
	       const char *fmt, ...)
{
	va_list ap;
	size_t i;

	fprintf(stderr, "\nFUZZ CHECK FAILED at %s:%d: %s\n  ", file, line,
		cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  input (%zu bytes):", fuzz_input_len);
	for (i = 0; i < fuzz_input_len && i < 256; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n    ", fuzz_input[i]);
	fprintf(stderr, "%s\n", fuzz_input_len > 256 ? " ..." : "");
	abort();
}
