package serve_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// wireAnswer is a response as it crossed the connection: the status, the
// headers and the body in the HTTP chunks it came in (one piece when the
// body had a Content-Length).
type wireAnswer struct {
	status  int
	header  http.Header
	chunked bool
	chunks  [][]byte
	// cut: the connection ended before the chunked body's last chunk.
	cut bool
}

// body is the chunks joined.
func (a wireAnswer) body() []byte { return bytes.Join(a.chunks, nil) }

// rawPost sends one POST over a fresh TCP connection and reads the
// answer's chunked framing itself, so the test sees where the server cut
// the body: every Flush ends one chunk, whatever TCP does with the
// bytes, and http.Client would hide it.
func rawPost(t *testing.T, base, path string, header http.Header, body string) wireAnswer {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n", path, u.Host, len(body))
	for k, vs := range header {
		for _, v := range vs {
			fmt.Fprintf(&req, "%s: %s\r\n", k, v)
		}
	}
	req.WriteString("\r\n" + body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	tp := textproto.NewReader(bufio.NewReader(conn))
	line, err := tp.ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(line, " ")
	status, err := strconv.Atoi(code[:3])
	if err != nil {
		t.Fatalf("status line %q", line)
	}
	mh, err := tp.ReadMIMEHeader()
	if err != nil {
		t.Fatal(err)
	}
	a := wireAnswer{status: status, header: http.Header(mh)}
	if a.header.Get("Transfer-Encoding") != "chunked" {
		b, err := io.ReadAll(tp.R)
		if err != nil {
			t.Fatal(err)
		}
		a.chunks = [][]byte{b}
		return a
	}
	a.chunked = true
	for {
		sizeLine, err := tp.ReadLine()
		if errors.Is(err, io.EOF) {
			a.cut = true
			return a
		}
		if err != nil {
			t.Fatalf("chunk size: %v", err)
		}
		sizeHex, _, _ := strings.Cut(sizeLine, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(sizeHex), 16, 64)
		if err != nil {
			t.Fatalf("chunk size line %q: %v", sizeLine, err)
		}
		if n == 0 {
			return a
		}
		chunk := make([]byte, n)
		if _, err := io.ReadFull(tp.R, chunk); err != nil {
			t.Fatalf("chunk of %d bytes: %v", n, err)
		}
		if crlf, err := tp.R.Discard(2); err != nil || crlf != 2 {
			t.Fatalf("chunk end: %v", err)
		}
		a.chunks = append(a.chunks, chunk)
	}
}

// recordedEvents cuts an event stream after each blank line, the way the
// SSE format ends an event; it is the test's own reading of the format,
// independent of the server's.
func recordedEvents(body string) []string {
	var out []string
	for _, ev := range strings.SplitAfter(body, "\n\n") {
		if ev != "" {
			out = append(out, ev)
		}
	}
	return out
}
