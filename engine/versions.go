package engine

// versions holds a run's channel versions and the versions each node has
// seen (LangGraph's channel_versions and versions_seen) in slices indexed
// by the graph's channel and node numbers, so a superstep reads and bumps
// them without building a map. A checkpoint's maps are made from them only
// when a saver stores one (toCheckpoint), and read into them when a run
// starts from a stored checkpoint (load).
//
// The seen table has a row per node in the graph's node order, and one
// more for the "__interrupt__" entry that interrupt_before/after compare
// against. What a stored checkpoint holds that the graph does not know (a
// channel or a node that is no longer there) is kept aside, so that the
// checkpoints the run takes carry it on as they always did.
type versions struct {
	nCh int
	// cur[c] is channel c's version; has[c] says it has one
	cur []int64
	has []bool
	// seen[row*nCh+c] is the version of channel c that node row saw,
	// seenHas says the entry exists; row has a map when rowHas[row]
	seen    []int64
	seenHas []bool
	rowHas  []bool
	// max is the highest version, here or in extraCur
	max int64
	// extraCur are versions of channels the graph does not have;
	// extraSeen, by node, entries for nodes or channels it does not have
	extraCur  map[string]int64
	extraSeen map[string]map[string]int64
}

// newVersions returns an empty table for g.
func newVersions(g *Graph) *versions { return newVersionsSized(len(g.chanNames), g.seenRows()) }

// seenRows is the number of rows of g's versions tables: one per node and
// the "__interrupt__" entry.
func (g *Graph) seenRows() int { return len(g.nodeList) + 1 }

// newVersionsSized returns an empty table of nCh channels and rows rows.
func newVersionsSized(nCh, rows int) *versions {
	v := &versions{nCh: nCh}
	// one allocation per kind for the whole table
	ints := make([]int64, nCh+rows*nCh)
	v.cur, v.seen = ints[:nCh:nCh], ints[nCh:]
	flags := make([]bool, nCh+rows*nCh+rows)
	v.has, v.seenHas, v.rowHas = flags[:nCh:nCh], flags[nCh:nCh+rows*nCh:nCh+rows*nCh], flags[nCh+rows*nCh:]
	return v
}

// interruptRow is the row of the "__interrupt__" entry.
func (v *versions) interruptRow() int { return len(v.rowHas) - 1 }

// any reports whether some channel has a version (the checkpoint is not a
// new thread's).
func (v *versions) any() bool {
	if len(v.extraCur) > 0 {
		return true
	}
	for _, h := range v.has {
		if h {
			return true
		}
	}
	return false
}

// get returns channel c's version.
func (v *versions) get(c int) (int64, bool) { return v.cur[c], v.has[c] }

// set gives channel c version n.
func (v *versions) set(c int, n int64) {
	v.cur[c], v.has[c] = n, true
	v.max = max(v.max, n)
}

// next is one above the highest version (the version a superstep's
// writes get).
func (v *versions) next() int64 { return v.max + 1 }

// seenOf returns the version of channel c that row saw, 0 when none, and
// whether row has seen anything at all (has a map).
func (v *versions) seenOf(row, c int) (int64, bool) {
	return v.seen[row*v.nCh+c], v.rowHas[row]
}

// markSeen records that row saw version n of channel c.
func (v *versions) markSeen(row, c int, n int64) {
	i := row*v.nCh + c
	v.seen[i], v.seenHas[i], v.rowHas[row] = n, true, true
}

// changedSinceInterrupt reports whether some channel's version is above
// the one the "__interrupt__" entry saw (should_interrupt's any_updates_
// since_prev_interrupt).
func (v *versions) changedSinceInterrupt() bool {
	row := v.interruptRow()
	for c := range v.cur {
		if v.has[c] && v.cur[c] > v.seen[row*v.nCh+c] {
			return true
		}
	}
	if len(v.extraCur) > 0 {
		seen := v.extraSeen[chInterrupt]
		for ch, n := range v.extraCur {
			if n > seen[ch] {
				return true
			}
		}
	}
	return false
}

// seeAllForInterrupt makes the "__interrupt__" entry see every channel's
// current version, as a resumed run does before its first step.
func (v *versions) seeAllForInterrupt() {
	row := v.interruptRow()
	for c := range v.cur {
		if v.has[c] {
			v.markSeen(row, c, v.cur[c])
		}
	}
	v.rowHas[row] = true
}

// load reads a stored checkpoint's versions into an empty table.
func (v *versions) load(g *Graph, cp *Checkpoint) {
	for ch, n := range cp.ChannelVersions {
		if c, ok := g.chanIdx[ch]; ok {
			v.set(c, n)
			continue
		}
		if v.extraCur == nil {
			v.extraCur = map[string]int64{}
		}
		v.extraCur[ch] = n
		v.max = max(v.max, n)
	}
	for node, seen := range cp.VersionsSeen {
		row := g.seenRow(node)
		if row >= 0 {
			v.rowHas[row] = true
		}
		for ch, n := range seen {
			c, ok := g.chanIdx[ch]
			if row >= 0 && ok {
				v.markSeen(row, c, n)
				continue
			}
			v.addExtraSeen(node, ch, n)
		}
		if row < 0 {
			// a node the graph does not know keeps its map, even empty
			v.extraRow(node)
		}
	}
}

// extraRow returns the map of entries kept aside for node, made when
// missing.
func (v *versions) extraRow(node string) map[string]int64 {
	if v.extraSeen == nil {
		v.extraSeen = map[string]map[string]int64{}
	}
	m := v.extraSeen[node]
	if m == nil {
		m = map[string]int64{}
		v.extraSeen[node] = m
	}
	return m
}

func (v *versions) addExtraSeen(node, ch string, n int64) { v.extraRow(node)[ch] = n }

// channelVersions returns the versions as a checkpoint's map, new.
func (v *versions) channelVersions(g *Graph) map[string]int64 {
	out := make(map[string]int64, len(v.cur)+len(v.extraCur))
	for c, h := range v.has {
		if h {
			out[g.chanNames[c]] = v.cur[c]
		}
	}
	for ch, n := range v.extraCur {
		out[ch] = n
	}
	return out
}

// versionsSeen returns the seen table as a checkpoint's map. The map of a
// row is taken from prev when prev holds the same entries (a saver may
// keep maps it was given: see toCheckpoint), so a superstep makes new maps
// only for the nodes that ran.
func (v *versions) versionsSeen(g *Graph, prev map[string]map[string]int64) map[string]map[string]int64 {
	out := make(map[string]map[string]int64, len(v.rowHas)+len(v.extraSeen))
	for row, h := range v.rowHas {
		if !h {
			continue
		}
		name := g.seenName(row)
		if old, ok := prev[name]; ok && v.rowEquals(g, row, name, old) {
			out[name] = old
			continue
		}
		m := make(map[string]int64, 2)
		for c := range v.nCh {
			if i := row*v.nCh + c; v.seenHas[i] {
				m[g.chanNames[c]] = v.seen[i]
			}
		}
		for ch, n := range v.extraSeen[name] {
			m[ch] = n
		}
		out[name] = m
	}
	for node, seen := range v.extraSeen {
		if _, done := out[node]; done {
			continue
		}
		m := make(map[string]int64, len(seen))
		for ch, n := range seen {
			m[ch] = n
		}
		out[node] = m
	}
	return out
}

// rowEquals reports whether m holds exactly row's entries.
func (v *versions) rowEquals(g *Graph, row int, name string, m map[string]int64) bool {
	n := 0
	for c := range v.nCh {
		i := row*v.nCh + c
		if !v.seenHas[i] {
			continue
		}
		n++
		if got, ok := m[g.chanNames[c]]; !ok || got != v.seen[i] {
			return false
		}
	}
	for ch, x := range v.extraSeen[name] {
		n++
		if got, ok := m[ch]; !ok || got != x {
			return false
		}
	}
	return n == len(m)
}
