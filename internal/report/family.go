package report

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"manydb/internal/engine"
)

// A family is the engine family of a variant, as the report colours it:
// every chart and the overview draw a variant in its family's colour.
type family struct {
	name  string // the worker binary without "worker-": "sqlite", "gokv"
	index int    // its place in engine.Catalog(); -1 for a variant not there
	color color.NRGBA
}

// familyColors are the families' colours in catalog order, one for each
// family of engine.Catalog() (TestFamilyColorsDistinct holds them to
// it): Tableau 10's first nine, chosen to tell apart on screen and in
// print, then Category 10's cyan in place of Tableau's grey, which is
// the colour of a variant of no family (the test engine "fake"), then a
// dark ink for the eleventh.
func familyColors() []color.NRGBA {
	return []color.NRGBA{
		{0x4e, 0x79, 0xa7, 0xff}, // blue
		{0xf2, 0x8e, 0x2b, 0xff}, // orange
		{0xe1, 0x57, 0x59, 0xff}, // red
		{0x76, 0xb7, 0xb2, 0xff}, // teal
		{0x59, 0xa1, 0x4f, 0xff}, // green
		{0xed, 0xc9, 0x48, 0xff}, // yellow
		{0xb0, 0x7a, 0xa1, 0xff}, // purple
		{0xff, 0x9d, 0xa7, 0xff}, // pink
		{0x9c, 0x75, 0x5f, 0xff}, // brown
		{0x17, 0xbe, 0xcf, 0xff}, // cyan
		{0x2f, 0x2f, 0x4f, 0xff}, // ink
	}
}

// otherColor is the colour of a variant of no known family: grey.
func otherColor() color.NRGBA { return color.NRGBA{0x79, 0x70, 0x6e, 0xff} }

// familyOf finds the engine family of a variant (a column's variant id,
// not "variant @ machine").
func familyOf(variant string) family {
	colors := familyColors()
	for i, f := range engine.Catalog() {
		if slices.Contains(f.Variants, variant) {
			return family{name: strings.TrimPrefix(f.Binary, "worker-"), index: i, color: colors[i%len(colors)]}
		}
	}
	return family{name: "other", index: -1, color: otherColor()}
}

// hex is a colour as CSS writes it: "#4e79a7".
func hex(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// familiesOf lists the families of variants once each, in catalog order
// (the unknown family last).
func familiesOf(variants []string) []family {
	var out []family
	for _, v := range variants {
		f := familyOf(v)
		if !slices.ContainsFunc(out, func(g family) bool { return g.name == f.name }) {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b family) int { return rank(a) - rank(b) })
	return out
}

// rank orders families: catalog order, the unknown family last.
func rank(f family) int {
	if f.index < 0 {
		return 1 << 20
	}
	return f.index
}
