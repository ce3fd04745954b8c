//go:build race

package eval

// raceEnabled reports that the race detector is on. The simulations that
// prove the statistics run 50,000 trials, which the detector slows five
// times over and which test numbers, not concurrency: .ci/run runs them
// without it in a step of their own (see TestSimulatedWilsonCoverage).
const raceEnabled = true
