/* manydb's C ABI over Turso Database (rust/turso-capi, a Rust staticlib).
 * Functions returning int return 0 on success and -1 on error, with a
 * message in *err to be freed with mt_free_error. Rust panics are caught
 * and returned as errors. See src/lib.rs for what each call does. */
#ifndef MANYDB_TURSO_H
#define MANYDB_TURSO_H

#include <stddef.h>
#include <stdint.h>

typedef struct MtStore MtStore;

const char *mt_version(void);       /* turso_sdk_kit version */
const char *mt_core_version(void);  /* turso_core version */
const char *mt_rustc_version(void); /* rustc --version at build time */
void mt_free_error(char *err);

int mt_open(const char *path, MtStore **out, char **err);
int mt_exec(MtStore *s, const char *sql, char **err);
int mt_insert_notes(MtStore *s, size_t n, const int64_t *ids, const int64_t *ts,
                    const int64_t *text_lens, const uint8_t *text, char **err);
int mt_count(MtStore *s, int64_t *out, char **err);
int mt_checkpoint(MtStore *s, char **err); /* PRAGMA wal_checkpoint(TRUNCATE) */
int mt_close(MtStore *s, char **err); /* frees s even on error */

#endif
