package engine_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// task and tool goroutine the engine starts must end with its run.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
