// Package view is "agenteval view": a local web application over a
// results store (package store) and over report folders, to look at runs
// and evaluations, their history and their differences.
//
// # Pages
//
// Every page has a URL a teammate can open on the same store:
//
//   - / lists each suite (the scenario folders of a run, an eval's name)
//     with its entries, newest first, and its trend: an inline SVG of the
//     pass rate of every entry with its 95% interval (a run's over its
//     scenarios, Wilson; an eval's macro pass rate per variant with the
//     clustered interval its report holds). Ticking two entries fills the
//     compare form.
//   - /run/ID is one run: failures first (failures, errors, skips,
//     passes, by name within each, as report's writers order them), each
//     failure's message and (-want +got) diff; buttons filter by verdict
//     and a box searches names and messages.
//   - /run/ID/scenario?name=N is one scenario, rendered by report's own
//     section renderer (report.ScenarioHTML: expectations, diffs,
//     sequence diagram, final answer, trajectory), then its transcript.
//   - /eval/ID is one eval: the scenario × variant grid of pass rates with
//     their Wilson intervals, each variant over the suite, each variant
//     against the control as "agenteval report compare" prints it, and the
//     thresholds. A click on a cell opens /eval/ID/cell?id=C: the cell's
//     trials, trial k of every variant side by side, with verdict,
//     message, final answer, the scores below 1, and everything the stored
//     trial record holds (evalreport.Trial as JSON), so that fields a later
//     report gains (per-trial failure reasons) are shown as soon as this
//     agenteval knows them.
//   - /scenario?name=N is one scenario (or eval cell) across every entry:
//     its verdicts and pass rates with Wilson intervals, plotted.
//   - /compare?a=ID&b=ID compares two runs or two evals: what flipped,
//     the final answers that changed (per scenario, or per trial of an
//     eval), and the statistics: for runs, the pass rate's change with its
//     Newcombe interval and Barnard's test (stats.CompareProportions) and
//     cost and tokens; for evals, eval.Compare's benchstat-style table.
//
// # Safety
//
// The view only reads. Pages are rendered by html/template, so every text
// of a report or store is escaped; the only script is the view's own
// (view.js, no dependency, no build step): filter and search on a run's
// page, the compare picker on the index. Responses carry a
// Content-Security-Policy that allows no other script, no framing and no
// external resource. A missing entry is a 404 page, a damaged record a 500
// page naming the entry and the scenario; nothing panics.
//
// LoadReports reads report folders (agenteval.json, eval.json) or report
// files into a store, typically an in-memory one, so that a CI run's
// reports open without a store; a report of another schema, or one
// holding a credential, is refused by name.
//
// # Size
//
// A run's page reads the columns of every scenario and the records of the
// failures only (store.Rows), and its list is laid out in chunks of rows
// that the browser renders as they come into view (CSS
// content-visibility). BenchmarkRunPage10k loads the page of a
// 10,000-scenario run in headless Chromium.
//
// # Tests
//
// The browser tests drive headless Chromium (github.com/chromedp/chromedp)
// over stores filled by real runs of the bundled corpus and eval suite,
// in SQLite and, where initdb is installed, PostgreSQL; they skip with
// the reason where no Chromium is installed.
package view
