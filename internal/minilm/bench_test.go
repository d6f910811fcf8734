package minilm

import (
	"bufio"
	"os"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
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

// BenchmarkMulT reports GFLOP per CPU-second of one dense layer's product
// (32 glosses of 18 tokens, 384 values in, 1,536 out) three ways: mulT
// with the AVX2+FMA kernel, mulT in plain Go, and gonum's pure-Go Sgemm.
func BenchmarkMulT(b *testing.B) {
	m, n, k := 576, 1536, 384
	a, w, c := make([]float32, m*k), make([]float32, n*k), make([]float32, m*n)
	for i := range a {
		a[i] = float32(i%7) / 7
	}
	for i := range w {
		w[i] = float32(i%5) / 5
	}
	products := map[string]func(){
		"kernel": func() { mulT(view{c, n}, view{a, k}, view{w, k}, m, n, k, nil, hasKernel()) },
		"go":     func() { mulT(view{c, n}, view{a, k}, view{w, k}, m, n, k, nil, false) },
		"gonum":  func() { gonum.Implementation{}.Sgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, k, w, k, 0, c, n) },
	}
	for _, name := range []string{"kernel", "go", "gonum"} {
		b.Run(name, func(b *testing.B) {
			cpu0 := cpuSeconds(b)
			for b.Loop() {
				products[name]()
			}
			b.ReportMetric(float64(2*m*n*k*b.N)/(cpuSeconds(b)-cpu0)/1e9, "GFLOP/cpu-s")
		})
	}
}
