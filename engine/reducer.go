package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
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
func (r AddMessagesReducer) Reduce(current, update any) (any, error) {
	v, _, err := r.reducePrefix(current, update)
	return v, err
}

func (AddMessagesReducer) reducePrefix(current, update any) (any, int, error) {
	left, err := MessagesFromValue(current)
	if err != nil {
		return nil, 0, err
	}
	right, err := MessagesFromValue(update)
	if err != nil {
		return nil, 0, err
	}
	return addMessages(left, right)
}

// normalizeWrite coerces a write to []Message and gives messages without an
// ID one from newID, before the write is applied or streamed.
func (AddMessagesReducer) normalizeWrite(v any, newID func() string) (any, error) {
	msgs, err := MessagesFromValue(v)
	if err != nil {
		return nil, err
	}
	var out []Message
	for i, m := range msgs {
		if m.ID == "" {
			if out == nil {
				out = append([]Message(nil), msgs...)
			}
			out[i].ID = newID()
		}
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
	normalizeWrite(v any, newID func() string) (any, error)
}

// AddMessages merges right into left as the add_messages reducer does.
// Neither slice is modified. Messages without IDs get IDs derived from
// their position, so the result is deterministic.
func AddMessages(left, right []Message) ([]Message, error) {
	out, _, err := addMessages(left, right)
	return out, err
}

// addMessages also returns how many leading messages of left the result
// keeps unchanged, so checkpointers can store only what was added.
func addMessages(left, right []Message) ([]Message, int, error) {
	left = withIDs(left, "left", 0)
	right = withIDs(right, "right", len(left))
	removeAll := -1
	for i, m := range right {
		if m.Type == TypeRemove && m.ID == RemoveAllMessages {
			removeAll = i
		}
	}
	if removeAll >= 0 {
		return append([]Message{}, right[removeAll+1:]...), 0, nil
	}
	kept := len(left)
	merged := make([]Message, len(left), len(left)+len(right))
	copy(merged, left)
	// a few new messages (the usual update) are found by scanning from the
	// end, which costs no allocation; many build an index once
	var byID map[string]int
	if len(right) > 8 {
		byID = make(map[string]int, len(merged)+len(right))
		for i, m := range merged {
			byID[m.ID] = i
		}
	}
	find := func(id string) (int, bool) {
		if byID != nil {
			i, ok := byID[id]
			return i, ok
		}
		for i := len(merged) - 1; i >= 0; i-- {
			if merged[i].ID == id {
				return i, true
			}
		}
		return 0, false
	}
	var remove map[string]bool
	for _, m := range right {
		if i, ok := find(m.ID); ok {
			kept = min(kept, i)
			if m.Type == TypeRemove {
				if remove == nil {
					remove = map[string]bool{}
				}
				remove[m.ID] = true
			} else {
				delete(remove, m.ID)
				merged[i] = m
			}
			continue
		}
		if m.Type == TypeRemove {
			return nil, 0, NewError("ValueError", fmt.Sprintf("Attempting to delete a message with an ID that doesn't exist ('%s')", m.ID))
		}
		if byID != nil {
			byID[m.ID] = len(merged)
		}
		merged = append(merged, m)
	}
	if len(remove) > 0 {
		rest := merged[:0:0]
		for _, m := range merged {
			if !remove[m.ID] {
				rest = append(rest, m)
			}
		}
		merged = rest
	}
	return merged, kept, nil
}

// withIDs gives messages without IDs a deterministic one based on their
// content and position; it copies the slice only when it has to.
func withIDs(msgs []Message, side string, offset int) []Message {
	var out []Message
	for i, m := range msgs {
		if m.ID != "" {
			continue
		}
		if out == nil {
			out = append([]Message(nil), msgs...)
		}
		b, _ := MarshalValue(m.ToValue())
		out[i].ID = uuidFromHash(side, strconv.Itoa(offset+i), string(b))
	}
	if out == nil {
		return msgs
	}
	return out
}

// uuidFromHash returns a UUID-shaped string (version 8, "custom") from the
// SHA-256 of the parts. The engine uses it for every ID it makes up, so IDs
// are stable across runs and machines.
func uuidFromHash(parts ...string) string {
	// parts joined with NUL terminators, hashed in one call: a short input
	// stays in this stack buffer, so the ID costs one allocation
	var stack [256]byte
	buf := stack[:0]
	for _, p := range parts {
		buf = append(buf, p...)
		buf = append(buf, 0)
	}
	sum := sha256.Sum256(buf)
	sum[6] = (sum[6] & 0x0f) | 0x80 // version 8
	sum[8] = (sum[8] & 0x3f) | 0x80 // RFC 4122 variant
	var out [36]byte
	hex.Encode(out[0:8], sum[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], sum[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], sum[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], sum[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], sum[10:16])
	return string(out[:])
}

// hashHex returns the first 32 hex digits of the SHA-256 of s (interrupt
// IDs; LangGraph uses xxh3-128 here).
func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}
