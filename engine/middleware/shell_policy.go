package middleware

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/internal/hostenv"
)

// ShellTempPrefix starts the name of the temporary workspace ShellTool
// makes when it has no workspace root (langchain's SHELL_TEMP_PREFIX).
const ShellTempPrefix = "langchain-shell-"

// ExecutionLimits are the limits every execution policy has
// (langchain's BaseExecutionPolicy). The zero value means langchain's
// defaults once a policy is used: DefaultExecutionLimits.
type ExecutionLimits struct {
	// CommandTimeout bounds each command the agent runs and each shutdown
	// command.
	CommandTimeout time.Duration `json:"command_timeout"`
	// StartupTimeout bounds each startup command.
	StartupTimeout time.Duration `json:"startup_timeout"`
	// TerminationTimeout is how long a stopping shell gets to exit before
	// it is killed.
	TerminationTimeout time.Duration `json:"termination_timeout"`
	// MaxOutputLines is how many lines of a command's output the model
	// sees; it must be positive.
	MaxOutputLines int `json:"max_output_lines"`
	// MaxOutputBytes, when set, is how many bytes of output it sees.
	MaxOutputBytes *int `json:"max_output_bytes"`
}

// DefaultExecutionLimits are langchain's: 30 s per command and per
// startup command, 10 s to terminate, 100 lines, no byte limit.
func DefaultExecutionLimits() ExecutionLimits {
	return ExecutionLimits{CommandTimeout: 30 * time.Second, StartupTimeout: 30 * time.Second, TerminationTimeout: 10 * time.Second, MaxOutputLines: 100}
}

// Validate reports limits langchain refuses.
func (l ExecutionLimits) Validate() error {
	if l.MaxOutputLines <= 0 {
		return errors.New("max_output_lines must be positive.")
	}
	return nil
}

// ExecutionPolicy says how ShellTool starts its shell and with which
// limits (langchain's BaseExecutionPolicy). HostExecutionPolicy,
// DockerExecutionPolicy and CodexSandboxExecutionPolicy implement it.
type ExecutionPolicy interface {
	// limits returns the policy's limits.
	limits() ExecutionLimits
	// spawn returns the command that starts the shell command in
	// workspace with env as its whole environment, not yet started.
	spawn(workspace string, env map[string]string, command []string) (*exec.Cmd, error)
}

// environ turns an environment into exec's form, sorted by name.
func environ(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// HostExecutionPolicy runs the shell directly on this machine, in its own
// process group so that a timeout kills everything a command started
// (langchain's HostExecutionPolicy). It confines nothing: commands reach
// whatever the user running agenteval can.
type HostExecutionPolicy struct {
	ExecutionLimits
	// CPUTimeSeconds and MemoryBytes, when positive, cap the shell's CPU
	// time (RLIMIT_CPU) and address space (RLIMIT_AS), set with ulimit
	// before the shell starts.
	CPUTimeSeconds int `json:"cpu_time_seconds,omitempty"`
	MemoryBytes    int `json:"memory_bytes,omitempty"`
	// NoProcessGroup runs the shell in agenteval's process group
	// (create_process_group=False); then a timeout kills only the shell.
	NoProcessGroup bool `json:"no_process_group,omitempty"`
}

func (p HostExecutionPolicy) limits() ExecutionLimits { return p.ExecutionLimits }

// Validate reports options langchain refuses.
func (p HostExecutionPolicy) Validate() error {
	errs := []error{p.ExecutionLimits.Validate()}
	if p.CPUTimeSeconds < 0 {
		errs = append(errs, errors.New("cpu_time_seconds must be positive if provided."))
	}
	if p.MemoryBytes < 0 {
		errs = append(errs, errors.New("memory_bytes must be positive if provided."))
	}
	return errors.Join(errs...)
}

func (p HostExecutionPolicy) spawn(workspace string, env map[string]string, command []string) (*exec.Cmd, error) {
	argv := command
	if p.CPUTimeSeconds > 0 || p.MemoryBytes > 0 {
		var script []string
		if p.CPUTimeSeconds > 0 {
			script = append(script, "ulimit -t "+strconv.Itoa(p.CPUTimeSeconds))
		}
		if p.MemoryBytes > 0 {
			script = append(script, "ulimit -v "+strconv.Itoa(max(p.MemoryBytes/1024, 1)))
		}
		script = append(script, `exec "$0" "$@"`)
		argv = append([]string{"/bin/sh", "-c", strings.Join(script, " && ")}, command...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = workspace, environ(env)
	if !p.NoProcessGroup {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	return cmd, nil
}

// DockerExecutionPolicy runs the shell in a new Docker container for each
// session (langchain's DockerExecutionPolicy): docker run -i --rm
// --network none ..., the workspace bind-mounted unless it is a temporary
// one. It needs the docker CLI on PATH and a daemon; without them the
// session fails to start with langchain's error.
type DockerExecutionPolicy struct {
	ExecutionLimits
	// Binary is the docker CLI; "" means "docker".
	Binary string `json:"binary,omitempty"`
	// Image is the container image; "" means "python:3.12-alpine3.19".
	Image string `json:"image,omitempty"`
	// KeepContainer leaves the container after exit
	// (remove_container_on_exit=False).
	KeepContainer  bool     `json:"keep_container,omitempty"`
	NetworkEnabled bool     `json:"network_enabled,omitempty"`
	ExtraRunArgs   []string `json:"extra_run_args,omitempty"`
	MemoryBytes    int      `json:"memory_bytes,omitempty"`
	CPUs           string   `json:"cpus,omitempty"`
	ReadOnlyRootFS bool     `json:"read_only_rootfs,omitempty"`
	User           string   `json:"user,omitempty"`
}

func (p DockerExecutionPolicy) limits() ExecutionLimits { return p.ExecutionLimits }

// Validate reports options langchain refuses.
func (p DockerExecutionPolicy) Validate() error {
	errs := []error{p.ExecutionLimits.Validate()}
	if p.MemoryBytes < 0 {
		errs = append(errs, errors.New("memory_bytes must be positive if provided."))
	}
	return errors.Join(errs...)
}

// dockerCommand is the docker run command line (_build_command).
func (p DockerExecutionPolicy) dockerCommand(binary, workspace string, env map[string]string, command []string) []string {
	argv := []string{binary, "run", "-i"}
	if !p.KeepContainer {
		argv = append(argv, "--rm")
	}
	if !p.NetworkEnabled {
		argv = append(argv, "--network", "none")
	}
	if p.MemoryBytes > 0 {
		argv = append(argv, "--memory", strconv.Itoa(p.MemoryBytes))
	}
	if !strings.HasPrefix(filepath.Base(workspace), ShellTempPrefix) {
		argv = append(argv, "-v", workspace+":"+workspace, "-w", workspace)
	} else {
		argv = append(argv, "-w", "/")
	}
	if p.ReadOnlyRootFS {
		argv = append(argv, "--read-only")
	}
	for _, kv := range environ(env) {
		argv = append(argv, "-e", kv)
	}
	if p.CPUs != "" {
		argv = append(argv, "--cpus", p.CPUs)
	}
	if p.User != "" {
		argv = append(argv, "--user", p.User)
	}
	argv = append(argv, p.ExtraRunArgs...)
	image := p.Image
	if image == "" {
		image = "python:3.12-alpine3.19"
	}
	return append(append(argv, image), command...)
}

// dockerVariables are the docker CLI's settings, passed to it from
// agenteval's environment.
var dockerVariables = []string{"DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY"}

func (p DockerExecutionPolicy) spawn(workspace string, env map[string]string, command []string) (*exec.Cmd, error) {
	name := p.Binary
	if name == "" {
		name = "docker"
	}
	binary, err := exec.LookPath(name)
	if err != nil {
		return nil, engine.NewError("RuntimeError", fmt.Sprintf("Docker execution policy requires the '%s' CLI to be installed and available on PATH.", name))
	}
	argv := p.dockerCommand(binary, workspace, env, command)
	cmd := exec.Command(argv[0], argv[1:]...)
	// the docker CLI itself runs with the harmless part of agenteval's
	// environment and its own settings, never a credential (package
	// hostenv); the container gets env only
	cmd.Dir, cmd.Env = workspace, hostenv.Clean(os.Environ(), dockerVariables...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, nil
}

// CodexSandboxExecutionPolicy runs the shell inside the Codex CLI's
// sandbox, codex sandbox <platform> [-c key=value ...] -- <shell>
// (langchain's CodexSandboxExecutionPolicy). It needs the codex CLI on
// PATH; without it the session fails to start with langchain's error.
type CodexSandboxExecutionPolicy struct {
	ExecutionLimits
	// Binary is the codex CLI; "" means "codex".
	Binary string `json:"binary,omitempty"`
	// Platform is "auto" (also ""), "macos" or "linux".
	Platform string `json:"platform,omitempty"`
	// ConfigOverrides are passed as -c key=<JSON value>, sorted by key.
	ConfigOverrides *engine.Object `json:"config_overrides,omitempty"`
}

func (p CodexSandboxExecutionPolicy) limits() ExecutionLimits { return p.ExecutionLimits }

// Validate reports options langchain refuses.
func (p CodexSandboxExecutionPolicy) Validate() error {
	errs := []error{p.ExecutionLimits.Validate()}
	switch p.Platform {
	case "", "auto", "macos", "linux":
	default:
		errs = append(errs, fmt.Errorf("platform: expected 'auto', 'macos' or 'linux', got %q", p.Platform))
	}
	return errors.Join(errs...)
}

// codexCommand is the codex sandbox command line (_build_command).
func (p CodexSandboxExecutionPolicy) codexCommand(binary, platform string, command []string) []string {
	argv := []string{binary, "sandbox", platform}
	if p.ConfigOverrides != nil {
		for _, k := range slices.Sorted(slices.Values(p.ConfigOverrides.Keys())) {
			v, _ := p.ConfigOverrides.Get(k)
			s, err := engine.PyJSON(v)
			if err != nil {
				s = fmt.Sprint(v)
			}
			argv = append(argv, "-c", k+"="+s)
		}
	}
	return append(append(argv, "--"), command...)
}

func (p CodexSandboxExecutionPolicy) spawn(workspace string, env map[string]string, command []string) (*exec.Cmd, error) {
	name := p.Binary
	if name == "" {
		name = "codex"
	}
	binary, err := exec.LookPath(name)
	if err != nil {
		return nil, engine.NewError("RuntimeError", fmt.Sprintf("Codex sandbox policy requires the '%s' CLI to be installed and available on PATH.", name))
	}
	platform := p.Platform
	if platform == "" || platform == "auto" {
		switch runtime.GOOS {
		case "linux":
			platform = "linux"
		case "darwin":
			platform = "macos"
		default:
			return nil, engine.NewError("RuntimeError", "Codex sandbox policy could not determine a supported platform; set 'platform' explicitly.")
		}
	}
	argv := p.codexCommand(binary, platform, command)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = workspace, environ(env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, nil
}
