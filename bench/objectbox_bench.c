// objectbox_bench: open, count and close ObjectBox stores from C, as
// manydb's obx_cached variant does (bench/obx_c_vs_go.sh compares the two).
//
// Usage: objectbox_bench MODEL_BYTES_FILE EXPECTED_COUNT < dirs
//
// stdin lists the store directories, one a line, in the order to visit
// them. Each store is opened with the model's FlatBuffers bytes read once
// from MODEL_BYTES_FILE (obx_opt_model_bytes_direct; "-" opens without a
// model after checking that the directory holds data.mdb, as obx_nosync
// does), counted (obx_box + obx_box_count, checked against
// EXPECTED_COUNT) and closed. Prints the medians in ms of open, count,
// close and of the three together, and the number of stores.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <sys/stat.h>

#include "objectbox.h"

static double now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void* a, const void* b) {
	double x = *(const double*) a, y = *(const double*) b;
	return (x > y) - (x < y);
}

static double median(double* xs, size_t n) {
	qsort(xs, n, sizeof *xs, cmp);
	return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

static void die(const char* what, const char* dir) {
	fprintf(stderr, "objectbox_bench: %s %s: %s (error %d)\n", what, dir, obx_last_error_message(), obx_last_error_code());
	exit(1);
}

static int run(int argc, char** argv);

struct args { int argc; char** argv; int rc; };

static void* thread_main(void* p) {
	struct args* a = p;
	a->rc = run(a->argc, a->argv);
	return NULL;
}

int main(int argc, char** argv) {
	/* OBX_BENCH_THREAD=1 runs the loop in a second thread, whose allocations
	 * go to a glibc thread arena, as a Go worker's do. */
	if (getenv("OBX_BENCH_THREAD") != NULL) {
		struct args a = {argc, argv, 0};
		pthread_t t;
		pthread_create(&t, NULL, thread_main, &a);
		pthread_join(t, NULL);
		return a.rc;
	}
	return run(argc, argv);
}

static int run(int argc, char** argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: objectbox_bench MODEL_BYTES_FILE|- EXPECTED_COUNT < dirs\n");
		return 2;
	}
	void* model = NULL;
	size_t model_size = 0;
	if (strcmp(argv[1], "-") != 0) {
		FILE* f = fopen(argv[1], "rb");
		if (!f) { perror(argv[1]); return 1; }
		model = malloc(1 << 16);
		model_size = fread(model, 1, 1 << 16, f);
		fclose(f);
		if (model_size == 0) { fprintf(stderr, "objectbox_bench: %s is empty\n", argv[1]); return 1; }
	}
	uint64_t want = strtoull(argv[2], NULL, 10);

	size_t cap = 1024, n = 0;
	char** dirs = malloc(cap * sizeof *dirs);
	char line[4096];
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0]) continue;
		if (n == cap) dirs = realloc(dirs, (cap *= 2) * sizeof *dirs);
		dirs[n++] = strdup(line);
	}
	if (n == 0) { fprintf(stderr, "objectbox_bench: no directories on stdin\n"); return 2; }
	double *open = malloc(n * sizeof(double)), *count = malloc(n * sizeof(double)),
	       *close = malloc(n * sizeof(double)), *total = malloc(n * sizeof(double));

	for (size_t i = 0; i < n; i++) {
		double t0 = now_ms();
		/* Without a model, check for data.mdb first, as obx_nosync's open
		 * does (and objectbox-python before opening without a model). */
		if (!model) {
			char path[4200];
			struct stat st;
			snprintf(path, sizeof path, "%s/data.mdb", dirs[i]);
			if (stat(path, &st) != 0) die("no data.mdb in", dirs[i]);
		}
		OBX_store_options* opt = obx_opt();
		if (!opt || obx_opt_directory(opt, dirs[i]) != 0) die("options", dirs[i]);
		if (model && obx_opt_model_bytes_direct(opt, model, model_size) != 0) die("model", dirs[i]);
		OBX_store* store = obx_store_open(opt);
		double t1 = now_ms();
		if (!store) die("open", dirs[i]);
		uint64_t got = 0;
		OBX_box* box = obx_box(store, 1);
		if (!box || obx_box_count(box, 0, &got) != 0) die("count", dirs[i]);
		double t2 = now_ms();
		if (obx_store_close(store) != 0) die("close", dirs[i]);
		double t3 = now_ms();
		if (got != want) {
			fprintf(stderr, "objectbox_bench: %s: count %llu, want %llu\n", dirs[i], (unsigned long long) got,
			        (unsigned long long) want);
			return 1;
		}
		open[i] = t1 - t0, count[i] = t2 - t1, close[i] = t3 - t2, total[i] = t3 - t0;
	}
	printf("stores %zu open_ms %.4f count_ms %.4f close_ms %.4f total_ms %.4f\n", n, median(open, n),
	       median(count, n), median(close, n), median(total, n));
	return 0;
}
