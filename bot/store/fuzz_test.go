package store

import (
	"maps"
	"slices"
	"testing"
)

// FuzzDecodeFields feeds the text fields of a games row and of the
// overhead row to their decoders: a clear error or a value that writes
// back the same, never a panic. Seeds: testdata/fuzz/FuzzDecodeFields.
func FuzzDecodeFields(f *testing.F) {
	f.Add("book=4,engine=38", "30000,45000")
	f.Fuzz(func(t *testing.T, sources, samples string) {
		if m, err := decodeSources(sources); err == nil {
			again, err := decodeSources(encodeSources(m))
			if err != nil || !maps.Equal(m, again) {
				t.Errorf("sources %q: %v then %v (%v)", sources, m, again, err)
			}
		}
		if d, err := decodeSamples(samples); err == nil {
			again, err := decodeSamples(encodeSamples(d))
			if err != nil || !slices.Equal(d, again) {
				t.Errorf("samples %q: %v then %v (%v)", samples, d, again, err)
			}
			o := Overhead{Samples: d}
			_ = o.check() // an error or nil, never a panic
		}
	})
}
