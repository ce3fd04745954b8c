package harness

import (
	"bytes"
	"context"
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
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		answers := make(chan turnAnswer)
		log := &tailBuffer{max: 64}
		go func() {
			defer close(answers)
			readAnswers(context.Background(), bytes.NewReader(out), answers, log)
		}()
		n := 0
		for a := range answers {
			if a.Output == nil && a.Interrupt == nil && a.Error == nil {
				t.Fatalf("answer %d is none of output, interrupt and error", n)
			}
			n++
		}
		if lines := bytes.Count(out, []byte("\n")) + 1; n > lines {
			t.Fatalf("%d answers from %d lines", n, lines)
		}
		if l := len(log.String()); l > 64 {
			t.Fatalf("the log holds %d bytes, past its bound of 64", l)
		}
	})
}
