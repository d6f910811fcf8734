package minilm

import "math"

// forward embeds a batch of token sequences into out (one vector of
// c.Hidden values each). The sequences' tokens are stacked into one
// matrix of rows, so that every dense layer is one matrix product over
// the batch; attention runs within each sequence, so no token sees
// another sequence's and there is no padding to mask.
func (m *Model) forward(seqs [][]int, s *scratch, out [][]float32) {
	h, rows := m.cfg.Hidden, 0
	for _, seq := range seqs {
		rows += len(seq)
	}
	s.x = grow(s.x, rows*h)
	s.qkv = grow(s.qkv, rows*3*h)
	s.ctx = grow(s.ctx, rows*h)
	s.tmp = grow(s.tmp, rows*h)
	s.inter = grow(s.inter, rows*m.cfg.Intermediate)
	m.embedTokens(seqs, s.x)
	for i := range m.w.layers {
		m.encodeLayer(&m.w.layers[i], seqs, s, rows)
	}
	m.pool(seqs, s.x, out)
}

// embedTokens sets x's rows to word + position + token type (0)
// embeddings, layer-normalised.
func (m *Model) embedTokens(seqs [][]int, x []float32) {
	h, row := m.cfg.Hidden, 0
	for _, seq := range seqs {
		for p, id := range seq {
			r := x[row*h : (row+1)*h]
			word, pos := m.w.word[id*h:(id+1)*h], m.w.pos[p*h:(p+1)*h]
			for i := range r {
				r[i] = word[i] + pos[i] + m.w.typ[i]
			}
			layerNorm(r, m.w.embLNg, m.w.embLNb, m.cfg.Eps)
			row++
		}
	}
}

// encodeLayer runs one encoder layer over s.x in place: self-attention,
// its output projection added to x and layer-normalised, then the GELU
// feed-forward added and layer-normalised.
func (m *Model) encodeLayer(l *layer, seqs [][]int, s *scratch, rows int) {
	h, in := m.cfg.Hidden, m.cfg.Intermediate
	x := view{s.x, h}
	mulT(view{s.qkv, 3 * h}, x, view{l.qkv, h}, rows, 3*h, h, l.qkvBias, m.fast)
	row := 0
	for _, seq := range seqs {
		m.attend(s, row, len(seq))
		row += len(seq)
	}
	mulT(view{s.tmp, h}, view{s.ctx, h}, view{l.attnOut, h}, rows, h, h, l.attnB, m.fast)
	m.addNorm(s.x, s.tmp, l.attnLNg, l.attnLNb)
	mulT(view{s.inter, in}, x, view{l.inter, h}, rows, in, h, l.interB, m.fast)
	gelu(s.inter, m.fast)
	mulT(view{s.tmp, h}, view{s.inter, in}, view{l.out, in}, rows, h, in, l.outB, m.fast)
	m.addNorm(s.x, s.tmp, l.outLNg, l.outLNb)
}

// attend sets s.ctx's rows start to start+n-1 to multi-head attention
// over that one sequence: per head, softmax(q·kᵀ/√d)·v. Both products go
// through mulT; for the second, the probabilities and vᵀ are padded with
// zeros to a multiple of 8 columns, the kernel's.
func (m *Model) attend(s *scratch, start, n int) {
	h, d := m.cfg.Hidden, m.cfg.Hidden/m.cfg.Heads
	scale := float32(1 / math.Sqrt(float64(d)))
	padded := (n + 7) / 8 * 8
	s.scores = grow(s.scores, n*padded)
	s.vt = grow(s.vt, d*padded)
	scores, vt := view{s.scores, padded}, view{s.vt, padded}
	base := s.qkv[start*3*h:]
	for col := 0; col < h; col += d {
		q, k, v := view{base[col:], 3 * h}, view{base[h+col:], 3 * h}, view{base[2*h+col:], 3 * h}
		mulT(scores, q, k, n, n, d, nil, m.fast)
		for i := range n {
			r := scores.row(i, padded)
			for j := range n {
				r[j] *= scale
			}
			softmax(r[:n])
			clear(r[n:])
		}
		for e := range d {
			r := vt.row(e, padded)
			for j := range n {
				r[j] = v.v[j*v.stride+e]
			}
			clear(r[n:])
		}
		mulT(view{s.ctx[start*h+col:], h}, scores, vt, n, d, padded, nil, m.fast)
	}
}

// addNorm sets each row of x to layerNorm(x + y).
func (m *Model) addNorm(x, y, g, b []float32) {
	h := m.cfg.Hidden
	for i := range x {
		x[i] += y[i]
	}
	for r := 0; r < len(x); r += h {
		layerNorm(x[r:r+h], g, b, m.cfg.Eps)
	}
}

// pool sets out[i] to the mean of sequence i's rows of x, scaled to
// length 1.
func (m *Model) pool(seqs [][]int, x []float32, out [][]float32) {
	h, row := m.cfg.Hidden, 0
	for i, seq := range seqs {
		sum := make([]float64, h)
		for range seq {
			for e, v := range x[row*h : (row+1)*h] {
				sum[e] += float64(v)
			}
			row++
		}
		var norm float64
		for _, v := range sum {
			norm += v * v
		}
		norm = math.Sqrt(norm)
		out[i] = make([]float32, h)
		for e, v := range sum {
			out[i][e] = float32(v / norm)
		}
	}
}
