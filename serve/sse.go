package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// writeJSON answers with a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("serve: marshal answer: %v", err)) // our own types always marshal
	}
	noDate(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// noDate keeps net/http from adding a Date header, so that a recorded
// answer does not depend on the clock.
func noDate(w http.ResponseWriter) { w.Header()["Date"] = nil }

// event is one server-sent event: an event name (or "") and a value
// marshalled as its data, or raw data when the value is a string.
type event struct {
	name string
	data any
}

// writeEvents answers with a stream of server-sent events, as a
// provider sends one: each event is written whole and flushed before the
// next, so it leaves in its own HTTP chunk and the client can act on it
// before the stream ends. The headers go out with the first event and
// never carry a Content-Length (the body is chunked), so they do not
// depend on timing either.
func writeEvents(w http.ResponseWriter, evs []event) {
	noDate(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := flusher(w)
	var b bytes.Buffer
	for _, ev := range evs {
		b.Reset()
		if ev.name != "" {
			b.WriteString("event: ")
			b.WriteString(ev.name)
			b.WriteByte('\n')
		}
		b.WriteString("data: ")
		if data, ok := ev.data.(string); ok {
			b.WriteString(data)
		} else {
			raw, err := json.Marshal(ev.data)
			if err != nil {
				panic(fmt.Sprintf("serve: marshal event: %v", err)) // our own types always marshal
			}
			b.Write(raw)
		}
		b.WriteString("\n\n")
		if _, err := w.Write(b.Bytes()); err != nil {
			return // the client went away; nothing is left to tell it
		}
		flush()
	}
}

// flusher returns w's Flush, or a no-op for a writer that cannot flush.
func flusher(w http.ResponseWriter) func() {
	if f, ok := w.(http.Flusher); ok {
		return f.Flush
	}
	return func() {}
}

// relay copies a body to w as it is read, flushing as it goes: an event
// stream (events true) event by event, each with its bytes as they came
// (the recorded ones, or the provider's) and flushed once it is whole,
// so a replay or a relay arrives in the events of the recording;
// anything else in the pieces it is read in. It returns the first error
// reading src, or a *clientGone when writing to w failed.
func relay(w http.ResponseWriter, src io.Reader, events bool) error {
	flush := flusher(w)
	next := newEventSplitter(src).next
	if !events {
		buf := make([]byte, 32<<10)
		next = func() ([]byte, error) {
			n, err := src.Read(buf)
			return buf[:n], err
		}
	}
	for {
		piece, err := next()
		if len(piece) > 0 {
			if _, werr := w.Write(piece); werr != nil {
				return &clientGone{werr}
			}
			flush()
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// clientGone is a failed write to the client: it went away.
type clientGone struct{ err error }

func (e *clientGone) Error() string { return "write to the client: " + e.err.Error() }

func (e *clientGone) Unwrap() error { return e.err }

// eventSplitter cuts a server-sent event stream into its events without
// changing a byte: an event is its lines up to and including the blank
// line that ends it ("\n" or "\r\n" line ends), and what follows the
// last blank line, when anything does, is a last piece of its own. The
// pieces, joined, are the stream.
type eventSplitter struct {
	br  *bufio.Reader
	buf []byte
}

func newEventSplitter(r io.Reader) *eventSplitter {
	return &eventSplitter{br: bufio.NewReaderSize(r, 16<<10)}
}

// next returns the next event, valid until the following call; at the
// end of the stream it returns what is left (possibly nothing) with
// io.EOF.
func (s *eventSplitter) next() ([]byte, error) {
	s.buf = s.buf[:0]
	start := 0 // where the current line begins in buf
	for {
		chunk, err := s.br.ReadSlice('\n')
		s.buf = append(s.buf, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue // a long line: read on
		case err != nil:
			return s.buf, err
		}
		if isBlank(s.buf[start:]) {
			return s.buf, nil
		}
		start = len(s.buf)
	}
}

// isBlank reports whether line (ending in "\n") is an empty line.
func isBlank(line []byte) bool {
	return len(line) == 1 || (len(line) == 2 && line[0] == '\r')
}

// splitEvents cuts a whole event stream into its events (see
// eventSplitter).
func splitEvents(body []byte) [][]byte {
	var out [][]byte
	sp := newEventSplitter(bytes.NewReader(body))
	for {
		ev, err := sp.next()
		if len(ev) > 0 {
			out = append(out, bytes.Clone(ev))
		}
		if err != nil {
			return out
		}
	}
}

// halves splits s in two at a rune boundary near its middle, so streams
// carry every text in more than one piece; a text shorter than two runes
// is one piece.
func halves(s string) []string {
	r := []rune(s)
	if len(r) < 2 {
		return []string{s}
	}
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}
