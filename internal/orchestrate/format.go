package orchestrate

import (
	"fmt"
	"time"
)

// bytesText writes a size in the unit that fits: "820 KB", "3.4 MB", "1.2 GB".
func bytesText(b float64) string {
	switch {
	case b >= 1e12:
		return fmt.Sprintf("%.1f TB", b/1e12)
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", b/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", b/1e6)
	}
	return fmt.Sprintf("%.0f KB", b/1e3)
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
