package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const serveScenario = `description: one scripted answer
agent:
  model: scripted
script:
  responses:
    - content: Hello from the script.
turns:
  - user: hi
`

// TestServeCommand starts `agenteval serve` in process, reads the base
// URLs it prints, asks one question, and interrupts it: the answer is the
// script's and the summary on stderr counts the request.
func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hello.yaml")
	if err := os.WriteFile(path, []byte(serveScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		code := run(ctx, []string{"serve", "--scenario", path}, strings.NewReader(""), pw, &stderr)
		pw.Close()
		done <- code
	}()
	lines := bufio.NewScanner(pr)
	var urls []string
	for len(urls) < 2 && lines.Scan() {
		urls = append(urls, lines.Text())
	}
	go io.Copy(io.Discard, pr)
	if len(urls) != 2 || !strings.HasPrefix(urls[0], "OPENAI_BASE_URL=http://127.0.0.1:") || !strings.HasSuffix(urls[0], "/v1") || !strings.HasPrefix(urls[1], "ANTHROPIC_BASE_URL=http://127.0.0.1:") {
		t.Fatalf("stdout = %q, want the two base URLs", urls)
	}
	base := strings.TrimPrefix(urls[0], "OPENAI_BASE_URL=")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	resp, err := client.Post(base+"/chat/completions", "application/json", strings.NewReader(`{"model":"any","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"content":"Hello from the script."`) {
		t.Errorf("answer = %d %s, want the script's", resp.StatusCode, body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d, want 0; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop on interrupt")
	}
	if !strings.Contains(stderr.String(), "1 requests\n") {
		t.Errorf("stderr = %q, want the summary", stderr.String())
	}
}

func TestServeCommandUsage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hello.yaml")
	if err := os.WriteFile(path, []byte(serveScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		reason   string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"--help gives the recipe for pointing an agent at it", []string{"serve", "--help"}, 0, "export OPENAI_BASE_URL=http://127.0.0.1:8089/v1", ""},
		{"no scenario is a usage error", []string{"serve"}, exitUsage, "", "--scenario is required"},
		{"an unknown mode is a usage error", []string{"serve", "--scenario", path, "--mode", "live"}, exitUsage, "", `unknown --mode "live"`},
		{"replay without a cassette says which file is missing", []string{"serve", "--scenario", path, "--mode", "replay"}, exitUsage, "", "hello.cassette.yaml"},
		{"a busy or bad address is reported", []string{"serve", "--scenario", path, "--addr", "256.0.0.1:1"}, exitUsage, "", "listen on 256.0.0.1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			if code != tc.wantCode || !strings.Contains(out, tc.wantOut) || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("run(%q) = %d\nstdout: %s\nstderr: %s\nwant %d, stdout with %q, stderr with %q", tc.args, code, out, errOut, tc.wantCode, tc.wantOut, tc.wantErr)
			}
		})
	}
}

// TestServeRecipeInReadme keeps the three-line recipe for pointing an
// existing agent at agenteval the same in `agenteval serve --help` and
// in the README, where a user looks first.
func TestServeRecipeInReadme(t *testing.T) {
	_, help, _ := runCLI("serve", "--help")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var recipe []string
	for _, line := range strings.Split(help, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "agenteval serve --scenario ") && strings.HasSuffix(l, " --addr 127.0.0.1:8089 &") ||
			strings.HasPrefix(l, "export OPENAI_BASE_URL=") || strings.HasPrefix(l, "node agent.mjs") {
			recipe = append(recipe, l)
		}
	}
	if len(recipe) != 3 {
		t.Fatalf("serve --help has %d lines of the recipe, want 3:\n%s", len(recipe), help)
	}
	block := "```sh\n" + strings.Join(recipe, "\n") + "\n```"
	if !strings.Contains(string(readme), block) {
		t.Errorf("README.md lacks the recipe of serve --help:\n%s", block)
	}
}
