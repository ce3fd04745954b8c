package engine

import (
	"testing"

	"pgregory.net/rapid"
)

// TestPropFreshRunIsFreshForEach: mintState.freshRun, given the IDs a
// task made up one after another (listRoom.minted), says what fresh says
// of each of them, and leaves max where fresh leaves it; given a list
// whose last ID is not the first's run of len(list) (a gap, or one of
// another run's), or whose first is no fast ID, it says false and leaves
// max as it was. (A freshRun that checked the first ID alone, or did not
// raise max to the last, fails it.)
func TestPropFreshRunIsFreshForEach(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := &run{idKey: [2]uint64{rapid.Uint64().Draw(t, "key0"), rapid.Uint64().Draw(t, "key1")}}
		step := rapid.IntRange(-1, 5).Draw(t, "step")
		ord := rapid.IntRange(0, 3).Draw(t, "ord")
		from := rapid.IntRange(1, 1<<20+8).Draw(t, "from")
		n := rapid.IntRange(1, 40).Draw(t, "n")
		msgs := make([]Message, n)
		for k := range msgs {
			msgs[k].ID = r.fastID(idMessage, step, ord, from+k)
		}
		// max: below the run, within it or above it, as another task's
		// messages the channel took before left it
		maxStep := rapid.IntRange(-1, 6).Draw(t, "maxStep")
		maxN := rapid.IntRange(0, 1<<20-1).Draw(t, "maxN")
		max := uint64(0)
		if rapid.Bool().Draw(t, "hasMax") {
			max = uint64(idMessage)<<62 | uint64(maxStep+1)<<40 | uint64(ord)<<20 | uint64(maxN)
		}
		switch rapid.IntRange(0, 2).Draw(t, "change") {
		case 1:
			// the last ID another counter's: a list that is not one run
			d := rapid.IntRange(1, 5).Draw(t, "gap")
			if rapid.Bool().Draw(t, "below") {
				d = -d
			}
			msgs[n-1].ID = r.fastID(idMessage, step, ord, from+n-1+d)
		case 2:
			// the last ID another run's
			other := &run{idKey: [2]uint64{r.idKey[0] + 1, r.idKey[1]}}
			msgs[n-1].ID = other.fastID(idMessage, step, ord, from+n-1)
		}
		// the reference: fresh, message by message, on a copy of the state
		each := &mintState{key: r.idKey, max: max}
		all := true
		for k := range msgs {
			all = each.fresh(&msgs[k]) && all
		}
		s := &mintState{key: r.idKey, max: max}
		got := s.freshRun(msgs)
		consecutive := true
		if n > 1 {
			p, ok1 := parseFastMessageID(r.idKey, msgs[0].ID)
			q, ok2 := parseFastMessageID(r.idKey, msgs[n-1].ID)
			consecutive = ok1 && ok2 && q == p+uint64(n-1)
		}
		switch {
		case got && !all:
			t.Fatalf("freshRun took a list fresh does not take (max %x)", max)
		case got && s.max != each.max:
			t.Fatalf("freshRun left max at %x, fresh at %x", s.max, each.max)
		case !got && s.max != max:
			t.Fatalf("freshRun said false and moved max from %x to %x", max, s.max)
		case !got && all && consecutive:
			t.Fatalf("freshRun refused a run of fresh IDs (max %x)", max)
		}
	})
}
