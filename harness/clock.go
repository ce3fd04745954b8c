package harness

import (
	"context"
	"sync"
	"time"
)

// virtualClock is a scenario's clock: it starts at a fixed instant and
// Sleep advances it at once, so retry backoff and emulated latency cost no
// wall-clock time and every run of a scenario sees the same times.
type virtualClock struct {
	mu  sync.Mutex
	now time.Time
}

// scenarioEpoch is when every scenario's clock starts.
var scenarioEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func newVirtualClock() *virtualClock { return &virtualClock{now: scenarioEpoch} }

// Now implements engine.Clock.
func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep implements engine.Clock: it advances the clock by d.
func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.mu.Lock()
		c.now = c.now.Add(d)
		c.mu.Unlock()
	}
	return nil
}
