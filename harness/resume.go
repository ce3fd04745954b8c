package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Resumed is what a resumed turn did.
type Resumed struct {
	// Transcript renders the turn as a golden transcript does.
	Transcript string
	// Interrupts are the interrupts the turn raised: the thread waits
	// for another resume.
	Interrupts []any
	// Transcript and Final are scrubbed of credentials, as reports are.
	// Final is the text of the thread's last AI message.
	Final string
	// Err is the error the turn failed with.
	Err error
}

// Resume runs one more turn of a scenario on the threads a run with
// Options.StateDir kept, in this process or another: a human's HITL
// decisions, a resume value, a user message or a continue. The scenario's
// scripted models go on from the answers they had given; a provider model
// replays from the scenario's cassette (or records, per Options.Mode).
// Expectations are not checked: the scenario's own turns are what a run
// checks. Options that fail Validate are an error.
func Resume(ctx context.Context, s *Scenario, turn Turn, opts Options) (*Resumed, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("%s: resume: invalid options: %w", s.File, err)
	}
	opts = opts.WithDefaults()
	st, err := build(ctx, s, &opts, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	// a resumed turn works in a fresh copy of the workspace: the copy of
	// the run it resumes is gone with that run
	defer st.release()
	if err := st.checkThread(ctx, turn, opts); err != nil {
		return nil, errors.Join(fmt.Errorf("%s: resume: %w", s.File, err), st.finishResume(ctx, nil, err))
	}
	if turn.Decisions != nil {
		if err := st.checkDecisions(ctx, turn); err != nil {
			st.saveState(ctx)
			return nil, fmt.Errorf("%s: resume: %w", s.File, err)
		}
	}
	one := *s
	one.Turns = []Turn{turn}
	obs, runErr := st.runTurns(ctx, &one)
	errs := []error{runErr, st.finishResume(ctx, obs, runErr)}
	if st.recorder != nil {
		errs = append(errs, st.recorder.Finish(errors.Join(errs...)))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%s: resume: %w", s.File, err)
	}
	// the transcript and final text are scrubbed as a run's report is
	return &Resumed{Transcript: opts.redact.text(Transcript(&one, obs)), Interrupts: obs.Interrupts, Final: opts.redact.text(obs.Final), Err: obs.Err}, nil
}

// checkDecisions checks HITL decisions against the thread's pending
// interrupt before resuming: LangGraph keeps the resume value a failed
// resume consumed, and a later resume would meet the same decisions again,
// so a wrong count or a decision the policy does not allow is refused here
// with the thread untouched.
func (st *setup) checkDecisions(ctx context.Context, turn Turn) error {
	thread := turn.Thread
	if thread == "" {
		thread = "main"
	}
	snap, err := st.graph.GetState(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		return err
	}
	for _, iv := range snap.Interrupts {
		o, ok := iv.Value.(*engine.Object)
		if !ok {
			continue
		}
		reqs, _ := o.Get("action_requests")
		list, ok := reqs.([]any)
		if !ok {
			continue
		}
		var names []string
		for _, r := range list {
			if ro, ok := r.(*engine.Object); ok {
				n, _ := ro.Get("name")
				names = append(names, fmt.Sprint(n))
			}
		}
		if len(turn.Decisions) != len(list) {
			return fmt.Errorf("thread %q waits for %d decisions, one per interrupted call in order (%s), got %d; the thread is unchanged", thread, len(list), strings.Join(names, ", "), len(turn.Decisions))
		}
		cfgs, _ := o.Get("review_configs")
		allowed := map[string][]string{}
		if cl, ok := cfgs.([]any); ok {
			for _, c := range cl {
				co, ok := c.(*engine.Object)
				if !ok {
					continue
				}
				name, _ := co.Get("action_name")
				ad, _ := co.Get("allowed_decisions")
				al, _ := ad.([]any)
				for _, a := range al {
					allowed[fmt.Sprint(name)] = append(allowed[fmt.Sprint(name)], fmt.Sprint(a))
				}
			}
		}
		for i, d := range turn.Decisions {
			do, _ := d.(*engine.Object)
			if do == nil {
				continue
			}
			typ, _ := do.Get("type")
			if a, ok := allowed[names[i]]; ok && !slices.Contains(a, fmt.Sprint(typ)) {
				return fmt.Errorf("decision %d (%s): %v is not allowed for %s: expected one of %s; the thread is unchanged", i+1, names[i], typ, names[i], strings.Join(a, ", "))
			}
		}
		return nil
	}
	return fmt.Errorf("thread %q has no pending human-in-the-loop interrupt to decide on", thread)
}
