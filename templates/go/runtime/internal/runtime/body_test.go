package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestASuccessBodyOverMaxResponseBytesIsRefusedNotRetried(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 1000))
	})
	ev := &events{}
	cfg := testConfig(t, srv.URL, ev)
	cfg.MaxResponseBytes = 120
	c := newCore(t, cfg)
	_, err := c.Send(context.Background(), getUnit())
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != 120 || srv.requests() != 1 || ErrorKind(err) != "too_large" {
		t.Fatalf("got %v after %d", err, srv.requests())
	}
	equal(t, ev.kinds(), []string{"request:1", "response:1:200", "error:too_large"})
	cfg.MaxResponseBytes = 1000
	if ans, err := newCore(t, cfg).Send(context.Background(), getUnit()); err != nil || len(ans.Body) != 1000 {
		t.Fatalf("a body within the limit: %v", err)
	}
}

func TestOnlyTheFirstMaxErrorBytesOfAnErrorBodyAreRead(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"errors":"a message well beyond forty bytes, cut where the limit falls"}`)
		_, _ = io.WriteString(w, strings.Repeat(" ", 1<<20))
	})
	cfg := testConfig(t, srv.URL, nil)
	cfg.MaxErrorBytes = 40
	_, err := newCore(t, cfg).Send(context.Background(), getUnit())
	var api *APIError
	if !errors.As(err, &api) || !strings.HasPrefix(api.Message, `{"errors":"a message well`) || len(api.Body) != 40 ||
		strings.Contains(err.Error(), "limit falls") || !errors.Is(err, ErrBadRequest) {
		t.Fatalf("got %v", err)
	}
}

func TestADownloadIsWrittenToTheSinkAsItArrives(t *testing.T) {
	doc := strings.Repeat("%PDF-", 100_000)
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, doc) })
	cfg := testConfig(t, srv.URL, nil)
	cfg.MaxResponseBytes = 10 // a Sink has no such limit
	var out bytes.Buffer
	call := getUnit()
	call.Sink = &out
	ans, err := newCore(t, cfg).Send(context.Background(), call)
	if err != nil || ans.Written != int64(len(doc)) || out.String() != doc || ans.Body != nil {
		t.Fatalf("got %v, %v, %d bytes", ans, err, out.Len())
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestASinkThatFailsEndsTheCall(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 100_000))
	})
	call := getUnit()
	call.Sink = &failingWriter{}
	_, err := newCore(t, testConfig(t, srv.URL, nil)).Send(context.Background(), call)
	var transport *TransportError
	if !errors.As(err, &transport) || !strings.Contains(err.Error(), "disk full") || srv.requests() != 1 {
		t.Fatalf("got %v after %d", err, srv.requests())
	}
}

func TestADownloadThatBreaksOffAfterItsFirstBytesIsNotAskedAgain(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "1000")
		_, _ = io.WriteString(w, "%PDF-partial")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection drops mid-body
	})
	var out bytes.Buffer
	call := getUnit()
	call.Sink = &out
	_, err := newCore(t, testConfig(t, srv.URL, nil)).Send(context.Background(), call)
	if ErrorKind(err) != "transport" || !strings.Contains(err.Error(), "broke off after 12 bytes") || srv.requests() != 1 {
		t.Fatalf("got %v after %d", err, srv.requests())
	}
	if out.String() != "%PDF-partial" {
		t.Fatalf("the sink holds %q", out.String())
	}
}

func TestAStreamedUploadGoesWithItsLengthAndOnce(t *testing.T) {
	var got []string
	var mu sync.Mutex
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(b)+" "+r.Header.Get("Content-Length")+" "+strings.Join(r.TransferEncoding, ",")+
			" "+r.Header.Get("Content-Type"))
		w.WriteHeader(503)
	})
	call, err := PresignedCall("PUT", srv.URL+"/upload?X-Amz-Signature=abc")
	if err != nil {
		t.Fatal(err)
	}
	call.Upload, call.UploadLength, call.ContentType = strings.NewReader("0123456789"), 10, "video/mp4"
	_, err = newCore(t, testConfig(t, srv.URL, nil)).Send(context.Background(), call)
	if !errors.Is(err, ErrServer) {
		t.Fatalf("got %v", err)
	}
	mu.Lock()
	equal(t, got, []string{"0123456789 10  video/mp4"})
	got = nil
	mu.Unlock()
	// With Reopen, it is a PUT like any other: sent again.
	call.Upload, call.Reopen = strings.NewReader("0123456789"), func() (io.Reader, error) {
		return strings.NewReader("0123456789"), nil
	}
	cfg := testConfig(t, srv.URL, nil)
	cfg.MaxAttempts = 2
	_, _ = newCore(t, cfg).Send(context.Background(), call)
	mu.Lock()
	defer mu.Unlock()
	equal(t, got, []string{"0123456789 10  video/mp4", "0123456789 10  video/mp4"})
}

func TestA202IsPolledUntilItIsReady(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 1:
			w.WriteHeader(202)
		case 2:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(202)
		default:
			_, _ = io.WriteString(w, "%PDF-1.7")
		}
	})
	ev := &events{}
	call := getUnit()
	call.Poll, call.Header = true, http.Header{"Accept": {"application/pdf"}}
	ans, err := newCore(t, testConfig(t, srv.URL, ev)).Send(context.Background(), call)
	if err != nil || string(ans.Body) != "%PDF-1.7" {
		t.Fatalf("got %v, %v", ans, err)
	}
	equal(t, ev.kinds(), []string{"request:1", "response:1:202", "pause:poll", "request:1", "response:1:202",
		"pause:poll", "request:1", "response:1:200"})
}

func TestPollingGivesUpAfterMaxPolls(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(202) })
	cfg := testConfig(t, srv.URL, nil)
	cfg.MaxPolls = 2
	call := getUnit()
	call.Poll = true
	_, err := newCore(t, cfg).Send(context.Background(), call)
	var notReady *NotReadyError
	if !errors.As(err, &notReady) || notReady.Attempts != 3 || notReady.RetryAfter != 0 || srv.requests() != 3 {
		t.Fatalf("got %v after %d", err, srv.requests())
	}
}

func TestA202AskingTooLongAWaitEndsThePollingAtOnce(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(202)
	})
	call := getUnit()
	call.Poll = true
	start := time.Now()
	_, err := newCore(t, testConfig(t, srv.URL, nil)).Send(context.Background(), call)
	var notReady *NotReadyError
	if !errors.As(err, &notReady) || notReady.Attempts != 1 || notReady.RetryAfter != time.Hour || ErrorKind(err) != "not_ready" {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

func TestRequestsCarryTheCoreAndCallHeaders(t *testing.T) {
	var h http.Header
	var query string
	var mu sync.Mutex
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		h, query = r.Header.Clone(), r.URL.RawQuery
	})
	cfg := testConfig(t, srv.URL+"/api", nil)
	cfg.Accept = "application/json; version=1"
	call := createUnit()
	call.Query = map[string][]string{"b": {"1 2"}, "a": {"/"}}
	call.Header = http.Header{"X-Extra": {"yes"}}
	if _, err := newCore(t, cfg).Send(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if h.Get("Accept") != "application/json; version=1" || h.Get("User-Agent") != "inspection-client (go)" ||
		h.Get("Content-Type") != "application/json" || h.Get("X-Extra") != "yes" || query != "a=%2F&b=1%202" {
		t.Fatalf("headers %v, query %q", h, query)
	}
}
