package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/serve"
)

// The provider scenarios (scenarios/providers) run real provider clients
// (engine/llm's OpenAI and Anthropic) against cassettes recorded from
// serve's scripted servers on fixed loopback ports, the ones the
// scenarios' base_url name. TestRecordProviderCassettes rewrites those cassettes and
// golden transcripts; it runs only when asked:
//
//	AGENTEVAL_RECORD_PROVIDERS=1 go test ./harness -run TestRecordProviderCassettes
//
// Every other test here replays them and never opens a connection.

const (
	// openaiAddr serves OpenAI and Anthropic (told apart by path);
	// compatibleAddr serves the OpenAI-compatible "local" server.
	openaiAddr     = "127.0.0.1:18731"
	compatibleAddr = "127.0.0.1:18732"

	fakeOpenAIKey    = "sk-test-openai-0123456789abcdefghijklmnopqrstuv"
	fakeAnthropicKey = "sk-test-anthropic-0123456789abcdefghijklmnopqr"
)

const (
	providerScenarios = "../scenarios"
	providerDir       = "../scenarios/providers"
	providerCassettes = "../cassettes"
	providerGolden    = "../golden"
)

// fakeProvider is one scenario's scripted server and its turns.
type fakeProvider struct {
	srv   *serve.Server
	turns *serve.Turns
}

// newFake returns a server that wants key (none when "") and answers
// with turns.
func newFake(key string, turns ...serve.Turn) fakeProvider {
	src := serve.NewTurns(turns...)
	srv, err := serve.New(serve.Options{Source: src, Key: key})
	if err != nil {
		panic(err) // a Source is always given
	}
	return fakeProvider{srv: srv, turns: src}
}

// providerScripts are what the fake servers answer, by scenario name.
// Usage is in every answer so that reports show tokens and cost.
func providerScripts() map[string]fakeProvider {
	wantToolResults := func(n int) func(*serve.Request) error {
		return func(r *serve.Request) error {
			if got := toolResults(r); got != n {
				return fmt.Errorf("want %d tool results sent back, got %d", n, got)
			}
			return nil
		}
	}
	return map[string]fakeProvider{
		"providers/openai_tool_call": newFake(fakeOpenAIKey,
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", ToolCalls: []serve.ToolCall{
				{ID: "call_Wq2xS0dPb1", Name: "get_weather", Args: `{"city":"Paris"}`},
			}, Usage: serve.Usage{Input: 92, Output: 16}},
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", Text: "It is 18 °C and sunny in Paris right now.",
				Usage: serve.Usage{Input: 131, Output: 14}, Check: wantToolResults(1)},
		),
		"providers/openai_parallel_tools": newFake(fakeOpenAIKey,
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", ToolCalls: []serve.ToolCall{
				{ID: "call_T0kyoW34", Name: "get_weather", Args: `{"city":"Tokyo"}`},
				{ID: "call_T0kyoT1m", Name: "get_time", Args: `{"timezone":"Asia/Tokyo"}`},
			}, Usage: serve.Usage{Input: 140, Output: 51}},
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", Text: "Tokyo is clear and 24 °C, and it is 21:40 there.",
				Usage: serve.Usage{Input: 221, Output: 17, CacheRead: 128}, Check: wantToolResults(2)},
		),
		"providers/anthropic_tool_call": newFake(fakeAnthropicKey,
			serve.Turn{Model: "claude-sonnet-4-5-20250929", Text: "I'll use the calculator for that.", ToolCalls: []serve.ToolCall{
				{ID: "toolu_01CaLc5678", Name: "calculator", Args: `{"expression": "1234 * 5678"}`},
			}, Usage: serve.Usage{Input: 402, CacheRead: 256, Output: 71}},
			serve.Turn{Model: "claude-sonnet-4-5-20250929", Text: "1234 × 5678 = 7,006,652.",
				Usage: serve.Usage{Input: 495, CacheRead: 256, Output: 19}, Check: wantToolResults(1)},
		),
		"providers/openai_compatible_local": newFake("",
			// Ollama-style: no id on the tool call
			serve.Turn{ToolCalls: []serve.ToolCall{{Name: "lookup_capital", Args: `{"country":"Japan"}`, NoID: true}},
				Usage: serve.Usage{Input: 148, Output: 20}},
			serve.Turn{Text: "The capital of Japan is Tokyo.", Usage: serve.Usage{Input: 181, Output: 9}, Check: wantToolResults(1)},
		),
		"providers/openai_compatible_emulated_tool": newFake("",
			serve.Turn{ToolCalls: []serve.ToolCall{{ID: "call_d0cs1", Name: "search_docs", Args: `{"query":"rotate API key"}`}},
				Usage: serve.Usage{Input: 160, Output: 18}},
			// the emulator's request: the tool's name, description and arguments
			serve.Turn{Text: "Keys > Settings > API keys: choose Rotate; the old key stays valid for 24 hours.",
				Usage: serve.Usage{Input: 96, Output: 22}, Check: wantEmulatorPrompt("search_docs")},
			serve.Turn{Text: "Open Settings > API keys and choose Rotate; the old key keeps working for 24 hours.",
				Usage: serve.Usage{Input: 214, Output: 21}, Check: wantToolResults(1)},
		),
		"providers/agent_structured": newFake(fakeOpenAIKey,
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", ToolCalls: []serve.ToolCall{
				{ID: "call_0sl0Wx", Name: "get_weather", Args: `{"city":"Oslo"}`},
			}, Usage: serve.Usage{Input: 180, Output: 15},
				Check: func(r *serve.Request) error { return wantToolChoice(r, "required") }},
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", Text: "Here is the report for Oslo.", ToolCalls: []serve.ToolCall{
				{ID: "call_0sl0Rp", Name: "WeatherReport", Args: `{"city":"Oslo","temperature_c":-3,"conditions":"snowy"}`},
			}, Usage: serve.Usage{Input: 221, Output: 33}, Check: wantToolResults(1)},
		),
		"providers/openai_judge": newFake(fakeOpenAIKey,
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", ToolCalls: []serve.ToolCall{
				{ID: "call_AuCap01", Name: "lookup_capital", Args: `{"country":"Australia"}`},
			}, Usage: serve.Usage{Input: 88, Output: 15}},
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", Text: "The capital of Australia is Canberra.",
				Usage: serve.Usage{Input: 117, Output: 9}, Check: wantToolResults(1)},
			// the judge's request, after the run: its instructions and the
			// run's input, output and reference
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14",
				Text:  `{"reasoning": "The output names Canberra, as the reference does, and says nothing false.", "score": 1}`,
				Usage: serve.Usage{Input: 301, Output: 24}, Check: wantJudgePrompt},
		),
		"providers/openai_stream_messages": newFake(fakeOpenAIKey,
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", Text: "I'll check the weather in Oslo.", ToolCalls: []serve.ToolCall{
				{ID: "call_0sl0Sn0w", Name: "get_weather", Args: `{"city":"Oslo"}`},
			}, Usage: serve.Usage{Input: 94, Output: 24}, Check: wantStream},
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", Text: "Yes: it is snowing in Oslo, at -3 °C.",
				Usage: serve.Usage{Input: 140, Output: 15}, Check: func(r *serve.Request) error {
					return errors.Join(wantStream(r), wantToolResults(1)(r))
				}},
		),
		"providers/agent_aux_models": newFake(fakeOpenAIKey,
			// the fallback's answer to the first turn (the scripted agent
			// fails), then the summarizer's, when the second turn makes
			// three messages
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", Text: "Day 1 Alfama, day 2 Belém, day 3 Sintra, day 4 LX Factory.",
				Usage: serve.Usage{Input: 14, Output: 21}},
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14", Text: "The user is planning a four-day trip to Lisbon; an itinerary was given.",
				Usage: serve.Usage{Input: 420, Output: 17}, Check: wantSummaryPrompt},
		),
		"providers/agent_structured_provider": newFake(fakeOpenAIKey,
			serve.Turn{Model: "gpt-4.1-mini-2025-04-14",
				Text:  `{"name":"Ada Lovelace","email":"ada@example.com","company":"Analytical Engines Ltd"}`,
				Usage: serve.Usage{Input: 96, Output: 24}, Check: wantJSONSchema},
		),
	}
}

// emulatorPrompt starts every request of LangChain's LLMToolEmulator.
const emulatorPrompt = "You are emulating a tool call for testing purposes.\n\nTool: "

// wantEmulatorPrompt checks that a request is the emulator's, for the tool.
func wantEmulatorPrompt(tool string) func(*serve.Request) error {
	return func(r *serve.Request) error {
		body, err := r.JSON()
		if err != nil {
			return err
		}
		raw, _ := json.Marshal(body)
		if got := firstUserText(raw); !strings.HasPrefix(got, emulatorPrompt+tool+"\n") {
			return fmt.Errorf("want the emulator's prompt for %s, got %q", tool, got)
		}
		return nil
	}
}

// summaryPrompt starts every request of LangChain's
// SummarizationMiddleware (DEFAULT_SUMMARY_PROMPT).
const summaryPrompt = "<role>\nContext Extraction Assistant\n</role>"

// wantSummaryPrompt checks that a request is a summarizer's.
func wantSummaryPrompt(r *serve.Request) error {
	body, err := r.JSON()
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(body)
	if got := firstUserText(raw); !strings.HasPrefix(got, summaryPrompt) || !strings.Contains(got, "Plan a four-day trip to Lisbon.") {
		return fmt.Errorf("want the summarizer's prompt with the messages to summarize, got %q", got)
	}
	return nil
}

// judgeInputPrefix starts the human message of every judge's request
// (grade.JudgeInput): the run's input follows it.
const judgeInputPrefix = "<input>\n"

// wantJudgePrompt checks that a request is a judge's: the correctness
// rubric in the system message and the reference in the input.
func wantJudgePrompt(r *serve.Request) error {
	body, err := r.JSON()
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(body)
	if got := firstUserText(raw); !strings.HasPrefix(got, judgeInputPrefix) || !strings.Contains(got, "<reference_output>") {
		return fmt.Errorf("want a judge's input with a reference, got %q", got)
	}
	if !strings.Contains(string(raw), "Grade the correctness") {
		return fmt.Errorf("want the correctness rubric in the judge's request")
	}
	return nil
}

// toolResults counts the tool results a request sends back, in either
// wire format.
func toolResults(r *serve.Request) int {
	return len(r.ToolResults())
}

func wantToolChoice(r *serve.Request, want string) error {
	body, err := r.JSON()
	if err != nil {
		return err
	}
	if got := body["tool_choice"]; got != want {
		return fmt.Errorf("tool_choice = %v, want %q (the structured-output tool is required)", got, want)
	}
	return nil
}

// wantStream checks that a request asks for a stream, as a model called
// under the "messages" stream mode does.
func wantStream(r *serve.Request) error {
	body, err := r.JSON()
	if err != nil {
		return err
	}
	if body["stream"] != true {
		return fmt.Errorf(`stream = %v, want true: the "messages" stream mode streams the model`, body["stream"])
	}
	return nil
}

// wantJSONSchema checks that the provider strategy asked for its schema.
func wantJSONSchema(r *serve.Request) error {
	body, err := r.JSON()
	if err != nil {
		return err
	}
	rf, _ := body["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "Contact" {
		return fmt.Errorf("response_format = %v, want a json_schema named Contact", body["response_format"])
	}
	return nil
}

// firstUserText is the text of a request body's first user message, in
// either wire format: how the dispatcher tells scenarios apart.
func firstUserText(body []byte) string {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		switch c := m.Content.(type) {
		case string:
			return c
		case []any:
			for _, b := range c {
				if bo, ok := b.(map[string]any); ok && bo["type"] == "text" {
					s, _ := bo["text"].(string)
					return s
				}
			}
		}
	}
	return ""
}

// dispatcher sends each request to the script of the scenario whose
// first user message it carries, so scenarios can record in parallel
// against one port.
type dispatcher struct {
	t       *testing.T
	byInput map[string]http.Handler
}

func (d dispatcher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := firstUserText(body)
	if rest, ok := strings.CutPrefix(key, emulatorPrompt); ok {
		// an emulated tool's call goes to the scenario that has the tool
		tool, _, _ := strings.Cut(rest, "\n")
		key = "tool:" + tool
	}
	if strings.HasPrefix(key, summaryPrompt) {
		// a summarizer's call goes to the scenario that summarizes
		key = "summarizer"
	}
	if rest, ok := strings.CutPrefix(key, judgeInputPrefix); ok {
		// a judge's call goes to the scenario whose input it grades
		key, _, _ = strings.Cut(rest, "\n</input>")
	}
	h, ok := d.byInput[key]
	if !ok {
		d.t.Errorf("fake provider: %s %s: no scenario starts with the user message %q", r.Method, r.URL.Path, firstUserText(body))
		http.Error(w, `{"error":{"message":"no scripted scenario for this conversation","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	h.ServeHTTP(w, r)
}

func loadProviderScenarios(t *testing.T) []*harness.Scenario {
	t.Helper()
	scenarios, err := harness.LoadDir(providerScenarios, providerDir)
	if err != nil {
		t.Fatalf("LoadDir(%s): %v", providerDir, err)
	}
	if len(scenarios) < 5 {
		t.Fatalf("LoadDir(%s) found %d scenarios, want at least 5", providerDir, len(scenarios))
	}
	return scenarios
}

// wantAllPassed fails the test for every scenario that did not pass,
// with its message and diff.
func wantAllPassed(t *testing.T, rep *report.Report) {
	t.Helper()
	for _, s := range rep.Scenarios {
		if s.Status != report.StatusPass {
			t.Errorf("scenario %s: status %s: %s\n%s", s.Name, s.Status, s.Message, s.Diff)
		}
	}
}

// TestRecordProviderCassettes records cassettes/providers/*.yaml and
// golden/providers/*.golden from the fake servers. Run it after changing
// a provider scenario or its script above.
func TestRecordProviderCassettes(t *testing.T) {
	if os.Getenv("AGENTEVAL_RECORD_PROVIDERS") != "1" {
		t.Skip("set AGENTEVAL_RECORD_PROVIDERS=1 to re-record the provider cassettes")
	}
	scenarios := loadProviderScenarios(t)
	scripts := providerScripts()
	d := dispatcher{t: t, byInput: map[string]http.Handler{}}
	for _, s := range scenarios {
		srv, ok := scripts[s.Name]
		if !ok {
			t.Fatalf("scenario %s has no script in providerScripts", s.Name)
		}
		d.byInput[s.Turns[0].User] = srv.srv
		for _, tool := range s.Tools {
			if tool.Emulate != nil {
				d.byInput["tool:"+tool.Name] = srv.srv
			}
		}
		for _, m := range s.Agent.Middleware {
			if m.Type == "SummarizationMiddleware" {
				d.byInput["summarizer"] = srv.srv
			}
		}
	}
	for _, addr := range []string{openaiAddr, compatibleAddr} {
		ts, err := serve.Listen(context.Background(), addr, d)
		if err != nil {
			t.Fatal(err)
		}
		defer ts.Close()
	}

	env := map[string]string{"OPENAI_API_KEY": fakeOpenAIKey, "ANTHROPIC_API_KEY": fakeAnthropicKey}
	rep := harness.Run(context.Background(), scenarios, harness.Options{
		CassetteDir: providerCassettes, GoldenDir: providerGolden, Mode: cassette.ModeRecord, Overwrite: true,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Update:    true,
	})
	wantAllPassed(t, rep)
	for _, name := range slices.Sorted(maps.Keys(scripts)) {
		srv := scripts[name]
		if err := srv.srv.Err(); err != nil {
			t.Errorf("scenario %s: the fake server refused requests:\n%v", name, err)
		}
		if n := srv.turns.Remaining(); n > 0 {
			t.Errorf("scenario %s: %d scripted turns were never asked for", name, n)
		}
	}
	for _, s := range rep.Scenarios {
		data, err := os.ReadFile(s.Cassette)
		if err != nil {
			t.Errorf("scenario %s: %v", s.Name, err)
			continue
		}
		for _, key := range []string{fakeOpenAIKey, fakeAnthropicKey, "sk-test"} {
			if bytes.Contains(data, []byte(key)) {
				t.Errorf("cassette %s holds the key %q", s.Cassette, key)
			}
		}
	}
}

// noNetwork fails the test on any request: replay must never dial.
type noNetwork struct{ t *testing.T }

func (n noNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("network used during replay: %s %s", r.Method, r.URL)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrPermission}
}

// TestProviderScenariosReplay replays every provider scenario from its
// cassette, offline, and requires each to pass with its tokens counted
// and, for priced models, its cost.
func TestProviderScenariosReplay(t *testing.T) {
	scenarios := loadProviderScenarios(t)
	rep := harness.Run(context.Background(), scenarios, harness.Options{
		CassetteDir: providerCassettes, GoldenDir: providerGolden, Mode: cassette.ModeReplay,
		Transport: noNetwork{t},
	})
	if got := len(rep.Scenarios); got != len(scenarios) {
		t.Fatalf("report has %d scenarios, want %d", got, len(scenarios))
	}
	wantAllPassed(t, rep)
	for _, s := range rep.Scenarios {
		u := s.Usage
		if u.TotalTokens == 0 || !u.CostKnown {
			t.Errorf("scenario %s: usage %+v: want tokens counted and a known cost", s.Name, u)
		}
		if strings.Contains(s.Name, "emulated") && u.EmulatedModelCalls != 1 {
			t.Errorf("scenario %s: %d emulated model calls, want the emulator's 1", s.Name, u.EmulatedModelCalls)
		}
		if u.CostUSD <= 0 && s.Agent.Model != "openai-compatible:qwen3:0.6b" {
			t.Errorf("scenario %s (%s): cost %v, want a priced run", s.Name, s.Agent.Model, u.CostUSD)
		}
	}
}

// TestProviderScenarioEditedRequestMisses edits a provider scenario next
// to an unchanged copy of its cassette: the replay must fail as an error
// that names the scenario and shows how the request differs from the
// nearest recorded one.
func TestProviderScenarioEditedRequestMisses(t *testing.T) {
	tests := []struct {
		reason, file, oldText, newText string
	}{
		{"a changed prompt is a request the cassette does not hold",
			"openai_tool_call", "What's the weather in Paris right now?", "What's the weather in Paris this evening?"},
		// the description reaches the model twice: in the agent's tool list
		// and in the emulator's prompt; the first request to differ is the
		// agent's, whose diff shows it
		{"a changed description of a model-emulated tool is too",
			"openai_compatible_emulated_tool", "return the best matching passage.", "return the three best passages."},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			editedScenarioMisses(t, tc.file, tc.oldText, tc.newText)
		})
	}
}

func editedScenarioMisses(t *testing.T, file, oldText, newText string) {
	name := "providers/" + file
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(providerDir, file+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(oldText)) {
		t.Fatalf("scenario %s no longer has %q; update this test", name, oldText)
	}
	edited := bytes.Replace(src, []byte(oldText), []byte(newText), 1)
	cas, err := os.ReadFile(filepath.Join(providerCassettes, "providers", file+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string][]byte{
		"scenarios/providers/" + file + ".yaml": edited,
		"cassettes/providers/" + file + ".yaml": cas,
	} {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scenarios, err := harness.LoadDir(filepath.Join(dir, "scenarios"), filepath.Join(dir, "scenarios", "providers"))
	if err != nil {
		t.Fatal(err)
	}
	if len(scenarios) != 1 {
		t.Fatalf("LoadDir found %d scenarios, want 1", len(scenarios))
	}
	res := harness.RunScenario(context.Background(), scenarios[0], harness.Options{
		CassetteDir: filepath.Join(dir, "cassettes"), GoldenDir: filepath.Join(dir, "golden"),
		Transport: noNetwork{t},
	})
	if res.Status != report.StatusError {
		t.Fatalf("status = %s (%s), want %s", res.Status, res.Message, report.StatusError)
	}
	for _, want := range []string{`scenario "` + name + `"`, "closest recorded request"} {
		if !strings.Contains(res.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, res.Message)
		}
	}
	// the diff: the recorded text removed, the edited one added
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^\s*-.*` + regexp.QuoteMeta(oldText)),
		regexp.MustCompile(`(?m)^\s*\+.*` + regexp.QuoteMeta(newText)),
	} {
		if !want.MatchString(res.Message) {
			t.Errorf("message lacks a diff line matching %s:\n%s", want, res.Message)
		}
	}
}

// TestJudgeUsageCounts: a provider judge's call is part of what a run
// cost. The same replay with the judge removed (its recorded call then
// unused, as replay allows) must report one model call, the judge's
// tokens and its cost less.
func TestJudgeUsageCounts(t *testing.T) {
	var judged *harness.Scenario
	for _, s := range loadProviderScenarios(t) {
		if s.Name == "providers/openai_judge" {
			judged = s
		}
	}
	if judged == nil {
		t.Fatal("the corpus has no providers/openai_judge scenario")
	}
	opts := harness.Options{CassetteDir: providerCassettes, GoldenDir: providerGolden, Mode: cassette.ModeReplay, Transport: noNetwork{t}}
	with := harness.Run(context.Background(), []*harness.Scenario{judged}, opts).Scenarios[0]
	bare := *judged
	bare.Expect.Graders = nil
	without := harness.Run(context.Background(), []*harness.Scenario{&bare}, opts).Scenarios[0]
	if with.Status != report.StatusPass || without.Status != report.StatusPass {
		t.Fatalf("status with the judge %s (%s), without %s (%s): want both to pass", with.Status, with.Message, without.Status, without.Message)
	}
	u, v := with.Usage, without.Usage
	if u.JudgeModelCalls != 1 || v.JudgeModelCalls != 0 || u.ModelCalls != v.ModelCalls+1 {
		t.Errorf("model calls %d (judge %d) with the judge, %d (judge %d) without: want the judge's one call more", u.ModelCalls, u.JudgeModelCalls, v.ModelCalls, v.JudgeModelCalls)
	}
	if u.InputTokens <= v.InputTokens || u.OutputTokens <= v.OutputTokens || u.TotalTokens != u.InputTokens+u.OutputTokens {
		t.Errorf("tokens with the judge %+v, without %+v: want the judge's tokens added", u, v)
	}
	if !(u.CostUSD > v.CostUSD) || !u.CostKnown {
		t.Errorf("cost with the judge %v (known %v), without %v: want the judge's cost added", u.CostUSD, u.CostKnown, v.CostUSD)
	}
}
