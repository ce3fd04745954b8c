package engine

import (
	"context"
	"encoding/json"
	"strconv"
)

// StreamMessages is the "messages" stream mode: the chat models' output,
// chunk by chunk, each part's Data a MessageChunk.
const StreamMessages StreamMode = "messages"

// MessageChunk is one item of the "messages" stream mode, LangGraph's
// (message_chunk, metadata) pair.
type MessageChunk struct {
	// Message is the chunk: a piece of an AI message as a streaming model
	// produced it, or a whole message (a model that does not stream, a
	// message a node returned).
	Message Message
	// Metadata is LangGraph's metadata of the task that produced it, in
	// its key order: thread_id (with a thread), langgraph_step,
	// langgraph_node, langgraph_triggers, langgraph_path,
	// langgraph_checkpoint_ns, checkpoint_ns, then the model's ls_provider
	// (when it implements ModelProvider), ls_model_name (ModelInfo) and
	// ls_model_type "chat".
	Metadata *Object
}

// ModelProvider is implemented by models that name their provider
// ("openai", "anthropic"), LangChain's ls_provider.
type ModelProvider interface {
	ModelProvider() string
}

// Generate calls model for a node of a graph, the way a LangChain model
// called inside a LangGraph node reports to the "messages" stream mode
// (StreamMessagesHandler in pregel/_messages.py): when the run streams
// messages, a StreamingChatModel's chunks are streamed as they come and
// any other model's answer is streamed whole once it is complete (not
// again if its chunks were). Outside a run, or when the run does not
// stream messages, it is model.Generate.
func Generate(ctx context.Context, model ChatModel, req ModelRequest) (Message, error) {
	sp := scratchpadFrom(ctx)
	if sp == nil || sp.run == nil || !sp.run.modes.has(StreamMessages) {
		return model.Generate(ctx, req)
	}
	r := sp.run
	meta := r.messageMetadata(sp.task, model)
	// a message streamed without an ID gets the one the task would give
	// it when written (LangChain's models name theirs "run-<uuid>"), so
	// the node's output is known as already streamed
	id := ""
	ensureID := func(m *Message) {
		if m.ID == "" {
			if id == "" {
				id = r.nextMessageID(sp.task)
			}
			m.ID = id
		}
	}
	sm, ok := model.(StreamingChatModel)
	if !ok {
		msg, err := model.Generate(ctx, req)
		if err != nil {
			return msg, err
		}
		ensureID(&msg)
		r.emitMessage(msg, meta, true) // on_llm_end
		return msg, nil
	}
	msg, err := sm.GenerateStream(ctx, req, func(chunk Message) error {
		ensureID(&chunk)
		r.emitMessage(chunk, meta, false) // on_llm_new_token
		return ctx.Err()
	})
	if err != nil {
		return msg, err
	}
	ensureID(&msg)
	r.emitMessage(msg, meta, true)
	return msg, nil
}

// nextMessageID is the next message ID of the task, as its writes get
// them.
func (r *run) nextMessageID(t *task) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.idCounter++
	return r.messageID(t, t.idCounter)
}

// messageMetadata is the metadata of a task's message chunks.
func (r *run) messageMetadata(t *task, model ChatModel) *Object {
	o := &Object{}
	if r.cfg.ThreadID != "" {
		o.Set("thread_id", r.cfg.ThreadID)
	}
	triggers := make([]any, len(t.triggers))
	for i, tr := range t.triggers {
		triggers[i] = tr
	}
	var path []any
	if t.kind == pullTask {
		path = []any{chPull, t.name}
	} else {
		path = []any{chPush, json.Number(strconv.Itoa(t.idx))}
	}
	ns := t.scratch.taskNS()
	o.Set("langgraph_step", json.Number(strconv.Itoa(t.scratch.step)))
	o.Set("langgraph_node", t.name)
	o.Set("langgraph_triggers", triggers)
	o.Set("langgraph_path", path)
	o.Set("langgraph_checkpoint_ns", ns)
	o.Set("checkpoint_ns", ns)
	if model != nil {
		if p, ok := model.(ModelProvider); ok {
			o.Set("ls_provider", p.ModelProvider())
		}
		if mi, ok := model.(ModelInfo); ok && mi.ModelName() != "" {
			o.Set("ls_model_name", mi.ModelName())
		}
		o.Set("ls_model_type", "chat")
	}
	return o
}

// emitMessage streams one message of a task in "messages" mode (_emit):
// with dedupe, a message whose ID was already streamed in this run is
// skipped; every streamed ID is remembered.
func (r *run) emitMessage(msg Message, meta *Object, dedupe bool) {
	root := r.root()
	root.seenMu.Lock()
	if dedupe && msg.ID != "" && root.seen[msg.ID] {
		root.seenMu.Unlock()
		return
	}
	if msg.ID != "" {
		if root.seen == nil {
			root.seen = map[string]bool{}
		}
		root.seen[msg.ID] = true
	}
	root.seenMu.Unlock()
	r.forward(StreamPart{Namespace: r.namespace(), Mode: StreamMessages, Data: MessageChunk{Message: msg, Metadata: meta}})
}

// seeNodeInput marks the messages of a task's input as streamed
// (on_chain_start of a node in StreamMessagesHandler): a node that writes
// back messages it was given, as a subgraph writes its whole state, does
// not stream them again when it ends.
func (r *run) seeNodeInput(t *task) {
	if !r.modes.has(StreamMessages) || t.node.hidden {
		return
	}
	var ids []string
	input := t.input
	if t.hasArg {
		input = State{SendArgKey: t.arg}
	}
	for _, v := range input {
		switch v := v.(type) {
		case Message:
			ids = append(ids, v.ID)
		case []Message:
			for _, m := range v {
				ids = append(ids, m.ID)
			}
		case MessageList:
			for _, m := range v.All() {
				ids = append(ids, m.ID)
			}
		case []any:
			for _, e := range v {
				if m, ok := e.(Message); ok {
					ids = append(ids, m.ID)
				}
			}
		}
	}
	root := r.root()
	root.seenMu.Lock()
	defer root.seenMu.Unlock()
	for _, id := range ids {
		if id == "" {
			continue
		}
		if root.seen == nil {
			root.seen = map[string]bool{}
		}
		root.seen[id] = true
	}
}

// emitNodeMessages streams the messages a finished task wrote that no
// model call streamed (on_chain_end of a node: tool messages, messages a
// hook or node made).
func (r *run) emitNodeMessages(t *task) {
	if !r.modes.has(StreamMessages) || t.node.hidden {
		return
	}
	var meta *Object
	for _, w := range t.writes {
		var msgs []Message
		switch v := w.value.(type) {
		case []Message:
			msgs = v
		case MessageList:
			msgs = v.Slice()
		case Message:
			msgs = []Message{v}
		default:
			continue
		}
		for _, m := range msgs {
			if m.Type == TypeRemove {
				continue
			}
			if meta == nil {
				meta = r.messageMetadata(t, nil)
			}
			r.emitMessage(m, meta, true)
		}
	}
}

// root is the outermost run: subgraphs share its set of streamed IDs.
func (r *run) root() *run {
	for r.nest != nil {
		r = r.nest.parent
	}
	return r
}
