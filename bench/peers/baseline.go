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
	return goroutinesWaiting(n, d, func(_ context.Context, d time.Duration) error {
		time.Sleep(d)
		return nil
	})
}

// goroutinesWaiting is goroutines with each goroutine waiting d with
// waitFn, given the run's context: with wait, the same wait as every W2
// tool's (a timer and a select on the context), so that the ratio to it
// is what the engine adds to the fan-out alone.
func goroutinesWaiting(n int, d time.Duration, waitFn func(context.Context, time.Duration) error) func(context.Context, string) (*Op, error) {
	return func(context.Context, string) (*Op, error) {
		out := make([]string, n)
		run := func(ctx context.Context) error {
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if d > 0 {
						if err := waitFn(ctx, d); err != nil {
							errs[i] = err
							return
						}
					}
					out[i] = "ok"
				}()
			}
			wg.Wait()
			return errors.Join(errs...)
		}
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
