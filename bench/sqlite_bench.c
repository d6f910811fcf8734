/*
 * sqlite_bench: the open, count, close loop of manydb's open phase, in C,
 * with the same SQLite amalgamation and compile options as the Go build
 * (mattn/go-sqlite3's sqlite3-binding.c). A baseline for manydb's own
 * overhead, run side by side with it by bench/cvsgo.
 *
 * Usage: sqlite_bench DIR N SEED
 *   opens DIR/000000/notes.db … DIR/<N-1>/notes.db in a random order
 *   (Fisher–Yates with a xorshift64 generator seeded with SEED), runs
 *   SELECT count(*) FROM notes on each, closes it, and prints one line per
 *   store: the open, count, close and open+count+close times in
 *   milliseconds, as manydb's open phase times them.
 *   With SQLITE_BENCH_PRAGMAS set it also runs, after each open, the three
 *   pragmas that mattn/go-sqlite3's Open always runs (busy_timeout,
 *   locking_mode, synchronous), to show what they cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <pthread.h>
#include "sqlite3-binding.h"

static double now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t xorshift(uint64_t *s) {
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int run(int argc, char **argv);

struct args { int argc; char **argv; int rc; };

static void *thread_main(void *p) {
	struct args *a = p;
	a->rc = run(a->argc, a->argv);
	return NULL;
}

int main(int argc, char **argv) {
	/* SQLITE_BENCH_THREAD=1 runs the loop in a second thread, whose
	 * allocations go to a glibc thread arena, as a Go worker's do. */
	if (getenv("SQLITE_BENCH_THREAD") != NULL) {
		struct args a = {argc, argv, 0};
		pthread_t t;
		pthread_create(&t, NULL, thread_main, &a);
		pthread_join(t, NULL);
		return a.rc;
	}
	return run(argc, argv);
}

static int run(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: %s DIR N SEED\n", argv[0]);
		return 2;
	}
	const char *dir = argv[1];
	/* SQLITE_BENCH_PRAGMAS=1 runs the pragmas mattn/go-sqlite3 runs on every open. */
	int pragmas = getenv("SQLITE_BENCH_PRAGMAS") != NULL;
	int n = atoi(argv[2]);
	uint64_t seed = strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
	int *order = malloc(sizeof(int) * n);
	double *t_open = malloc(sizeof(double) * n), *t_count = malloc(sizeof(double) * n);
	double *t_close = malloc(sizeof(double) * n), *total = malloc(sizeof(double) * n);
	char (*paths)[4096] = malloc(4096 * (size_t)n);
	for (int i = 0; i < n; i++) {
		order[i] = i;
		snprintf(paths[i], 4096, "%s/%06d/notes.db", dir, i);
	}
	for (int i = n - 1; i > 0; i--) {
		int j = xorshift(&seed) % (uint64_t)(i + 1);
		int t = order[i]; order[i] = order[j]; order[j] = t;
	}
	for (int k = 0; k < n; k++) {
		int i = order[k];
		double t0 = now_ms();
		sqlite3 *db;
		int rc = sqlite3_open_v2(paths[i], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
		if (rc == SQLITE_OK && pragmas)
			rc = sqlite3_exec(db, "PRAGMA busy_timeout = 5000; PRAGMA locking_mode = NORMAL; PRAGMA synchronous = FULL;", NULL, NULL, NULL);
		double t1 = now_ms();
		if (rc != SQLITE_OK) {
			fprintf(stderr, "open %s: %s\n", paths[i], sqlite3_errmsg(db));
			return 1;
		}
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM notes", -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			fprintf(stderr, "count %s: %s\n", paths[i], sqlite3_errmsg(db));
			return 1;
		}
		long long count = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		double t2 = now_ms();
		sqlite3_close(db);
		double t3 = now_ms();
		t_open[k] = t1 - t0, t_count[k] = t2 - t1, t_close[k] = t3 - t2, total[k] = t3 - t0;
		if (count <= 0) {
			fprintf(stderr, "count %s: %lld notes\n", paths[i], count);
			return 1;
		}
	}
	for (int k = 0; k < n; k++)
		printf("%.6f %.6f %.6f %.6f\n", t_open[k], t_count[k], t_close[k], total[k]);
	return 0;
}
