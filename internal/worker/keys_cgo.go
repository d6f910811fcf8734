//go:build cgo

package worker

/*
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

// free_pthread_keys counts the thread-specific data keys this process can
// still create (of PTHREAD_KEYS_MAX): it creates keys until the C library
// refuses, then deletes them all.
static int free_pthread_keys(void) {
	pthread_key_t *keys = malloc(sizeof(pthread_key_t) * PTHREAD_KEYS_MAX);
	if (keys == NULL) return -1;
	int n = 0;
	while (n < PTHREAD_KEYS_MAX && pthread_key_create(&keys[n], NULL) == 0) n++;
	for (int i = 0; i < n; i++) pthread_key_delete(keys[i]);
	free(keys);
	return n;
}

static int pthread_keys_max(void) { return PTHREAD_KEYS_MAX; }
*/
import "C"

// freePthreadKeys counts the pthread keys this process can still create
// (ObjectBox takes one per open store with its default options); max is
// the C library's PTHREAD_KEYS_MAX. The probe creates and deletes keys:
// it runs only between the hold's opens, while the engines are idle.
func freePthreadKeys() (free, max int) {
	return int(C.free_pthread_keys()), int(C.pthread_keys_max())
}

// takePthreadKeys creates n pthread keys and returns how to delete them,
// and how many it made (fewer than n when the C library refused): the
// tests' stand-in for an engine that keeps one per open store.
func takePthreadKeys(n int) (release func(), made int) {
	keys := make([]C.pthread_key_t, 0, n)
	for range n {
		var k C.pthread_key_t
		if C.pthread_key_create(&k, nil) != 0 {
			break
		}
		keys = append(keys, k)
	}
	return func() {
		for _, k := range keys {
			C.pthread_key_delete(k)
		}
	}, len(keys)
}
