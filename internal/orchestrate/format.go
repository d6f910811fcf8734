package orchestrate

import (
	"fmt"
	"time"
)

// bytesText writes a size in the unit that fits, a KB 1,024 bytes and
// each unit 1,024 of the one below, as everywhere in manydb: "820 KB",
// "3.4 MB", "1.2 GB".
func bytesText(b float64) string {
	const kb, mb, gb, tb = 1 << 10, 1 << 20, 1 << 30, 1 << 40
	switch {
	case b >= tb:
		return fmt.Sprintf("%.1f TB", b/tb)
	case b >= gb:
		return fmt.Sprintf("%.1f GB", b/gb)
	case b >= mb:
		return fmt.Sprintf("%.1f MB", b/mb)
	}
	return fmt.Sprintf("%.0f KB", b/kb)
}

// FormatSeconds formats a length of time for people: "1h23m45s" up to a
// few years, then in days.
func FormatSeconds(secs float64) string {
	switch {
	case secs < 10:
		return time.Duration(secs * float64(time.Second)).Round(time.Millisecond).String()
	case secs < 1e8:
		return time.Duration(secs * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%.3g days", secs/86400)
}
