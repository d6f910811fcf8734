// Package objectbox is manydb's adapter for ObjectBox: the C library
// libobjectbox 5.3.2 (from PyPI's objectbox-clib wheel, installed into
// third_party/objectbox/lib by scripts/fetch-objectbox.sh) through
// github.com/objectbox/objectbox-go v1.9.0 and, where objectbox-go cannot
// express a variant, a few direct calls to the C API (capi.go).
//
// A store is a directory holding data.mdb and lock.mdb, with one entity,
// Note{Id uint64; Text string; Ts int64} (package note: the entity, its
// generated binding and objectbox-model.json). No store option is set
// besides the directory: the library's defaults apply (1 GB maximum size,
// synced commits). Insert puts all notes in one write transaction as
// objectbox-go's Box.PutMany does for new objects: reserve N ids
// (obx_box_ids_for_put, giving 1…N in a new store, the workload's ids),
// marshal each note to a FlatBuffer with the generated binding, then
// obx_box_put_many (mode PUT_ID_GUARANTEED_TO_BE_NEW) and commit. Count is
// the box count (obx_box after the open, then obx_box_count).
//
// The three variants differ only in what the open passes to the library:
//
//   - obx ("sync every open"): objectbox-go's ordinary path,
//     NewBuilder().Model(note.ObjectBoxModel()).Directory(dir).Build().
//     Every open builds the model in C (obx_model, obx_model_entity,
//     obx_model_property, … from the generated binding) and passes it with
//     obx_opt_model, which frees it; obx_store_open syncs that model with
//     the schema stored in the database. Put and count go through
//     objectbox-go's Box (BoxForNote(ob).PutMany, .Count).
//   - obx_cached ("cached model"): the model's FlatBuffers bytes are made
//     once per process (ModelBytes, from objectbox-model.json) and every
//     open passes them with obx_opt_model_bytes_direct; obx_store_open
//     still syncs the model with the stored schema. objectbox-go cannot do
//     this (its Builder only takes a Model, passed with obx_opt_model), so
//     open, put, count and close are direct C calls, the same calls
//     objectbox-go makes.
//   - obx_nosync ("skip model sync"): what objectbox-python 5.0.0's
//     Store(skip_model_sync=True) does: if the directory holds data.mdb, the
//     store is opened with no model at all (no obx_opt_model*), and the
//     library reads the schema stored in the database, syncing nothing;
//     otherwise (a new store) it is opened with the cached model bytes as
//     obx_cached. Python's option also skips its JSON id sync; Go has none
//     at run time (the generator assigned the ids). Direct C calls as for
//     obx_cached.
//
// Open of an existing store also reads data.mdb's schema in all three
// variants; only obx and obx_cached compare it with a model.
package objectbox

// Variant ids.
const (
	IDSync   = "obx"
	IDCached = "obx_cached"
	IDNoSync = "obx_nosync"
)
