package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/serve"
)

// echoAgent is a command agent in Python's standard library: it asks
// AGENTEVAL_MODEL with its STYLE as the system prompt and answers with
// what the model said and its variant.
const echoAgent = `import json, os, sys, urllib.request
for line in sys.stdin:
    user = json.loads(line)["user"]
    body = {"model": os.environ["AGENTEVAL_MODEL"], "messages": [
        {"role": "system", "content": os.environ.get("STYLE", "none")},
        {"role": "user", "content": user}]}
    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
    said = json.load(urllib.request.urlopen(req))["choices"][0]["message"]["content"]
    print(json.dumps({"output": said + " [" + os.environ["AGENTEVAL_VARIANT"] + "]"}), flush=True)
`

// echoModel is a local OpenAI-compatible model: it answers with the model
// asked for and the system prompt it got, so two variants that differ in
// them record different answers.
type echoModel struct{}

func (echoModel) Answer(_ context.Context, req *serve.Request) (serve.Reply, error) {
	system := ""
	if len(req.Messages) > 0 {
		system = req.Messages[0].Text()
	}
	return serve.Reply{Turn: &serve.Turn{Text: fmt.Sprintf("%s says %s", req.Model, system)}}, nil
}

// onlyHost carries requests to one host and refuses any other, noting
// it: a record run must send nothing to a host no variant names.
type onlyHost struct {
	host   string
	mu     sync.Mutex
	others []string
}

func (o *onlyHost) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != o.host {
		o.mu.Lock()
		o.others = append(o.others, req.URL.String())
		o.mu.Unlock()
		return nil, errors.New("refused: not the host the variant names")
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestEvalCommandAgentVariants is the done-when of variants that reach a
// command agent: two variants that differ only in env and model record
// different trials from a local OpenAI-compatible server named by the
// variants' base_url (the scenario's own model, at api.openai.com, is
// unreachable and never asked), then replay offline to the same report at
// --parallel 1 and 8, byte for byte.
func TestEvalCommandAgentVariants(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the command agent of this test is a Python program")
	}
	t.Parallel()
	srv, err := serve.New(serve.Options{Source: echoModel{}})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(srv)
	defer up.Close()
	upURL, _ := url.Parse(up.URL)

	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"agent.py": echoAgent,
		"scenarios/echo.yaml": `agent:
  kind: command
  command: [python3, ../agent.py]
  model: "openai:gpt-4.1-mini"
  timeout: 30s
turns: [{user: hi}]
expect:
  final: {contains: [says]}
`,
		"eval.yaml": `trials: 1
variants:
  - name: plain
    model: "openai-compatible:qwen3"
    base_url: "` + up.URL + `/v1"
    env: {STYLE: plain}
  - name: terse
    model: "openai-compatible:llama3"
    base_url: "` + up.URL + `/v1"
    env: {STYLE: terse}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Prepare(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := &onlyHost{host: upURL.Host}
	recorded := Run(context.Background(), plan, Options{Mode: cassette.ModeRecord, Transport: tr, Parallel: 2,
		LookupEnv: func(string) (string, bool) { return "", false }})
	if len(tr.others) > 0 {
		t.Errorf("the record run sent requests to hosts no variant names: %v", tr.others)
	}
	finals := map[string]string{}
	for _, c := range recorded.Cells {
		for _, tl := range c.Trials {
			if tl.Status != "pass" {
				t.Fatalf("recording %s trial %d: %s %s", c.Variant, tl.Index, tl.Status, tl.Message)
			}
			finals[c.Variant] = tl.Final
		}
	}
	want := map[string]string{"plain": "qwen3 says plain [plain]", "terse": "llama3 says terse [terse]"}
	if fmt.Sprint(finals) != fmt.Sprint(want) {
		t.Errorf("the variants' trials answered %v, want %v: env, model and variant name must reach the program", finals, want)
	}
	up.Close()

	var reports [2][]byte
	for i, parallel := range []int{1, 8} {
		r := evalreport.StripTiming(Run(context.Background(), plan, Options{Transport: offlineTransport{t}, Parallel: parallel}))
		var b bytes.Buffer
		if err := evalreport.WriteJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		if r.Failed() {
			t.Fatalf("replay at --parallel %d failed:\n%s", parallel, b.String())
		}
		reports[i] = b.Bytes()
	}
	if !bytes.Equal(reports[0], reports[1]) {
		t.Errorf("the replayed reports differ between --parallel 1 and 8:\n%s\n---\n%s", reports[0], reports[1])
	}
	var rep struct {
		Cells []struct{ Variant string } `json:"cells"`
	}
	if err := json.Unmarshal(reports[0], &rep); err != nil || len(rep.Cells) != 2 {
		t.Errorf("the replayed report has %d cells (%v), want 2", len(rep.Cells), err)
	}

	// a prompt cannot reach the program: a load error at the field
	prompt := strings.Replace(files["eval.yaml"], "    env: {STYLE: terse}\n", "    env: {STYLE: terse}\n    prompt: Be terse.\n", 1)
	pf, err := Parse(filepath.Join(dir, "eval.yaml"), []byte(prompt))
	if err == nil {
		_, err = Prepare(pf)
	}
	if err == nil || !strings.Contains(err.Error(), "eval.yaml:11:13: variants[1].prompt: scenario echo runs a command agent") {
		t.Errorf("a prompt on a command agent's variant: %v, want a load error at variants[1].prompt", err)
	}
}

// offlineTransport fails the test on any request: replay never touches
// the network.
type offlineTransport struct{ t *testing.T }

func (o offlineTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	o.t.Errorf("replay sent a request to %s", req.URL)
	return nil, errors.New("offline")
}

// TestEvalVariantBaseURLRecordsOnlyThere: for the engine's own agent too,
// a record run sends a variant's model requests to the base_url it names
// and nowhere else (the scenario's openai model at its public endpoint is
// refused by the transport).
func TestEvalVariantBaseURLRecordsOnlyThere(t *testing.T) {
	t.Parallel()
	srv, err := serve.New(serve.Options{Source: echoModel{}})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(srv)
	defer up.Close()
	upURL, _ := url.Parse(up.URL)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	scenario := "agent: {model: \"openai:gpt-4.1-mini\", prompt: Be brief.}\nturns: [{user: hi}]\nexpect:\n  final: {contains: [says]}\n"
	evalFile := "trials: 1\nvariants:\n  - name: local\n    base_url: \"" + up.URL + "/v1\"\n"
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "hi.yaml"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "eval.yaml"), []byte(evalFile), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Prepare(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := &onlyHost{host: upURL.Host}
	r := Run(context.Background(), plan, Options{Mode: cassette.ModeRecord, Transport: tr, Parallel: 1,
		LookupEnv: func(k string) (string, bool) { return "sk-test", k == "OPENAI_API_KEY" }})
	if len(tr.others) > 0 {
		t.Errorf("the record run sent requests to hosts the variant does not name: %v", tr.others)
	}
	if len(srv.Exchanges()) == 0 {
		t.Errorf("the local server named by the variant's base_url got no request")
	}
	for _, c := range r.Cells {
		for _, tl := range c.Trials {
			if tl.Status != "pass" {
				t.Errorf("trial %d: %s %s", tl.Index, tl.Status, tl.Message)
			}
		}
	}
}
