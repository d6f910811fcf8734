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
//	table ModelProperty { id:IdUid; name:string; type:ushort; flags:uint; indexId:IdUid;
//	                      targetEntity:string; virtualTarget:string; nameSecondary:string;
//	                      maxIndexValueLength:uint; hnswParams:HnswParams; … }
//	table HnswParams    { dimensions:uint; neighborsPerNode:uint; indexingSearchCount:uint; flags:uint;
//	                      distanceType:ushort; reparationBacklinkProbability:float; vectorCacheHintSizeKb:ulong }
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
// generator's objectbox-model.json (relations and indexes are not read:
// Note has none; the HNSW index of a store with vectors is added in Go, see
// vectorModelBytes).
func ModelBytes(modelJSONFile []byte) ([]byte, error) {
	m, err := parseModel(modelJSONFile)
	if err != nil {
		return nil, err
	}
	return m.bytes(), nil
}

// model is a model to write as FlatBuffers: objectbox-model.json's
// entities and ids, plus what ModelBytes's JSON cannot hold (an HNSW index).
type model struct {
	entities   []entity
	lastEntity idUid
	lastIndex  idUid // zero: no index
}

type entity struct {
	id       idUid
	name     string
	props    []property
	lastProp idUid
}

type property struct {
	id    idUid
	name  string
	typ   uint16 // OBXPropertyType
	flags uint32 // OBXPropertyFlags
	index idUid  // the property's index; zero: none
	hnsw  *hnswParams
}

// hnswParams is the HnswParams table of a property with an HNSW index
// (fields as ObjectBox Java's io.objectbox.model.HnswParams; each
// obx_model_property_index_hnsw_* call of the C API sets one). A zero field
// is not written: ObjectBox's default applies.
type hnswParams struct {
	dimensions            uint32  // slot 0, mandatory
	neighborsPerNode      uint32  // slot 1, "M" (default 30)
	indexingSearchCount   uint32  // slot 2, "efConstruction" (default 100)
	flags                 uint32  // slot 3, OBXHnswFlags
	distanceType          uint16  // slot 4, OBXVectorDistanceType (default Euclidean)
	reparationBacklinkP   float32 // slot 5 (default 1.0)
	vectorCacheHintSizeKB uint64  // slot 6 (default 2097152, 2 GiB)
}

// parseModel reads objectbox-model.json.
func parseModel(modelJSONFile []byte) (model, error) {
	var j modelJSON
	if err := json.Unmarshal(modelJSONFile, &j); err != nil {
		return model{}, fmt.Errorf("read objectbox-model.json: %w", err)
	}
	if j.LastIndexID != "" || j.LastRelationID != "" {
		return model{}, fmt.Errorf("objectbox-model.json has indexes or relations, which ModelBytes does not read")
	}
	var m model
	for _, je := range j.Entities {
		var e entity
		var err error
		e.name = je.Name
		if e.id, err = parseIDUid(je.ID); err != nil {
			return model{}, fmt.Errorf("entity %s: %w", je.Name, err)
		}
		if e.lastProp, err = parseIDUid(je.LastPropertyID); err != nil {
			return model{}, fmt.Errorf("entity %s: %w", je.Name, err)
		}
		for _, jp := range je.Properties {
			if jp.IndexID != "" {
				return model{}, fmt.Errorf("property %s.%s has an index, which ModelBytes does not read", je.Name, jp.Name)
			}
			id, err := parseIDUid(jp.ID)
			if err != nil {
				return model{}, fmt.Errorf("property %s.%s: %w", je.Name, jp.Name, err)
			}
			e.props = append(e.props, property{id: id, name: jp.Name, typ: jp.Type, flags: jp.Flags})
		}
		m.entities = append(m.entities, e)
	}
	var err error
	if m.lastEntity, err = parseIDUid(j.LastEntityID); err != nil {
		return model{}, fmt.Errorf("lastEntityId: %w", err)
	}
	return m, nil
}

// bytes writes the model as FlatBuffers.
func (m model) bytes() []byte {
	b := flatbuffers.NewBuilder(1024)
	entities := make([]flatbuffers.UOffsetT, 0, len(m.entities))
	for _, e := range m.entities {
		props := make([]flatbuffers.UOffsetT, 0, len(e.props))
		for _, p := range e.props {
			name := b.CreateString(p.name)
			var hnsw flatbuffers.UOffsetT
			if p.hnsw != nil {
				hnsw = p.hnsw.write(b) // a table is finished before its parent starts
			}
			b.StartObject(12)
			if p.hnsw != nil {
				b.PrependUOffsetTSlot(9, hnsw, 0)
			}
			b.PrependUOffsetTSlot(1, name, 0)
			b.PrependUint32Slot(3, p.flags, 0)
			b.PrependUint16Slot(2, p.typ, 0)
			b.PrependStructSlot(0, putIDUid(b, p.id), 0)
			if p.index != (idUid{}) {
				b.PrependStructSlot(4, putIDUid(b, p.index), 0)
			}
			props = append(props, b.EndObject())
		}
		name := b.CreateString(e.name)
		propVec := tableVector(b, props)
		b.StartObject(4)
		b.PrependUOffsetTSlot(1, name, 0)
		b.PrependUOffsetTSlot(2, propVec, 0)
		b.PrependStructSlot(0, putIDUid(b, e.id), 0)
		b.PrependStructSlot(3, putIDUid(b, e.lastProp), 0)
		entities = append(entities, b.EndObject())
	}
	name := b.CreateString(modelName)
	entVec := tableVector(b, entities)
	b.StartObject(8)
	b.PrependUint32Slot(0, modelMetaVersion, 0)
	b.PrependUOffsetTSlot(1, name, 0)
	b.PrependUint64Slot(2, modelUserVersion, 0)
	b.PrependUOffsetTSlot(3, entVec, 0)
	b.PrependStructSlot(4, putIDUid(b, m.lastEntity), 0)
	if m.lastIndex != (idUid{}) {
		b.PrependStructSlot(5, putIDUid(b, m.lastIndex), 0)
	}
	b.Finish(b.EndObject())
	return b.FinishedBytes()
}

// write writes the HnswParams table and returns its offset.
func (h *hnswParams) write(b *flatbuffers.Builder) flatbuffers.UOffsetT {
	b.StartObject(7)
	b.PrependUint64Slot(6, h.vectorCacheHintSizeKB, 0)
	b.PrependUint32Slot(0, h.dimensions, 0)
	b.PrependUint32Slot(1, h.neighborsPerNode, 0)
	b.PrependUint32Slot(2, h.indexingSearchCount, 0)
	b.PrependUint32Slot(3, h.flags, 0)
	b.PrependFloat32Slot(5, h.reparationBacklinkP, 0)
	b.PrependUint16Slot(4, h.distanceType, 0)
	return b.EndObject()
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
