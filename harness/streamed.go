package harness

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/grade"
)

// streamedChunk is one part of the "messages" stream, as it came.
type streamedChunk struct {
	ns    []string
	chunk engine.MessageChunk
}

// streamedMessages gathers a turn's chunks into messages, one per task
// and message ID, and orders them by the task that produced them, as
// grade.Streamed describes: tasks level by level (the namespace's, then
// the producing task's own), each at its superstep and index among the
// step's tasks as the checkpoints place it (pos), so that parallel
// tasks, which stream in the order they happen to run, come in the
// graph's order. A task the checkpoints do not show (a run without a
// checkpointer) is placed by its langgraph_step and langgraph_path, or,
// for a subgraph's task, where its first chunk came. A task's own
// messages keep the order it streamed them in; a subgraph's come before
// those its parent node streams when it ends.
func streamedMessages(turn int, chunks []streamedChunk, pos map[string]taskPos) []grade.Streamed {
	type group struct {
		msg    grade.Streamed
		levels []string
		first  int
		path   string
	}
	var groups []*group
	index := map[string]*group{}
	arrival := map[string]int{}
	for i, c := range chunks {
		meta := c.chunk.Metadata
		taskNS := metaString(meta, "langgraph_checkpoint_ns")
		key := taskNS + "\x00" + c.chunk.Message.ID
		g, ok := index[key]
		if !ok {
			g = &group{levels: strings.Split(taskNS, "|"), first: i, path: metaPath(meta)}
			g.msg = grade.Streamed{Turn: turn, Namespace: c.ns, Node: metaString(meta, "langgraph_node"), Step: metaInt(meta, "langgraph_step"), Metadata: meta}
			index[key] = g
			groups = append(groups, g)
		}
		g.msg.Chunks = append(g.msg.Chunks, c.chunk.Message)
		for _, l := range g.levels {
			if _, seen := arrival[l]; !seen {
				arrival[l] = i
			}
		}
	}
	// levelKey places one level of a group's task: known to the
	// checkpoints, else (the producing task) by its metadata, else by
	// arrival.
	type levelKey struct {
		rank, step, index int
		path              string
		arrival           int
	}
	keyOf := func(g *group, i int) levelKey {
		level := g.levels[i]
		_, id, _ := strings.Cut(level, ":")
		if p, ok := pos[id]; ok {
			return levelKey{rank: 0, step: p.step, index: p.index}
		}
		if i == len(g.levels)-1 {
			return levelKey{rank: 1, step: g.msg.Step, path: g.path, arrival: arrival[level]}
		}
		return levelKey{rank: 2, arrival: arrival[level]}
	}
	slices.SortStableFunc(groups, func(a, b *group) int {
		for i := 0; i < len(a.levels) && i < len(b.levels); i++ {
			if a.levels[i] == b.levels[i] {
				continue
			}
			ka, kb := keyOf(a, i), keyOf(b, i)
			return cmp.Or(cmp.Compare(ka.rank, kb.rank), cmp.Compare(ka.step, kb.step), cmp.Compare(ka.index, kb.index),
				cmp.Compare(ka.path, kb.path), cmp.Compare(ka.arrival, kb.arrival))
		}
		// one task inside the other: the subgraph's task ends first
		return cmp.Or(cmp.Compare(len(b.levels), len(a.levels)), cmp.Compare(a.first, b.first))
	})
	out := make([]grade.Streamed, len(groups))
	for i, g := range groups {
		out[i] = g.msg
	}
	return out
}

func metaString(meta *engine.Object, key string) string {
	v, _ := meta.Get(key)
	s, _ := v.(string)
	return s
}

func metaInt(meta *engine.Object, key string) int {
	v, _ := meta.Get(key)
	n, _ := v.(json.Number)
	i, _ := n.Int64()
	return int(i)
}

// metaPath is a task's langgraph_path as LangGraph's task_path_str
// orders it: "~__pregel_pull, agent", "~__pregel_push, 0000000003".
func metaPath(meta *engine.Object) string {
	v, _ := meta.Get("langgraph_path")
	list, _ := v.([]any)
	parts := make([]string, len(list))
	for i, e := range list {
		switch e := e.(type) {
		case json.Number:
			parts[i] = fmt.Sprintf("%010s", e.String())
		default:
			parts[i] = fmt.Sprint(e)
		}
	}
	return "~" + strings.Join(parts, ", ")
}
