//go:build race

package engine_test

// raceEnabled reports that the race detector is on. The longest
// properties and crash tests (every crash point of 40 scenarios, the
// SQLite and snapshot comparisons with Memory) test what a run stores,
// not concurrency, and the detector slows them five times over: .ci/run
// runs them without it in a step of their own.
const raceEnabled = true
