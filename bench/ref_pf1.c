/*
 * ref_pf1.c - the minimal page_fault1 reference for bench/agent-overhead:
 * N forked tasks, each mapping MEMSIZE anonymous memory, writing a byte per
 * page with a shared counter, unmapping; the parent prints the ops/s over
 * DURATION seconds after one second of warm-up. No pinning, no sampling
 * beyond start and end: the least a harness can do.
 *
 *   ref_pf1 TASKS MEMSIZE_MB DURATION_S
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	size_t mem = (size_t)(argc > 2 ? atoi(argv[2]) : 128) << 20;
	int dur = argc > 3 ? atoi(argv[3]) : 3;
	volatile uint64_t *c = mmap(NULL, 4096 * 64, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pids[64];
	uint64_t a = 0, b = 0;
	double t0, t1;

	if (n < 1 || n > 64 || c == MAP_FAILED)
		return 2;
	for (int i = 0; i < n; i++) {
		if ((pids[i] = fork()) == 0) {
			for (;;) {
				char *p = mmap(NULL, mem, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				for (size_t k = 0; k < mem; k += 4096) {
					p[k] = 0;
					c[i * 16]++;
				}
				munmap(p, mem);
			}
		}
	}
	sleep(1);
	for (int i = 0; i < n; i++)
		a += c[i * 16];
	t0 = now();
	sleep((unsigned)dur);
	for (int i = 0; i < n; i++)
		b += c[i * 16];
	t1 = now();
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL), waitpid(pids[i], NULL, 0);
	printf("%.0f\n", (double)(b - a) / (t1 - t0));
	return 0;
}
