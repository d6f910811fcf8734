package report

import (
	"fmt"
	"manydb/internal/vector"
	"manydb/internal/workload"
	"math"
	"strconv"
	"strings"
)

// natural writes a value of a unit the way a reader says it: three
// significant digits, no trailing zeros, digits grouped from 1,000,
// memory in KB below 1 MB, else in MB or GB, and µs below 1 ms, else ms:
// "0.0253 ms", "2.59 ms", "430 KB", "2.5 MB", "25.3 µs", "2,538 stores/s".
func natural(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	switch unit {
	case "KB":
		return memory(v)
	case "µs":
		return micros(v)
	case "%":
		return strconv.FormatFloat(v, 'f', 0, 64) + " %"
	case "":
		return significant(v)
	}
	return significant(v) + " " + unit
}

// micros writes microseconds in µs below 1 ms, else in ms: "25.3 µs",
// "2.1 ms".
func micros(us float64) string {
	if math.Abs(us) >= 1000 {
		return significant(us/1000) + " ms"
	}
	return significant(us) + " µs"
}

// memory writes kilobytes in KB, MB or GB, whichever keeps the number
// below 1,024.
func memory(kb float64) string {
	switch a := math.Abs(kb); {
	case a >= 1<<20:
		return significant(kb/(1<<20)) + " GB"
	case a >= 1<<10:
		return significant(kb/(1<<10)) + " MB"
	}
	return significant(kb) + " KB"
}

// significant writes v with three significant digits (whole numbers from
// 100 up, grouped from 1,000) and no trailing zeros: 0.0253, 2.5, 431,
// 2,538.
func significant(v float64) string {
	a := math.Abs(v)
	if a >= 100 || a == 0 {
		return thousands(v)
	}
	decimals := 2 - int(math.Floor(math.Log10(a)))
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func gib(kb string) string {
	var n float64
	if _, err := fmt.Sscan(kb, &n); err != nil {
		return "?"
	}
	return fmt.Sprintf("%.0f", n/(1<<20))
}

// millis formats milliseconds as the reference does: "0.302 ms".
func millis(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.*f ms", decimals, v)
}

// thousands rounds v to an integer and groups its digits: "2,538".
func thousands(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	s := fmt.Sprintf("%.0f", math.Abs(v))
	var b strings.Builder
	if v < 0 && s != "0" {
		b.WriteByte('-')
	}
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// mb writes a memory figure in KB as MB, "–" when there is none (NaN).
func mb(kb float64) string {
	if math.IsNaN(kb) {
		return "–"
	}
	return fmt.Sprintf("%.1f MB", kb/1024)
}

// topicsText says how a workload's embeddings cluster when it is not the
// default: " (topics drawn from a pool of 100 shared by all agents; σ 0.5
// around a topic)"; "" for each agent's own topics at the default σ.
// workloadText names a table's workload: its notes per store and where
// they come from.
func workloadText(w workload.Spec) string {
	if w.Data.Name == "" {
		return fmt.Sprintf("%s: %s notes of %d characters per store", w.Name, thousands(float64(w.Objects)), w.TextLen)
	}
	return fmt.Sprintf("%s: %s notes of at most %d characters per store, from --data %s (%s; inputs' SHA-256 %.12s…)",
		w.Name, thousands(float64(w.Objects)), w.TextLen, w.Data.Name, w.Data.Version, w.Data.SHA256)
}

func topicsText(w workload.Spec) string {
	var parts []string
	if w.TopicPool > 0 {
		parts = append(parts, fmt.Sprintf("topics drawn from a pool of %s shared by all agents", thousands(float64(w.TopicPool))))
	}
	if w.Spread > 0 {
		parts = append(parts, fmt.Sprintf("σ %g around a topic", w.Spread))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// askedText says how many notes a knn asked its engine for, when more
// than it kept (--knn-oversample): " (each knn asked for 40 notes and kept
// the first 10)"; "" otherwise.
func askedText(asked int) string {
	if asked == 0 {
		return ""
	}
	return fmt.Sprintf(" (each knn asked for %d notes and kept the first %d)", asked, vector.K)
}

// rateText names a rate of a ladder: "1,000 requests/s", or "closed loop".
func rateText(rate float64) string {
	if rate == 0 {
		return "closed loop"
	}
	return thousands(rate) + " requests/s"
}

// atBoundText is the end of a chart's caption naming the rows at one
// end of a share's domain (shareBounds), not drawn, each there where
// says ("in every run").
func atBoundText(bound float64, names []string, where string) string {
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(". At %s %s, not drawn: %s", natural(bound, "%"), where, strings.Join(names, ", "))
}

// atOneEnd finds, for a share (unit "%"), the end of its domain (100 %,
// then 0 %) that two or more of n rows are at (at(i, end)) while some row
// is not, and which rows those are; nil when no end is (or the unit is
// not a share): such rows are named under a chart, not drawn, so that its
// axis shows the rows that differ.
func atOneEnd(unit string, n int, at func(i int, end float64) bool) (float64, []bool) {
	if unit != "%" {
		return 0, nil
	}
	for _, end := range []float64{100, 0} {
		on, count := make([]bool, n), 0
		for i := range n {
			if at(i, end) {
				on[i], count = true, count+1
			}
		}
		if count >= 2 && count < n {
			return end, on
		}
	}
	return 0, nil
}
