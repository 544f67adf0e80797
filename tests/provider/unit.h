/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * unit.h - the smallest harness that speaks the results contract of
 * tests/README.md: one "provider\t<case>\tPASS|FAIL\t<detail>" line per case
 * on stdout. run.sh copies those lines into $SROCE_RESULTS.
 */
#ifndef SROCE_TEST_UNIT_H
#define SROCE_TEST_UNIT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct unit_case_state {
	bool failed;
	char detail[512];	/* the first failed expectation */
};

struct unit_case {
	const char *name;
	void (*run)(struct unit_case_state *t);
};

static inline void unit_fail(struct unit_case_state *t, const char *file,
			     int line, const char *what)
{
	if (!t->failed)
		snprintf(t->detail, sizeof(t->detail), "%s:%d: %s", file,
			 line, what);
	t->failed = true;
}

/* Records the first failure and keeps going, so one case reports once. */
#define EXPECT(t, cond)                                                        \
	do {                                                                   \
		if (!(cond))                                                   \
			unit_fail((t), __FILE__, __LINE__, #cond);             \
	} while (0)

#define UNIT_CASE(fn) { #fn, fn }

/* Runs every case and returns how many failed. */
static inline int unit_run(const struct unit_case *cases, int count)
{
	int failures = 0;
	int i;

	for (i = 0; i < count; i++) {
		struct unit_case_state t = { .failed = false };

		cases[i].run(&t);
		printf("provider\t%s\t%s\t%s\n", cases[i].name,
		       t.failed ? "FAIL" : "PASS", t.failed ? t.detail : "");
		failures += t.failed;
	}
	return failures;
}

/* "--count": print how many result lines a run prints, run nothing. */
#define UNIT_MAIN(cases)                                                       \
	int main(int argc, char **argv)                                        \
	{                                                                      \
		int n = sizeof(cases) / sizeof(cases[0]);                      \
									       \
		if (argc > 1 && !strcmp(argv[1], "--count")) {                 \
			printf("%d\n", n);                                     \
			return 0;                                              \
		}                                                              \
		return unit_run(cases, n) ? 1 : 0;                             \
	}

#endif /* SROCE_TEST_UNIT_H */
