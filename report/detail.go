package report

import (
	"fmt"
	"html/template"
	"strings"
)

// DetailHTML renders what one run did as WriteHTML's page shows a
// scenario, for other pages to embed (the eval report shows each kept
// trial with it): s's Message, its expectations (each "ok" or "failed",
// with its message and coloured diff), the sequence diagram of its
// Exchanges as inline SVG, its final answer and its transcript (the
// trajectory, step by step). The fragment needs the rules of DetailCSS
// and nothing outside the page; all text is escaped by html/template.
func DetailHTML(s *Scenario) (template.HTML, error) {
	h := htmlScenario{
		Message:      s.Message,
		MessageLabel: messageLabel(s.Status),
		Sequence:     sequence(s.Exchanges),
		Final:        s.Final,
		Trajectory:   trajectoryText(s.Trajectory),
	}
	for _, e := range s.Expectations {
		he := htmlExpectation{Passed: e.Passed, Name: e.Name, Message: e.Message, Diff: diffLines(e.Diff), Reason: e.Reason}
		if e.Score != nil && e.Threshold != nil {
			he.Score, he.Threshold = scoreText(*e.Score), scoreText(*e.Threshold)
		}
		h.Expectations = append(h.Expectations, he)
	}
	var b strings.Builder
	if err := pageTemplate.ExecuteTemplate(&b, "detail", h); err != nil {
		return "", fmt.Errorf("render run detail: %w", err)
	}
	// as WriteHTML: control characters of report text are dropped
	return template.HTML(xmlText(b.String())), nil //nolint:gosec // escaped by html/template above
}

// DetailCSS is the style DetailHTML's fragments need: the sequence
// diagram's, the diffs' and the ok/failed badges', as WriteHTML's page has
// them.
func DetailCSS() template.CSS { return detailCSS }

// detailCSS is rendered once: the template is a constant of this package.
var detailCSS = func() template.CSS {
	var b strings.Builder
	template.Must(pageTemplate.Lookup("detail-css"), pageTemplate.ExecuteTemplate(&b, "detail-css", nil))
	return template.CSS(b.String()) //nolint:gosec // a constant of this package
}()
