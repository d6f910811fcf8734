package orchestrate

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress shows how far a phase has come.
type Progress interface {
	// Start begins a phase of total steps, each one unit ("store",
	// "request", "agent").
	Start(label string, total int, unit string)
	// Set reports done of total steps (called from the worker's stderr reader).
	Set(done, total int)
	// Done ends the phase.
	Done()
}

// NewProgress returns a progress bar with count, rate and ETA when w is a
// terminal, and otherwise a plain line every 10 seconds.
func NewProgress(w io.Writer) Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w, every: 10 * time.Second}
}

// barProgress draws a github.com/schollz/progressbar bar.
type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (b *barProgress) Start(label string, total int, unit string) {
	b.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(b.w),
		progressbar.OptionSetDescription(label),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit+"s"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(b.w) }),
	)
}

// Set moves the bar to done, and its end to total when the worker counts
// otherwise (a serve worker counts requests).
func (b *barProgress) Set(done, total int) {
	if total != b.bar.GetMax() {
		b.bar.ChangeMax(total)
	}
	b.bar.Set(done)
}

func (b *barProgress) Done() {
	b.bar.Finish()
}

// lineProgress prints "label: done/total stores, rate/s, ETA" (or
// requests, or agents: the phase's unit) at most every `every`, and one
// line when a phase ends.
type lineProgress struct {
	w     io.Writer
	every time.Duration

	mu    sync.Mutex
	label string
	unit  string
	total int
	done  int
	start time.Time
	last  time.Time
}

func (l *lineProgress) Start(label string, total int, unit string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.label, l.unit, l.total, l.done = label, unit, total, 0
	l.start = time.Now()
	l.last = l.start
}

func (l *lineProgress) Set(done, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done, l.total = done, total
	if now := time.Now(); now.Sub(l.last) >= l.every {
		l.last = now
		if done == 0 { // no rate yet: the worker's set-up (a prewarm, a warm-up)
			fmt.Fprintf(l.w, "%s: 0/%d %ss after %s (setting up)\n", l.label, l.total, l.unit, now.Sub(l.start).Round(time.Second))
			return
		}
		rate := float64(done) / now.Sub(l.start).Seconds()
		eta := time.Duration(float64(l.total-done) / rate * float64(time.Second))
		fmt.Fprintf(l.w, "%s: %d/%d %ss, %s/s, ETA %s\n", l.label, done, l.total, l.unit, rateText(rate), eta.Round(time.Second))
	}
}

// rateText writes a rate with two significant digits below 10 ("0.27",
// "3.4"), so that a slow phase does not show 0/s, and whole above.
func rateText(rate float64) string {
	if rate >= 10 {
		return strconv.FormatFloat(rate, 'f', 0, 64)
	}
	return strconv.FormatFloat(rate, 'g', 2, 64)
}

func (l *lineProgress) Done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s: ended after %s\n", l.label, time.Since(l.start).Round(time.Millisecond))
}
