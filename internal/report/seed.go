package report

import "strings"

// The seed is the reference study manydb reproduces
// (docs/reference.md: Python, 2026-10-11, 10,000 stores of the large
// workload, 1,000 held open): its figures, by setting, variant (manydb's
// id) and figure name. The overview in Markdown shows them in brackets
// beside manydb's own, for the large workload only. A test checks every
// value against docs/reference.md's tables.
type seedKey struct {
	setting, variant, figure string
}

// seedVariants are the reference's variants as manydb names them, in the
// order of its tables' columns.
func seedVariants() []string {
	return []string{"obx", "obx_cached", "obx_nosync", "sqlite", "turso", "libsql"}
}

// seedFigures returns the reference's figures, each a row of its tables
// with one value per seedVariants column.
func seedFigures() map[seedKey]float64 {
	rows := map[string]map[string][]float64{ // setting → figure → values
		"default": {
			"create":               {30.72, 30.73, 29.85, 26.59, 40.80, 42.80},
			"stores-per-second":    {31, 31, 32, 34, 23, 23},
			"open":                 {0.302, 0.209, 0.098, 0.037, 0.650, 0.048},
			"count":                {0.095, 0.087, 0.086, 0.204, 0.379, 0.130},
			"open-query-close":     {0.433, 0.332, 0.218, 0.275, 7.524, 0.195},
			"open-query-close-p99": {0.555, 0.457, 0.338, 0.361, 12.297, 0.251},
			"close":                {0.035, 0.034, 0.033, 0.033, 6.405, 0.017},
			"rss-per-open-store":   {2538, 2534, 491, 409, 2470, 421},
			"anon-per-open-store":  {2065, 2062, 19, 407, 2466, 418},
			"space-per-store":      {472, 472, 472, 316, 316, 316},
		},
		"mmap-threshold": {
			"create":               {31.02, 30.89, 31.46, 29.53, 40.68, 38.93},
			"stores-per-second":    {31, 31, 31, 32, 23, 24},
			"open":                 {0.270, 0.186, 0.085, 0.036, 0.748, 0.051},
			"count":                {0.093, 0.090, 0.087, 0.203, 0.370, 0.147},
			"open-query-close":     {0.407, 0.320, 0.215, 0.276, 7.530, 0.220},
			"open-query-close-p99": {0.514, 0.428, 0.298, 0.331, 12.182, 0.271},
			"close":                {0.041, 0.043, 0.042, 0.036, 6.391, 0.023},
			"rss-per-open-store":   {491, 491, 491, 409, 2470, 421},
			"anon-per-open-store":  {19, 19, 19, 407, 2466, 418},
			"space-per-store":      {472, 472, 472, 316, 316, 316},
		},
	}
	out := map[seedKey]float64{}
	for setting, figs := range rows {
		for name, vals := range figs {
			for i, v := range seedVariants() {
				out[seedKey{setting, v, name}] = vals[i]
			}
		}
	}
	return out
}

// seeded tells whether a table's workload is the seed's: the large one,
// 1,000 notes of 300 characters per store.
func seeded(t *table) bool {
	return t.objects == 1000 && strings.HasPrefix(t.workload, "large: 1,000 notes of 300 characters")
}

// seedApplies tells whether the seed's value of a figure compares with
// table t's: the workload is the seed's and, for the open, query, close
// figures, the query is the seed's count alone (a study with more
// queries times them all in that span).
func seedApplies(t *table, figure string) bool {
	if !seeded(t) {
		return false
	}
	return len(t.queries) == 0 || !strings.HasPrefix(figure, "open-query-close")
}
