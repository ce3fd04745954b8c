package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

type tripLeg struct {
	From string `json:"from" jsonschema:"description=IATA code of the departure airport"`
	To   string `json:"to"`
}

type tripArgs struct {
	Legs       []tripLeg      `json:"legs"`
	Travellers int            `json:"travellers" jsonschema:"minimum=1,maximum=9"`
	MaxPrice   float64        `json:"max_price"`
	Cabin      string         `json:"cabin,omitempty" jsonschema:"enum=economy,enum=business"`
	Flexible   *bool          `json:"flexible"`
	Notes      string         `json:"notes,omitempty" jsonschema_description:"Free text, commas allowed, for the agent"`
	Depart     time.Time      `json:"depart,omitzero"`
	Extras     map[string]int `json:"extras,omitempty"`
	internal   string
}

type tripQuote struct {
	Legs  int     `json:"legs"`
	Total float64 `json:"total"`
	Cabin string  `json:"cabin"`
}

func TestTypedToolSchema(t *testing.T) {
	tool, err := engine.NewTypedTool(engine.ToolDef{Name: "quote_trip", Description: "Price a trip."},
		func(context.Context, tripArgs) (tripQuote, error) { return tripQuote{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	got, err := engine.MarshalValue(tool.Definition().Parameters)
	if err != nil {
		t.Fatal(err)
	}
	// fields in declaration order; omitempty, omitzero and pointers are
	// optional; tags become schema keywords
	want := `{"type":"object","properties":{` +
		`"legs":{"type":"array","items":{"type":"object","properties":{"from":{"type":"string","description":"IATA code of the departure airport"},"to":{"type":"string"}},"required":["from","to"]}},` +
		`"travellers":{"type":"integer","minimum":1,"maximum":9},` +
		`"max_price":{"type":"number"},` +
		`"cabin":{"type":"string","enum":["economy","business"]},` +
		`"flexible":{"type":"boolean"},` +
		`"notes":{"type":"string","description":"Free text, commas allowed, for the agent"},` +
		`"depart":{"type":"string","format":"date-time"},` +
		`"extras":{"type":"object","additionalProperties":{"type":"integer"}}},` +
		`"required":["legs","travellers","max_price"]}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Parameters mismatch (-want +got):\n%s", diff)
	}
}

// TestTypedToolInAgent runs a typed tool behind a scripted model: the
// model's numbers arrive as int and float64 fields (a string "2" coerced
// as pydantic does), nested structs are filled, optional fields keep
// their zero values, and the result reaches the model as JSON.
func TestTypedToolInAgent(t *testing.T) {
	var seen []tripArgs
	quote, err := engine.NewTypedTool(engine.ToolDef{Name: "quote_trip", Description: "Price a trip."},
		func(_ context.Context, in tripArgs) (tripQuote, error) {
			seen = append(seen, in)
			cabin := in.Cabin
			if cabin == "" {
				cabin = "economy"
			}
			return tripQuote{Legs: len(in.Legs), Total: float64(in.Travellers) * 120.5, Cabin: cabin}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	args, err := engine.DecodeJSON([]byte(`{"legs":[{"from":"CDG","to":"NRT"},{"from":"NRT","to":"CDG"}],"travellers":"2","max_price":1999.99,"flexible":true}`))
	if err != nil {
		t.Fatal(err)
	}
	model := llm.NewScripted("model", llm.Script{Responses: []llm.Response{
		{Message: engine.AIMessage("", engine.ToolCall{Name: "quote_trip", Args: args.(*engine.Object), ID: "call_1"})},
		{Message: engine.AIMessage("Two legs for 241 EUR.")},
	}})
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{quote}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := agent.Invoke(context.Background(), engine.State{"messages": []any{"price my trip"}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	wantArgs := []tripArgs{{
		Legs:       []tripLeg{{From: "CDG", To: "NRT"}, {From: "NRT", To: "CDG"}},
		Travellers: 2, MaxPrice: 1999.99, Flexible: &yes,
	}}
	if diff := cmp.Diff(wantArgs, seen, cmp.AllowUnexported(tripArgs{})); diff != "" {
		t.Errorf("arguments mismatch (-want +got):\n%s", diff)
	}
	msgs := res.Values.Messages("messages")
	var toolMsg string
	for _, m := range msgs {
		if m.Type == "tool" {
			toolMsg = m.Text()
		}
	}
	if want := `{"legs": 2, "total": 241.0, "cabin": "economy"}`; toolMsg != want {
		t.Errorf("tool message = %q, want %q (the result as JSON, written as Python's json.dumps)", toolMsg, want)
	}
}

func TestTypedToolRefuses(t *testing.T) {
	type node struct {
		Next *node `json:"next"`
	}
	type badTag struct {
		N int `json:"n" jsonschema:"minimum=one"`
	}
	type intKeys struct {
		M map[int]string `json:"m"`
	}
	tests := []struct {
		reason string
		build  func() (engine.Tool, error)
		want   string
	}{
		{"arguments must be an object", func() (engine.Tool, error) {
			return engine.NewTypedTool(engine.ToolDef{Name: "t"}, func(context.Context, string) (string, error) { return "", nil })
		}, `typed tool "t": arguments type string is not a struct`},
		{"a recursive type has no finite schema", func() (engine.Tool, error) {
			return engine.NewTypedTool(engine.ToolDef{Name: "t"}, func(context.Context, node) (string, error) { return "", nil })
		}, "recursive type"},
		{"a tag value must fit its keyword", func() (engine.Tool, error) {
			return engine.NewTypedTool(engine.ToolDef{Name: "t"}, func(context.Context, badTag) (string, error) { return "", nil })
		}, `field N: jsonschema tag minimum="one" is not a number`},
		{"JSON object keys are strings", func() (engine.Tool, error) {
			return engine.NewTypedTool(engine.ToolDef{Name: "t"}, func(context.Context, intKeys) (string, error) { return "", nil })
		}, "map key type int is not a string"},
		{"Parameters is derived, not given", func() (engine.Tool, error) {
			return engine.NewTypedTool(engine.ToolDef{Name: "t", Parameters: engine.NewObject("type", "object")}, func(context.Context, tripLeg) (string, error) { return "", nil })
		}, "Parameters is derived from engine_test.tripLeg: leave it nil"},
		{"a nil function", func() (engine.Tool, error) {
			return engine.NewTypedTool[tripLeg, string](engine.ToolDef{Name: "t"}, nil)
		}, `typed tool "t": no function`},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			_, err := tc.build()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewTypedTool = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestTypedToolResultForms(t *testing.T) {
	tests := []struct {
		reason string
		tool   engine.Tool
		want   any
	}{
		{"a string result passes as it is", mustTyped(func(_ context.Context, in tripLeg) (string, error) { return in.From + "-" + in.To, nil }), "CDG-NRT"},
		{"a nil pointer result is no content", mustTyped(func(context.Context, tripLeg) (*tripQuote, error) { return nil, nil }), nil},
		{"a slice goes through JSON", mustTyped(func(context.Context, tripLeg) ([]int, error) { return []int{1, 2}, nil }), []any{json.Number("1"), json.Number("2")}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			got, err := tc.tool.Invoke(context.Background(), engine.ToolInvocation{Call: engine.ToolCall{Name: "t", Args: engine.NewObject("from", "CDG", "to", "NRT")}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Invoke mismatch (-want +got):\n%s", diff)
			}
		})
	}
	failing := mustTyped(func(context.Context, tripLeg) (string, error) { return "", fmt.Errorf("no seats") })
	if _, err := failing.Invoke(context.Background(), engine.ToolInvocation{Call: engine.ToolCall{Name: "t", Args: engine.NewObject("from", "A", "to", "B")}}); err == nil || err.Error() != "no seats" {
		t.Errorf("Invoke of a failing tool = %v, want its own error", err)
	}
}

func mustTyped[Out any](fn func(context.Context, tripLeg) (Out, error)) engine.Tool {
	tool, err := engine.NewTypedTool(engine.ToolDef{Name: "t"}, fn)
	if err != nil {
		panic(err)
	}
	return tool
}
