package engine

import (
	"crypto/sha256"
	"encoding/hex"
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
