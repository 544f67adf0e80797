// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy_bw SIZE [TRIALS]: the guest's memory copy bandwidth, the ceiling a
 * loopback RDMA transfer (one copy from source MR to destination MR) can
 * approach. Copies SIZE bytes from one buffer to another with glibc's memcpy
 * for about 0.3 s per trial and prints one line:
 *
 *   memcpy size=SIZE trials=N median=MiB/s min=MiB/s max=MiB/s
 *
 * MiB/s (2^20 bytes) because perftest's "MB/sec" is MiB/s too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TRIAL_SECONDS 0.3
#define MAX_TRIALS 15

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Copy until TRIAL_SECONDS have passed; the rate of this trial in MiB/s. */
static double trial(char *dst, const char *src, size_t size)
{
	double start = now(), elapsed;
	unsigned long copies = 0;

	do {
		memcpy(dst, src, size);
		/* The compiler must assume dst is read: no copy is elided. */
		__asm__ __volatile__("" : : "r"(dst) : "memory");
		copies++;
		elapsed = now() - start;
	} while (elapsed < TRIAL_SECONDS);
	return (double)copies * size / elapsed / (1024.0 * 1024.0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double rates[MAX_TRIALS];
	size_t size;
	char *src, *dst;
	int trials, i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s SIZE [TRIALS]\n", argv[0]);
		return 2;
	}
	size = strtoul(argv[1], NULL, 0);
	trials = argc > 2 ? atoi(argv[2]) : 5;
	if (size == 0 || trials < 1 || trials > MAX_TRIALS) {
		fprintf(stderr, "memcpy_bw: SIZE > 0, 1 <= TRIALS <= %d\n", MAX_TRIALS);
		return 2;
	}
	if (posix_memalign((void **)&src, 4096, size) || posix_memalign((void **)&dst, 4096, size)) {
		perror("memcpy_bw: posix_memalign");
		return 1;
	}
	/* Fault every page in before timing. */
	memset(src, 0xa5, size);
	memset(dst, 0, size);
	for (i = 0; i < trials; i++)
		rates[i] = trial(dst, src, size);
	qsort(rates, trials, sizeof(rates[0]), cmp_double);
	printf("memcpy size=%zu trials=%d median=%.0f min=%.0f max=%.0f\n",
	       size, trials, rates[trials / 2], rates[0], rates[trials - 1]);
	free(src);
	free(dst);
	return 0;
}
