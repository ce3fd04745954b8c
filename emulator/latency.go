package emulator

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/agenteval/agenteval/engine"
)

// Latency is a distribution of emulated tool latency. The zero value is no
// latency.
type Latency struct {
	// Dist is "fixed", "uniform" or "lognormal"; empty for no latency.
	Dist string `json:"dist"`
	// MS is the fixed latency, in milliseconds.
	MS float64 `json:"ms,omitempty"`
	// MinMS and MaxMS bound a uniform latency. For a lognormal one MaxMS,
	// when set, caps the tail.
	MinMS float64 `json:"min_ms,omitempty"`
	MaxMS float64 `json:"max_ms,omitempty"`
	// MedianMS and Sigma shape a lognormal latency:
	// median·exp(sigma·N(0,1)).
	MedianMS float64 `json:"median_ms,omitempty"`
	Sigma    float64 `json:"sigma,omitempty"`
}

// Validate reports the first field that does not fit Dist: fields must be
// finite and non-negative, uniform needs min_ms <= max_ms, lognormal needs
// median_ms > 0 and a max_ms of 0 or at least median_ms, and fields the
// distribution does not use must be zero.
func (l Latency) Validate() error {
	fields := []struct {
		name string
		v    float64
	}{{"ms", l.MS}, {"min_ms", l.MinMS}, {"max_ms", l.MaxMS}, {"median_ms", l.MedianMS}, {"sigma", l.Sigma}}
	for _, f := range fields {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return fmt.Errorf("latency: %s is %v, expected a finite number >= 0", f.name, f.v)
		}
	}
	var used []string
	switch l.Dist {
	case "":
		used = nil
	case "fixed":
		used = []string{"ms"}
	case "uniform":
		used = []string{"min_ms", "max_ms"}
		if l.MinMS > l.MaxMS {
			return fmt.Errorf("latency: min_ms %v is above max_ms %v, expected min_ms <= max_ms", l.MinMS, l.MaxMS)
		}
	case "lognormal":
		used = []string{"median_ms", "sigma", "max_ms"}
		if l.MedianMS <= 0 {
			return fmt.Errorf("latency: median_ms is %v, expected a number > 0 for dist \"lognormal\"", l.MedianMS)
		}
		if l.MaxMS != 0 && l.MaxMS < l.MedianMS {
			return fmt.Errorf("latency: max_ms %v is below median_ms %v, expected 0 (no cap) or at least the median", l.MaxMS, l.MedianMS)
		}
	default:
		return fmt.Errorf("latency: dist is %q, expected \"fixed\", \"uniform\" or \"lognormal\"", l.Dist)
	}
	for _, f := range fields {
		if f.v != 0 && !slices.Contains(used, f.name) {
			if l.Dist == "" {
				return fmt.Errorf("latency: %s is set but dist is empty, expected dist \"fixed\", \"uniform\" or \"lognormal\"", f.name)
			}
			return fmt.Errorf("latency: %s is not used by dist %q, expected 0", f.name, l.Dist)
		}
	}
	return nil
}

// Draw draws a latency, rounded to the microsecond. The zero value and a
// fixed latency draw nothing from r; a nil r is NewRand(0, ""). An invalid
// Latency draws a non-negative duration anyway.
func (l Latency) Draw(r *rand.Rand) time.Duration {
	var ms float64
	switch l.Dist {
	case "fixed":
		ms = l.MS
	case "uniform":
		ms = l.MinMS + unit(rng(r))*(l.MaxMS-l.MinMS)
	case "lognormal":
		ms = l.MedianMS * math.Exp(l.Sigma*normal(rng(r)))
		if l.MaxMS > 0 {
			ms = math.Min(ms, l.MaxMS)
		}
	}
	if !(ms > 0) || math.IsInf(ms, 0) {
		return 0
	}
	us := math.Round(ms * 1000)
	if us >= math.MaxInt64/1000 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(us) * time.Microsecond
}

// Sleep draws a latency and waits it on the run's engine clock
// (engine.RuntimeFrom(ctx).Clock; the system clock when there is none).
// It returns ctx's error if ctx ends first.
func (l Latency) Sleep(ctx context.Context, r *rand.Rand) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := l.Draw(r)
	if d <= 0 {
		return nil
	}
	if err := engine.ClockFrom(ctx).Sleep(ctx, d); err != nil {
		return fmt.Errorf("emulated latency %v: %w", d, err)
	}
	return nil
}

// NewRand returns a deterministic generator for one stream of a seed
// (a tool name, say): the PCG is seeded with seed and the FNV-1a hash of
// stream, so streams of the same seed are independent.
func NewRand(seed uint64, stream string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(stream))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// rng is r, or the default stream when r is nil.
func rng(r *rand.Rand) *rand.Rand {
	if r == nil {
		return NewRand(0, "")
	}
	return r
}

// unit draws from [0, 1) with the generator's own 64-bit output.
func unit(r *rand.Rand) float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// normal draws from N(0,1) by Box–Muller, from two 64-bit outputs.
func normal(r *rand.Rand) float64 {
	u1 := 1 - unit(r) // (0, 1]
	u2 := unit(r)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
