package engine

// MessageListDepth is the number of nodes in l's chain, for tests.
func MessageListDepth(l MessageList) int {
	d := 0
	for n := l.n; n != nil; n = n.prev {
		d++
	}
	return d
}

// MessageListShares reports whether a's chain holds base's last node
// itself (base's messages were not copied), for tests.
func MessageListShares(a, base MessageList) bool {
	for n := a.n; n != nil; n = n.prev {
		if n == base.n {
			return true
		}
	}
	return false
}
