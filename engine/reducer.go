package engine

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

// AddMessages merges right into left as the add_messages reducer does.
// Neither slice is modified (the result may share left's array when right
// changes nothing). Messages without IDs get IDs derived from their
// position, so the result is deterministic. It is the messages channel's
// own merge (messagesChan.add) on a channel holding left.
func AddMessages(left, right []Message) ([]Message, error) {
	c := newMessagesChan("").restore(left, true).(*messagesChan)
	if err := c.add(right); err != nil {
		return nil, err
	}
	return c.view(), nil
}
