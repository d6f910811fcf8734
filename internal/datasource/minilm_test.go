package datasource

import (
	"os"
	"path/filepath"
	"testing"

	"manydb/internal/vector"
	"manydb/internal/workload"
)

// TestPrepareUserTexts embeds a user's JSONL with the real
// all-MiniLM-L6-v2 (where make build fetched it): a store per agent,
// 384-value embeddings, and a text nearer to one of its own agent's than
// to the other agent's.
func TestPrepareUserTexts(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds texts with the real model")
	}
	thirdParty, _ := filepath.Abs("../../third_party")
	if _, err := os.Stat(filepath.Join(thirdParty, "minilm", "model.safetensors")); err != nil {
		t.Skip("the model is not fetched here (make build runs scripts/fetch-minilm.sh)")
	}
	t.Setenv("MANYDB_CACHE", t.TempDir())
	path := filepath.Join(t.TempDir(), "notes.jsonl")
	lines := `{"text": "The cat sat on the warm windowsill.", "agent": "ann"}
{"text": "My kitten sleeps in the sun all afternoon.", "agent": "ann"}
{"text": "Cats purr when they are content.", "agent": "ann"}
{"text": "The stock market fell sharply on Monday.", "agent": "bob"}
{"text": "Investors sold shares as interest rates rose.", "agent": "bob"}
{"text": "Bond yields climbed after the central bank spoke.", "agent": "bob"}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Choose(path)
	if err != nil {
		t.Fatal(err)
	}
	spec := workload.Spec{Objects: 2, TextLen: 300, Dims: 384, Data: d}
	if spec.Data, err = Prepare(Prep{Spec: spec, Stores: 2, ThirdParty: thirdParty}); err != nil {
		t.Fatal(err)
	}
	src, err := Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	ann, bob := make([]workload.Note, 2), make([]workload.Note, 2)
	src.Fill(0, ann)
	src.Fill(1, bob)
	if len(ann[0].Emb) != 384 {
		t.Fatalf("an embedding of %d values, want 384", len(ann[0].Emb))
	}
	same, other := vector.Distance(ann[0].Emb, ann[1].Emb), vector.Distance(ann[0].Emb, bob[0].Emb)
	if same >= other {
		t.Errorf("%q is %.3f from %q (its agent's) and %.3f from %q (the other's)", ann[0].Text, same, ann[1].Text, other, bob[0].Text)
	}
}
