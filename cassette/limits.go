package cassette

import (
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// The default limits; see Limits.
const (
	// DefaultMaxFileBytes is the largest cassette file read by default:
	// 256 MiB, a hundred times the largest recording in the corpora this
	// package was tested on.
	DefaultMaxFileBytes = 256 << 20
	// DefaultMaxBodyBytes is the largest body that gzip or deflate
	// decoding may produce by default: 64 MiB.
	DefaultMaxBodyBytes = 64 << 20
)

// Limits bounds what reading a cassette may allocate, so that a broken or
// hostile file (a gzip bomb, a YAML alias bomb, a file of gigabytes) ends
// in an error that names it instead of exhausting memory. The zero value
// means the defaults; Load, Parse, Check, Import and ImportBytes use the
// defaults, and the methods of the same names use the limits given.
type Limits struct {
	// MaxFileBytes bounds the size of a cassette file that Load, Check
	// and Import read, and of the data given to Parse and ImportBytes;
	// for a gzip-compressed file that Import reads, it bounds the
	// decompressed size too. 0 means DefaultMaxFileBytes (256 MiB).
	MaxFileBytes int64
	// MaxBodyBytes bounds one body as gzip or deflate decoding produces
	// it (on load, on import and when recording), and a pydantic-ai
	// parsed_body as its YAML aliases expand (counting its text and 64
	// bytes per value). Decoding stops as soon as the limit is passed,
	// keeping nothing. 0 means DefaultMaxBodyBytes (64 MiB).
	MaxBodyBytes int64
}

func (l Limits) maxFile() int64 {
	if l.MaxFileBytes > 0 {
		return l.MaxFileBytes
	}
	return DefaultMaxFileBytes
}

// How to raise each limit, as errors say it: the flag of the agenteval
// commands that read cassettes, and the field of Limits.
const (
	raiseFile = "--limit cassette_file_bytes=N, Limits.MaxFileBytes"
	raiseBody = "--limit cassette_body_bytes=N, Limits.MaxBodyBytes"
)

func (l Limits) maxBody() int64 {
	if l.MaxBodyBytes > 0 {
		return l.MaxBodyBytes
	}
	return DefaultMaxBodyBytes
}

// readFile reads the file at path, refusing one larger than the limit
// before reading it (or, for a file whose size is not known in advance,
// as soon as it passes the limit).
func (l Limits) readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := l.maxFile()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, fileTooLarge(st.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fileTooLarge(-1, limit)
	}
	return data, nil
}

// checkSize refuses data larger than the file limit.
func (l Limits) checkSize(data []byte) error {
	if int64(len(data)) > l.maxFile() {
		return fileTooLarge(int64(len(data)), l.maxFile())
	}
	return nil
}

// errFileTooLarge is wrapped by the error of a file over the limit.
var errFileTooLarge = errors.New("file too large")

func fileTooLarge(size, limit int64) error {
	what := "more than " + sizeString(limit)
	if size >= 0 {
		what = sizeString(size) + ", more than " + sizeString(limit)
	}
	return fmt.Errorf("%w: %s, the limit (raise it to read the file: %s)", errFileTooLarge, what, raiseFile)
}

// sizeString writes a byte count the way the limits are documented:
// 256 MiB, 64 MiB, 1.5 KiB, 100 bytes.
func sizeString(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d %s", int64(f), units[u])
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}

// decompress undoes a gzip or deflate (zlib) encoding of data, producing
// at most limit bytes. It decodes twice: once into nothing, to measure
// the result and refuse a bomb without keeping any of it, then into a
// buffer of exactly that size. raise says how to raise the limit.
func decompress(enc, data string, limit int64, raise string) (string, error) {
	open := func() (io.ReadCloser, error) {
		if enc == "deflate" {
			return zlib.NewReader(strings.NewReader(data))
		}
		return gzip.NewReader(strings.NewReader(data))
	}
	r, err := open()
	if err != nil {
		return "", err
	}
	n, err := io.Copy(io.Discard, io.LimitReader(r, limit+1))
	r.Close()
	if err != nil {
		return "", err
	}
	if n > limit {
		return "", fmt.Errorf("%s decoding gives more than %s, the limit (raise it to read the file: %s)", enc, sizeString(limit), raise)
	}
	r, err = open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	var b strings.Builder
	b.Grow(int(n))
	if _, err := io.Copy(&b, io.LimitReader(r, n)); err != nil {
		return "", err
	}
	return b.String(), nil
}
