package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

func anthropicModel(t *testing.T, rec *cassette.Recorder, model string, stream bool) *llm.Anthropic {
	t.Helper()
	m, err := llm.NewAnthropic(llm.AnthropicConfig{Model: model, HTTPClient: rec.Client(), Stream: stream})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const sfThinking = "<thinking>\nThe get_weather tool is directly relevant for answering this question about the weather in a specific location. \n\nThe get_weather tool requires a \"location\" parameter. The user has provided the location of \"San Francisco, CA\" in their question, so we have the necessary information to make the API call.\n\nNo other tools are needed to answer this question. We can proceed with calling the get_weather tool with the provided location.\n</thinking>"

// #2: claude-sonnet-4 streamed: content_block_start tool_use,
// input_json_delta pieces, message_delta stop_reason tool_use, a ping;
// then the tool_result turn ends with "1". docker-agent marks blocks with
// cache_control, which the engine's messages do not carry, so that field
// is left out of matching; the history carries everything else.
func TestRealAnthropicStreamedToolCall(t *testing.T) {
	rec, c := replayReal(t, "docker-agent/e2e/testdata/cassettes/TestExec_Anthropic_ToolCall.yaml", cassette.Options{
		IgnoreFields: []string{"messages.*.content.*.cache_control"},
	})
	var chunks []llm.Chunk
	m, err := llm.NewAnthropic(llm.AnthropicConfig{Model: "claude-sonnet-4-0", HTTPClient: rec.Client(), Stream: true, OnChunk: func(c llm.Chunk) { chunks = append(chunks, c) }})
	if err != nil {
		t.Fatal(err)
	}
	body := recordedBody(t, c, 0)
	system, _ := body.Get("system")
	question := "How many files in testdata/working_dir? Only output the number."
	req := engine.ModelRequest{
		Messages: engine.NewMessageList(
			engine.Message{Type: engine.TypeSystem, Content: engine.Blocks(system.([]any)...)},
			engine.Message{Type: engine.TypeHuman, Content: engine.Blocks(jo("type", "text", "text", question))},
		),
		Tools:   toolsOf(t, body),
		Options: jo("max_tokens", n(64000)),
	}
	got, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	call := engine.ToolCall{Name: "list_directory", Args: jo("path", "testdata/working_dir"), ID: "toolu_012gmfqnoTX8c5aV3vMWUnas"}
	wantMessage(t, engine.Message{
		Type:      engine.TypeAI,
		Content:   engine.Blocks(jo("type", "tool_use", "id", call.ID, "name", call.Name, "input", jo("path", "testdata/working_dir"))),
		ToolCalls: []engine.ToolCall{call},
		UsageMetadata: usage(1279, 58, 1337, jo("cache_read", n(0), "cache_creation", n(1276),
			"ephemeral_5m_input_tokens", n(1276), "ephemeral_1h_input_tokens", n(0)), nil),
		ResponseMetadata: jo("model_provider", "anthropic", "id", "msg_01BKqBqWhk1BNCFCGJKBuURw", "model_name", "claude-sonnet-4-20250514", "stop_reason", "tool_use"),
	}, got)
	var args []string
	for _, c := range chunks[1:] {
		args = append(args, c.ToolCall.Args)
	}
	if len(chunks) != 3 || chunks[0].ToolCall.ID != call.ID || strings.Join(args, "|") != `{"path": "testdata/working_dir|"}` {
		t.Errorf("chunks: %d, args %q; want the tool_use start and two input_json_delta pieces", len(chunks), args)
	}

	result := engine.ToolMessage(engine.Blocks(jo("type", "text", "text", "FILE README.me")), "list_directory", call.ID)
	msgs := append(req.Messages.Slice(), got, result)
	msgs[1] = engine.HumanMessage(question)
	req.Messages = engine.NewMessageList(msgs...)
	got, err = m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantMessage(t, engine.Message{
		Type: engine.TypeAI, Content: engine.Text("1"),
		UsageMetadata: usage(1354, 4, 1358, jo("cache_read", n(1276), "cache_creation", n(72),
			"ephemeral_5m_input_tokens", n(72), "ephemeral_1h_input_tokens", n(0)), nil),
		ResponseMetadata: jo("model_provider", "anthropic", "id", "msg_01J7Njwj72NPagJ5aEQWDKAH", "model_name", "claude-sonnet-4-20250514", "stop_reason", "end_turn"),
	}, got)
}

// #8: claude-3-opus, not streamed, gzip body: a text block then a
// tool_use block, stop_reason tool_use. Content stays a list of blocks,
// as langchain-anthropic keeps it when there is a tool_use.
func TestRealAnthropicToolUse(t *testing.T) {
	rec, c := replayReal(t, "dd-trace-py/tests/contrib/anthropic/cassettes/anthropic_completion_tools.yaml", cassette.Options{})
	m := anthropicModel(t, rec, "claude-3-opus-20240229", false)
	got, err := m.Generate(context.Background(), engine.ModelRequest{
		Messages: engine.NewMessageList(engine.HumanMessage("What is the weather in San Francisco, CA?")),
		Tools:    toolsOf(t, recordedBody(t, c, 0)),
		Options:  jo("max_tokens", n(200)),
	})
	if err != nil {
		t.Fatal(err)
	}
	call := engine.ToolCall{Name: "get_weather", Args: jo("location", "San Francisco, CA"), ID: "toolu_01DYJo37oETVsCdLTTcCWcdq"}
	wantMessage(t, engine.Message{
		Type: engine.TypeAI,
		Content: engine.Blocks(
			jo("type", "text", "text", sfThinking),
			jo("type", "tool_use", "id", call.ID, "name", call.Name, "input", jo("location", "San Francisco, CA"))),
		ToolCalls:        []engine.ToolCall{call},
		UsageMetadata:    usage(599, 152, 751, nil, nil),
		ResponseMetadata: jo("model_provider", "anthropic", "id", "msg_01QA7vDgvzfZ1mU5o8nwfkri", "model_name", "claude-3-opus-20240229", "stop_reason", "tool_use"),
	}, got)
}

// #9: the tool_result turn: the assistant's text and tool_use blocks go
// back, the tool result (a list of text blocks) in a user turn; the gzip
// answer ends the turn.
func TestRealAnthropicToolResult(t *testing.T) {
	rec, c := replayReal(t, "dd-trace-py/tests/contrib/anthropic/cassettes/anthropic_completion_tools_call_with_tool_result.yaml", cassette.Options{})
	m := anthropicModel(t, rec, "claude-3-opus-20240229", false)
	call := engine.ToolCall{Name: "get_weather", Args: jo("location", "San Francisco, CA"), ID: "toolu_01DYJo37oETVsCdLTTcCWcdq"}
	got, err := m.Generate(context.Background(), engine.ModelRequest{
		Messages: engine.NewMessageList(
			engine.HumanMessage("What is the weather in San Francisco, CA?"),
			engine.Message{Type: engine.TypeAI, Content: engine.Blocks(jo("text", sfThinking, "type", "text")), ToolCalls: []engine.ToolCall{call}},
			engine.ToolMessage(engine.Blocks(jo("type", "text", "text", "The weather is 73f")), "get_weather", call.ID),
		),
		Tools:   toolsOf(t, recordedBody(t, c, 0)),
		Options: jo("max_tokens", n(500)),
	})
	if err != nil {
		t.Fatal(err)
	}
	wantMessage(t, engine.Message{
		Type: engine.TypeAI, Content: engine.Text("Based on the result from the get_weather tool, the current weather in San Francisco, CA is 73°F."),
		UsageMetadata:    usage(768, 29, 797, nil, nil),
		ResponseMetadata: jo("model_provider", "anthropic", "id", "msg_016CpjbSjMnkUfjwJbgpEsZP", "model_name", "claude-3-opus-20240229", "stop_reason", "end_turn"),
	}, got)
}

// #10: streamed text then tool_use (input_json_delta), ping events,
// stop_reason tool_use.
func TestRealAnthropicStreamedTextThenToolUse(t *testing.T) {
	rec, c := replayReal(t, "dd-trace-py/tests/contrib/anthropic/cassettes/anthropic_completion_tools_stream.yaml", cassette.Options{})
	m := anthropicModel(t, rec, "claude-3-opus-20240229", true)
	got, err := m.Generate(context.Background(), engine.ModelRequest{
		Messages: engine.NewMessageList(engine.HumanMessage("What is the weather in San Francisco, CA?")),
		Tools:    toolsOf(t, recordedBody(t, c, 0)),
		Options:  jo("max_tokens", n(200)),
	})
	if err != nil {
		t.Fatal(err)
	}
	blocks := got.Content.Blocks()
	if len(blocks) != 2 {
		t.Fatalf("content = %v, want a text block and a tool_use block", got.Content.Value())
	}
	text, _ := blocks[0].(*engine.Object).Get("text")
	if s, _ := text.(string); !strings.HasPrefix(s, "<thinking>\nThe get_weather tool is relevant for answering this question") || !strings.HasSuffix(s, "</thinking>") {
		t.Errorf("text block = %q", text)
	}
	call := engine.ToolCall{Name: "get_weather", Args: jo("location", "San Francisco, CA"), ID: "toolu_01DYJo37oETVsCdLTTcCWcdq"}
	got.Content = engine.Blocks(blocks[1])
	wantMessage(t, engine.Message{
		Type:             engine.TypeAI,
		Content:          engine.Blocks(jo("type", "tool_use", "id", call.ID, "name", call.Name, "input", jo("location", "San Francisco, CA"))),
		ToolCalls:        []engine.ToolCall{call},
		UsageMetadata:    usage(599, 135, 734, nil, nil),
		ResponseMetadata: jo("model_provider", "anthropic", "id", "msg_01RQXWh4UaLp6wsR9R8i8RZ3", "model_name", "claude-3-opus-20240229", "stop_reason", "tool_use"),
	}, got)
}

// #11: a 400 invalid_request_error. The recorded request sent a bare
// string as a message, which engine messages cannot express, so messages
// are left out of matching.
func TestRealAnthropicBadRequest(t *testing.T) {
	rec, _ := replayReal(t, "dd-trace-py/tests/contrib/anthropic/cassettes/anthropic_completion_error.yaml", cassette.Options{IgnoreFields: []string{"messages"}})
	m := anthropicModel(t, rec, "claude-3-opus-20240229", false)
	_, err := m.Generate(context.Background(), engine.ModelRequest{
		Messages: engine.NewMessageList(engine.HumanMessage("Invalid content")),
		Options:  jo("max_tokens", n(15)),
	})
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *llm.APIError", err)
	}
	if apiErr.StatusCode != 400 || apiErr.Type != "invalid_request_error" || apiErr.Message != "messages.0: Input does not match the expected shape." {
		t.Errorf("APIError = %+v", apiErr)
	}
	var pyErr *engine.Error
	if !errors.As(err, &pyErr) || pyErr.Kind != "BadRequestError" {
		t.Errorf("err does not unwrap to a BadRequestError: %v", err)
	}
}

// #14: claude-haiku-4-5 (beta endpoint, ?beta=true) calls one tool four
// times in parallel; the four tool results travel back in one user turn.
func TestRealAnthropicParallelToolUse(t *testing.T) {
	rec, c := replayReal(t, "pydantic-ai/tests/models/cassettes/test_anthropic/test_multiple_parallel_tool_calls.yaml", cassette.Options{IgnoreQuery: true})
	m := anthropicModel(t, rec, "claude-haiku-4-5", false)
	body := recordedBody(t, c, 0)
	req := engine.ModelRequest{
		Messages: engine.NewMessageList(
			engine.SystemMessage(messageText(t, body, "system")),
			engine.HumanMessage("Alice, Bob, Charlie and Daisy are a family. Who is the youngest?"),
		),
		Tools:      toolsOf(t, body),
		ToolChoice: "auto",
		Options:    jo("max_tokens", n(4096)),
	}
	got, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	intro := "I'll help you find out who is the youngest by retrieving information about each family member. I'll retrieve their entity information to compare their ages."
	ids := []string{"toolu_0167cfEnoQaPviGdVXA95zcu", "toolu_01EEe2V5HD1Ac4rKiUR4HD2T", "toolu_01XFyAjstT3966qvRynZyVPo", "toolu_013mnQZbgtK2oe3Mo3XKJsx3"}
	names := []string{"Alice", "Bob", "Charlie", "Daisy"}
	content := []any{jo("text", intro, "type", "text")}
	var calls []engine.ToolCall
	for i, id := range ids {
		content = append(content, jo("id", id, "input", jo("name", names[i]), "name", "retrieve_entity_info", "type", "tool_use"))
		calls = append(calls, engine.ToolCall{Name: "retrieve_entity_info", Args: jo("name", names[i]), ID: id})
	}
	wantMessage(t, engine.Message{
		Type: engine.TypeAI, Content: engine.Blocks(content...), ToolCalls: calls,
		UsageMetadata: usage(423, 202, 625, jo("cache_read", n(0), "cache_creation", n(0),
			"ephemeral_5m_input_tokens", n(0), "ephemeral_1h_input_tokens", n(0)), nil),
		ResponseMetadata: jo("model_provider", "anthropic", "id", "msg_011S3wxtqL5CVescWqS3zeg2", "model_name", "claude-haiku-4-5-20251001", "stop_reason", "tool_use"),
	}, got)

	results := []string{"alice is bob's wife", "bob is alice's husband", "charlie is alice's son", "daisy is bob's daughter and charlie's younger sister"}
	req.Messages = req.Messages.Append(got)
	for i, id := range ids {
		req.Messages = req.Messages.Append(engine.ToolMessage(engine.Text(results[i]), "retrieve_entity_info", id))
	}
	got, err = m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got.Text(), "She is described as Charlie's younger sister, which indicates she is the youngest among the four family members.") {
		t.Errorf("final answer = %q", got.Text())
	}
	got.Content = engine.Text("")
	wantMessage(t, engine.Message{
		Type: engine.TypeAI, Content: engine.Text(""),
		UsageMetadata: usage(771, 77, 848, jo("cache_read", n(0), "cache_creation", n(0),
			"ephemeral_5m_input_tokens", n(0), "ephemeral_1h_input_tokens", n(0)), nil),
		ResponseMetadata: jo("model_provider", "anthropic", "id", "msg_01JVqZPgDwmnyb2kKC3MwCVf", "model_name", "claude-haiku-4-5-20251001", "stop_reason", "end_turn"),
	}, got)
}
