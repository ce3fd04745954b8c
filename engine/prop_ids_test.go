package engine

import (
	"testing"

	"pgregory.net/rapid"
)

// TestPropIDArenaMatchesFormatUUID: the IDs an idArena cuts from its
// chunks are the UUIDs formatUUID makes of the same bytes, and every ID
// handed out keeps its text while the arena goes on (its chunk is never
// written again).
func TestPropIDArenaMatchesFormatUUID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a idArena
		var got, want []string
		for range rapid.IntRange(1, 300).Draw(t, "ids") {
			var sum, copySum [16]byte
			for i := range sum {
				sum[i] = rapid.Byte().Draw(t, "byte")
			}
			copySum = sum
			got = append(got, a.uuid(&sum))
			want = append(want, formatUUID(&copySum))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("ID %d = %s, want %s", i, got[i], want[i])
			}
		}
	})
}
