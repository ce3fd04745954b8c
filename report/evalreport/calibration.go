package evalreport

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Calibration is how well one judge agrees with people's labels of the
// trials it graded, the judge's verdicts replayed from the trials'
// cassettes: nothing is spent to compute it.
type Calibration struct {
	// Grader is the judge's name ("helpful", "graders[0] (judge)").
	Grader string `json:"grader"`
	// Kind is "pass_fail" (labels pass or fail, compared with whether
	// the judge's score reached its threshold) or "score" (labels in
	// [0, 1], compared with the judge's score).
	Kind string `json:"kind"`
	// Units counts the trials labelled.
	Units int `json:"units"`
	// Raters compare each person with the judge.
	Raters []RaterAgreement `json:"raters"`
	// Alpha is Krippendorff's α over the judge and every rater (nominal
	// for pass_fail, interval for score) with its bootstrap 95%
	// interval; nil when undefined (AlphaNote says why).
	Alpha     *Interval `json:"alpha,omitempty"`
	AlphaNote string    `json:"alpha_note,omitempty"`
}

// RaterAgreement is one person's labels against the judge.
type RaterAgreement struct {
	// Rater names the person ("" when the labels file has no rater
	// column).
	Rater string `json:"rater"`
	// N counts the trials both labelled; Agreement is the share on
	// which they agree (the same verdict, or the same score).
	N         int     `json:"n"`
	Agreement float64 `json:"agreement"`
	// Kappa is Cohen's κ with its 95% interval (Fleiss, Cohen and
	// Everitt's standard error); nil when undefined (Note says why:
	// both gave one verdict to every trial).
	Kappa *Interval `json:"kappa,omitempty"`
	Note  string    `json:"note,omitempty"`
}

// writeCalibrationText writes the calibration section for a terminal.
func writeCalibrationText(b *strings.Builder, r *Report) {
	if len(r.Calibration) == 0 {
		return
	}
	b.WriteString("\njudge calibration against human labels (replayed verdicts): Cohen's κ [95% interval], Krippendorff's α [bootstrap 95%]\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "judge\tlabels\trater\ttrials\tagreement\tκ\tα (judge and raters)")
	for _, c := range r.Calibration {
		for i, ra := range c.Raters {
			alpha := ""
			if i == 0 {
				alpha = alphaText(c)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.2f\t%s\t%s\n", c.Grader, c.Kind, raterName(ra.Rater), ra.N, ra.Agreement, kappaText(ra), alpha)
		}
	}
	tw.Flush()
}

// writeCalibrationMarkdown writes the calibration section as a table.
func writeCalibrationMarkdown(b *strings.Builder, r *Report) {
	if len(r.Calibration) == 0 {
		return
	}
	b.WriteString("Judge calibration against human labels (replayed verdicts): Cohen's κ with its 95% interval, Krippendorff's α with its bootstrap 95% interval:\n\n")
	b.WriteString("| judge | labels | rater | trials | agreement | κ | α (judge and raters) |\n|---|---|---|---|---|---|---|\n")
	for _, c := range r.Calibration {
		for i, ra := range c.Raters {
			alpha := ""
			if i == 0 {
				alpha = alphaText(c)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %d | %.2f | %s | %s |\n", mdEscape(c.Grader), c.Kind, mdEscape(raterName(ra.Rater)), ra.N, ra.Agreement, mdEscape(kappaText(ra)), mdEscape(alpha))
		}
	}
	b.WriteString("\n")
}

func raterName(r string) string {
	if r == "" {
		return "(labels)"
	}
	return r
}

func kappaText(ra RaterAgreement) string {
	if ra.Kappa == nil {
		return "undefined: " + ra.Note
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", ra.Kappa.Value, ra.Kappa.Lo, ra.Kappa.Hi)
}

func alphaText(c Calibration) string {
	if c.Alpha == nil {
		return "undefined: " + c.AlphaNote
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", c.Alpha.Value, c.Alpha.Lo, c.Alpha.Hi)
}
