package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

func TestPutPartsGivesTheETagsInPartOrder(t *testing.T) {
	var inFlight, most atomic.Int64
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		now := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Api-Key-Secret") != "" || r.Header.Get("Content-Type") != "text/plain" {
			w.WriteHeader(400)
			return
		}
		w.Header().Set("ETag", `"`+string(b)+`"`)
	})
	cfg := testConfig(t, srv.URL, nil)
	cfg.Auth = keyAuth()
	c := newCore(t, cfg)
	urls := []string{srv.URL + "/p/1?sig=a", srv.URL + "/p/2?sig=b", srv.URL + "/p/3?sig=c", srv.URL + "/p/4?sig=d"}
	parts := [][]byte{[]byte("one"), []byte("two"), []byte("three"), []byte("four")}
	etags, err := PutParts(context.Background(), c, urls, parts, "text/plain", 2)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, etags, []string{`"one"`, `"two"`, `"three"`, `"four"`})
	if most.Load() > 2 {
		t.Fatalf("%d parts in flight", most.Load())
	}
	if _, err := PutParts(context.Background(), c, urls[:1], parts, "", 1); ErrorKind(err) != "config" {
		t.Fatalf("got %v", err)
	}
}

func TestPutPartsStopsAtTheFirstFailure(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/p/1" {
			w.WriteHeader(403)
		}
	})
	c := newCore(t, testConfig(t, srv.URL, nil))
	urls := []string{srv.URL + "/p/1", srv.URL + "/p/2", srv.URL + "/p/3"}
	_, err := PutParts(context.Background(), c, urls, [][]byte{{1}, {2}, {3}}, "", 1)
	if !errors.Is(err, ErrForbidden) || srv.requests() != 1 {
		t.Fatalf("got %v after %d", err, srv.requests())
	}
}

func TestAPresignedURLMustBeSecure(t *testing.T) {
	for _, bad := range []string{"ftp://x/y", "http://storage.example/x?sig=SECRET", "/relative", "https://user:pw@s3.example/x"} {
		_, err := PresignedCall("GET", bad)
		if ErrorKind(err) != "config" || (err != nil && (strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "pw"))) {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}
