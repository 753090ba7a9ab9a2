package nnuetrain

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// The SIMD kernel gives the pure-Go kernel's bits on every length (the
// tail past the last multiple of 16 included) and every kind of float.
func TestAddKernelsBitForBit(t *testing.T) {
	needSIMD(t)
	rng := rand.New(rand.NewPCG(5, 6))
	special := []float32{0, float32(math.Copysign(0, -1)), 1e-40, -1e-40, math.MaxFloat32, -math.MaxFloat32, 1e-7, 3}
	for _, n := range []int{1, 7, 15, 16, 17, 31, 32, 48, 100, 512, 528, 2048} {
		dst := make([]float32, n)
		src := make([]float32, n+5) // longer than dst: only dst's length is added
		for i := range dst {
			dst[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
			src[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
			if rng.IntN(8) == 0 {
				dst[i] = special[rng.IntN(len(special))]
				src[i] = special[rng.IntN(len(special))]
			}
		}
		want := append([]float32(nil), dst...)
		got := append([]float32(nil), dst...)
		goKernels.add(want, src)
		simdKernels.add(got, src)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d: [%d] %v + %v: SIMD %v, Go %v", n, i, dst[i], src[i], got[i], want[i])
			}
		}
	}
}

// backSIMD gives backGo's bits on every length, for activations below,
// inside and above the unclipped range and on its edges.
func TestBackKernelBitForBit(t *testing.T) {
	needSIMD(t)
	rng := rand.New(rand.NewPCG(7, 8))
	edges := []float32{0, float32(math.Copysign(0, -1)), 1, 1e-40, 0.99999994, 1.0000001, -1e-40}
	randf := func() float32 { return float32(rng.NormFloat64()) }
	for _, n := range []int{1, 7, 8, 9, 16, 31, 64, 100, 512} {
		acc := make([]float32, n)
		ow, gow, gb := make([]float32, n+3), make([]float32, n+3), make([]float32, n+3)
		for j := range acc {
			acc[j] = randf()*0.7 + 0.5
			if rng.IntN(6) == 0 {
				acc[j] = edges[rng.IntN(len(edges))]
			}
			ow[j], gow[j], gb[j] = randf(), randf(), randf()
			if rng.IntN(8) == 0 {
				gb[j] = float32(math.Copysign(0, -1)) // kept as -0 where the unit is clipped
			}
		}
		for _, gy := range []float32{randf(), 1e-30, -3} {
			a1, a2 := slices.Clone(acc), slices.Clone(acc)
			gow1, gow2, gb1, gb2 := slices.Clone(gow), slices.Clone(gow), slices.Clone(gb), slices.Clone(gb)
			goKernels.back(a1, ow, gow1, gb1, gy)
			simdKernels.back(a2, ow, gow2, gb2, gy)
			for name, p := range map[string][2][]float32{"acc": {a1, a2}, "gow": {gow1, gow2}, "gb": {gb1, gb2}} {
				for j := range p[0] {
					if math.Float32bits(p[0][j]) != math.Float32bits(p[1][j]) {
						t.Fatalf("n=%d gy=%v: %s[%d] (a=%v): Go %v, SIMD %v", n, gy, name, j, acc[min(j, n-1)], p[0][j], p[1][j])
					}
				}
			}
		}
	}
}

// A batch's gradients and loss with the kernel Train uses are bit for bit
// those of the pure-Go kernel, so a network does not depend on the CPU.
func TestGradientsSameWithEitherKernel(t *testing.T) {
	needSIMD(t)
	const h = 48 // three 16-float blocks
	data := filepath.Join(t.TempDir(), "synthetic.bin")
	syntheticData(t, data, 300)
	samples := trainingSamples(t, Config{Data: data, Mirror: true, ValEvery: 1 << 20, Hidden: h})
	m := NewModel(h, 2, 400, 3)
	simd, pure := newGrads(h, 2), newGrads(h, 2)
	simd.k, pure.k = simdKernels, goKernels
	lossS := run(m.Net, samples, []*grads{simd}, true)
	lossP := run(m.Net, samples, []*grads{pure}, true)
	if lossS != lossP {
		t.Errorf("loss %v with SIMD, %v without", lossS, lossP)
	}
	nonzero := 0
	for k := range simd.g {
		for i := range simd.g[k] {
			if math.Float32bits(simd.g[k][i]) != math.Float32bits(pure.g[k][i]) {
				t.Fatalf("gradient %d[%d]: %v with SIMD, %v without", k, i, simd.g[k][i], pure.g[k][i])
			}
			if simd.g[k][i] != 0 {
				nonzero++
			}
		}
	}
	if nonzero < 1000 {
		t.Errorf("only %d gradients are not zero: the test compares too little", nonzero)
	}
}

// needSIMD skips a test that compares the SIMD kernels with the Go ones
// where there are none (another architecture, or a CPU without AVX2).
func needSIMD(t *testing.T) {
	t.Helper()
	if simdKernels == nil {
		t.Skip("no SIMD kernels on this machine")
	}
}
