package peers

import (
	"context"
	"errors"
	"sync"
	"time"
)

// goroutines is the floor, as bench's BenchmarkBaselineGoroutines:
// n bare goroutines with a WaitGroup, each writing "ok" (d = 0) or
// sleeping d with time.Sleep, without any engine.
func goroutines(n int, d time.Duration) func(context.Context, string) (*Op, error) {
	return baselineOp(n, func(out []string) func(context.Context) error {
		return func(context.Context) error {
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if d > 0 {
						time.Sleep(d)
					}
					out[i] = "ok"
				}()
			}
			wg.Wait()
			return nil
		}
	})
}

// goroutinesWaiting is goroutines with each goroutine waiting d as every
// W2 tool does (wait: a timer and a select on the run's context), so
// that the ratio to it is what an engine adds to the fan-out alone. The
// floor, goroutines, keeps its own loop: nothing of this one (the
// context, the errors) is in its goroutines.
func goroutinesWaiting(n int, d time.Duration) func(context.Context, string) (*Op, error) {
	return baselineOp(n, func(out []string) func(context.Context) error {
		errs := make([]error, n)
		return func(ctx context.Context) error {
			clear(errs)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if errs[i] = wait(ctx, d); errs[i] == nil {
						out[i] = "ok"
					}
				}()
			}
			wg.Wait()
			return errors.Join(errs...)
		}
	})
}

// baselineOp is a baseline's Op: newRun makes its run, which writes each
// call's answer into out.
func baselineOp(n int, newRun func(out []string) func(context.Context) error) func(context.Context, string) (*Op, error) {
	return func(context.Context, string) (*Op, error) {
		out := make([]string, n)
		run := newRun(out)
		return &Op{
			Units: float64(n),
			Run:   run,
			Transcript: func(ctx context.Context) ([]string, error) {
				clear(out)
				if err := run(ctx); err != nil {
					return nil, err
				}
				lines := make([]string, n)
				for i, s := range out {
					lines[i] = resultLine(CallID(i), s)
				}
				return lines, nil
			},
		}, nil
	}
}
