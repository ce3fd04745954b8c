package eval

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile eval files must each end quickly, in little memory, with a
// clear error, as hostile scenario files do (issue 19, item 3; see
// harness's TestHostileInputs, whose method this follows): each case runs
// in a child process (this test binary again, the case named by
// hostileEnv) under an address-space and CPU limit, so that a regression
// kills the child instead of the machine, and the child fails itself past
// hostileMaxRSS or hostileMaxCPU. Before the bounds, 60 KB of nested "["
// in an eval file ran the child out of memory past 1.4 GB.
const (
	hostileEnv    = "AGENTEVAL_EVAL_HOSTILE_CASE"
	hostileMaxRSS = 200 << 20
	hostileMaxCPU = 2 * time.Second
)

var hostileCases = []struct {
	name, reason string
	doc          func() string
	want         string
}{
	{"nested_flow_400KB", "400 KB of nested [ hung the YAML parser past 120 s at 17 GB",
		func() string {
			return "variants: " + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + "\n"
		}, "x.yaml:1:211: values are nested deeper than 200 levels"},
	{"compact_sequences_400KB", `"- - - - x" nests as deep as [[[[ and costs the parser as much`,
		func() string { return "variants:\n" + strings.Repeat("- ", 200_000) + "x\n" }, "x.yaml:2:403: values are nested deeper than 200 levels"},
	{"alias_bytes_1MB", "a 900 KB string used 2,500 times through two levels of aliases: 2.2 GB of text",
		func() string {
			a1 := strings.TrimSuffix(strings.Repeat("*a0, ", 50), ", ")
			a2 := strings.TrimSuffix(strings.Repeat("*a1, ", 50), ", ")
			return "description: &a0 \"" + strings.Repeat("x", 900_000) + "\"\ntags: &a1 [" + a1 + "]\nvariants: [{name: a, params: {x: [" + a2 + "]}}]\n"
		}, "the file expands to too much text"},
}

func TestHostileEvalFiles(t *testing.T) {
	if c := os.Getenv(hostileEnv); c != "" {
		hostileChild(t, c)
		return
	}
	if testing.Short() {
		t.Skip("runs child processes")
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
			// a generous kill deadline: the child fails itself past
			// hostileMaxCPU; this only stops a child that hangs
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, prlimit, "--as=2147483648", "--cpu=30", "--",
				os.Args[0], "-test.run=^TestHostileEvalFiles$", "-test.v")
			cmd.Env = append(os.Environ(), hostileEnv+"="+tc.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s (%s): child failed: %v\n%.3000s", tc.name, tc.reason, err, out)
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
		_, err := Parse("x.yaml", doc)
		if err == nil {
			t.Fatalf("%s: Parse accepted the file", name)
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: Parse error = %.500s, want it to contain %q", name, msg, tc.want)
		}
		rss, cpu := peakRSS(t), cpuTime(t)
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
