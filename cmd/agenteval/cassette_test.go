package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCassetteImport(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI("cassette", "import", "-o", out+"/", "testdata/cassettes/vcrpy/chat.yaml")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	dest := filepath.Join(out, "chat.yaml")
	if want := "testdata/cassettes/vcrpy/chat.yaml: vcrpy-httpx, 1 interactions -> " + dest + "\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	data, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"sk-proj-LEAKED", "__cf_bm=abc"} {
		if strings.Contains(string(data), leak) {
			t.Errorf("imported cassette holds %q:\n%s", leak, data)
		}
	}
	if code, _, _ := runCLI("cassette", "check", dest); code != 0 {
		t.Errorf("check of the imported cassette: exit %d", code)
	}

	code, _, stderr = runCLI("cassette", "import", "-o", out+"/", "testdata/cassettes/vcrpy/chat.yaml")
	if code != exitUsage || !strings.Contains(stderr, "already exists (use --force to replace it)") {
		t.Errorf("second import: exit %d, stderr %q; want exit 2 and a hint", code, stderr)
	}
	if code, _, stderr := runCLI("cassette", "import", "--force", "-o", out+"/", "testdata/cassettes/vcrpy/chat.yaml"); code != 0 {
		t.Errorf("import --force: exit %d: %s", code, stderr)
	}
}

func TestCassetteImportNextToTheFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "chat.yaml")
	data, _ := os.ReadFile("testdata/cassettes/vcrpy/chat.yaml")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("cassette", "import", src); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "chat.cassette.yaml")); err != nil {
		t.Errorf("no chat.cassette.yaml next to the input: %v", err)
	}
}

func TestCassetteCommands(t *testing.T) {
	tests := []struct {
		reason   string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{"a clean folder passes", []string{"cassette", "check", "testdata/cassettes/good"}, 0,
			[]string{"1 cassettes checked, 0 with problems\n"}, ""},
		{"a credential is a finding with file, line and field", []string{"cassette", "check", "testdata/cassettes/leaky"}, 1,
			[]string{"testdata/cassettes/leaky/leak.yaml:7: interactions[0].request.headers.Authorization: credential header Authorization is not redacted\n", "1 cassettes checked, 1 with problems\n"}, ""},
		{"a foreign layout is a finding that says what it is", []string{"cassette", "check", "testdata/cassettes/vcrpy"}, 1,
			[]string{"testdata/cassettes/vcrpy/chat.yaml:1: a vcrpy cassette in the httpx layout", "convert it with agenteval cassette import"}, ""},
		{"an empty cassette (a failed recording's leftover) is a finding", []string{"cassette", "check", "testdata/cassettes/empty"}, 1,
			[]string{"testdata/cassettes/empty/failed_recording.yaml:2: interactions: empty: the cassette has no interactions", "1 cassettes checked, 1 with problems\n"}, ""},
		{"a file that is not a cassette is a finding", []string{"cassette", "check", "testdata/cassettes/notacassette.yaml"}, 1,
			[]string{"testdata/cassettes/notacassette.yaml:1: not a cassette: no interactions key (top-level keys: name)"}, ""},
		{"an unreadable path is an input error", []string{"cassette", "check", "testdata/cassettes/nope"}, exitUsage, nil, "no such file or directory"},
		{"check needs a path", []string{"cassette", "check"}, exitUsage, nil, "give at least one folder or file"},
		{"import needs a file", []string{"cassette", "import"}, exitUsage, nil, "give at least one cassette file"},
		{"importing something else is an input error", []string{"cassette", "import", "-o", "/dev/null", "testdata/cassettes/notacassette.yaml"}, exitUsage, nil, "not a cassette: no interactions key"},
		{"usage totals tokens and cost", []string{"cassette", "usage", "testdata/cassettes/good"}, 0,
			[]string{"testdata/cassettes/good/weather.yaml#0 gpt-4o-2024-08-06 in=1000 out=100 total=1100 $0.003500\n", "total: 1 calls, 1000 input + 100 output = 1100 tokens, $0.003500"}, ""},
		{"usage of a foreign layout says to import it", []string{"cassette", "usage", "testdata/cassettes/vcrpy"}, exitUsage, nil, "convert it with agenteval cassette import"},
		{"unknown subcommands are usage errors", []string{"cassette", "frob"}, exitUsage, nil, `unknown command "frob"`},
		{"unknown usage formats are named", []string{"cassette", "usage", "--format", "xml", "testdata/cassettes/good"}, exitUsage, nil, `unknown --format "xml"`},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, out, errOut)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if tc.wantErr != "" && !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, errOut)
			}
		})
	}
}

func TestCassetteUsagePriceOverrideAndJSON(t *testing.T) {
	prices := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(prices, []byte(`{"gpt-4o": {"input": 1, "output": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("cassette", "usage", "--prices", prices, "--format", "json", "testdata/cassettes/good/weather.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var calls []struct {
		Model       string  `json:"model"`
		TotalTokens int     `json:"total_tokens"`
		CostUSD     float64 `json:"cost_usd"`
		Priced      bool    `json:"priced"`
	}
	if err := json.Unmarshal([]byte(out), &calls); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(calls) != 1 || calls[0].Model != "gpt-4o-2024-08-06" || calls[0].TotalTokens != 1100 || calls[0].CostUSD != 0.0011 || !calls[0].Priced {
		t.Errorf("calls = %+v", calls)
	}
}

func TestCassetteHelpHasExamples(t *testing.T) {
	for _, sub := range []string{"import", "check", "usage"} {
		code, out, _ := runCLI("cassette", sub, "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "agenteval cassette "+sub) {
			t.Errorf("cassette %s --help (exit %d) lacks examples:\n%s", sub, code, out)
		}
	}
}
