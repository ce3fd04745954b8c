// Package harness loads scenario files, runs them against the engine with
// their cassettes, checks their expectations and writes reports.
package harness
