package watch

import (
	"testing"

	"go.uber.org/goleak"
)

// The watcher reads file events on its own goroutine: none may outlive
// the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
