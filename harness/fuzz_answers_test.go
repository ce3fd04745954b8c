package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// FuzzReadAnswers reads any output of a command agent: every line that
// is a JSON object with output, interrupt or error is an answer, in
// order, and the rest goes to the log, which never holds more than its
// bound; nothing panics.
func FuzzReadAnswers(f *testing.F) {
	for _, seed := range []string{
		`{"output": "hi"}` + "\n",
		"starting\n" + `{"interrupt": {"question": "ok?"}}` + "\n" + `{"error": "boom"}`,
		`{"output": null}` + "\n" + `{"output": 1}` + "\n" + `{"other": 1}` + "\n",
		`{"output": "a"}{"output": "b"}` + "\n",
		"\r\n\r\n" + `  {"output":"x"}  ` + "\r\n",
		strings.Repeat("x", 100) + "\n" + strings.Repeat("[", 5000),
		`{"interrupt": ` + strings.Repeat("[", 20000) + "}\n",
		`{"output": "ok"}` + "\n" + `{"output": "` + strings.Repeat("x", fuzzMaxLine) + `"}` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		answers := make(chan turnAnswer)
		log := &tailBuffer{max: 64}
		go func() {
			defer close(answers)
			readAnswers(context.Background(), bytes.NewReader(out), answers, log, fuzzMaxLine)
		}()
		n := 0
		tooLong := false
		for a := range answers {
			if tooLong {
				t.Fatalf("answer %d follows a line that was too long", n)
			}
			if a.tooLong > 0 {
				tooLong = true
				if !hasLongLine(out, fuzzMaxLine) {
					t.Fatalf("answer %d says a line is too long, but none is longer than %d bytes", n, fuzzMaxLine)
				}
				n++
				continue
			}
			if a.Output == nil && a.Interrupt == nil && a.Error == nil {
				t.Fatalf("answer %d is none of output, interrupt and error", n)
			}
			n++
		}
		if want := hasLongLine(out, fuzzMaxLine); tooLong != want {
			t.Fatalf("a line longer than %d bytes: %v; a too-long answer: %v", fuzzMaxLine, want, tooLong)
		}
		if lines := bytes.Count(out, []byte("\n")) + 1; n > lines {
			t.Fatalf("%d answers from %d lines", n, lines)
		}
		if l := len(log.String()); l > 64 {
			t.Fatalf("the log holds %d bytes, past its bound of 64", l)
		}
	})
}

// fuzzMaxLine is the line bound FuzzReadAnswers reads within, small so
// that the fuzzer reaches it.
const fuzzMaxLine = 256

// hasLongLine reports whether out has a line (with its newline) longer
// than max bytes.
func hasLongLine(out []byte, max int) bool {
	for _, l := range bytes.SplitAfter(out, []byte("\n")) {
		if len(l) > max {
			return true
		}
	}
	return false
}

// TestReadLine checks the bounded line reader against ReadBytes.
func TestReadLine(t *testing.T) {
	tests := []struct {
		in, reason string
		max        int
		want       []string // lines, then "!" for errLineTooLong
	}{
		{"a\nbb\n", "lines within the bound come back whole, newline included", 3, []string{"a\n", "bb\n"}},
		{"abc", "a last line without newline is returned with io.EOF", 3, []string{"abc"}},
		{"abcd\n", "a line one byte past the bound is refused, newline counted", 4, []string{"!"}},
		{"ab\nabcdef", "the long line is refused after the short one is read", 4, []string{"ab\n", "!"}},
		{strings.Repeat("y", 10000) + "\n", "a line longer than bufio's buffer is put together from fragments", 10001, []string{strings.Repeat("y", 10000) + "\n"}},
		{strings.Repeat("y", 10000), "and refused when past the bound, though no fragment is", 9999, []string{"!"}},
	}
	for _, tc := range tests {
		br := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
		var got []string
		for {
			line, err := readLine(br, tc.max)
			if errors.Is(err, errLineTooLong) {
				got = append(got, "!")
				break
			}
			if len(line) > 0 {
				got = append(got, string(line))
			}
			if err != nil {
				if err != io.EOF {
					t.Fatalf("%s: %v", tc.reason, err)
				}
				break
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.reason, got, tc.want)
		}
	}
}
