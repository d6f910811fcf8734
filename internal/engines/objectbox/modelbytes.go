//go:build objectbox

package objectbox

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	flatbuffers "github.com/google/flatbuffers/go"
)

// The model as FlatBuffers bytes, for obx_opt_model_bytes.
//
// The C API has no call that returns the bytes of an OBX_model built with
// obx_model_*, so ModelBytes writes them itself, from the generator's
// objectbox-model.json, in the layout of ObjectBox's model schema (the one
// ObjectBox Java's ModelBuilder writes; field slots as in its generated
// io.objectbox.model classes):
//
//	table Model         { modelVersion:uint; name:string; version:ulong; entities:[ModelEntity];
//	                      lastEntityId:IdUid; lastIndexId:IdUid; lastSequenceId:IdUid; lastRelationId:IdUid }
//	table ModelEntity   { id:IdUid; name:string; properties:[ModelProperty]; lastPropertyId:IdUid;
//	                      relations:[ModelRelation]; flags:uint; nameSecondary:string }
//	table ModelProperty { id:IdUid; name:string; type:ushort; flags:uint; indexId:IdUid; … }
//	struct IdUid        { id:uint; uid:ulong }
//
// with modelVersion 2, name "default" and version 1, as Java writes them.
// The tests check the bytes against the model objectbox-go builds: a store
// created with either opens with the other (the library syncs the model
// against the stored schema and fails on a different uid).

const (
	modelMetaVersion = 2 // Model.modelVersion, as ObjectBox Java's ModelBuilder
	modelName        = "default"
	modelUserVersion = 1
)

// modelJSON is the part of objectbox-model.json that ModelBytes reads.
type modelJSON struct {
	Entities []struct {
		ID             string `json:"id"`
		LastPropertyID string `json:"lastPropertyId"`
		Name           string `json:"name"`
		Properties     []struct {
			ID      string `json:"id"`
			Name    string `json:"name"`
			Type    uint16 `json:"type"`
			Flags   uint32 `json:"flags"`
			IndexID string `json:"indexId"`
		} `json:"properties"`
	} `json:"entities"`
	LastEntityID   string `json:"lastEntityId"`
	LastIndexID    string `json:"lastIndexId"`
	LastRelationID string `json:"lastRelationId"`
}

// idUid is an "id:uid" pair of objectbox-model.json; zero when empty.
type idUid struct {
	id  uint32
	uid uint64
}

func parseIDUid(s string) (idUid, error) {
	if s == "" {
		return idUid{}, nil
	}
	idStr, uidStr, ok := strings.Cut(s, ":")
	if !ok {
		return idUid{}, fmt.Errorf("id %q is not of the form id:uid", s)
	}
	id, err := strconv.ParseUint(idStr, 10, 32)
	if err != nil {
		return idUid{}, fmt.Errorf("id %q: %w", s, err)
	}
	uid, err := strconv.ParseUint(uidStr, 10, 64)
	if err != nil {
		return idUid{}, fmt.Errorf("uid %q: %w", s, err)
	}
	return idUid{uint32(id), uid}, nil
}

// ModelBytes returns the FlatBuffers bytes of the model described by the
// generator's objectbox-model.json (relations and indexes are not
// supported: Note has none).
func ModelBytes(modelJSONFile []byte) ([]byte, error) {
	var m modelJSON
	if err := json.Unmarshal(modelJSONFile, &m); err != nil {
		return nil, fmt.Errorf("read objectbox-model.json: %w", err)
	}
	if m.LastIndexID != "" || m.LastRelationID != "" {
		return nil, fmt.Errorf("objectbox-model.json has indexes or relations, which ModelBytes does not write")
	}
	b := flatbuffers.NewBuilder(1024)
	entities := make([]flatbuffers.UOffsetT, 0, len(m.Entities))
	for _, e := range m.Entities {
		props := make([]flatbuffers.UOffsetT, 0, len(e.Properties))
		for _, p := range e.Properties {
			if p.IndexID != "" {
				return nil, fmt.Errorf("property %s.%s has an index, which ModelBytes does not write", e.Name, p.Name)
			}
			id, err := parseIDUid(p.ID)
			if err != nil {
				return nil, fmt.Errorf("property %s.%s: %w", e.Name, p.Name, err)
			}
			name := b.CreateString(p.Name)
			b.StartObject(5)
			b.PrependUOffsetTSlot(1, name, 0)
			b.PrependUint32Slot(3, p.Flags, 0)
			b.PrependUint16Slot(2, p.Type, 0)
			b.PrependStructSlot(0, putIDUid(b, id), 0)
			props = append(props, b.EndObject())
		}
		id, err := parseIDUid(e.ID)
		if err != nil {
			return nil, fmt.Errorf("entity %s: %w", e.Name, err)
		}
		last, err := parseIDUid(e.LastPropertyID)
		if err != nil {
			return nil, fmt.Errorf("entity %s: %w", e.Name, err)
		}
		name := b.CreateString(e.Name)
		propVec := tableVector(b, props)
		b.StartObject(4)
		b.PrependUOffsetTSlot(1, name, 0)
		b.PrependUOffsetTSlot(2, propVec, 0)
		b.PrependStructSlot(0, putIDUid(b, id), 0)
		b.PrependStructSlot(3, putIDUid(b, last), 0)
		entities = append(entities, b.EndObject())
	}
	lastEntity, err := parseIDUid(m.LastEntityID)
	if err != nil {
		return nil, fmt.Errorf("lastEntityId: %w", err)
	}
	name := b.CreateString(modelName)
	entVec := tableVector(b, entities)
	b.StartObject(8)
	b.PrependUint32Slot(0, modelMetaVersion, 0)
	b.PrependUOffsetTSlot(1, name, 0)
	b.PrependUint64Slot(2, modelUserVersion, 0)
	b.PrependUOffsetTSlot(3, entVec, 0)
	b.PrependStructSlot(4, putIDUid(b, lastEntity), 0)
	b.Finish(b.EndObject())
	return b.FinishedBytes(), nil
}

// putIDUid writes an IdUid struct inline (as a table field must be).
func putIDUid(b *flatbuffers.Builder, v idUid) flatbuffers.UOffsetT {
	b.Prep(8, 16)
	b.PrependUint64(v.uid)
	b.Pad(4)
	b.PrependUint32(v.id)
	return b.Offset()
}

// tableVector writes a vector of table offsets.
func tableVector(b *flatbuffers.Builder, offs []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	b.StartVector(4, len(offs), 4)
	for i := len(offs) - 1; i >= 0; i-- {
		b.PrependUOffsetT(offs[i])
	}
	return b.EndVector(len(offs))
}
