package harness

import (
	"fmt"
	"strings"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/grade"
)

// Tool calls whose arguments are not JSON are kept on the AI message as
// LangChain keeps them (AIMessage.invalid_tool_calls): they are not run,
// and before they were visible nowhere, so a trajectory failure read "got
// no call". The transcript lists them under their message, and a failed
// scenario's message names them.

// writeInvalidCalls writes a message's invalid tool calls in the
// transcript, one line each, under its valid ones.
func writeInvalidCalls(b *strings.Builder, indent string, m engine.Message) {
	for _, c := range m.InvalidToolCalls {
		fmt.Fprintf(b, "%s    ✗ %s %s [%s] (invalid: %s)\n", indent, orNone(c.Name), quote(c.Args), orNone(c.ID), oneLine(c.Error))
	}
}

// invalidCallsNote says which invalid tool calls the model made, for the
// message of a failed scenario; "" when it made none.
func invalidCallsNote(o *grade.Observed) string {
	var calls []string
	for _, m := range o.AIMessages {
		for _, c := range m.InvalidToolCalls {
			calls = append(calls, fmt.Sprintf("%s %s [%s]: %s", orNone(c.Name), quote(c.Args), orNone(c.ID), oneLine(c.Error)))
		}
	}
	switch len(calls) {
	case 0:
		return ""
	case 1:
		return "; the model made an invalid tool call (invalid_tool_calls), not run: " + calls[0]
	}
	return fmt.Sprintf("; the model made %d invalid tool calls (invalid_tool_calls), not run: %s", len(calls), strings.Join(calls, "; "))
}
