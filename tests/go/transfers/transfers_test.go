// Package transfers checks that the Go client moves large files in bounded memory: a
// 200 MiB upload from an io.Reader to a pre-signed URL, and a 200 MiB download into an
// io.Writer, each with the heap in use sampled while it runs. A client that held the
// file would need 200 MiB more; the bound allows 32.
package transfers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	v3 "inspection.dev/client/v3"
)

const (
	size  = 200 << 20
	bound = 32 << 20
)

// zeros reads n zero bytes without holding them.
type zeros struct{ left int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.left == 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), z.left)
	clear(p[:n])
	z.left -= n
	return int(n), nil
}

// peakHeap runs work and gives how far the heap in use rose above what it was before,
// sampled every few milliseconds while work ran.
func peakHeap(t *testing.T, work func()) uint64 {
	t.Helper()
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base := m.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var s runtime.MemStats
		for {
			runtime.ReadMemStats(&s)
			if s.HeapInuse > base && s.HeapInuse-base > peak.Load() {
				peak.Store(s.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	work()
	close(done)
	<-sampled
	return peak.Load()
}

func client(t *testing.T, origin string) *v3.Client {
	t.Helper()
	c, err := v3.NewClient("demo-key", "demo-secret", v3.WithBaseURL(origin+"/v3"), v3.WithoutRateLimit())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestA200MiBUploadIsStreamedWithItsLengthInBoundedMemory(t *testing.T) {
	var received atomic.Int64
	var length atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		length.Store(r.ContentLength)
		n, _ := io.Copy(io.Discard, r.Body)
		received.Store(n)
		w.Header().Set("ETag", `"e1"`)
	}))
	defer srv.Close()
	c := client(t, srv.URL)
	var header http.Header
	var err error
	peak := peakHeap(t, func() {
		header, err = c.PutPresigned(context.Background(), srv.URL+"/bucket/log?X-Signature=s3cret",
			&zeros{left: size}, size, "application/octet-stream", nil)
	})
	if err != nil || header.Get("ETag") != `"e1"` {
		t.Fatalf("the upload failed: %v", err)
	}
	if received.Load() != size || length.Load() != size {
		t.Fatalf("the storage got %d bytes, announced as %d", received.Load(), length.Load())
	}
	t.Logf("200 MiB upload: peak heap in use %.1f MiB above the start", float64(peak)/(1<<20))
	if peak > bound {
		t.Fatalf("the upload held %d MiB at its peak: more than %d", peak>>20, bound>>20)
	}
}

func TestA200MiBDownloadIsWrittenAsItArrivesInBoundedMemory(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		_, _ = io.Copy(w, &zeros{left: size})
	}))
	defer srv.Close()
	c := client(t, srv.URL)
	var written int64
	var err error
	peak := peakHeap(t, func() {
		written, err = c.FetchPresignedTo(context.Background(), srv.URL+"/share/doc.pdf?X-Signature=s3cret", io.Discard)
	})
	if err != nil || written != size {
		t.Fatalf("the download wrote %d bytes: %v", written, err)
	}
	t.Logf("200 MiB download: peak heap in use %.1f MiB above the start", float64(peak)/(1<<20))
	if peak > bound {
		t.Fatalf("the download held %d MiB at its peak: more than %d", peak>>20, bound>>20)
	}
}
