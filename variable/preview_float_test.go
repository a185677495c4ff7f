package variable

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// appendShortFloat writes what strconv does, for every number it takes.
func TestAppendShortFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(f float64) {
		got, ok := appendShortFloat(nil, f)
		if want := strconv.FormatFloat(f, 'g', -1, 64); ok && string(got) != want {
			t.Fatalf("appendShortFloat(%v) = %q, strconv writes %q", f, got, want)
		}
	}
	for _, f := range []float64{1e-4, 0.0001, 0.00015, 0.001, 0.05, 0.1, 0.3, 0.7, 1, 18.5, 21.25, 19, 999999.999, 999999, 1e6, 123456.5, math.NaN(), math.Inf(1), math.Copysign(0, -1), 0, 5e-5, 1.005, 2.675, 0.125} {
		check(f)
		check(-f)
	}
	for range 3_000_000 {
		var f float64
		switch r.IntN(4) {
		case 0: // a decimal of up to three places
			f = float64(r.Int64N(2_000_000_000)-1_000_000_000) / math.Pow10(r.IntN(4))
		case 1:
			f = r.NormFloat64() * math.Pow10(r.IntN(12)-5)
		case 2:
			f = math.Float64frombits(r.Uint64())
		default:
			f = float64(r.IntN(1_000_000)) / 1000
		}
		check(f)
	}
}
