package stats

import (
	"math"
	"slices"
)

// Holm returns Holm's step-down adjusted p-values (Holm 1979, "A simple
// sequentially rejective multiple test procedure", Scandinavian Journal
// of Statistics 6:65-70), as R's p.adjust(p, "holm"): with p₍₁₎ ≤ … ≤
// p₍m₎,
//
//	p̃₍i₎ = min(1, max_{j ≤ i} (m − j + 1) p₍j₎)
//
// Rejecting where p̃ < α keeps the family-wise error rate — the chance of
// any false rejection — at α under any dependence. NaNs count as 1.
func Holm(ps []float64) []float64 {
	m := len(ps)
	idx := sortedIndex(ps)
	out := make([]float64, m)
	run := 0.0
	for rank, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-rank)*pOf(ps[i])))
		out[i] = run
	}
	return out
}

// BenjaminiHochberg returns the Benjamini–Hochberg adjusted p-values
// (q-values; Benjamini & Hochberg 1995, "Controlling the false discovery
// rate", JRSS B 57:289-300), as R's p.adjust(p, "BH"): with p₍₁₎ ≤ … ≤
// p₍m₎,
//
//	q₍i₎ = min(1, min_{j ≥ i} m p₍j₎ / j)
//
// Flagging where q < α keeps the expected share of false flags among the
// flags at α (for independent or positively dependent tests). NaNs count
// as 1.
func BenjaminiHochberg(ps []float64) []float64 {
	m := len(ps)
	idx := sortedIndex(ps)
	out := make([]float64, m)
	run := 1.0
	for rank := m - 1; rank >= 0; rank-- {
		i := idx[rank]
		run = math.Min(run, float64(m)*pOf(ps[i])/float64(rank+1))
		out[i] = math.Min(1, run)
	}
	return out
}

func pOf(p float64) float64 {
	if math.IsNaN(p) {
		return 1
	}
	return p
}

// sortedIndex is the indices of ps by increasing p, ties by index.
func sortedIndex(ps []float64) []int {
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := pOf(ps[a]), pOf(ps[b])
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return idx
}
