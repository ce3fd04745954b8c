// Package middleware holds langchain v1's built-in agent middleware for
// engine.CreateAgent, each a value with the hooks it needs (before_model,
// after_model, wrap_model_call, wrap_tool_call, extra tools and state
// keys), reproducing langchain 1.1.3's behaviour and texts. It imports only
// package engine.
//
// Each type names the LangChain class it mirrors: HumanInTheLoop,
// ModelCallLimit, ToolCallLimit, TodoList, ToolRetry, ModelRetry,
// ModelFallback, PII, Summarization, ContextEditing (ClearToolUses),
// LLMToolSelector, LLMToolEmulator, ShellTool (ShellToolMiddleware, with
// HostExecutionPolicy, DockerExecutionPolicy and
// CodexSandboxExecutionPolicy) and FileSearch
// (FilesystemFileSearchMiddleware).
//
// # Building from LangChain options
//
// Build makes a middleware from its LangChain class name and keyword
// options as written in Python, decoded from JSON or YAML, the way
// conformance vectors and scenario files name middleware:
//
//	opts := engine.NewObject("interrupt_on", engine.NewObject("send_email", true))
//	m, err := middleware.Build("HumanInTheLoopMiddleware", opts, middleware.BuildOptions{})
//
// Classes lists the names it knows. Tuples such as ("tokens", 1000) are
// two-element lists; a chat model is named ("model": "summarizer") and
// looked up in BuildOptions.Models, whose "model" is the agent's; a
// callable on_failure is {"template": "{type}: {message}"}; an execution
// policy is its class name or {"type": "HostExecutionPolicy",
// "command_timeout": 5, ...}; a RedactionRule is {"pii_type", "strategy",
// "detector"}. Relative paths (workspace_root, root_path) resolve against
// BuildOptions.Dir. Unset options
// take langchain's defaults, and BuildOptions.LangChain picks the release
// where releases differ. Every bad option is reported at once, naming the
// option's path and what was expected ("edits[0].keep: expected an
// integer, got '3'"); an unknown class wraps ErrUnknownClass.
//
// Deprecated options build as langchain takes them, and the warnings its
// constructors issue reach BuildOptions.Warn with Python's texts:
// SummarizationMiddleware's max_tokens_before_summary and messages_to_keep
// (mapped onto trigger and keep) and ToolRetryMiddleware's on_failure
// "raise" and "return_message" warn with their DeprecationWarning;
// SummarizationMiddleware's summary_prefix is accepted and ignored without
// a warning, as langchain 1.1.3's **deprecated_kwargs swallow it (the
// summary message always starts "Here is a summary of the conversation to
// date:").
//
// # Deliberate differences from LangChain
//
//   - Waits (retry backoff) go through the run's engine.Clock and jitter
//     comes from a seeded stream per call, so tests with long backoffs run
//     instantly and reproducibly.
//   - Interrupts and cancellation pass through retries and fallbacks
//     untouched (langchain 1.1.3's `except Exception` would retry an
//     interrupt or fall back on it).
//   - Options are checked when a middleware is built: an unknown strategy,
//     an invalid pattern, a negative limit or a summary prompt with
//     unknown fields fails at construction, naming the option. An unknown
//     option fails too, where SummarizationMiddleware's **deprecated_kwargs
//     would swallow any keyword without a word (summary_prefix, which it
//     swallows the same way, is accepted).
//   - PII custom patterns use RE2 syntax (no lookarounds or
//     backreferences); the built-in detectors follow Python's Unicode \b
//     rules with a small matcher of their own; match offsets are bytes.
//   - A callable on_failure is given as a template with {type} and
//     {message}.
//   - There is no init_chat_model: the emulator and summarizer models are
//     passed explicitly; model context sizes come from a ModelProfile
//     interface or a MaxInputTokens option.
//   - TodoList's guard against parallel write_todos calls, which later
//     langchain releases added, is an option (RejectParallelWrites); 1.1.3
//     has no such guard and fails on two parallel writes.
//   - HumanInTheLoop rejects malformed resume values (decisions that are
//     not a list, edited args that are not a dict) at once with a clear
//     error; an empty description or prefix means the default.
//   - ToolCallLimit lists pending tool names in call order where langchain
//     joins a Python set (run-to-run order varies).
//   - ShellTool follows langchain's shell_tool.py texts and its quirks: a
//     command whose output does not end in a newline times out (the done
//     marker lands mid-line), and without env the shell gets an empty
//     environment. It differs where langchain's result depends on timing:
//     the command's stderr is read up to a second marker, so stderr lines
//     are never lost to a race with the stdout marker (the order of
//     stdout lines against stderr lines still follows the pipes); a
//     command that times out, or a shell that exits, is answered at once
//     instead of after the rest of the timeout, and a timed-out shell is
//     killed at once instead of being sent "exit" and given
//     termination_timeout. When a session stops, everything left in its
//     process group is killed, and ShellTool.Close stops the sessions of
//     runs that never reached after_agent (langchain leaves them to the
//     garbage collector). Host cpu/memory limits are set with ulimit
//     before the shell starts (langchain uses prlimit on Linux). Match
//     offsets in redaction artifacts are bytes. The Docker and Codex
//     policies build langchain's command lines but are untested here: this
//     project starts neither a Docker daemon nor the Codex CLI.
//   - FileSearch's tool descriptions are the docstrings as Python 3.13
//     keeps them (earlier Pythons keep 12 spaces of indentation on the
//     continuation lines). glob_search lists files sorted by path:
//     langchain returns pathlib's directory order, which varies by file
//     system (its docstring promises modification time, its code does
//     not sort). Globs follow Python 3.13's pathlib (a final "**" matches
//     every file below). The Go search matches lines with RE2 after
//     turning \d, \s, \w into Python's Unicode classes, and with the
//     backtracking matcher of PII when the pattern has \b or \B; patterns
//     RE2 cannot parse (lookarounds, backreferences) answer "Invalid regex
//     pattern: " with Go's error text, which also words the errors of
//     patterns both refuse. Files are read as UTF-8 (Python uses the
//     locale's encoding). ripgrep, when used, gets its own regex syntax,
//     as in langchain.
package middleware
