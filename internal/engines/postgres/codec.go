package postgres

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// vec is an embedding sent to pgvector, in its binary format (vecCodec).
type vec []float32

// registerVector makes conn send vec values as pgvector's vector type
// (its binary format), when the database has the extension.
func registerVector(ctx context.Context, c *pgx.Conn) error {
	var oid uint32
	err := c.QueryRow(ctx, "SELECT oid FROM pg_type WHERE typname = 'vector'").Scan(&oid)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("look up pgvector's type: %w", err)
	}
	c.TypeMap().RegisterType(&pgtype.Type{Name: "vector", OID: oid, Codec: vecCodec{}})
	return nil
}

// vecCodec encodes a vec in pgvector's binary format: the number of
// values (int16), an unused int16, then each value as a big-endian
// float32 (pgvector's vector_send). It decodes nothing: manydb reads ids
// back, never embeddings. A hand-written codec rather than pgvector-go,
// whose module (v0.3.0) is served here only from an earlier copy.
type vecCodec struct{}

func (vecCodec) FormatSupported(f int16) bool { return f == pgtype.BinaryFormatCode }
func (vecCodec) PreferredFormat() int16       { return pgtype.BinaryFormatCode }

func (vecCodec) PlanEncode(_ *pgtype.Map, _ uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(vec); !ok || format != pgtype.BinaryFormatCode {
		return nil
	}
	return vecEncoder{}
}

func (vecCodec) PlanScan(*pgtype.Map, uint32, int16, any) pgtype.ScanPlan { return nil }

func (vecCodec) DecodeDatabaseSQLValue(*pgtype.Map, uint32, int16, []byte) (driver.Value, error) {
	return nil, errors.New("manydb does not read embeddings back")
}

func (vecCodec) DecodeValue(*pgtype.Map, uint32, int16, []byte) (any, error) {
	return nil, errors.New("manydb does not read embeddings back")
}

type vecEncoder struct{}

func (vecEncoder) Encode(value any, buf []byte) ([]byte, error) {
	v := value.(vec)
	if len(v) > math.MaxInt16 {
		return nil, fmt.Errorf("an embedding of %d values is longer than pgvector's vector holds", len(v))
	}
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(v)))
	buf = binary.BigEndian.AppendUint16(buf, 0)
	for _, x := range v {
		buf = binary.BigEndian.AppendUint32(buf, math.Float32bits(x))
	}
	return buf, nil
}
