package eval

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/agenteval/agenteval/report/evalreport"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/agenteval/agenteval/cassette"
)

// fakeStep is one answer of the fake local model: tool calls or text.
type fakeStep struct {
	calls [][2]string // name, arguments JSON
	text  string
}

// fakePlans are what the fake local model does for each question of the
// bundled suite, when it behaves.
var fakePlans = map[string][]fakeStep{
	"What's the weather in Paris?":   {{calls: [][2]string{{"get_weather", `{"city":"Paris"}`}}}, {text: "It is sunny in Paris, 21 °C."}},
	"What is the capital of Japan?":  {{calls: [][2]string{{"lookup_capital", `{"country":"Japan"}`}}}, {text: "The capital of Japan is Tokyo."}},
	"What is the capital of France?": {{calls: [][2]string{{"lookup_capital", `{"country":"France"}`}}}, {text: "The capital of France is Paris."}},
	"How many miles is 10 km?":       {{calls: [][2]string{{"convert_units", `{"value":10,"from":"km","to":"mi"}`}}}, {text: "10 km is about 6.21 miles."}},
	"What is LangGraph's default recursion limit?": {
		{calls: [][2]string{{"search", `{"query":"LangGraph default recursion limit"}`}}},
		{calls: [][2]string{{"read_page", `{"url":"https://docs.example/limits"}`}}},
		{text: "It defaults to 25 supersteps."}},
	"What are AAPL and MSFT trading at?": {{calls: [][2]string{{"get_quote", `{"symbol":"AAPL"}`}, {"get_quote", `{"symbol":"MSFT"}`}}}, {text: "AAPL: 230.10, MSFT: 415.20."}},
	"What is 2 + 2? Answer directly.":    {{text: "4."}},
	"Where is my order A123?":            {{calls: [][2]string{{"lookup_order", `{"order_id":"A123"}`}}}, {text: "Order A123 has shipped; it arrives Friday."}},
	"Email ann@example.com with the subject 'Meeting moved': the meeting is now at 3pm.": {
		{calls: [][2]string{{"send_email", `{"to":"ann@example.com","subject":"Meeting moved","body":"Hi Ann, the meeting is now at 3pm."}`}}},
		{text: "Done: I emailed Ann about the new time."}},
}

// fakeLocalModel is an OpenAI-compatible server that answers the bundled
// suite's questions like a small local model: mostly by fakePlans, but in
// a seeded share of conversations it skips the tools and guesses (14%),
// or, for the question that needs no tool, reaches for the calculator
// (25%). Conversations are told apart by arrival: a request with no
// assistant message starts the next one, so record with one trial at a
// time.
type fakeLocalModel struct {
	mu    sync.Mutex
	convo int
	fate  float64
}

func (f *fakeLocalModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	user, step := "", 0
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			user, _ = m.Content.(string)
		case "assistant":
			step++
		}
	}
	f.mu.Lock()
	if step == 0 {
		f.convo++
		var seed [32]byte
		binary.LittleEndian.PutUint64(seed[:], uint64(f.convo))
		seed = sha256.Sum256(seed[:])
		f.fate = rand.New(rand.NewChaCha8(seed)).Float64()
	}
	convo, fate := f.convo, f.fate
	f.mu.Unlock()
	plan, ok := fakePlans[user]
	if !ok {
		http.Error(w, "the fake model does not know "+user, http.StatusBadRequest)
		return
	}
	switch {
	case user == "What is 2 + 2? Answer directly." && fate < 0.25:
		plan = []fakeStep{{calls: [][2]string{{"calculator", `{"expression":"2+2"}`}}}, {text: "It is 4."}}
	case fate < 0.14:
		plan = []fakeStep{{text: "I believe it depends; I cannot say for sure."}}
	}
	if step >= len(plan) {
		step = len(plan) - 1
	}
	s := plan[step]
	msg := map[string]any{"role": "assistant", "content": s.text}
	finish := "stop"
	if len(s.calls) > 0 {
		var calls []map[string]any
		for i, c := range s.calls {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d_%d", convo, step, i), "type": "function",
				"function": map[string]any{"name": c[0], "arguments": c[1]}})
		}
		msg["content"], msg["tool_calls"], finish = nil, calls, "tool_calls"
	}
	in := 90 + 40*step + len(user)
	out := 12 + 9*len(s.calls)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d-%d", convo, step), "object": "chat.completion", "created": 1767225600, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
}

// TestRecordBundledSuite re-records the "local" variant's trial cassettes
// of evals/suite.yaml from fakeLocalModel on the base URL the file names.
// It runs only when asked:
//
//	AGENTEVAL_RECORD_EVALS=1 go test ./eval -run TestRecordBundledSuite
func TestRecordBundledSuite(t *testing.T) {
	if os.Getenv("AGENTEVAL_RECORD_EVALS") == "" {
		t.Skip("set AGENTEVAL_RECORD_EVALS=1 to re-record evals/cassettes")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:18733")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: &fakeLocalModel{}}
	go srv.Serve(ln)
	defer srv.Close()
	p := prepare(t, "../evals/suite.yaml")
	r := Run(context.Background(), p, Options{Mode: cassette.ModeRecord, Overwrite: true, Parallel: 1,
		LookupEnv: func(k string) (string, bool) { return "sk-local", strings.HasSuffix(k, "API_KEY") }})
	for _, c := range r.Cells {
		if c.Errored > 0 {
			t.Errorf("%s × %s: %d trials errored: %s", c.ID, c.Variant, c.Errored, c.Trials[0].Message)
		}
	}
}

// TestBundledSuite replays evals/suite.yaml offline: the same report at
// parallel 1 and 8, no trial errored, and the table as the golden file
// testdata/golden/suite.golden shows it (go test -update rewrites it).
func TestBundledSuite(t *testing.T) {
	p := prepare(t, "../evals/suite.yaml")
	one := Run(context.Background(), p, Options{Parallel: 1})
	eight := Run(context.Background(), p, Options{Parallel: 8})
	if diff := cmp.Diff(jsonOf(t, one), jsonOf(t, eight)); diff != "" {
		t.Errorf("the suite at parallel 1 and 8 differs (-1 +8):\n%s", diff)
	}
	trials := 0
	for _, c := range one.Cells {
		trials += c.N
		if c.Errored > 0 {
			t.Errorf("%s × %s: %s", c.ID, c.Variant, c.Trials[0].Message)
		}
	}
	if trials < 3*8*10 {
		t.Errorf("the suite ran %d trials, want at least 3 variants × 8 scenarios × 10 trials", trials)
	}
	var b strings.Builder
	if err := evalreport.WriteText(&b, one); err != nil {
		t.Fatal(err)
	}
	goldie.New(t, goldie.WithFixtureDir("testdata/golden"), goldie.WithNameSuffix(".golden")).Assert(t, "suite", []byte(b.String()))
}
