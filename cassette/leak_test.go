package cassette

import (
	"testing"

	"go.uber.org/goleak"
)

// Recording runs real HTTP servers and transports, and replay is used
// from many goroutines: none may outlive the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
