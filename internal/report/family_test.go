package report

import (
	"image/color"
	"math"
	"testing"

	"manydb/internal/engine"
)

// colorDistance is the "redmean" approximation of how far apart two
// colours look (0 for the same colour, about 765 for black and white).
func colorDistance(a, b color.NRGBA) float64 {
	r := (float64(a.R) + float64(b.R)) / 2
	dr := float64(a.R) - float64(b.R)
	dg := float64(a.G) - float64(b.G)
	db := float64(a.B) - float64(b.B)
	return math.Sqrt((2+r/256)*dr*dr + 4*dg*dg + (2+(255-r)/256)*db*db)
}

// TestFamilyColorsDistinct: every family of the catalog is drawn in a
// colour of its own, apart from every other family's and from the grey
// of a variant of no family, so that no two lines of a chart look alike.
func TestFamilyColorsDistinct(t *testing.T) {
	const minDistance = 60 // Tableau 10's closest pair, brown and grey, is 61
	seen := map[string]family{}
	colors := []color.NRGBA{otherColor()}
	names := []string{"other"}
	for _, f := range engine.Catalog() {
		fam := familyOf(f.Variants[0])
		for _, v := range f.Variants {
			if got := familyOf(v); got.color != fam.color {
				t.Errorf("%s is drawn in %s, its family %s in %s", v, hex(got.color), fam.name, hex(fam.color))
			}
		}
		if other, ok := seen[hex(fam.color)]; ok {
			t.Errorf("families %s and %s share the colour %s", other.name, fam.name, hex(fam.color))
		}
		seen[hex(fam.color)] = fam
		colors = append(colors, fam.color)
		names = append(names, fam.name)
	}
	for i := range colors {
		for j := i + 1; j < len(colors); j++ {
			if d := colorDistance(colors[i], colors[j]); d < minDistance {
				t.Errorf("%s (%s) and %s (%s) are %.0f apart, under %d", names[i], hex(colors[i]), names[j], hex(colors[j]), d, minDistance)
			}
		}
	}
}
