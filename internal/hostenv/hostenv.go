// Package hostenv builds the environment of the programs agenteval
// starts on the host (command agents, command graders, the file-search
// middleware's ripgrep, the shell middleware's Docker CLI): an allow
// list of harmless variables from agenteval's own environment, and
// nothing else.
//
// The rule is an allow list, not a deny list of credential names,
// because a name cannot be trusted to say what a value is: a deny list
// misses the next provider's name as it missed GEMINI_API_KEY,
// MISTRAL_API_KEY, AWS_SECRET_ACCESS_KEY and HF_TOKEN in the audit of
// issue 37, and DATABASE_URL or a proxy URL with a password in it. An
// allow list fails closed: a variable it does not name never reaches a
// started program. What a program needs beyond the list, its scenario
// names (agent.env sets values, agent.pass_env passes agenteval's
// variables by name).
//
// Allowed, as they are in agenteval's environment:
//
//	the system: PATH, HOME, USER, LOGNAME, SHELL, TMPDIR, TMP, TEMP, TZ,
//	  TERM, LANG, LANGUAGE, LC_* (the locale), XDG_CONFIG_HOME,
//	  XDG_CACHE_HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR
//	Windows: SYSTEMROOT, WINDIR, COMSPEC, PATHEXT, SYSTEMDRIVE,
//	  USERPROFILE, APPDATA, LOCALAPPDATA, PROGRAMDATA, PROGRAMFILES,
//	  PROGRAMFILES(X86), PROGRAMW6432, NUMBER_OF_PROCESSORS,
//	  PROCESSOR_ARCHITECTURE (names compared ignoring case on Windows)
//	certificates: SSL_CERT_FILE, SSL_CERT_DIR
//	toolchains the agent may be run with: GOROOT, GOPATH, GOCACHE,
//	  GOMODCACHE, GOFLAGS, GOTOOLCHAIN, GOENV, VIRTUAL_ENV, PYTHONPATH,
//	  PYTHONHOME, PYTHONUNBUFFERED, NODE_PATH, NODE_OPTIONS
//
// Left out on purpose: every provider's and cloud's variables (OPENAI_*,
// ANTHROPIC_*, GEMINI_*, GOOGLE_*, AZURE_*, MISTRAL_*, AWS_*, HF_*,
// CO_*, GROQ_*, ...), tokens of any kind (GITHUB_TOKEN, NPM_TOKEN),
// proxies (HTTP_PROXY and the rest: their URLs may hold a password, and
// a command agent talks to 127.0.0.1), and GOPROXY (likewise).
package hostenv

import (
	"runtime"
	"slices"
	"strings"
)

// allowed are the variables passed as they are.
var allowed = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TMP", "TEMP", "TZ", "TERM",
	"LANG", "LANGUAGE",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR",
	"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "SYSTEMDRIVE", "USERPROFILE", "APPDATA",
	"LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN", "GOENV",
	"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONUNBUFFERED", "NODE_PATH", "NODE_OPTIONS",
}

// Allowed reports whether the variable name is on the allow list.
func Allowed(name string) bool {
	if runtime.GOOS == "windows" {
		name = strings.ToUpper(name)
	}
	return slices.Contains(allowed, name) || strings.HasPrefix(name, "LC_")
}

// Clean returns the entries of environ (KEY=value, as os.Environ gives
// them) whose names are on the allow list, or in pass (names a scenario
// passes on purpose), in their order.
func Clean(environ []string, pass ...string) []string {
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if ok && k != "" && (Allowed(k) || slices.Contains(pass, k)) {
			out = append(out, kv)
		}
	}
	return out
}
