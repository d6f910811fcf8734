package minilm

import (
	"fmt"
	"math"
)

// layer holds one encoder layer's weights; each matrix is [out, in].
type layer struct {
	qkv, qkvBias     []float32 // query, key and value stacked: [3·hidden, hidden]
	attnOut, attnB   []float32 // [hidden, hidden]
	attnLNg, attnLNb []float32
	inter, interB    []float32 // [intermediate, hidden]
	out, outB        []float32 // [hidden, intermediate]
	outLNg, outLNb   []float32
}

// weights is the whole BERT encoder.
type weights struct {
	word, pos, typ []float32 // embeddings: [vocab, hidden], [positions, hidden], [types, hidden]
	embLNg, embLNb []float32
	layers         []layer
}

// loadWeights reads model.safetensors, checking every tensor's dtype and
// shape against c.
func loadWeights(path string, c config) (weights, error) {
	f, err := readTensorFile(path)
	if err != nil {
		return weights{}, err
	}
	l := loader{f: f}
	h := c.Hidden
	w := weights{
		word:   l.get("embeddings.word_embeddings.weight", c.Vocab, h),
		pos:    l.get("embeddings.position_embeddings.weight", c.Positions, h),
		typ:    l.get("embeddings.token_type_embeddings.weight", c.TypeVocab, h),
		embLNg: l.get("embeddings.LayerNorm.weight", h),
		embLNb: l.get("embeddings.LayerNorm.bias", h),
	}
	for i := range c.Layers {
		w.layers = append(w.layers, l.layer(fmt.Sprintf("encoder.layer.%d.", i), c))
	}
	return w, l.err
}

// loader reads tensors until the first error, which it keeps.
type loader struct {
	f   *tensorFile
	err error
}

func (l *loader) get(name string, shape ...int) []float32 {
	if l.err != nil {
		return nil
	}
	v, err := l.f.float32s(name, shape...)
	l.err = err
	return v
}

// layer reads the tensors of the layer whose names start with p.
func (l *loader) layer(p string, c config) layer {
	h, in := c.Hidden, c.Intermediate
	var qkv, qkvBias []float32
	for _, part := range []string{"query", "key", "value"} {
		qkv = append(qkv, l.get(p+"attention.self."+part+".weight", h, h)...)
		qkvBias = append(qkvBias, l.get(p+"attention.self."+part+".bias", h)...)
	}
	return layer{
		qkv: qkv, qkvBias: qkvBias,
		attnOut: l.get(p+"attention.output.dense.weight", h, h),
		attnB:   l.get(p+"attention.output.dense.bias", h),
		attnLNg: l.get(p+"attention.output.LayerNorm.weight", h),
		attnLNb: l.get(p+"attention.output.LayerNorm.bias", h),
		inter:   l.get(p+"intermediate.dense.weight", in, h),
		interB:  l.get(p+"intermediate.dense.bias", in),
		out:     l.get(p+"output.dense.weight", h, in),
		outB:    l.get(p+"output.dense.bias", h),
		outLNg:  l.get(p+"output.LayerNorm.weight", h),
		outLNb:  l.get(p+"output.LayerNorm.bias", h),
	}
}

// scratch is one worker's buffers, grown to the largest batch it has run.
type scratch struct {
	x, qkv, ctx, tmp, inter, scores, vt []float32
}

func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}

// layerNorm normalises x to mean 0 and variance 1, then scales by g and
// shifts by b.
func layerNorm(x, g, b []float32, eps float64) {
	var sum, sq float64
	for _, v := range x {
		sum += float64(v)
	}
	mean := sum / float64(len(x))
	for _, v := range x {
		d := float64(v) - mean
		sq += d * d
	}
	inv := 1 / math.Sqrt(sq/float64(len(x))+eps)
	for i, v := range x {
		x[i] = float32((float64(v)-mean)*inv)*g[i] + b[i]
	}
}

// gelu is the exact GELU, x·Φ(x) with the error function, as BERT's
// "gelu" (not its tanh approximation). With fast (hasKernel) geluAVX
// does eight values at a time.
func gelu(x []float32, fast bool) {
	if n := len(x) / 8 * 8; fast && n > 0 {
		geluAVX(&x[0], n)
		x = x[n:]
	}
	for i, v := range x {
		x[i] = 0.5 * v * (1 + erf32(v*(1/math.Sqrt2)))
	}
}

// erf32 is the error function to float32 precision (within 5e-7 of
// math.Erf): x·P(x²)/Q(x²) on [-4, 4], ±1 beyond, with the rational
// approximation Eigen and XLA use for float32. math.Erf in float64 took a
// third of the forward pass.
func erf32(x float32) float32 {
	if x > 4 { // explicit: Go's min and max also order NaNs and zeros, more slowly
		x = 4
	} else if x < -4 {
		x = -4
	}
	x2 := x * x
	p := ((((((-2.72614225801306e-10*x2+2.77068142495902e-08)*x2-2.10102402082508e-06)*x2-
		5.69250639462346e-05)*x2-7.34990630326855e-04)*x2-2.95459980854025e-03)*x2 - 1.60960333262415e-02)
	q := ((((-1.45660718464996e-05*x2-2.13374055278905e-04)*x2-1.68282697438203e-03)*x2-
		7.37332916720468e-03)*x2 - 1.42647390514189e-02)
	return x * p / q
}

// softmax turns x into probabilities in place.
func softmax(x []float32) {
	top := x[0]
	for _, v := range x {
		top = max(top, v)
	}
	var sum float32
	for i, v := range x {
		x[i] = expNonPositive(v - top)
		sum += x[i]
	}
	for i := range x {
		x[i] /= sum
	}
}

// expNonPositive is e^x for x <= 0 to float32 precision (within 2e-7 of
// math.Exp, relative), Cephes' expf: x = n·ln 2 + r with |r| <= ln 2 / 2,
// e^r by a polynomial, times 2^n. math.Exp in float64 took a tenth of the
// forward pass.
func expNonPositive(x float32) float32 {
	if x < -87 { // e^-87 is about float32's smallest normal number
		return 0
	}
	n := -float32(int32(-x*math.Log2E + 0.5)) // x/ln 2 rounded
	r := x - n*0.693359375 + n*2.12194440e-4  // ln 2 in two parts, the first exact in float32
	p := (((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+
		1.6666665459e-1)*r+5.0000001201e-1)*r*r + r + 1
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}
