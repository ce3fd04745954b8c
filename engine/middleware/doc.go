// Package middleware holds langchain v1's built-in agent middleware for
// engine.CreateAgent, each a value with the hooks it needs (before_model,
// after_model, wrap_model_call, wrap_tool_call, extra tools and state
// keys), reproducing langchain 1.1.3's behaviour and texts. It imports only
// package engine.
//
// Each type names the LangChain class it mirrors: HumanInTheLoop,
// ModelCallLimit, ToolCallLimit, TodoList, ToolRetry, ModelRetry,
// ModelFallback, PII, Summarization, ContextEditing (ClearToolUses),
// LLMToolSelector and LLMToolEmulator.
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
// callable on_failure is {"template": "{type}: {message}"}. Unset options
// take langchain's defaults, and BuildOptions.LangChain picks the release
// where releases differ. Every bad option is reported at once, naming the
// option's path and what was expected ("edits[0].keep: expected an
// integer, got '3'"); an unknown class wraps ErrUnknownClass.
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
//     unknown fields fails at construction, naming the option.
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
package middleware
