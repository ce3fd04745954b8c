package evalreport

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// junitOut is a test case's system-out: the pass rate and the graders'
// mean scores, with their intervals.
func junitOut(c *Cell) string {
	if c.N == 0 {
		return "not run"
	}
	out := fmt.Sprintf("%d/%d passed (effective %d/%d), pass rate %.3f [%.3f, %.3f]", c.Passed, c.N-c.Errored, c.EffectivePassed, c.EffectiveN, c.PassRate.Value, c.PassRate.Lo, c.PassRate.Hi)
	if c.Copies != "" {
		out += "\n" + c.Copies
	}
	for _, s := range c.Scores {
		if s.Grader != "" {
			out += fmt.Sprintf("\n%s: mean %.3f [%.3f, %.3f]", scoreLabel(s.Name, s.Grader), s.Value, s.Lo, s.Hi)
		}
	}
	return out
}

// WriteJUnit writes one test suite per variant and one test case per
// scenario × variant, whose verdict is its thresholds: a broken threshold
// is a failure, a trial that could not run an error, and a cell without
// thresholds passes. The pass rate and the graders' mean scores, with
// their intervals, are in system-out.
func WriteJUnit(w io.Writer, r *Report) error {
	doc := junitSuites{Name: "agenteval eval " + r.Eval}
	for _, v := range r.Variants {
		s := junitSuite{Name: v.Name}
		for i := range r.Cells {
			c := &r.Cells[i]
			if c.Variant != v.Name {
				continue
			}
			tc := junitCase{Name: c.ID, Classname: r.Eval + "." + v.Name,
				SystemOut: junitOut(c)}
			switch c.Verdict {
			case "not run":
				tc.Skipped = &junitMessage{Message: "not run"}
				s.Skipped++
			case "error":
				var msgs []string
				for _, t := range c.Trials {
					if t.Status == "error" {
						msgs = append(msgs, t.Message)
					}
				}
				tc.Error = &junitMessage{Message: fmt.Sprintf("%d trials could not run", c.Errored), Body: strings.Join(msgs, "\n")}
				s.Errors++
			case "fail":
				var msgs []string
				for _, t := range r.Thresholds {
					if !t.Pass && t.Scope == c.ID+" × "+c.Variant {
						msgs = append(msgs, fmt.Sprintf("%s: got %.3f", t.Threshold, t.Got))
					}
				}
				if len(msgs) == 0 {
					msgs = []string{"a threshold of the cell broke"}
				}
				tc.Failure = &junitMessage{Message: strings.Join(msgs, "; "), Body: strings.Join(msgs, "\n")}
				s.Failures++
			}
			s.Tests++
			s.Cases = append(s.Cases, tc)
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
