package evalreport

import (
	"cmp"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/agenteval/agenteval/report"
)

// Bounds on what a report keeps per trial and per cell, so that its size
// grows with the cells and not with the trials' transcripts.
const (
	// DetailTrials is how many failed (or errored) trials, and how many
	// passed ones, keep their Detail per cell: those of the lowest
	// indexes. At the default 10 trials per cell every trial keeps it.
	DetailTrials = 10
	// MaxAnswers is how many distinct final answers a cell lists; the
	// trials of the others are counted in Cell.OtherAnswers.
	MaxAnswers = 10
	// MaxFailureMessage and MaxFailureDiff bound a Failure's Message
	// (in runes) and Diff (in bytes); what is cut is replaced by a note
	// saying how much.
	MaxFailureMessage = 1000
	MaxFailureDiff    = 4096
)

// Failure is an expectation, invariant or grader that did not hold in a
// trial, as the run report names it ("final", "trajectory", "invariant:
// tool calls answered", "graders[0] (judge)"), with what was wrong and
// its (-want +got) diff, cut to MaxFailureMessage and MaxFailureDiff.
type Failure struct {
	Name    string `json:"name"`
	Message string `json:"message,omitempty"`
	Diff    string `json:"diff,omitempty"`
}

// TrialDetail is what a trial did, in the run report's shapes: its
// trajectory step by step (the transcript) and the exchanges of its
// sequence diagram. Only DetailTrials failed and DetailTrials passed
// trials per cell keep one.
type TrialDetail struct {
	Trajectory []report.Step     `json:"trajectory,omitempty"`
	Exchanges  []report.Exchange `json:"exchanges,omitempty"`
}

// FailureCount is an expectation that failed in some of a cell's trials:
// in how many, and the failure of the first of them as an example.
type FailureCount struct {
	Name string `json:"name"`
	// Trials counts the trials in which it failed.
	Trials int `json:"trials"`
	// Example is its failure in the trial of lowest index that has it.
	Example FailureExample `json:"example"`
}

// FailureExample is one trial's failure of an expectation.
type FailureExample struct {
	Trial   int    `json:"trial"`
	Message string `json:"message,omitempty"`
	Diff    string `json:"diff,omitempty"`
}

// Answer is a distinct final answer among a cell's trials (those that
// ran: an errored trial has none).
type Answer struct {
	// Final is the last AI message's text, "" for a run that ended
	// without one.
	Final string `json:"final"`
	// Trials counts the trials that answered it, Passed those of them
	// that passed; FirstTrial is the lowest index among them.
	Trials     int `json:"trials"`
	Passed     int `json:"passed"`
	FirstTrial int `json:"first_trial"`
}

// NewFailure is a Failure with its message and diff cut to the bounds.
func NewFailure(name, message, diff string) Failure {
	return Failure{Name: name, Message: cutRunes(message, MaxFailureMessage), Diff: cutBytes(diff, MaxFailureDiff)}
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n {
			break
		}
		k++
	}
	return s[:i] + "… (" + strconv.Itoa(utf8.RuneCountInString(s[i:])) + " more characters)"
}

func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "\n… (" + strconv.Itoa(len(s)-i) + " more bytes)"
}

// SummarizeWhy fills a cell's Failing, Answers and OtherAnswers from its
// trials, and drops the Detail of every trial but the DetailTrials failed
// or errored and DetailTrials passed ones of lowest index. It depends on
// nothing but the trials' indexes, statuses, failures and answers, so a
// merged report summarizes as an unsharded run does.
func SummarizeWhy(c *Cell) {
	trials := slices.Clone(c.Trials)
	slices.SortStableFunc(trials, func(a, b Trial) int { return a.Index - b.Index })
	// failing expectations: count and first example
	c.Failing = nil
	at := map[string]int{}
	for _, t := range trials {
		for _, f := range t.Failures {
			k, ok := at[f.Name]
			if !ok {
				k = len(c.Failing)
				at[f.Name] = k
				c.Failing = append(c.Failing, FailureCount{Name: f.Name, Example: FailureExample{Trial: t.Index, Message: f.Message, Diff: f.Diff}})
			}
			c.Failing[k].Trials++
		}
	}
	slices.SortStableFunc(c.Failing, func(a, b FailureCount) int {
		return cmp.Or(b.Trials-a.Trials, a.Example.Trial-b.Example.Trial, cmp.Compare(a.Name, b.Name))
	})
	// distinct answers
	var answers []Answer
	seen := map[string]int{}
	for _, t := range trials {
		if t.Status == report.StatusError {
			continue
		}
		k, ok := seen[t.Final]
		if !ok {
			k = len(answers)
			seen[t.Final] = k
			answers = append(answers, Answer{Final: t.Final, FirstTrial: t.Index})
		}
		answers[k].Trials++
		if t.Status == report.StatusPass {
			answers[k].Passed++
		}
	}
	slices.SortStableFunc(answers, func(a, b Answer) int { return cmp.Or(b.Trials-a.Trials, a.FirstTrial-b.FirstTrial) })
	c.Answers, c.OtherAnswers = answers, 0
	if len(answers) > MaxAnswers {
		c.Answers = answers[:MaxAnswers:MaxAnswers]
		for _, a := range answers[MaxAnswers:] {
			c.OtherAnswers += a.Trials
		}
	}
	// details: the lowest indexes of each kind
	keep := map[int]bool{}
	failed, passed := 0, 0
	for _, t := range trials {
		if t.Detail == nil {
			continue
		}
		n := &passed
		if t.Status != report.StatusPass {
			n = &failed
		}
		if *n < DetailTrials {
			*n++
			keep[t.Index] = true
		}
	}
	for i := range c.Trials {
		if c.Trials[i].Detail != nil && !keep[c.Trials[i].Index] {
			c.Trials[i].Detail = nil
		}
	}
}
