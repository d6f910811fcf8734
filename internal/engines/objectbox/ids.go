// Package objectbox is manydb's adapter for ObjectBox: the C library
// (fetched by scripts/fetch-objectbox.sh) through objectbox-go and, where
// objectbox-go cannot express a variant, direct calls to the C API
// (capi.go). It is compiled only with the build tag objectbox
// (objectbox_disabled.go otherwise). Variants: obx (objectbox-go's model
// built and synced on every open), obx_cached (model bytes built once per
// process), obx_nosync (an existing store opened without a model); the
// last two also keep embeddings in ObjectBox's HNSW index (vectors.go). A
// store is a directory holding data.mdb and lock.mdb (and emb-dims when it
// has vectors); package note holds the entity and its generated binding. docs/engines.md says what each call
// does and why.
package objectbox

// Variant ids.
const (
	IDSync   = "obx"
	IDCached = "obx_cached"
	IDNoSync = "obx_nosync"
)
