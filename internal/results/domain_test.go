package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validOpen is an ok open record of 2 stores with knn, as a worker writes
// it; each case below breaks one field.
const validOpen = `{"schema":2,"study":"s","variant":"v","setting":"default","phase":"open","run":1,"seed":1,"status":"ok",` +
	`"workload":{"name":"large","objects":1000,"text_len":300,"dims":8},"stores":2,"load1":0,"started":"2026-12-04T10:00:00Z",` +
	`"open_ms":[0.1,0.2],"query_ms":[0.3,0.4],"close_ms":[0.1,0.1],"total_ms":[0.5,0.7],"queries":["count","knn"],` +
	`"queries_ms":{"count":[0.1,0.1],"knn":[0.2,0.3]},"recall":[1,0.9],"knn_returned":[10,10],"resident_before":1}`

// TestRefusesImpossibleRecords: each record no manydb run writes is
// refused at its line, naming the field; the valid one reads.
func TestRefusesImpossibleRecords(t *testing.T) {
	if _, err := readOne(t, validOpen); err != nil {
		t.Fatalf("the valid record: %v", err)
	}
	hold := `{"schema":2,"study":"s","variant":"v","phase":"hold","status":"ok","workload":{"name":"large","objects":1000,"text_len":300},"stores":2,` +
		`"load1":0,"started":"2026-12-04T10:00:00Z","hold":{"held":2,"rss_kb":1,"anon_kb":1,"rss_before_kb":1,"rss_after_kb":2,"anon_before_kb":1,"anon_after_kb":2,` +
		`"threads_before":1,"threads":1,"fds_before":1,"fds":3,"goroutines_before":1,"goroutines":1,"mappings_before":10,"mappings":20,` +
		`"pthread_keys_free_before":100,"pthread_keys_free":90,"pthread_keys_max":128,"limits":{"open_files":1024,"mappings":65530,"threads":1000},` +
		`"mem_available_kb":1000,"engine_s":0.1}}`
	serve := `{"schema":2,"study":"s","variant":"v","phase":"serve","pool_step":1,"status":"ok","workload":{"name":"large","objects":1000,"text_len":300},"stores":2,` +
		`"load1":0,"started":"2026-12-04T10:00:00Z","serve":{"pool":1,"requests":10,"warmup":0,"concurrency":1,"zipf":1.1,"seed":1,"p50_ms":1,"p90_ms":1,"p99_ms":1,"p999_ms":1,"max_ms":1,` +
		`"wall_s":1,"hits":1,"lru_hits":1,"opens":1,"closes":1,"max_open":1,"sample_ms":250,"rss_kb":[100],"anon_kb":[1],"threads":[1],"fds":[1],"base_rss_kb":1}}`
	del := `{"schema":2,"study":"s","variant":"v","layout":"shared","phase":"delete","status":"ok","workload":{"name":"large","objects":1000,"text_len":300},"stores":20,` +
		`"load1":0,"started":"2026-12-04T10:00:00Z","deletes":3,"export_ms":[1,2,3],"export_bytes":[9,9,9],"delete_ms":[1,1,1],"freed_bytes":[0,0,0]}`
	ladder := strings.Replace(hold, `"engine_s":0.1`, `"engine_s":0.1,"ladder":[{"asked":10,"ms":[1,1],"recall":[0.5,1],"returned":[10,10]},`+
		`{"asked":20,"ms":[1,1],"recall":[1,1],"returned":[10,10]}]`, 1)
	step := func(asked int, recall, returned string) string {
		return fmt.Sprintf(`{"asked":%d,"ms":[1,1],"recall":%s,"returned":%s}`, asked, recall, returned)
	}
	for _, tt := range []struct {
		name, rec, edit, want string
	}{
		{"a ladder of an exact search", ladder, `"vector_exact":true`, "hold.ladder of an exact search"},
		{"a ladder asking for 5", ladder, `"ladder":[` + step(5, "[1,1]", "[10,10]") + `]`, "hold.ladder[0].asked is 5"},
		{"a ladder asking for fewer", ladder, `"ladder":[` + step(20, "[1,1]", "[10,10]") + `,` + step(10, "[1,1]", "[10,10]") + `]`, "hold.ladder[1].asked is 10"},
		{"a ladder step short of its stores", ladder, `"ladder":[` + step(10, "[1]", "[10,10]") + `]`, "hold.ladder[0].recall holds 1 samples for 2 stores"},
		{"a ladder recall of 1.5", ladder, `"ladder":[` + step(10, "[1.5,1]", "[10,10]") + `]`, "hold.ladder[0].recall[0] is 1.5"},
		{"a ladder answer of 11 kept", ladder, `"ladder":[` + step(10, "[1,1]", "[11,10]") + `]`, "hold.ladder[0].returned[0] is 11"},
		{"deletes above the stores", del, `"deletes":21`, "deletes is 21: more agents than the 20 stores"},
		{"deletes -1", del, `"deletes":-1`, "deletes is -1: a count is not negative"},
		{"a delete short of its agents", del, `"delete_ms":[1,1]`, "delete_ms holds 2 samples for 3 stores"},
		{"deletes 0 with three agents' samples", del, `"deletes":0`, "holds 3 samples for 2 stores"},
		{"no study", validOpen, `"study":""`, `no "study"`},
		{"no phase", validOpen, `"phase":""`, `no "phase"`},
		{"no variant", validOpen, `"variant":""`, `without "variant"`},
		{"a recall of 1e308", validOpen, `"recall":[1e308,1]`, "recall[0] is 1e+308"},
		{"a recall of 2", validOpen, `"recall":[2,1]`, "recall[0] is 2, outside 0 to 1"},
		{"a recall of -1", validOpen, `"recall":[-1,1]`, "recall[0] is -1, outside 0 to 1"},
		{"an exact search below 1", validOpen, `"vector_exact":true,"recall":[0.5,1]`, "an exact search's"},
		{"a recall short of its stores", validOpen, `"recall":[1]`, "recall holds 1 samples for 2 stores"},
		{"open_ms null", validOpen, `"open_ms":null`, "open_ms holds 0 samples for 2 stores"},
		{"queries_ms.count null", validOpen, `"queries_ms":{"count":null,"knn":[0.2,0.3]}`, "queries_ms.count holds 0 samples"},
		{"a negative time", validOpen, `"total_ms":[-0.5,0.7]`, "total_ms[0] is -0.5"},
		{"a residency of 3", validOpen, `"resident_before":3`, "resident_before is 3"},
		{"held 0", hold, `"held":0`, "hold.held is 0"},
		{"held -5", hold, `"held":-5`, "hold.held is -5"},
		{"held above the stores", hold, `"held":3`, "more than the study's 2 stores"},
		{"a serve step without memory samples", serve, `"rss_kb":null`, "serve.rss_kb holds no sample"},
		{"a serve step with rss_kb []", serve, `"rss_kb":[]`, "serve.rss_kb holds no sample"},
		{"a serve step of no request", serve, `"requests":0`, "serve.requests is 0"},
		{"a serve step with more hits than requests", serve, `"hits":11`, "serve.hits is 11, outside 0 to the 10 requests"},
		{"a huge memory figure", hold, `"rss_kb":1e300`, "hold.rss_kb is 1e+300"},
		{"open files -100,000", hold, `"fds":-100000`, "hold.fds is -100000: a count is not negative"},
		{"threads -500", hold, `"threads":-500`, "hold.threads is -500"},
		{"mappings -500", hold, `"mappings":-500`, "hold.mappings is -500"},
		{"pthread keys free -5", hold, `"pthread_keys_free":-5`, "hold.pthread_keys_free is -5, outside 0 to pthread_keys_max 128"},
		{"pthread keys free above their maximum", hold, `"pthread_keys_free_before":129`, "hold.pthread_keys_free_before is 129"},
		{"pthread keys free, not counted", hold, `"pthread_keys_max":0`, "keys not counted"},
		{"an open files limit of 0", hold, `"open_files":0`, "hold.limits.open_files is 0, outside 1"},
		{"more open files than the limit", hold, `"fds":5000`, "hold.fds is 5000, more than 1 process(es) of limits.open_files 1024"},
		{"negative memory available", hold, `"mem_available_kb":-1`, "hold.mem_available_kb is -1"},
		{"a serve step of -1 threads", serve, `"threads":[-1]`, "serve.threads[0] is -1"},
		{"a serve step of more LRU hits than requests", serve, `"lru_hits":11`, "serve.lru_hits is 11, more than the 10 requests served"},
		{"a serve step of -3 opens", serve, `"opens":-3`, "serve.opens is -3"},
		{"a knn answer of 11", validOpen, `"knn_returned":[11,10]`, "knn_returned[0] is 11"},
		{"a knn asking for 5", validOpen, `"knn_asked":5`, "knn_asked is 5"},
		{"knn figures without embeddings", validOpen, `"dims":0`, "workload without embeddings"},
		{"a layout the variant does not have", validOpen, `"variant":"sqlite_ncruces","layout":"shared"`, "sqlite_ncruces in layout shared, which it does not have"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line, err := withField(tt.rec, tt.edit)
			if err != nil {
				t.Fatal(err)
			}
			_, err = readOne(t, line)
			var syn *SyntaxError
			if !errors.As(err, &syn) || syn.Line != 1 || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a SyntaxError at line 1 saying %q", err, tt.want)
			}
		})
	}
	if _, err := readOne(t, hold); err != nil {
		t.Errorf("the valid hold: %v", err)
	}
	if _, err := readOne(t, ladder); err != nil {
		t.Errorf("the valid hold with a ladder: %v", err)
	}
	if _, err := readOne(t, serve); err != nil {
		t.Errorf("the valid serve step: %v", err)
	}
	if _, err := readOne(t, del); err != nil {
		t.Errorf("the valid delete of 3 agents: %v", err)
	}
}

// withField sets, in the JSON object rec, the fields of edit (JSON
// members, e.g. `"held":0`), at any depth where rec has them and at the
// top level otherwise.
func withField(rec, edit string) (string, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(rec), &m); err != nil {
		return "", err
	}
	var e map[string]any
	if err := json.Unmarshal([]byte("{"+edit+"}"), &e); err != nil {
		return "", err
	}
	for k, v := range e {
		if !setNested(m, k, v) {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// setNested sets key to v in m or in the first object below it that has
// key; false if none has.
func setNested(m map[string]any, key string, v any) bool {
	if _, ok := m[key]; ok {
		m[key] = v
		return true
	}
	for _, sub := range m {
		if o, ok := sub.(map[string]any); ok && setNested(o, key, v) {
			return true
		}
	}
	return false
}

// readOne reads the one record of line.
func readOne(t *testing.T, line string) (Record, error) {
	t.Helper()
	r := NewReader(strings.NewReader(line+"\n"), "f")
	if r.Next() {
		return r.Record(), nil
	}
	return Record{}, r.Err()
}

// A delete that gave back more than twice the largest store of its space
// record is refused at the delete's line by ReadFile; one within it reads.
func TestRefusesMoreFreedThanTheStores(t *testing.T) {
	space := `{"schema":2,"study":"s","variant":"v","phase":"space","status":"ok","workload":{"name":"large","objects":1000,"text_len":300},"stores":3,` +
		`"load1":0,"started":"2026-12-04T10:00:00Z","bytes":[1000,1200,1100]}`
	del := `{"schema":2,"study":"s","variant":"v","phase":"delete","status":"ok","workload":{"name":"large","objects":1000,"text_len":300},"stores":3,` +
		`"load1":0,"started":"2026-12-04T10:00:00Z","deletes":2,"export_ms":[1,2],"export_bytes":[9,9],"delete_ms":[1,1],"freed_bytes":[%d,1000]}`
	for freed, want := range map[int64]string{2400: "", 1e15: "f:2: not a manydb record: freed_bytes[0] is 1000000000000000, more than 2 times the largest store"} {
		name := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(name, []byte(space+"\n"+fmt.Sprintf(del, freed)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(name)
		switch {
		case want == "" && err != nil:
			t.Errorf("freed %d of stores of at most 1200 bytes: %v", freed, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), strings.Replace(want, "f:", name+":", 1))):
			t.Errorf("freed %d: err = %v, want %q", freed, err, want)
		}
	}
}
