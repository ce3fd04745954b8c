package report

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
)

//go:embed page.html.tmpl
var pageSource string

//go:embed detail.html.tmpl
var detailSource string

// pageTemplate is parsed once and only executed afterwards; html/template
// makes executing it safe from many goroutines. It holds the page and the
// parts of it that DetailHTML and DetailCSS share with other pages.
var pageTemplate = template.Must(template.Must(template.New("page").Parse(pageSource)).Parse(detailSource))

// WriteHTML writes r as one self-contained HTML page: inline CSS, no
// script, and no reference to anything outside the page (no external
// stylesheet, font, image or link; every href is a "#" anchor). The page
// has a header with the verdict and the counts (and the timing when
// r.Timing is set), a list of the scenarios that can be filtered by
// status, and a <section class="scenario"> per scenario, what failed
// first (failures, errors, skips, passes, by name within each), with its
// status, file:line, description, agent, usage, expectations (each "ok" or
// "failed" at its file:line), diffs with coloured + and - lines, and an <svg class="sequence"> diagram of its
// Exchanges when it has any. All report text is escaped by html/template.
// Every status is a word on a coloured badge, never only an emoji, so
// that it reads in any font. The output depends on nothing but r.
func WriteHTML(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("write html report: nil report")
	}
	page, err := newHTMLPage(r)
	if err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	var b strings.Builder
	if err := pageTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	// html/template escapes markup but passes control characters through;
	// the template holds none, so dropping them drops only report text's
	if _, err := io.WriteString(w, xmlText(b.String())); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// htmlPage is what the page template shows.
type htmlPage struct {
	Headline string
	// Verdict is "passed" or "failed", Class its CSS class: text, so
	// that the status needs no emoji font.
	Verdict, Class string
	Counts         Report
	Shards         string
	Timing         *htmlTiming
	Scenarios      []htmlScenario
}

type htmlTiming struct {
	Started, Wall, PerSecond string
	Parallel                 int
}

type htmlScenario struct {
	ID, Class, Status            string
	Name, Location, Description  string
	Tags                         string
	Message, MessageLabel, Short string
	Diff                         []diffLine
	Agent                        Agent
	Middleware, Tools            string
	Usage                        Usage
	Cost                         string
	Expectations                 []htmlExpectation
	// Judgements are the judges' entries, whose reasoning the page shows
	// next to the transcript.
	Judgements           []htmlExpectation
	Sequence             *seqDiagram
	Interrupts           []string
	Final, Trajectory    string
	Golden, GoldenStatus string
	Cassette, Wall       string
	// Replay is Scenario.Replay: "by-order" or empty.
	Replay string
}

type htmlExpectation struct {
	Passed                  bool
	Name, Location, Message string
	Diff                    []diffLine
	// Score and Threshold are set for graders only, Reason when the
	// grader gave one.
	Score, Threshold, Reason string
}

// diffLine is one line of a diff and its CSS class: "add", "del",
// "hunk" or "ctx".
type diffLine struct{ Class, Text string }

func newHTMLPage(r *Report) (*htmlPage, error) {
	n := counted(r)
	p := &htmlPage{
		Counts:   n,
		Verdict:  "passed",
		Class:    "pass",
		Headline: fmt.Sprintf("%d passed, %d failed, %d errored, %d skipped", n.Passed, n.Failed, n.Errored, n.Skipped),
		Shards:   strings.Join(r.Shards, ", "),
	}
	if n.Failed > 0 || n.Errored > 0 {
		p.Verdict, p.Class = "failed", "fail"
	}
	if t := r.Timing; t != nil {
		p.Timing = &htmlTiming{Started: t.Started, Wall: seconds(t.WallMS), Parallel: t.Parallel, PerSecond: fmt.Sprintf("%.1f", t.PerSecond)}
	}
	ids := map[string]int{}
	for _, s := range failuresFirst(r.Scenarios) {
		h, err := newHTMLScenario(&s, UniqueID(ids, "s-"+Slug(s.Name)))
		if err != nil {
			return nil, err
		}
		p.Scenarios = append(p.Scenarios, h)
	}
	return p, nil
}

// newHTMLScenario is what the template shows of one scenario, whose
// section has the anchor id.
func newHTMLScenario(s *Scenario, id string) (htmlScenario, error) {
	h := htmlScenario{
		ID:           id,
		Class:        statusClass(s.Status),
		Status:       string(s.Status),
		Name:         s.Name,
		Location:     s.Location(),
		Description:  s.Description,
		Tags:         strings.Join(s.Tags, ", "),
		Message:      s.Message,
		MessageLabel: messageLabel(s.Status),
		Short:        truncate(oneLine(s.Message), 80),
		Diff:         diffLines(s.Diff),
		Agent:        s.Agent,
		Middleware:   strings.Join(s.Agent.Middleware, ", "),
		Tools:        strings.Join(s.Agent.Tools, ", "),
		Usage:        s.Usage,
		Cost:         cost(s.Usage),
		Sequence:     sequence(s.Exchanges),
		Final:        s.Final,
		Trajectory:   trajectoryText(s.Trajectory),
		Golden:       s.Golden,
		GoldenStatus: s.GoldenStatus,
		Cassette:     s.Cassette,
		Replay:       s.Replay,
	}
	if s.Timing != nil {
		h.Wall = seconds(s.Timing.WallMS)
	}
	for _, e := range s.Expectations {
		he := htmlExpectation{Passed: e.Passed, Name: e.Name, Location: e.Location(), Message: e.Message, Diff: diffLines(e.Diff), Reason: e.Reason}
		if e.Score != nil && e.Threshold != nil {
			he.Score, he.Threshold = scoreText(*e.Score), scoreText(*e.Threshold)
		}
		h.Expectations = append(h.Expectations, he)
		if e.Grader == "judge" && e.Reason != "" {
			h.Judgements = append(h.Judgements, he)
		}
	}
	for i, v := range s.Interrupts {
		j, err := json.Marshal(v)
		if err != nil {
			return htmlScenario{}, fmt.Errorf("scenario %q: interrupts[%d]: %w", s.Name, i, err)
		}
		h.Interrupts = append(h.Interrupts, string(j))
	}
	return h, nil
}

// statusClass is a verdict's CSS class; unknown verdicts are "unknown" so
// that no report text reaches a class name.
func statusClass(s Status) string {
	if s.valid() {
		return string(s)
	}
	return "unknown"
}

func messageLabel(s Status) string {
	switch s {
	case StatusFail:
		return "Failed"
	case StatusError:
		return "Error"
	case StatusSkip:
		return "Skipped"
	}
	return "Note"
}

// diffLines splits a diff into lines classed by their first character, as
// go-cmp's (-want +got) and unified diffs mark them.
func diffLines(diff string) []diffLine {
	diff = strings.TrimRight(diff, "\n")
	if diff == "" {
		return nil
	}
	var out []diffLine
	for _, line := range strings.Split(diff, "\n") {
		class := "ctx"
		switch {
		case strings.HasPrefix(line, "@@"):
			class = "hunk"
		case strings.HasPrefix(line, "+"):
			class = "add"
		case strings.HasPrefix(line, "-"):
			class = "del"
		}
		out = append(out, diffLine{Class: class, Text: line})
	}
	return out
}

// Slug keeps the letters, digits, "-" and "_" of a name, lower-cased,
// and turns every other run of characters into one "-".
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// UniqueID returns id, or id with a "-2", "-3", ... suffix when it was
// already returned; seen records the ids.
func UniqueID(seen map[string]int, id string) string {
	seen[id]++
	if seen[id] == 1 {
		return id
	}
	for {
		c := fmt.Sprintf("%s-%d", id, seen[id])
		if seen[c] == 0 {
			seen[c] = 1
			return c
		}
		seen[id]++
	}
}

// scoreText formats a grader's score with up to three decimals.
func scoreText(f float64) string {
	s := strconv.FormatFloat(f, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// ScenarioHTML renders one scenario as WriteHTML's page does — its
// <section class="scenario"> with the expectations, diffs, sequence
// diagram, final answer and trajectory — for a page that shows scenarios
// one at a time (agenteval view); id is the section's anchor. All report
// text is escaped; the page's StyleHTML styles it.
func ScenarioHTML(s *Scenario, id string) (template.HTML, error) {
	h, err := newHTMLScenario(s, id)
	if err != nil {
		return "", fmt.Errorf("render scenario: %w", err)
	}
	var b strings.Builder
	if err := pageTemplate.ExecuteTemplate(&b, "scenario", h); err != nil {
		return "", fmt.Errorf("render scenario %q: %w", s.Name, err)
	}
	return template.HTML(xmlText(b.String())), nil
}

// StyleHTML is the CSS of WriteHTML's page (without the <style> tags), for
// a page that shows ScenarioHTML's sections.
func StyleHTML() template.CSS {
	var b strings.Builder
	if err := pageTemplate.ExecuteTemplate(&b, "style", nil); err != nil {
		// the template is fixed and takes no data
		panic(err)
	}
	return template.CSS(b.String())
}
