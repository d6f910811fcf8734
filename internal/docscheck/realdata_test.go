package docscheck

import (
	"fmt"
	"testing"
)

// realData is the folder of docs/vectors.md's study on real data; its
// parts are named by data set (and "-libsql" for libsql_capi under lean).
const realData = "2026-12-07-real-data/"

// realFigure is figure fig of column under setting in part's records.
func realFigure(t *testing.T, rs *records, part, column, setting, fig string) float64 {
	return rs.tableFigure(t, realData+part+".jsonl.gz", column, setting, fig)
}

// recallText is column's recall@10 mean and 5th percentile in part, as
// the tables round them ("94 %, 70 %").
func recallText(t *testing.T, rs *records, part, column, setting string) string {
	return fmt.Sprintf("%.0f %%, %.0f %%", realFigure(t, rs, part, column, setting, "recall"), realFigure(t, rs, part, column, setting, "recall-p5"))
}

// realDataClaims are the recall rows and memory figures of
// docs/vectors.md's real-data section: per data set, ObjectBox's recall
// (both variants) and libsql_capi's under lean with the share of answers
// that found none of the 10.
func realDataClaims() []claim {
	const doc = "docs/vectors.md"
	var claims []claim
	for _, c := range []struct{ data, obx, libsql, part string }{
		{"`synthetic` (384)", "98 %, 90 % | 10 | 98 %, 90 %", "96 %, 80 %, 2 %", "synthetic"},
		{"`minilm-wordnet` (384)", "94 %, 70 % | 20 | 93 %, 70 %", "100 %, 100 %, 0 %", "wordnet"},
		{"`synthetic` (50)", "98 %, 90 % | 10 | 98 %, 90 %", "99 %, 90 %, 0 %", "synthetic50"},
		{"`glove50` (50)", "91 %, 70 % | 20 | 91 %, 70 %", "93 %, 80 %, 0 %", "glove"},
	} {
		claims = append(claims, claim{doc, "| " + c.data + " | " + c.obx + " |", func(t *testing.T, rs *records) string {
			cached, nosync := recallText(t, rs, c.part, "obx_cached", "default"), recallText(t, rs, c.part, "obx_nosync", "default")
			return cached + c.obx[len(cached):len(c.obx)-len(nosync)] + nosync
		}}, claim{doc, c.obx + " | " + c.libsql + " |", func(t *testing.T, rs *records) string {
			lib := c.part + "-libsql"
			return fmt.Sprintf("%s, %.0f %%", recallText(t, rs, lib, "libsql_capi", "lean"), realFigure(t, rs, lib, "libsql_capi", "lean", "recall-none"))
		}})
	}
	claims = append(claims, claim{doc, "`sqlite_capi` 1,883 KB (WordNet), 2,396 KB (synthetic, 384), 443 KB (GloVe), 1,047 KB (synthetic, 50)", func(t *testing.T, rs *records) string {
		kb := func(part string) string {
			return grouped(realFigure(t, rs, part, "sqlite_capi", "default", "container-per-open-store"))
		}
		return fmt.Sprintf("`sqlite_capi` %s KB (WordNet), %s KB (synthetic, 384), %s KB (GloVe), %s KB (synthetic, 50)", kb("wordnet"), kb("synthetic"), kb("glove"), kb("synthetic50"))
	}})
	return claims
}
