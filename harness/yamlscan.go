package harness

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// The YAML parser's time and memory grow with the square of the nesting
// of flow collections ("[[[[...]]]]") and of compact sequences
// ("- - - - x"): 60 KB of "[" cost 1.4 GB and 6 s, 400 KB did not end
// in 120 s. So before parsing, scanNesting reads the bytes once and
// refuses a file that nests deeper than the limit, where the nesting
// starts; block nesting by indentation costs the parser little and is left
// to the exact check on the parsed values.
//
// The scan is a lower bound of the true nesting: it skips comments,
// quoted strings and block scalars (|, >), counts a "[" or "{" only where
// a value starts (also inside a flow collection), and counts the "- " that
// start a line; the lines that go on a plain scalar ("a: one\n  [two")
// are its text. It never refuses a file the exact check would accept
// (FuzzScanNesting).

// scanNesting returns where data first nests deeper than max, and whether
// it does.
func scanNesting(data []byte, max int) (Position, bool) {
	s := nestScan{data: loneCRs(data), line: 1, col: 1, max: max}
	return s.run()
}

// loneCRs returns data with each carriage return that no line feed
// follows written as a line feed: the YAML parser (goccy's scanner) reads
// a lone CR as a line break, so a "#" after one starts a comment and "- "
// a sequence entry, and the scan must read them so too. A CRLF stays (its
// CR is a blank before the LF). It copies data only when it has a lone CR.
func loneCRs(data []byte) []byte {
	var out []byte
	for i := bytes.IndexByte(data, '\r'); i >= 0; {
		if i+1 == len(data) || data[i+1] != '\n' {
			if out == nil {
				out = bytes.Clone(data)
			}
			out[i] = '\n'
		}
		j := bytes.IndexByte(data[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if out == nil {
		return data
	}
	return out
}

type nestScan struct {
	data      []byte
	i         int
	line, col int
	max       int

	flow       int  // open flow collections
	rootFlow   bool // the outermost open flow collection is the document's root value (depth 0, not 1)
	seen       bool // content (not comments, directives, anchors or tags) has been read
	valueStart bool // a value may start here
	prevSpace  bool // the previous byte was a space or a line start
	block      int  // in a block scalar whose lines are indented more than this; -1: not in one
	// plain: the line ended inside a plain scalar of block context, which
	// goes on over the next lines indented more than plainIndent (the
	// indentation of the line with its key or "- ", -1 for a scalar that
	// starts its line: lenient, as a lower bound must be)
	plain       bool
	plainIndent int
	lineIndent  int  // the current line's indentation
	lineKey     bool // the current line has a key or a "- " before s.i
}

func (s *nestScan) pos() Position { return Position{Line: s.line, Col: s.col} }

// next moves past the byte (or rune) at s.i.
func (s *nestScan) next() {
	if s.data[s.i] == '\n' {
		s.line++
		s.col = 1
		s.i++
		return
	}
	_, n := utf8.DecodeRune(s.data[s.i:])
	s.i += n
	s.col++
}

func (s *nestScan) peek(k int) byte {
	if s.i+k < len(s.data) {
		return s.data[s.i+k]
	}
	return 0
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0 }

func (s *nestScan) run() (Position, bool) {
	s.block = -1
	lineStart := true
	for s.i < len(s.data) {
		if lineStart {
			lineStart = false
			if at, deep := s.startLine(); deep {
				return at, true
			}
			continue
		}
		c := s.data[s.i]
		switch {
		case c == '\n':
			s.next()
			lineStart = true
			continue
		case c == '#' && s.prevSpace:
			s.plain = false // a comment ends a plain scalar
			for s.i < len(s.data) && s.data[s.i] != '\n' {
				s.next()
			}
			continue
		case (c == '"' || c == '\'') && s.valueStart:
			s.seen, s.plain = true, false
			s.quoted(c)
			// goccy starts a comment at a "#" right after a closing
			// quote, as after a space
			s.valueStart, s.prevSpace = false, true
			continue
		case (c == '[' || c == '{') && s.valueStart:
			// only where a value starts, in a flow too: goccy reads
			// "[ 0[[[" as a sequence of the scalar "0[[[" (and refuses
			// brackets right after a closed scalar)
			if s.flow == 0 {
				s.rootFlow = !s.seen
			}
			s.plain = false
			s.seen = true
			s.flow++
			depth := s.flow
			if s.rootFlow {
				depth--
			}
			if depth > s.max {
				return s.pos(), true
			}
			s.valueStart = true
		case (c == ']' || c == '}') && s.flow > 0:
			s.flow--
			s.valueStart = false
			// and right after a closing bracket
			s.prevSpace = true
			s.next()
			continue
		case c == '-' && s.valueStart && isBlank(s.peek(1)) && s.flow == 0:
			s.seen = true
		case c == ',' && s.flow > 0:
			s.valueStart = true
		case c == ':' && (s.flow > 0 || isBlank(s.peek(1))):
			s.valueStart, s.seen = true, true
			s.plain, s.lineKey = false, true
		case c == '-' && s.valueStart && isBlank(s.peek(1)):
			// a sequence entry in a flow: a value starts after it
		case (c == '|' || c == '>') && s.valueStart && s.flow == 0:
			s.block = s.indent()
			for s.i < len(s.data) && s.data[s.i] != '\n' {
				s.next()
			}
			continue
		case c == '&' && s.valueStart:
			// an anchor: the value starts after it. goccy ends its name
			// at a space or a line break, and in a flow also at a tab or
			// a flow indicator ("&a\t[[[" outside a flow is all name)
			for s.i < len(s.data) && !endsAnchor(s.data[s.i], s.flow > 0) {
				s.next()
			}
			s.prevSpace = false
			continue
		case c == '!' && s.valueStart:
			// a tag, which goccy's scanner ends only at a space, a line
			// break or, in a flow, a comma: a tab or a bracket is part of
			// it ("!\t[[[" is a tag, not nesting)
			for s.i < len(s.data) && !endsTag(s.data[s.i], s.flow > 0) {
				s.next()
			}
			s.prevSpace = false
			continue
		case c == ' ' || c == '\t' || c == '\r':
		default:
			if s.valueStart && s.flow == 0 {
				s.plain, s.plainIndent = true, -1
				if s.lineKey {
					s.plainIndent = s.lineIndent
				}
			}
			s.valueStart = false
			s.seen = true
		}
		s.prevSpace = c == ' ' || c == '\t'
		s.next()
	}
	return Position{}, false
}

// endsAnchor reports whether c ends an anchor's name, in a flow
// collection or not.
func endsAnchor(c byte, inFlow bool) bool {
	if inFlow {
		return isBlank(c) || isFlowIndicator(c)
	}
	return c == ' ' || c == '\n' || c == '\r'
}

// endsTag reports whether c ends a tag, in a flow collection or not.
func endsTag(c byte, inFlow bool) bool {
	return c == ' ' || c == '\n' || c == '\r' || (inFlow && c == ',')
}

func isFlowIndicator(c byte) bool { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}' }

// indent is the indentation of the current line.
func (s *nestScan) indent() int {
	start := s.i
	for start > 0 && s.data[start-1] != '\n' {
		start--
	}
	n := 0
	for start+n < len(s.data) && s.data[start+n] == ' ' {
		n++
	}
	return n
}

// startLine reads a line's indentation: it skips the line when it belongs
// to a block scalar, and counts the "- " that start it.
func (s *nestScan) startLine() (Position, bool) {
	n := 0
	for s.peek(n) == ' ' {
		n++
	}
	if s.block >= 0 {
		if c := s.peek(n); n > s.block || c == '\n' || c == '\r' || c == 0 {
			for s.i < len(s.data) && s.data[s.i] != '\n' {
				s.next()
			}
			return Position{}, false
		}
		s.block = -1
	}
	if s.plain && s.flow == 0 && n > s.plainIndent && s.peek(n) != '#' && s.peek(n) != '\n' && s.peek(n) != '\r' && s.peek(n) != 0 {
		// the plain scalar goes on: this line is its text (brackets
		// included), up to a comment
		for s.i < len(s.data) && s.data[s.i] != '\n' {
			if s.data[s.i] == '#' && s.i > 0 && (s.data[s.i-1] == ' ' || s.data[s.i-1] == '\t') {
				s.plain = false
				for s.i < len(s.data) && s.data[s.i] != '\n' {
					s.next()
				}
				break
			}
			s.next()
		}
		return Position{}, false
	}
	s.lineIndent, s.lineKey = n, false
	if c := s.peek(n); c != '#' && c != '\n' && c != '\r' && c != 0 {
		s.plain = false // a line less indented ends it (blank and comment lines do not)
	}
	for range n {
		s.next()
	}
	s.prevSpace = true
	if s.flow > 0 {
		return Position{}, false
	}
	s.valueStart = true
	if n == 0 && s.peek(0) == '.' && s.peek(1) == '.' && s.peek(2) == '.' && s.peek(3) != '.' {
		// a document end marker, which goccy's scanner takes whatever
		// follows it: a comment or a value may start right after it
		for range 3 {
			s.next()
		}
		s.prevSpace = true
		return Position{}, false
	}
	if n == 0 && !s.seen {
		// a document marker or a directive is not content
		switch {
		case s.peek(0) == '%':
			for s.i < len(s.data) && s.data[s.i] != '\n' {
				s.next()
			}
			return Position{}, false
		case s.peek(0) == '-' && s.peek(1) == '-' && s.peek(2) == '-' && isBlank(s.peek(3)):
			for range 3 {
				s.next()
			}
			return Position{}, false
		}
	}
	dashes := 0
	for s.i < len(s.data) && s.data[s.i] == '-' && isBlank(s.peek(1)) && s.peek(1) != '\n' && s.peek(1) != 0 {
		dashes++
		s.seen, s.lineKey = true, true
		// k dashes open k sequences, the first perhaps the document's
		// root (depth 0)
		if dashes-1 > s.max {
			return s.pos(), true
		}
		s.next()
		for s.i < len(s.data) && (s.data[s.i] == ' ' || s.data[s.i] == '\t') {
			s.next()
		}
	}
	return Position{}, false
}

// quoted skips a quoted string that starts at s.i.
func (s *nestScan) quoted(q byte) {
	s.next()
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case q == '"' && c == '\\':
			s.next()
			if s.i < len(s.data) {
				s.next()
			}
			continue
		case c == q && q == '\'' && s.peek(1) == '\'':
			s.next()
		case c == q:
			s.next()
			return
		}
		s.next()
	}
}

// checkUTF8 reports the first byte of data that is not UTF-8, or the
// first character YAML does not allow in a file (outside its printable
// set, YAML 1.2 c-printable: control characters other than tab, line feed
// and carriage return, U+FFFE, U+FFFF), with its line and column. goccy's
// parser accepts some of them where other parsers refuse them, and reads
// them in ways no scenario means (a NUL inside an anchor's name).
func checkUTF8(data []byte) (Position, string, bool) {
	suspect := false
	for _, b := range data {
		if (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f || b == 0xc2 || b == 0xef {
			suspect = true
			break
		}
	}
	if !suspect && utf8.Valid(data) {
		return Position{}, "", true
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return Position{Line: line, Col: col}, fmt.Sprintf("invalid UTF-8 (byte 0x%02x): the file must be UTF-8 text", data[i]), false
		}
		if !yamlPrintable(r) {
			return Position{Line: line, Col: col}, fmt.Sprintf("character %U is not allowed in a YAML file (in a double-quoted string, write it as the escape \"\\u%04X\")", r, r), false
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return Position{}, "", true
}

// yamlPrintable reports whether YAML allows r in a file (c-printable).
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20 || r == 0x7f:
		return false
	case r >= 0x80 && r <= 0x9f:
		return r == 0x85
	case r == 0xfffe || r == 0xffff:
		return false
	}
	return true
}
