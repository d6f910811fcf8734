package minilm

import (
	"bufio"
	"os"
	"syscall"
	"testing"
	"time"
)

// BenchmarkEmbed reports texts/s embedding the texts of the file
// $MINILM_BENCH_TEXTS (one a line; e.g. WordNet's glosses), or of the
// known-answer sentences repeated when it is unset; and texts per
// CPU-second of the process.
func BenchmarkEmbed(b *testing.B) {
	m := loadModel(b, Options{})
	texts := benchTexts(b)
	cpu0 := cpuSeconds(b)
	for b.Loop() {
		if _, err := m.Embed(texts); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(len(texts) * b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "texts/s")
	b.ReportMetric(n/(cpuSeconds(b)-cpu0), "texts/cpu-s")
}

// cpuSeconds is the CPU time (user and system) the process has used: on
// a machine others share, texts per CPU-second is what the code does, and
// texts/s what the machine let it do.
func cpuSeconds(b *testing.B) float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

func benchTexts(b *testing.B) []string {
	path := os.Getenv("MINILM_BENCH_TEXTS")
	if path == "" {
		var texts []string
		for range 100 {
			texts = append(texts, "The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium.")
		}
		return texts
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var texts []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		texts = append(texts, sc.Text())
	}
	return texts
}
