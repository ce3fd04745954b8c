package serve

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// propSplitEventsLossless: cutting any body into events loses and adds
// nothing — the pieces, joined, are the body — and every piece is one
// event: it has no blank line but the one that ends it, and every piece
// but the last ends with one. Replay and relay send exactly the pieces,
// so this is what "the recorded stream, byte for byte, in its recorded
// events" rests on.
func propSplitEventsLossless(t *rapid.T) {
	body := rapid.SliceOf(rapid.SampledFrom([]byte("data: {}\r\n\nev"))).Draw(t, "body")
	pieces := splitEvents(body)
	if got := bytes.Join(pieces, nil); !bytes.Equal(got, body) {
		t.Fatalf("joined pieces %q, want the body %q", got, body)
	}
	for i, p := range pieces {
		if len(p) == 0 {
			t.Fatalf("piece %d is empty", i)
		}
		lines := bytes.SplitAfter(p, []byte("\n"))
		for j, line := range lines {
			last := j == len(lines)-1 || (j == len(lines)-2 && len(lines[j+1]) == 0)
			if blank := bytes.Equal(line, []byte("\n")) || bytes.Equal(line, []byte("\r\n")); blank && !last {
				t.Fatalf("piece %d %q has a blank line inside", i, p)
			}
		}
		if i < len(pieces)-1 && !bytes.HasSuffix(p, []byte("\n\n")) && !bytes.HasSuffix(p, []byte("\n\r\n")) && !bytes.Equal(p, []byte("\n")) && !bytes.Equal(p, []byte("\r\n")) {
			t.Fatalf("piece %d %q of %d does not end with a blank line", i, p, len(pieces))
		}
	}
}

func TestPropSplitEventsLossless(t *testing.T) { rapid.Check(t, propSplitEventsLossless) }

func FuzzSplitEvents(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("event: ping\r\ndata: {}\r\n\r\nevent: x\ndata: y"))
	f.Add([]byte("\n\n\ndata: z\n"))
	f.Fuzz(rapid.MakeFuzz(propSplitEventsLossless))
}

// TestSplitEventsLongLine checks a line longer than the reader's buffer
// whose newline comes alone in the next read: it must not be taken for a
// blank line.
func TestSplitEventsLongLine(t *testing.T) {
	// "data: " and the x's fill the 16 KiB buffer exactly
	long := append([]byte("data: "), bytes.Repeat([]byte("x"), 16<<10-len("data: "))...)
	body := append(long, []byte("\n\ndata: b\n\n")...)
	got := splitEvents(body)
	if len(got) != 2 || !bytes.Equal(bytes.Join(got, nil), body) || !bytes.HasSuffix(got[0], []byte("x\n\n")) {
		t.Errorf("splitEvents cut a %d-byte body into %d pieces, want 2 (the long event, then data: b)", len(body), len(got))
	}
}
