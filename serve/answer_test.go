package serve_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/serve"
)

// TestExchangeAnswer reads every protocol's answer back, JSON and
// streamed, into the AI message the script prescribed: the text, the
// tool calls with their arguments, the response id.
func TestExchangeAnswer(t *testing.T) {
	bodies := map[serve.Protocol]string{
		serve.OpenAIChat:      `{"model": "m", %s"messages": [{"role": "user", "content": "hi"}]}`,
		serve.OpenAIResponses: `{"model": "m", %s"input": "hi"}`,
		serve.Messages:        `{"model": "m", %s"max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}`,
	}
	paths := map[serve.Protocol]string{serve.OpenAIChat: "/v1/chat/completions", serve.OpenAIResponses: "/v1/responses", serve.Messages: "/v1/messages"}
	type answer struct {
		ID, Text string
		Calls    []string
	}
	for _, p := range []serve.Protocol{serve.OpenAIChat, serve.OpenAIResponses, serve.Messages} {
		for _, stream := range []bool{false, true} {
			name := p.String()
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				srv, ts := start(t, serve.Options{Source: serve.NewScript(weatherScript(t))}, false)
				flag := ""
				if stream {
					flag = `"stream": true, `
				}
				body := strings.Replace(bodies[p], "%s", flag, 1)
				resp, err := http.Post(ts.URL+paths[p], "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				// read to the end: a stream is logged as it is sent
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				xs := srv.Exchanges()
				m, err := xs[0].Answer()
				if err != nil {
					t.Fatal(err)
				}
				got := answer{ID: m.ID, Text: m.Text()}
				for _, c := range m.ToolCalls {
					args, _ := engine.PyJSON(c.Args)
					got.Calls = append(got.Calls, c.ID+" "+c.Name+" "+args)
				}
				want := answer{ID: "ai1", Text: "Checking both.", Calls: []string{`call_a get_weather {"city": "Paris", "days": 2}`, `call_b get_weather {"city": "London"}`}}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Answer() mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}
