package engine

import (
	"fmt"
	"slices"
)

// AddMessagesReducer is LangGraph's add_messages: new messages are
// appended, a message with an ID already in the list replaces it in place,
// a RemoveMessage deletes the message with its ID, and a RemoveMessage with
// RemoveAllMessages drops everything before it. Messages without an ID get
// a deterministic one. Writes may be a Message, []Message or message-like
// values (dicts with role/type, strings, [role, content] pairs).
type AddMessagesReducer struct{}

// Zero returns an empty message list: a messages key is always present.
func (AddMessagesReducer) Zero() (any, bool) { return []Message{}, true }

// Reduce merges update into current.
func (AddMessagesReducer) Reduce(current, update any) (any, error) {
	left, err := MessagesFromValue(current)
	if err != nil {
		return nil, err
	}
	right, err := MessagesFromValue(update)
	if err != nil {
		return nil, err
	}
	return AddMessages(left, right)
}

// normalizeWrite coerces a write to []Message and gives messages without an
// ID one from ids, before the write is applied or streamed: in a copy of
// the list, or with inPlace in the list itself when it is a []Message.
func (AddMessagesReducer) normalizeWrite(v any, ids idSource, inPlace bool) (any, error) {
	if l, ok := v.(MessageList); ok {
		// the leading nodes whose messages all have their IDs are kept
		// as they are (shared); the messages after them are copied, and
		// those without an ID get theirs, in order
		keep := l.n
		for keep != nil && keep.chainFlags()&flagMissingID != 0 {
			keep = keep.prev
		}
		if keep == l.n {
			return l, nil
		}
		head := MessageList{n: keep}
		rest := l.Since(head.Len())
		for i := range rest {
			if rest[i].ID == "" {
				rest[i].ID = ids.nextID()
			}
		}
		return head.appendOwned(rest), nil
	}
	msgs, err := MessagesFromValue(v)
	if err != nil {
		return nil, err
	}
	_, isList := v.([]Message)
	var out []Message
	if inPlace && isList {
		// a node's own list: its IDs in place, in order; a task notes in
		// its room that it gave every one (see task.noteMinted)
		all := len(msgs) > 0
		for i := range msgs {
			m := &msgs[i]
			if m.ID != "" {
				all = false
				continue
			}
			if m.Type == TypeRemove {
				all = false
			}
			m.ID = ids.nextID()
		}
		if t, ok := ids.(*task); ok && all {
			t.noteMinted(msgs)
		}
		return v, nil
	}
	for i, m := range msgs {
		if m.ID == "" {
			if out == nil {
				out = append([]Message(nil), msgs...)
			}
			out[i].ID = ids.nextID()
		}
	}
	if isList && (out == nil || inPlace) {
		// v holds msgs itself: boxing it again would allocate
		return v, nil
	}
	if out == nil {
		return msgs, nil
	}
	return out, nil
}

// writeNormalizer is implemented by reducers that fix up writes before the
// superstep applies them (and before single-task update chunks are
// streamed), as add_messages assigns IDs in LangGraph.
type writeNormalizer interface {
	normalizeWrite(v any, ids idSource, inPlace bool) (any, error)
}

// AddMessages merges right into left as LangGraph's add_messages reducer
// does (addMessages). Neither slice is modified. Messages without IDs get
// IDs derived from their content and position, so the result is
// deterministic.
func AddMessages(left, right []Message) ([]Message, error) { return addMessages(left, right) }

// addMessages is add_messages (langgraph/graph/message.py) on lists of
// messages, written as LangGraph writes it. It is the specification of
// the messages channel (messagesChan.add), whose faster route must give
// the same list for every input (TestPropMessagesChannelIsAddMessages):
//
//  1. every message without an ID gets one: left's from their position,
//     right's from their position after left (withIDs; LangGraph draws a
//     random uuid4, the engine hashes so runs are reproducible);
//  2. when right holds a RemoveMessage of RemoveAllMessages, the result
//     is what follows the last such one in right;
//  3. otherwise, in right's order: a message whose ID the list has (the
//     last message with that ID, left's or one appended before it)
//     replaces it in place, or marks it removed when it is a
//     RemoveMessage (a later message with the ID unmarks it); a message
//     with a new ID is appended; a RemoveMessage of an ID the list does
//     not have is an error;
//  4. the messages marked removed are dropped.
func addMessages(left, right []Message) ([]Message, error) {
	left = withIDs(left, "left", 0)
	right = withIDs(right, "right", len(left))
	for i := len(right) - 1; i >= 0; i-- {
		if m := right[i]; m.Type == TypeRemove && m.ID == RemoveAllMessages {
			return append([]Message{}, right[i+1:]...), nil
		}
	}
	merged := append(make([]Message, 0, len(left)+len(right)), left...)
	byID := make(map[string]int, len(left)+len(right))
	for i, m := range merged {
		byID[m.ID] = i
	}
	removed := map[string]bool{}
	for _, m := range right {
		if i, ok := byID[m.ID]; ok {
			if m.Type == TypeRemove {
				removed[m.ID] = true
				continue
			}
			delete(removed, m.ID)
			merged[i] = m
			continue
		}
		if m.Type == TypeRemove {
			return nil, NewError("ValueError", fmt.Sprintf("Attempting to delete a message with an ID that doesn't exist ('%s')", m.ID))
		}
		byID[m.ID] = len(merged)
		merged = append(merged, m)
	}
	if len(removed) > 0 {
		merged = slices.DeleteFunc(merged, func(m Message) bool { return removed[m.ID] })
	}
	return merged, nil
}
