package eval

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report/evalreport"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
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
	"What are AAPL and MSFT trading at?":      {{calls: [][2]string{{"get_quote", `{"symbol":"AAPL"}`}, {"get_quote", `{"symbol":"MSFT"}`}}}, {text: "AAPL: 230.10, MSFT: 415.20."}},
	"What is 2 + 2? Answer directly.":         {{text: "4."}},
	"What should I pack for Lisbon tomorrow?": {{calls: [][2]string{{"get_forecast", `{"city":"Lisbon"}`}}}, {text: "Rain in Lisbon tomorrow, 14 °C: pack an umbrella."}},
	"Where is my order A123?":                 {{calls: [][2]string{{"lookup_order", `{"order_id":"A123"}`}}}, {text: "Order A123 has shipped; it arrives Friday."}},
	"Email ann@example.com with the subject 'Meeting moved': the meeting is now at 3pm.": {
		{calls: [][2]string{{"send_email", `{"to":"ann@example.com","subject":"Meeting moved","body":"Hi Ann, the meeting is now at 3pm."}`}}},
		{text: "Done: I emailed Ann about the new time."}},
}

// fakeLocalModel is an OpenAI-compatible server that answers the bundled
// suite's questions like a small local model: mostly by fakePlans, but in
// a seeded share of conversations it skips the tools and guesses (14%),
// for the question that needs no tool reaches for the calculator (25%),
// and for the packing question gives the forecast without advice (30%).
// The k-th conversation on a question (a request with no assistant
// message starts one) draws its fate from SHA-256 of the question and k,
// so record with one trial at a time: then conversation k is trial k.
//
// It is also the packing scenario's judge: a request whose system message
// is a judge's instructions is graded from its <output>: 1 when it says
// to pack an umbrella, 0.5 when it gives the rain only, 0 otherwise.
// Judging changes no conversation.
type fakeLocalModel struct {
	mu     sync.Mutex
	convos map[string]int
	fates  map[string]float64
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
	user, system, step := "", "", 0
	for _, m := range req.Messages {
		text, _ := m.Content.(string)
		switch m.Role {
		case "system":
			system = text
		case "user":
			user = text
		case "assistant":
			step++
		}
	}
	if strings.HasPrefix(system, "You are an expert data labeler") {
		writeCompletion(w, req.Model, "judge-"+strconv.Itoa(len(user)), fakeJudge(user), nil, 0)
		return
	}
	f.mu.Lock()
	if f.convos == nil {
		f.convos, f.fates = map[string]int{}, map[string]float64{}
	}
	if step == 0 {
		f.convos[user]++
		seed := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d", user, f.convos[user]))
		f.fates[user] = rand.New(rand.NewChaCha8(seed)).Float64()
	}
	convo, fate := f.convos[user], f.fates[user]
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
	case user == "What should I pack for Lisbon tomorrow?" && fate < 0.44:
		plan = []fakeStep{plan[0], {text: "Tomorrow in Lisbon: rain, 14 °C."}}
	}
	if step >= len(plan) {
		step = len(plan) - 1
	}
	s := plan[step]
	id := fmt.Sprintf("%d-%d-%d", len(user), convo, step)
	writeCompletion(w, req.Model, id, s.text, s.calls, 90+40*step+len(user))
}

// fakeJudge grades the <output> of a judge's input (see fakeLocalModel).
func fakeJudge(input string) string {
	_, out, _ := strings.Cut(input, "<output>")
	out, _, _ = strings.Cut(out, "</output>")
	out = strings.ToLower(out)
	switch {
	case strings.Contains(out, "umbrella"):
		return `{"reasoning": "It gives the forecast and says what to pack for it.", "score": 1}`
	case strings.Contains(out, "rain"):
		return `{"reasoning": "It gives the forecast but leaves the packing to the reader.", "score": 0.5}`
	}
	return `{"reasoning": "It does not answer the question.", "score": 0}`
}

// writeCompletion writes a Chat Completions answer: text, or tool calls.
func writeCompletion(w http.ResponseWriter, model, id, text string, calls [][2]string, in int) {
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if len(calls) > 0 {
		var tcs []map[string]any
		for i, c := range calls {
			tcs = append(tcs, map[string]any{"id": fmt.Sprintf("call_%s_%d", id, i), "type": "function",
				"function": map[string]any{"name": c[0], "arguments": c[1]}})
		}
		msg["content"], msg["tool_calls"], finish = nil, tcs, "tool_calls"
	}
	if in == 0 {
		in = 300
	}
	out := 12 + 9*len(calls)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-" + id, "object": "chat.completion", "created": 1767225600, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
}

// TestRecordBundledSuite records the trial cassettes of evals/suite.yaml
// that are missing (the "local" variant's, and every variant's of a
// scenario with a provider judge) from fakeLocalModel on the base URL the
// file names, or all of them again. It runs only when asked:
//
//	AGENTEVAL_RECORD_EVALS=missing go test ./eval -run TestRecordBundledSuite
//	AGENTEVAL_RECORD_EVALS=all go test ./eval -run TestRecordBundledSuite
func TestRecordBundledSuite(t *testing.T) {
	mode := map[string]cassette.Mode{"missing": cassette.ModeReplayOrRecord, "all": cassette.ModeRecord}
	m, ok := mode[os.Getenv("AGENTEVAL_RECORD_EVALS")]
	if !ok {
		t.Skip("set AGENTEVAL_RECORD_EVALS=missing (or all) to record evals/cassettes")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:18733")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: &fakeLocalModel{}}
	go srv.Serve(ln)
	defer srv.Close()
	p := prepare(t, "../evals/suite.yaml")
	r := Run(context.Background(), p, Options{Mode: m, Overwrite: true, Parallel: 1,
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
	// its packing judge is calibrated against evals/labels.csv, as
	// agenteval eval does
	labels, err := ReadLabels(p.File.LabelsPath(), harness.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Calibrate(one, labels, "evals/labels.csv"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := evalreport.WriteText(&b, one); err != nil {
		t.Fatal(err)
	}
	g := goldie.New(t, goldie.WithFixtureDir("testdata/golden"), goldie.WithNameSuffix(".golden"))
	g.Assert(t, "suite", []byte(b.String()))
	// the suite's reports say why trials failed and what each variant
	// answered: text (above), Markdown and HTML
	var md strings.Builder
	if err := evalreport.WriteMarkdown(&md, one); err != nil {
		t.Fatal(err)
	}
	g.Assert(t, "suite.md", []byte(md.String()))
	var page strings.Builder
	if err := evalreport.WriteHTML(&page, one); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<h2>Judge calibration</h2>",
		"<h2>Why trials failed</h2>",
		`<td>trial 7: final: want text containing &#34;Paris&#34;, got &#34;I am not sure.&#34;</td>`,
		"<h2>Final answers side by side</h2>",
		`<pre class="final">I believe it depends; I cannot say for sure.</pre>`,
		`<details class="trial fail"><summary>trial 7: fail`,
		`<svg class="sequence"`,
		`<pre class="trajectory">`,
	} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the suite's HTML report lacks %q", want)
		}
	}
	for _, absent := range []string{`href="http`, `src=`, "<script", "<link"} {
		if strings.Contains(page.String(), absent) {
			t.Errorf("the suite's HTML report holds %q: it must be one self-contained file", absent)
		}
	}
}
