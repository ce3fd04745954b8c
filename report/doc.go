// Package report is the record of an agenteval run: the results that
// "agenteval run" and "agenteval report merge" write, and the record every
// job that checks scenarios (eval, serve) is to write. It holds a Report (counts,
// one Scenario per scenario with its verdict, expectations, trajectory,
// exchanges and usage, and timing kept apart) and writes it as JSON, JUnit
// XML, Markdown, HTML and plain text; it reads the JSON back and merges
// the JSON reports of a suite's shards.
//
// report imports nothing of agenteval but the standard library, so that
// every job can write it; harness fills a Report from what a run observed.
//
// # Formats and their stability
//
//   - JSON (WriteJSON, ReadJSON, ReadJSONFile): the report itself, schema
//     "agenteval.report/v1" (Schema), indented by two spaces. It is the
//     format other programs read: field names, their meaning and the four
//     verdicts (pass, fail, error, skip) are fixed for a schema version.
//     ReadJSON is strict (exactly spelt known fields, Schema, known
//     verdicts) so that a report of another version is never misread;
//     hence any change of layout comes with a new Schema. One exception,
//     made while v1 had no reader outside this repository: the places of
//     failures (Expectation.File and Line, Scenario.Line) joined v1 as
//     optional fields, omitted when empty, so that a passing report is
//     byte-identical to one written before them (an older ReadJSON
//     refuses a failing report that has them). Merge joins shards'
//     reports into one. Scenario.Replay ("by-order": a command agent's
//     cassette replayed by order, agent.replay) joined v1 the same way.
//   - JUnit XML (WriteJUnit): for CI test reporters; one <testsuite> per
//     folder of scenarios, one <testcase> per scenario with its file and
//     line, failed expectations at their file:line and their diffs in
//     <failure>, the transcript in the golden files' format in
//     <system-out>. The elements and attributes follow the JUnit layout
//     CI systems read; it is well-formed whatever the messages hold.
//   - Markdown (WriteMarkdown): a GitHub Actions job summary: headline,
//     failures at their file:line with their diffs in ```diff blocks,
//     then the table, folded in a <details> when something failed.
//   - HTML (WriteHTML): one page with no external resource, no script and,
//     per scenario with exchanges, an inline SVG sequence diagram of the
//     user, agent, model and tools (the diagrams of LangGraph's prebuilt
//     ReAct agent: user → agent → model → tools loops, results dashed,
//     errors and interrupts coloured, emulated model calls marked).
//   - Text (WriteText, WriteTextWith): what "agenteval run" prints: one
//     line per scenario, each failed expectation at its file:line with its
//     (-want +got) diff, the counts, and, when something failed, the list
//     of what failed and the command that reruns just those. Scenario
//     lines start with "PASS  ", "FAIL  ", "ERROR " or "SKIP  " followed
//     by the scenario's name, and the counts line with "N passed, M
//     failed, E errors, S skipped" (the last line when nothing failed):
//     scripts may rely on those; the rest of the text is for people.
//
// The writers for people (text, Markdown, HTML, and the test cases of a
// JUnit suite) show what failed first: failures, errors, skips, then
// passes, by name within each. Problems lists what failed, each at its
// file:line, for CI annotations.
//
// Failed expectations carry the File and Line of their key in the
// scenario file, and a scenario that failed or could not run the Line of
// its Message; these fields are omitted when empty, so a passing
// report's JSON does not change when a scenario file gains a line.
//
// Markdown, HTML and the wording of text are for people: they are
// byte-stable for the same Report (golden files under testdata check
// each), but their layout may change between versions of agenteval;
// parse the JSON instead. WriteDir writes the JSON, JUnit, Markdown and
// HTML files that "agenteval run --report-dir" leaves: agenteval.json,
// junit.xml, summary.md and report.html.
//
// # Determinism
//
// A Report is byte-identical for the same scenarios and cassettes at any
// parallelism, except for its Timing fields; StripTiming removes those
// before comparing. Every writer orders the scenarios by name (the JSON)
// or failures first (the others), without reordering the caller's
// report, and writes wall-clock data only when
// Timing is set, so its output is stable enough for golden files.
//
// The counts the writers show are derived from the scenarios, so that a
// headline always agrees with the rows under it; Recount does the same to
// a Report.
package report
