package harness

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile inputs must each end quickly, in little memory, with a clear
// error (issue 19, item 3). Each case runs in a child process (this test
// binary again, the case named by hostileEnv) under an address-space and
// CPU limit, so that a regression kills the child instead of the machine;
// the child measures its own peak resident memory and CPU time and fails
// past hostileMaxRSS or hostileMaxCPU.
const (
	hostileEnv    = "AGENTEVAL_HOSTILE_CASE"
	hostileMaxRSS = 200 << 20
	hostileMaxCPU = 2 * time.Second
)

// hostileCases are the inputs of issue 19 that exhausted the machine before
// the limits, each with the text its error must contain.
var hostileCases = []struct {
	name   string
	reason string
	doc    func() string
	want   string
}{
	{
		name:   "nested_flow_400KB",
		reason: "400 KB of nested [ hung the YAML parser past 120 s at 17 GB",
		doc: func() string {
			return "turns: " + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + "\n"
		},
		want: "x.yaml:1:208: values are nested deeper than 200 levels",
	},
	{
		name:   "compact_sequences_400KB",
		reason: `"- - - - x" nests as deep as [[[[ and costs the parser as much`,
		doc: func() string {
			return "turns:\n" + strings.Repeat("- ", 200_000) + "x\n"
		},
		want: "x.yaml:2:403: values are nested deeper than 200 levels",
	},
	{
		name:   "alias_bytes_1MB",
		reason: "aliases of a long string were counted as one value each: 900 KB of YAML expanded to 2.2 GB of text",
		doc: func() string {
			a0 := "description: &a0 \"" + strings.Repeat("x", 900_000) + "\"\n"
			a1 := strings.TrimSuffix(strings.Repeat("*a0, ", 50), ", ")
			a2 := strings.TrimSuffix(strings.Repeat("*a1, ", 50), ", ")
			return a0 + `script: {responses: [{content: "", tool_calls: [{name: t, args: {}, id: c1}]}, {content: done}]}
tools:
  - name: t
    results:
      - {when: {never: 1}, return: &a1 [` + a1 + `]}
      - return: [` + a2 + `]
turns: [{user: hi}]
`
		},
		want: "the file expands to too much text",
	},
	{
		name:   "alias_values_1MB",
		reason: "a billion laughs of small values, padded to 1 MB: the count of values refused it before too, in less memory than the bytes case",
		doc: func() string {
			var b strings.Builder
			b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
			for i := 1; i < 12; i++ {
				fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
			}
			b.WriteString("# " + strings.Repeat("pad ", 250_000) + "\n")
			b.WriteString("turns: [{user: hi}]\n")
			return b.String()
		},
		want: "the file expands to too many values",
	},
	{
		name:   "emulated_min_items",
		reason: "minItems: 100000000 in an emulated output schema ran out of memory at load",
		doc: func() string {
			return `script: {responses: [{content: hi}]}
tools:
  - name: t
    emulate: {output: {type: array, minItems: 100000000, items: {type: string}}}
turns: [{user: hi}]
`
		},
		want: "x.yaml:4:23: tools[0].emulate.output: no value can be generated from this schema: emulator: $: minItems 100000000: the value would be too large",
	},
	{
		name:   "emulated_min_length",
		reason: "minLength: 1000000000 would pad a string to a gigabyte",
		doc: func() string {
			return `script: {responses: [{content: hi}]}
tools:
  - name: t
    emulate: {output: {type: string, minLength: 1000000000}}
turns: [{user: hi}]
`
		},
		want: "the value would be too large",
	},
	{
		name:   "recursion_limit_2e9",
		reason: "recursion_limit: 2000000000 with a looping tool ran out of memory in the scripted model's request log",
		doc: func() string {
			return `agent: {recursion_limit: 2000000000}
script:
  responses: []
  then: {repeat: {content: "", tool_calls: [{name: t, args: {}, id: "c{n}"}]}}
tools: [{name: t, results: [{return: again}]}]
turns: [{user: go}]
`
		},
		want: "x.yaml:1:26: agent.recursion_limit: 2000000000 is above the cap of 100000 supersteps",
	},
}

func TestHostileInputs(t *testing.T) {
	if c := os.Getenv(hostileEnv); c != "" {
		hostileChild(t, c)
		return
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	if raceEnabled {
		t.Skip("the race detector reserves more address space than the children's 2 GiB limit allows: .ci/run runs this test without it")
	}
	if runtime.GOOS != "linux" {
		t.Skip("measures the child with /proc and prlimit")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit")
	}
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			// A generous kill deadline: the child fails itself past
			// hostileMaxCPU; this only stops a child that hangs.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, prlimit, "--as=2147483648", "--cpu=30", "--",
				os.Args[0], "-test.run=^TestHostileInputs$", "-test.v")
			cmd.Env = append(os.Environ(), hostileEnv+"="+tc.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s (%s): child failed: %v\n%s", tc.name, tc.reason, err, out)
			}
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, "hostile:") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}

// hostileChild parses one hostile case and checks its error, its peak
// memory and its CPU time.
func hostileChild(t *testing.T, name string) {
	for _, tc := range hostileCases {
		if tc.name != name {
			continue
		}
		doc := []byte(tc.doc())
		runtime.GC()
		s, err := Parse("x.yaml", doc)
		if err == nil {
			s.Name = "x"
			res := RunScenario(t.Context(), s, Options{GoldenDir: t.TempDir()})
			t.Fatalf("%s: Parse accepted the file; the run ended %s: %.300s", name, res.Status, res.Message)
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: Parse error = %.500s, want it to contain %q", name, msg, tc.want)
		}
		rss := peakRSS(t)
		cpu := cpuTime(t)
		t.Logf("hostile: %s: %d KB of YAML: peak RSS %d MB, CPU %v: %.160s", name, len(doc)>>10, rss>>20, cpu.Round(time.Millisecond), msg)
		if rss > hostileMaxRSS {
			t.Errorf("%s: peak RSS %d MB, want at most %d MB", name, rss>>20, hostileMaxRSS>>20)
		}
		if cpu > hostileMaxCPU {
			t.Errorf("%s: CPU time %v, want at most %v", name, cpu, hostileMaxCPU)
		}
		return
	}
	t.Fatalf("no hostile case %q", name)
}

// peakRSS is the process's peak resident set (VmHWM).
func peakRSS(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// cpuTime is the user and system time the process has used.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
