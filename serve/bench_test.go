package serve_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

// The benchmarks compare a non-streamed Chat Completions call answered
// through serve with the same scripted answer taken in process. The
// issue's target: p50 overhead ≤ 200 µs and ≥ 5,000 requests/s on 2
// cores. Run them with
//
//	go test ./serve -run '^$' -bench . -benchtime 3s
//
// and read p50-µs (per call, sequential) and req/s (parallel clients).

func benchScript(b *testing.B) llm.Script {
	s, err := llm.ParseScript([]byte(`{"then": {"repeat": {"content": "", "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_{n}"}],
	  "usage": {"input_tokens": 50, "output_tokens": 20}}}}`))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchMessages is a short conversation: system, question, a tool
// round trip.
func benchMessages() []engine.Message {
	call := engine.ToolCall{ID: "call_0", Name: "get_weather", Args: &engine.Object{}}
	return []engine.Message{
		engine.SystemMessage("You are a weather assistant."),
		engine.HumanMessage("What is the weather in Paris?"),
		engine.AIMessage("", call),
		engine.ToolMessage(engine.Text("sunny, 21 °C"), "get_weather", "call_0"),
	}
}

// benchBody is the wire request engine/llm's OpenAI client sends for
// benchMessages.
const benchBody = `{"messages":[{"content":"You are a weather assistant.","role":"system"},{"content":"What is the weather in Paris?","role":"user"},{"content":"","tool_calls":[{"id":"call_0","function":{"arguments":"{}","name":"get_weather"},"type":"function"}],"role":"assistant"},{"content":"sunny, 21 °C","tool_call_id":"call_0","role":"tool"}],"model":"gpt-4.1-mini","tools":[{"function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}},"type":"function"}]}`

func reportP50(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	if len(d) > 0 {
		b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1e3, "p50-µs")
	}
}

// BenchmarkDirectScripted is the baseline: the scripted model in
// process, no HTTP.
func BenchmarkDirectScripted(b *testing.B) {
	m := llm.NewScripted("m", benchScript(b))
	req := engine.ModelRequest{Messages: engine.NewMessageList(benchMessages()...)}
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := m.Generate(ctx, req); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportP50(b, lat)
}

// BenchmarkServeChatEngineClient is the same call through serve, made
// by engine/llm's OpenAI client (openai-go underneath) over loopback:
// the latency an agent sees; its p50 minus the direct one is serve's
// added latency, the SDK's own cost included.
func BenchmarkServeChatEngineClient(b *testing.B) {
	srv, err := serve.New(serve.Options{Source: serve.NewScript(benchScript(b))})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	zero := 0
	m, err := llm.New("openai:gpt-4.1-mini", llm.Options{APIKey: "sk-bench", BaseURL: ts.URL + "/v1", LookupEnv: noEnv, MaxRetries: &zero})
	if err != nil {
		b.Fatal(err)
	}
	req := engine.ModelRequest{Messages: engine.NewMessageList(benchMessages()...)}
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := m.Generate(ctx, req); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportP50(b, lat)
}

// BenchmarkServeChatRaw posts a fixed body with a bare HTTP client, so
// the figure is serve's (and loopback HTTP's) alone; sequential for
// p50, parallel for requests per second.
func BenchmarkServeChatRaw(b *testing.B) { benchRaw(b, benchBody) }

// BenchmarkServeChatStreamRaw is BenchmarkServeChatRaw with the answer
// streamed (stream_options.include_usage set): six events, each written
// and flushed in its own HTTP chunk, read to the end.
func BenchmarkServeChatStreamRaw(b *testing.B) { benchRaw(b, benchStreamBody) }

// benchStreamBody is benchBody asking for a stream with usage.
var benchStreamBody = strings.Replace(benchBody, `"model":"gpt-4.1-mini"`, `"model":"gpt-4.1-mini","stream":true,"stream_options":{"include_usage":true}`, 1)

func benchRaw(b *testing.B, body string) {
	srv, err := serve.New(serve.Options{Source: serve.NewScript(benchScript(b))})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	post := func() {
		resp, err := client.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.Run("sequential", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		for b.Loop() {
			t0 := time.Now()
			post()
			lat = append(lat, time.Since(t0))
		}
		reportP50(b, lat)
	})
	b.Run("parallel", func(b *testing.B) {
		b.SetParallelism(4)
		t0 := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				post()
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "req/s")
	})
}

// BenchmarkServeChatStreamEngineClient is BenchmarkServeChatEngineClient
// with the answer streamed: engine/llm's OpenAI client assembles the
// events into the message, as an agent that streams does.
func BenchmarkServeChatStreamEngineClient(b *testing.B) {
	srv, err := serve.New(serve.Options{Source: serve.NewScript(benchScript(b))})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	zero := 0
	m, err := llm.New("openai:gpt-4.1-mini", llm.Options{APIKey: "sk-bench", BaseURL: ts.URL + "/v1", LookupEnv: noEnv, MaxRetries: &zero, Stream: true})
	if err != nil {
		b.Fatal(err)
	}
	req := engine.ModelRequest{Messages: engine.NewMessageList(benchMessages()...)}
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		msg, err := m.Generate(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if len(msg.ToolCalls) != 1 {
			b.Fatalf("streamed answer %v, want one tool call", msg)
		}
		lat = append(lat, time.Since(t0))
	}
	reportP50(b, lat)
}

// BenchmarkServeHTTPInProcess is serve's own work per request — reading
// the body, the script, writing the answer, the log — without sockets:
// the server's share of the added latency, which a loaded machine
// inflates least.
func BenchmarkServeHTTPInProcess(b *testing.B) {
	srv, err := serve.New(serve.Options{Source: serve.NewScript(benchScript(b))})
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "http://serve.test/v1/chat/completions", bytes.NewReader([]byte(benchBody)))
		w := httptest.NewRecorder()
		t0 := time.Now()
		srv.ServeHTTP(w, req)
		lat = append(lat, time.Since(t0))
		if w.Code != 200 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	reportP50(b, lat)
}
