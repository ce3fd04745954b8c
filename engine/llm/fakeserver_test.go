package llm_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine/llm/llmtest"
)

// The fake servers below (llmtest's, scripted) answer the weather
// exchange: turn 1 returns two parallel get_weather calls, turn 2 —
// which must carry both tool results — returns text. A question
// containing "fail" gets an error status instead. At cleanup the test
// fails if a request broke a server's checks (key, JSON body, the turn's
// Check) or if a turn was never asked for.

const testKey = "sk-proj-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
const testAnthropicKey = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"

// fakeServer is a scripted provider served on a random local port.
type fakeServer struct {
	*httptest.Server
	script *llmtest.Server
}

// Bodies returns the bodies of the requests the server received.
func (f *fakeServer) Bodies() [][]byte {
	var out [][]byte
	for _, r := range f.script.Requests() {
		out = append(out, r.Body)
	}
	return out
}

func serve(t *testing.T, s *llmtest.Server) *fakeServer {
	t.Helper()
	f := &fakeServer{Server: httptest.NewServer(s), script: s}
	t.Cleanup(func() {
		f.Close()
		if err := s.Err(); err != nil {
			t.Errorf("fake server saw bad requests:\n%v", err)
		}
		if n := s.Remaining(); n > 0 {
			t.Errorf("fake server: %d scripted turns never asked for", n)
		}
	})
	return f
}

// toolResults counts the tool results a request carries back, in either
// wire format, and returns how many messages it has.
func toolResults(r llmtest.Request) (results, messages int) {
	msgs := r.Messages()
	for _, m := range msgs {
		if m["role"] == "tool" {
			results++
		}
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			if bo, ok := b.(map[string]any); ok && bo["type"] == "tool_result" {
				results++
			}
		}
	}
	return results, len(msgs)
}

// newOpenAIServer serves the weather exchange in the Chat Completions
// format at /v1/chat/completions.
func newOpenAIServer(t *testing.T, question string) *fakeServer {
	if strings.Contains(question, "fail") {
		return serve(t, llmtest.NewOpenAI(testKey, llmtest.Turn{Error: &llmtest.Error{Status: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "Rate limit reached for gpt-test"}}))
	}
	return serve(t, llmtest.NewOpenAI(testKey,
		llmtest.Turn{Model: "gpt-test-2026", ToolCalls: []llmtest.ToolCall{
			{ID: "call_a", Name: "get_weather", Args: `{"city": "Paris"}`},
			{ID: "call_b", Name: "get_weather", Args: `{"city": "London"}`},
		}, Usage: llmtest.Usage{Input: 50, Output: 20}},
		llmtest.Turn{Model: "gpt-test-2026", Text: "Paris is sunny; London is rainy.", Usage: llmtest.Usage{Input: 90, Output: 9},
			Check: func(r llmtest.Request) error {
				if n, _ := toolResults(r); n != 2 {
					return fmt.Errorf("want 2 tool messages, got %d", n)
				}
				return nil
			}},
	))
}

// newAnthropicServer serves the weather exchange in the Messages format
// at /v1/messages, with a text block before the tool calls and cache
// reads in the first answer's usage.
func newAnthropicServer(t *testing.T, question string) *fakeServer {
	if strings.Contains(question, "fail") {
		return serve(t, llmtest.NewAnthropic(testAnthropicKey, llmtest.Turn{Error: &llmtest.Error{Status: 529, Type: "overloaded_error", Message: "Overloaded"}}))
	}
	return serve(t, llmtest.NewAnthropic(testAnthropicKey,
		llmtest.Turn{Model: "claude-test-2026", Text: "Let me check both.", ToolCalls: []llmtest.ToolCall{
			{ID: "toolu_a", Name: "get_weather", Args: `{"city": "Paris"}`},
			{ID: "toolu_b", Name: "get_weather", Args: `{"city": "London"}`},
		}, Usage: llmtest.Usage{Input: 40, CacheRead: 10, Output: 30}},
		llmtest.Turn{Model: "claude-test-2026", Text: "Paris is sunny; London is rainy.", Usage: llmtest.Usage{Input: 80, Output: 9},
			Check: func(r llmtest.Request) error {
				if n, msgs := toolResults(r); n != 2 || msgs != 3 {
					return fmt.Errorf("want 2 tool results in one user turn after the assistant turn, got %d results in %d turns", n, msgs)
				}
				return nil
			}},
	))
}
