package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

// Turns is a Source that answers with a list of turns in order: request
// n that reaches the source (1-based, counted in the order they take its
// lock) gets turn n, once the turn's Check accepts it. It is the fake
// provider for Go tests that need exact control of the wire (raw
// argument text, response ids, cache reads).
type Turns struct {
	turns []Turn

	mu   sync.Mutex
	next int
}

// NewTurns returns a source answering with turns, in order.
func NewTurns(turns ...Turn) *Turns {
	return &Turns{turns: append([]Turn(nil), turns...)}
}

// Answer takes the next turn. A request after the last turn, and one the
// turn's Check refuses, is answered 400 and does not use up a turn.
func (t *Turns) Answer(_ context.Context, req *Request) (Reply, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.next >= len(t.turns) {
		return Reply{}, &APIError{Status: 400, Message: fmt.Sprintf("agenteval serve: %s: the script has only %d turns", req, len(t.turns))}
	}
	turn := t.turns[t.next]
	if turn.Check != nil {
		if err := turn.Check(req); err != nil {
			return Reply{}, &APIError{Status: 400, Message: fmt.Sprintf("agenteval serve: %s: %v", req, err)}
		}
	}
	t.next++
	return Reply{Turn: &turn, N: t.next}, nil
}

// Remaining is how many turns are still unanswered.
func (t *Turns) Remaining() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.turns) - t.next
}

// Script is a Source that answers from an engine/llm Script, the
// scenario's script: form, through the same llm.Scripted model the
// reference engine calls: request n gets the script's call n (Responses,
// then Repeat with "{n}" substituted), and the model's Calls hold each
// request's conversation as engine messages. A "raise" is answered with
// the status its exception kind stands for; a request after the script
// ran out is answered 400.
type Script struct {
	model *llm.Scripted
	size  int
	loops bool

	// mu makes asking the model and numbering the call one step; n
	// counts the calls the model recorded (llm.Scripted.Calls copies
	// them all, too slow to ask per request).
	mu sync.Mutex
	n  int
}

// NewScript returns a source answering from script.
func NewScript(script llm.Script) *Script {
	return &Script{model: llm.NewScripted("serve", script), size: len(script.Responses), loops: script.Repeat != nil}
}

// Answer asks the scripted model.
func (s *Script) Answer(ctx context.Context, req *Request) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, fmt.Errorf("%s: %w", req, err)
	}
	s.mu.Lock()
	msg, err := s.model.Generate(ctx, engine.ModelRequest{Messages: engine.NewMessageList(req.Messages...)})
	if err == nil || ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		s.n++ // Generate records every call but one whose ctx is done
	}
	n := s.n
	s.mu.Unlock()
	var raised *engine.Error
	switch {
	case errors.Is(err, llm.ErrScriptExhausted):
		return Reply{}, &APIError{Status: 400, Message: fmt.Sprintf("agenteval serve: %s: %v", req, err)}
	case errors.As(err, &raised):
		return Reply{Turn: &Turn{Error: errorForKind(raised.Kind, raised.Message)}, N: n}, nil
	case err != nil:
		return Reply{}, fmt.Errorf("%s: %w", req, err)
	}
	t, err := turnFromMessage(msg, req.Protocol)
	if err != nil {
		return Reply{}, fmt.Errorf("%s: %w", req, err)
	}
	return Reply{Turn: &t, N: n}, nil
}

// Calls returns the requests the script answered, as the scripted model
// recorded them (engine messages), in order.
func (s *Script) Calls() []llm.Call { return s.model.Calls() }

// Remaining is how many scripted responses are still unanswered; -1 when
// the script repeats forever.
func (s *Script) Remaining() int {
	if s.loops {
		return -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(0, s.size-s.n)
}
