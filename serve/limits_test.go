package serve_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/serve"
)

// TestRequestBodyLimit: a body past Options.MaxRequestBytes is answered
// 413 in the provider's layout and logged as a problem, without being
// read whole; a body within it is read. Before the bound every body was
// read whole (io.ReadAll), so a client could make the server hold any
// amount of memory.
func TestRequestBodyLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason     string
		body       string
		anthropic  bool
		wantStatus int
		wantBody   string
	}{
		{"a body one byte past the limit is Anthropic's 413 request_too_large", `{"model":"` + strings.Repeat("x", 1013) + `"}`, true, 413,
			`{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."},"request_id":"req_1"}`},
		{"the OpenAI protocols answer it in OpenAI's layout", strings.Repeat(" ", 4096) + "{}", false, 413,
			`{"error":{"message":"Request exceeds the maximum allowed number of bytes.","type":"invalid_request_error","param":null,"code":null}}`},
		{"a body of exactly the limit is read (and refused for what it says)", `{"model":"` + strings.Repeat("x", 1012) + `"}`, true, 400, ""},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			srv, ts := start(t, serve.Options{Source: serve.NewReplayOrdered(&cassette.Cassette{Path: "test.yaml"}), MaxRequestBytes: 1024}, true)
			path := "/v1/chat/completions"
			if tc.anthropic {
				path = "/v1/messages"
			}
			req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(tc.body))
			if tc.anthropic {
				req.Header.Set("Anthropic-Version", "2023-06-01")
			}
			client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || tc.wantBody != "" && string(body) != tc.wantBody {
				t.Errorf("answer = %d %s\nwant     %d %s", resp.StatusCode, body, tc.wantStatus, tc.wantBody)
			}
			if tc.wantStatus == 413 {
				if err := srv.Err(); err == nil || !strings.Contains(err.Error(), "the body is larger than 1024 bytes, the limit (Options.MaxRequestBytes)") {
					t.Errorf("Err() = %v, want the refused body named with the limit", err)
				}
			}
		})
	}
}
