package cassette

import "fmt"

// Mode says what a Recorder does with a request.
type Mode int

// The modes. The zero value is ModeReplay, so a Recorder never reaches the
// network unless asked to.
const (
	// ModeReplay answers every request from the cassette and never opens a
	// connection. A request that matches no unused interaction fails with
	// an error wrapping ErrInteractionNotFound.
	ModeReplay Mode = iota
	// ModeRecord sends every request to the real transport and writes a
	// fresh cassette on Stop. It refuses to start when the cassette file
	// already exists, unless Options.Overwrite is set: it never appends to
	// a stale recording.
	ModeRecord
	// ModeReplayOrRecord answers from the cassette when an unused
	// interaction matches and records the request otherwise; Stop rewrites
	// the cassette with the old and the new interactions.
	ModeReplayOrRecord
	// ModeLive passes every request to the real transport and records
	// nothing.
	ModeLive
)

var modeNames = [...]string{ModeReplay: "replay", ModeRecord: "record", ModeReplayOrRecord: "replay-or-record", ModeLive: "live"}

// String returns the mode's name as ParseMode reads it.
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads a mode name: replay, record, replay-or-record or live.
// The empty string is replay.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return ModeReplay, nil
	}
	for m, name := range modeNames {
		if s == name {
			return Mode(m), nil
		}
	}
	return 0, fmt.Errorf("unknown cassette mode %q: expected replay, record, replay-or-record or live", s)
}

// Recording reports whether the mode may send requests to the real
// transport (record, replay-or-record and live), which is when a provider
// needs credentials.
func (m Mode) Recording() bool { return m != ModeReplay }
