//go:build race

package harness

// raceEnabled reports that the race detector is on: it reserves far more
// address space than a ulimit allows, so TestHostileInputs, whose children
// run under a 2 GiB address-space limit, is not run under it (.ci/run runs
// it without the detector).
const raceEnabled = true
