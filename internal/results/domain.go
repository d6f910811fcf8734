package results

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"manydb/internal/job"
	"manydb/internal/vector"
)

// maxMagnitude bounds every number of a record: no measurement manydb
// makes comes near it (a millisecond count of 30,000 years, a petabyte
// in KB), and sums of a million such values stay finite, so a figure
// computed from a record is never infinite.
const maxMagnitude = 1e15

// checkDomain refuses a record that no manydb run can have written: one
// without its study, phase or variant, a number that is not finite or
// beyond maxMagnitude, and in an ok record a value outside its domain (a
// recall or residency outside 0 to 1, a negative time or size, a hold of
// no store, a count no process can have, knn figures out of range) or a
// list of samples that lacks some of its stores; and a measured record of
// a layout its variant does not have. The error names the field.
func (r *Record) checkDomain() error {
	switch {
	case r.Study == "":
		return errors.New(`no "study": not a record of a study`)
	case r.Phase == "":
		return errors.New(`no "phase"`)
	case r.Variant == "" && r.Phase != job.PhaseEnv && r.Phase != job.PhaseEnd:
		return fmt.Errorf(`a %s record without "variant"`, r.Phase)
	}
	if err := checkNumbers(reflect.ValueOf(*r), ""); err != nil {
		return err
	}
	if err := errors.Join(r.checkCounters(), r.checkVariantLayout()); err != nil {
		return err
	}
	if w := r.WorkerTime; w != nil {
		if err := w.check(); err != nil {
			return err
		}
	}
	if r.Status != StatusOK {
		return nil
	}
	return errors.Join(r.checkSamples(), r.checkVectorFigures(), r.checkHold(), r.checkServe())
}

// checkCounters refuses a negative count: of stores, of notes and their
// sizes, of runs, of appended notes, of retried requests, or of serve's
// pool and requests.
func (r *Record) checkCounters() error {
	counts := map[string]int{"stores": r.Stores, "workload.objects": r.Workload.Objects, "workload.text_len": r.Workload.TextLen,
		"workload.dims": r.Workload.Dims, "run": r.Run, "turn": r.Turn, "hold_step": r.HoldStep, "pool_step": r.PoolStep,
		"appended": r.Appended, "fanout": r.Fanout, "workload.topic_pool": r.Workload.TopicPool, "knn_asked": r.KNNAsked,
		"prewarm_passes": r.PrewarmPasses, "deletes": r.Deletes, "retries": r.Retries}
	if s := r.Serve; s != nil {
		counts["serve.pool"], counts["serve.requests"], counts["serve.done"] = s.Pool, s.Requests, s.Done
	}
	for name, n := range counts {
		if n < 0 {
			return fmt.Errorf("%s is %d: a count is not negative", name, n)
		}
	}
	return nil
}

// checkNumbers walks v (a record, or a part of it) and refuses the first
// number that is not finite or beyond maxMagnitude, naming it by its JSON
// path ("hold.rss_kb", "recall[3]").
func checkNumbers(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > maxMagnitude {
			return fmt.Errorf("%s is %v: no measurement gives it", path, x)
		}
	case reflect.Int, reflect.Int64:
		if math.Abs(float64(v.Int())) > maxMagnitude {
			return fmt.Errorf("%s is %d: no measurement gives it", path, v.Int())
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return checkNumbers(v.Elem(), path)
		}
	case reflect.Slice:
		for i := range v.Len() {
			if err := checkNumbers(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if err := checkNumbers(it.Value(), fmt.Sprintf("%s.%v", path, it.Key())); err != nil {
				return err
			}
		}
	case reflect.Struct:
		return checkFields(v, path)
	}
	return nil
}

// checkFields checks each field of the struct v that JSON writes.
func checkFields(v reflect.Value, path string) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		p := name
		switch {
		case f.Anonymous:
			p = path
		case path != "":
			p = path + "." + name
		}
		if err := checkNumbers(v.Field(i), p); err != nil {
			return err
		}
	}
	return nil
}

// checkSamples checks an ok record's samples: no negative time or size,
// each recall and residency a fraction, and, where a study's phase has
// one sample per store, one for each of its stores.
func (r *Record) checkSamples() error {
	lists := map[string][]float64{"create_ms": r.CreateMs, "open_ms": r.OpenMs, "query_ms": r.QueryMs,
		"close_ms": r.CloseMs, "total_ms": r.TotalMs, "export_ms": r.ExportMs, "delete_ms": r.DeleteMs}
	for q, xs := range r.QueriesMs {
		lists["queries_ms."+string(q)] = xs
	}
	for name, xs := range lists {
		if err := checkRange(name, xs, 0, maxMagnitude); err != nil {
			return err
		}
	}
	for name, xs := range map[string][]float64{"recall": r.Recall, "resident": r.Resident} {
		if err := checkRange(name, xs, 0, 1); err != nil {
			return err
		}
	}
	if r.VectorExact {
		if err := checkRange("recall (an exact search's)", r.Recall, 1, 1); err != nil {
			return err
		}
	}
	for name, b := range map[string]*float64{"resident_before": r.ResidentBefore, "resident_after": r.ResidentAfter} {
		if b != nil && (*b < 0 || *b > 1) {
			return fmt.Errorf("%s is %v, outside 0 to 1", name, *b)
		}
	}
	if err := errors.Join(checkSizes("bytes", r.Bytes), checkSizes("export_bytes", r.ExportBytes), r.checkLayout()); err != nil {
		return err
	}
	return r.checkCounts()
}

// checkSizes refuses a negative size.
func checkSizes(name string, xs []int64) error {
	for i, b := range xs {
		if b < 0 {
			return fmt.Errorf("%s[%d] is %d: a size is not negative", name, i, b)
		}
	}
	return nil
}

// checkLayout refuses an unknown layout, and a space record of a layout
// with one store for every agent (job.OneStore) without that store's size
// or with a negative one.
func (r *Record) checkLayout() error {
	switch err := job.CheckLayout("layout", r.Layout); {
	case err != nil:
		return err
	case r.Phase != job.PhaseSpace || r.Layout.Stores() != job.OneStore:
		return nil
	case r.SharedBytes == nil:
		return errors.New("a space record of the shared layout without shared_bytes")
	case *r.SharedBytes < 0:
		return fmt.Errorf("shared_bytes is %d: a size is not negative", *r.SharedBytes)
	}
	return nil
}

// checkRange refuses the first of xs outside lo to hi.
func checkRange(name string, xs []float64, lo, hi float64) error {
	for i, x := range xs {
		if x < lo || x > hi {
			return fmt.Errorf("%s[%d] is %v, outside %v to %v", name, i, x, lo, hi)
		}
	}
	return nil
}

// checkCounts refuses an ok record of a phase that visits every store
// (create, open, turn, space) whose lists of samples hold another number
// of samples than its stores, or a recall or answer length for another
// number of answers than its samples.
func (r *Record) checkCounts() error {
	n := r.Stores
	lists := map[string]int{}
	switch r.Phase {
	case job.PhaseCreate:
		lists["create_ms"] = len(r.CreateMs)
	case job.PhaseOpen, job.PhaseTurn:
		lists["open_ms"], lists["total_ms"] = len(r.OpenMs), len(r.TotalMs)
		for q, xs := range r.QueriesMs {
			lists["queries_ms."+string(q)] = len(xs)
		}
	case job.PhaseSpace:
		if r.Layout.Stores() == job.OwnStores {
			lists["bytes"] = len(r.Bytes)
		}
	case job.PhaseDelete:
		if r.Deletes > r.Stores {
			return fmt.Errorf("deletes is %d: more agents than the %d stores", r.Deletes, r.Stores)
		}
		n = job.DeleteCountOf(r.Deletes, r.Stores)
		lists["export_ms"], lists["export_bytes"], lists["delete_ms"], lists["freed_bytes"] = len(r.ExportMs), len(r.ExportBytes), len(r.DeleteMs), len(r.FreedBytes)
	case job.PhaseHold:
		if r.Hold != nil {
			n = r.Hold.Held
		}
	}
	if len(r.Recall) > 0 {
		lists["recall"] = len(r.Recall)
	}
	if len(r.KNNReturned) > 0 {
		lists["knn_returned"] = len(r.KNNReturned)
	}
	for name, got := range lists {
		if n > 0 && got != n {
			return fmt.Errorf("%s holds %d samples for %d stores", name, got, n)
		}
	}
	return nil
}

// checkHold refuses an ok hold record of no store held, or of more than
// its study's stores, or with a count no process can have
// (checkHoldCounts).
func (r *Record) checkHold() error {
	h := r.Hold
	switch {
	case h == nil:
		return nil
	case h.Held < 1:
		return fmt.Errorf("hold.held is %d: a hold keeps at least one store open", h.Held)
	case r.Stores > 0 && h.Held > r.Stores:
		return fmt.Errorf("hold.held is %d, more than the study's %d stores", h.Held, r.Stores)
	case len(h.OpenMs) > 0 && len(h.OpenMs) != h.Held:
		return fmt.Errorf("hold.open_ms holds %d samples for %d stores held", len(h.OpenMs), h.Held)
	}
	if err := checkRange("hold.open_ms", h.OpenMs, 0, maxMagnitude); err != nil {
		return err
	}
	if err := errors.Join(checkProcs(h), checkHoldCounts(h, "hold")); err != nil {
		return err
	}
	return checkLadder(h.Ladder, h.Held, r.VectorExact)
}

// checkLadder refuses a hold's knn ladder of an exact search (it has
// none), with asked counts not rising from vector.K, or with steps whose
// samples are not one per held store or outside their domain.
func checkLadder(steps []LadderStep, held int, exact bool) error {
	if len(steps) > 0 && exact {
		return errors.New("hold.ladder of an exact search: only an approximate knn is asked again")
	}
	last := 0
	for i, s := range steps {
		if s.Asked < vector.K || s.Asked <= last {
			return fmt.Errorf("hold.ladder[%d].asked is %d: each step asks for at least %d notes, more than the step before", i, s.Asked, vector.K)
		}
		last = s.Asked
		for name, n := range map[string]int{"ms": len(s.Ms), "recall": len(s.Recall), "returned": len(s.Returned)} {
			if n != held {
				return fmt.Errorf("hold.ladder[%d].%s holds %d samples for %d stores held", i, name, n, held)
			}
		}
		err := errors.Join(checkRange(fmt.Sprintf("hold.ladder[%d].ms", i), s.Ms, 0, maxMagnitude),
			checkRange(fmt.Sprintf("hold.ladder[%d].recall", i), s.Recall, 0, 1), checkReturned(i, s.Returned))
		if err != nil {
			return err
		}
	}
	return nil
}

// checkReturned refuses a ladder step's answer length below 0 or above
// vector.K (the ids kept).
func checkReturned(step int, ns []int) error {
	for j, n := range ns {
		if n < 0 || n > vector.K {
			return fmt.Errorf("hold.ladder[%d].returned[%d] is %d, outside 0 to %d", step, j, n, vector.K)
		}
	}
	return nil
}

// checkServe refuses an ok serve step of no request, with more hits than
// requests served, without its memory samples, with a negative count
// (checkServeCounts) or latency.
func (r *Record) checkServe() error {
	s := r.Serve
	if s == nil || r.Phase != job.PhaseServe {
		return nil
	}
	switch {
	case s.Requests < 1:
		return fmt.Errorf("serve.requests is %d: a serve step asks for one request at least", s.Requests)
	case s.Hits < 0 || s.Hits > int64(s.Served()):
		return fmt.Errorf("serve.hits is %d, outside 0 to the %d requests served", s.Hits, s.Served())
	}
	for name, n := range map[string]int{"rss_kb": len(s.RssKB), "anon_kb": len(s.AnonKB), "threads": len(s.Threads), "fds": len(s.FDs)} {
		if n == 0 {
			return fmt.Errorf("serve.%s holds no sample: a serve step samples the process at least once", name)
		}
	}
	if err := checkServeCounts(s, "serve"); err != nil {
		return err
	}
	return checkRange("serve latencies", []float64{s.P50Ms, s.P90Ms, s.P99Ms, s.P999Ms, s.MaxMs}, 0, maxMagnitude)
}
