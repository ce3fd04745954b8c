// Package report holds the results of an agenteval run and writes them as
// JSON (schema "agenteval.report/v1"), JUnit XML, a Markdown summary and a
// self-contained HTML page, and merges the JSON reports of shards.
package report
