package nnuedata

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ponderosa-chess/ponderosa/internal/filelock"
)

// Writer appends records to a data file.
type Writer struct {
	f   *os.File
	bw  *bufio.Writer
	n   int64 // records in the file, including those written by this Writer
	buf [RecordSize]byte
}

// OpenAppend opens (or creates) the data file at path for appending. A
// partial record at the end — left by a run killed in the middle of a
// write — is cut off first, so a run can stop at any time and go on later.
// The file stays locked until the Writer is closed: a second run on it
// gets an error wrapping filelock.ErrLocked instead of writing over this
// one's records.
func OpenAppend(path string) (*Writer, error) {
	f, err := filelock.OpenLocked(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	size := st.Size() - st.Size()%RecordSize
	if size != st.Size() {
		if err := f.Truncate(size); err != nil {
			f.Close()
			return nil, fmt.Errorf("nnuedata: cut the partial record off %s: %w", path, err)
		}
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return &Writer{f: f, bw: bufio.NewWriterSize(f, 64<<10), n: size / RecordSize}, nil
}

// Records returns the number of records in the file.
func (w *Writer) Records() int64 { return w.n }

// Write appends one record (buffered: call Flush to make it durable).
func (w *Writer) Write(r *Record) error {
	r.Encode(w.buf[:])
	if _, err := w.bw.Write(w.buf[:]); err != nil {
		return err
	}
	w.n++
	return nil
}

// Flush writes the buffered records to the file.
func (w *Writer) Flush() error { return w.bw.Flush() }

// Close flushes and closes the file.
func (w *Writer) Close() error {
	err := w.bw.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Reader reads records one after the other.
type Reader struct {
	br  *bufio.Reader
	n   int64
	buf [RecordSize]byte
}

// NewReader reads records from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Read decodes the next record into rec. It returns io.EOF at a clean end,
// and an error naming the record for a partial or invalid one.
func (r *Reader) Read(rec *Record) error {
	if _, err := io.ReadFull(r.br, r.buf[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("nnuedata: record %d: %w", r.n, ErrShortRecord)
		}
		return err
	}
	if err := rec.Decode(r.buf[:]); err != nil {
		return fmt.Errorf("nnuedata: record %d: %w", r.n, err)
	}
	r.n++
	return nil
}

// ReadFile reads every record of the file at path (at most limit records
// when limit > 0).
func ReadFile(path string, limit int) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := NewReader(f)
	var out []Record
	for limit <= 0 || len(out) < limit {
		var rec Record
		err := rd.Read(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, nil
}
