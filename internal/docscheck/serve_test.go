package docscheck

import (
	"fmt"
	"testing"
)

// serveClaims are the figures docs/serve.md gives of the record's serve
// part: the memory 10,000 open ObjectBox or Turso stores need, from the
// KB per open store of its hold.
func serveClaims() []claim {
	return []claim{
		{"docs/serve.md", "(10,000 open ObjectBox or Turso stores need 19.8–24.5 GB of it with default settings: 2,075 and 2,568 KB per open store in the hold of", func(t *testing.T, rs *records) string {
			obx, turso := rs.hold(t, serveFile, "obx", "default", 100).AnonKB, rs.hold(t, serveFile, "turso", "default", 100).AnonKB
			return fmt.Sprintf("(10,000 open ObjectBox or Turso stores need %s GB of it with default settings: %s and %s KB per open store",
				span(gb(obx*10000), gb(turso*10000), 1), grouped(obx), grouped(turso))
		}},
	}
}
