// Package stats holds the statistics that bench and eval share: point
// estimates and intervals (the median and its distribution-free
// confidence interval, nearest-rank percentiles, geometric means),
// distributions (1-2-5 histograms), tests between two samples (the
// Mann-Whitney U test with the Hodges–Lehmann shift, Barnard's and
// Fisher's exact tests, the Cochran–Mantel–Haenszel test), intervals for
// rates (Wilson, Clopper–Pearson, Newcombe, MOVER sums), corrections for
// multiple tests (Holm, Benjamini–Hochberg), power and sample size for two
// rates, and curve fits (power-law and straight-line growth).
//
// # Contract
//
// Every function cites in its doc comment the formula it computes and
// where that formula comes from, and its tests check it against brute
// force (enumerating every arrangement a test statistic can take),
// simulation (a seeded source, so the test is deterministic) or
// published and hand-derived reference values. Distributions, quantiles
// and regressions come from gonum (gonum.org/v1/gonum/stat and
// stat/distuv); this package writes only what gonum lacks.
//
// Functions are pure: they never reorder or keep the caller's slices,
// read no clock and draw no random numbers. An estimate that the data
// cannot give (no values, a non-positive value where a logarithm is
// taken) is NaN rather than an error, so that tables can print it.
//
// stats imports nothing of agenteval: bench, eval and the reports they
// write import it.
package stats
