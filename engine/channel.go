package engine

import "fmt"

// Channels hold the graph's state between supersteps, as LangGraph's
// channels do (langgraph/channels/*.py). A channel takes the writes of one
// superstep in a single Update call; what it does with several writes is its
// reducer. Versions and "seen" versions live in the checkpoint, not here.

type channel interface {
	// update applies the writes of one superstep; it reports whether the
	// channel changed.
	update(values []any) (bool, error)
	// get returns the value; ok is false when the channel is empty.
	get() (any, bool)
	// consume is called after a node subscribed to the channel ran.
	consume() bool
	// finish is called when the graph is about to end.
	finish() bool
	// checkpoint returns the value to store; ok is false when empty.
	checkpoint() (any, bool)
	// restore returns a fresh channel of the same kind holding v.
	restore(v any, ok bool) channel
}

// lastValue holds the last value written; two writes in one step are an
// error (LastValue).
type lastValue struct {
	key   string
	value any
	set   bool
}

func (c *lastValue) update(values []any) (bool, error) {
	if len(values) == 0 {
		return false, nil
	}
	if len(values) != 1 {
		return false, &Error{Kind: "InvalidUpdateError", Message: fmt.Sprintf("At key '%s': Can receive only one value per step. Use an Annotated key to handle multiple values.", c.key), Code: "INVALID_CONCURRENT_GRAPH_UPDATE"}
	}
	c.value, c.set = values[0], true
	return true, nil
}
func (c *lastValue) get() (any, bool)        { return c.value, c.set }
func (c *lastValue) consume() bool           { return false }
func (c *lastValue) finish() bool            { return false }
func (c *lastValue) checkpoint() (any, bool) { return c.value, c.set }
func (c *lastValue) restore(v any, ok bool) channel {
	return &lastValue{key: c.key, value: v, set: ok}
}

// binop folds every write into the value with a reducer
// (BinaryOperatorAggregate). It starts from the reducer's zero value when
// it has one.
type binop struct {
	key     string
	reducer Reducer
	value   any
	set     bool
	// prefix counts the leading list elements unchanged since the last
	// checkpoint, or -1 when unknown (see Checkpoint.ListPrefix).
	prefix int
}

func newBinop(key string, r Reducer) *binop {
	c := &binop{key: key, reducer: r}
	c.value, c.set = r.Zero()
	c.resetPrefix()
	return c
}

func (c *binop) resetPrefix() {
	c.prefix = -1
	if n, ok := listLen(c.value); ok && c.set {
		c.prefix = n
	}
}

func listLen(v any) (int, bool) {
	switch t := v.(type) {
	case []Message:
		return len(t), true
	case MessageList:
		return t.Len(), true
	case []any:
		return len(t), true
	}
	return 0, false
}

func (c *binop) update(values []any) (bool, error) {
	if len(values) == 0 {
		return false, nil
	}
	if !c.set {
		c.value, c.set = values[0], true
		values = values[1:]
		c.prefix = 0
	}
	for _, v := range values {
		nv, err := c.reducer.Reduce(c.value, v)
		if err != nil {
			return false, fmt.Errorf("at key '%s': %w", c.key, err)
		}
		c.value = nv
		c.prefix = -1
	}
	return true, nil
}
func (c *binop) get() (any, bool)        { return c.value, c.set }
func (c *binop) consume() bool           { return false }
func (c *binop) finish() bool            { return false }
func (c *binop) checkpoint() (any, bool) { return c.value, c.set }
func (c *binop) restore(v any, ok bool) channel {
	n := newBinop(c.key, c.reducer)
	if ok {
		n.value, n.set = v, true
		n.resetPrefix()
	}
	return n
}

// ephemeral holds a value for one step: a step without writes clears it
// (EphemeralValue with guard=False).
type ephemeral struct {
	key   string
	value any
	set   bool
	guard bool
}

func (c *ephemeral) update(values []any) (bool, error) {
	if len(values) == 0 {
		if c.set {
			c.value, c.set = nil, false
			return true, nil
		}
		return false, nil
	}
	if len(values) != 1 && c.guard {
		return false, &Error{Kind: "InvalidUpdateError", Message: fmt.Sprintf("At key '%s': EphemeralValue(guard=True) can receive only one value per step. Use guard=False if you want to store any one of multiple values.", c.key)}
	}
	c.value, c.set = values[len(values)-1], true
	return true, nil
}
func (c *ephemeral) get() (any, bool)        { return c.value, c.set }
func (c *ephemeral) consume() bool           { return false }
func (c *ephemeral) finish() bool            { return false }
func (c *ephemeral) checkpoint() (any, bool) { return c.value, c.set }
func (c *ephemeral) restore(v any, ok bool) channel {
	return &ephemeral{key: c.key, value: v, set: ok, guard: c.guard}
}

// topic collects the packets written in one step (Topic with
// accumulate=False): the pending Sends of the graph.
type topic struct {
	key    string
	values []any
	// boxed is values, clipped, as an any: get is called for every
	// superstep, and boxing a slice allocates
	boxed any
}

func (c *topic) update(values []any) (bool, error) {
	updated := len(c.values) > 0
	c.values, c.boxed = nil, nil
	for _, v := range values {
		if list, ok := v.([]any); ok {
			c.values = append(c.values, list...)
		} else {
			c.values = append(c.values, v)
		}
	}
	if len(c.values) > 0 {
		updated = true
		c.boxed = c.values[:len(c.values):len(c.values)]
	}
	return updated, nil
}

// get returns the packets without copying them: update always starts a
// new list, so a list handed out never changes (it is clipped, so an
// append by its holder copies).
func (c *topic) get() (any, bool) {
	if len(c.values) == 0 {
		return nil, false
	}
	return c.boxed, true
}
func (c *topic) consume() bool { return false }
func (c *topic) finish() bool  { return false }
func (c *topic) checkpoint() (any, bool) {
	return c.get()
}
func (c *topic) restore(v any, ok bool) channel {
	n := &topic{key: c.key}
	if ok {
		if list, isList := v.([]any); isList {
			n.values = append([]any(nil), list...)
			n.boxed = n.values[:len(n.values):len(n.values)]
		}
	}
	return n
}

// barrier waits until every named source wrote (NamedBarrierValue), for
// edges from several nodes into one.
type barrier struct {
	key   string
	names []string
	seen  map[string]bool
}

func (c *barrier) update(values []any) (bool, error) {
	updated := false
	for _, v := range values {
		s, _ := v.(string)
		known := false
		for _, n := range c.names {
			if n == s {
				known = true
				break
			}
		}
		if !known {
			return false, &Error{Kind: "InvalidUpdateError", Message: fmt.Sprintf("At key '%s': Value %v not in %v", c.key, v, c.names)}
		}
		if !c.seen[s] {
			if c.seen == nil {
				c.seen = map[string]bool{}
			}
			c.seen[s] = true
			updated = true
		}
	}
	return updated, nil
}
func (c *barrier) complete() bool { return len(c.seen) == len(c.names) }
func (c *barrier) get() (any, bool) {
	if !c.complete() {
		return nil, false
	}
	return nil, true
}
func (c *barrier) consume() bool {
	if c.complete() {
		c.seen = nil
		return true
	}
	return false
}
func (c *barrier) finish() bool { return false }
func (c *barrier) checkpoint() (any, bool) {
	if len(c.seen) == 0 {
		return nil, false
	}
	out := []any{}
	for _, n := range c.names {
		if c.seen[n] {
			out = append(out, n)
		}
	}
	return out, true
}
func (c *barrier) restore(v any, ok bool) channel {
	n := &barrier{key: c.key, names: c.names}
	if list, isList := v.([]any); ok && isList {
		n.seen = map[string]bool{}
		for _, e := range list {
			if s, isStr := e.(string); isStr {
				n.seen[s] = true
			}
		}
	}
	return n
}

// untracked keeps the last value written but is never checkpointed
// (UntrackedValue with guard=False).
type untracked struct {
	key   string
	value any
	set   bool
}

func (c *untracked) update(values []any) (bool, error) {
	if len(values) == 0 {
		return false, nil
	}
	c.value, c.set = values[len(values)-1], true
	return true, nil
}
func (c *untracked) get() (any, bool)        { return c.value, c.set }
func (c *untracked) consume() bool           { return false }
func (c *untracked) finish() bool            { return false }
func (c *untracked) checkpoint() (any, bool) { return nil, false }
func (c *untracked) restore(any, bool) channel {
	return &untracked{key: c.key}
}
