// Package note holds the ObjectBox entity Note and its binding, generated
// by objectbox-gogen (note.obx.go, objectbox-model.go) with the model's ids
// kept in objectbox-model.json. Regenerate after changing Note:
//
//	go generate ./internal/engines/objectbox/note
//
// The ids and uids in objectbox-model.json are part of every store's
// schema: stores created with one model.json cannot be opened with
// another one's.
package note

import _ "embed"

//go:generate go tool objectbox-gogen

// Note is one note of a store, as workload.Note. Id is ObjectBox's id
// property (uint64); a new Note has Id 0 and gets its id when put.
type Note struct {
	Id   uint64
	Text string
	Ts   int64
}

// ModelJSON is objectbox-model.json, the model's ids and uids as the
// generator keeps them; package objectbox builds the model's FlatBuffers
// bytes from it for the variants that open with model bytes.
//
//go:embed objectbox-model.json
var ModelJSON []byte
