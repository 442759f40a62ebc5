package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func keyAuth() Auth {
	return KeyHeaders(map[string]string{"api-key-id": "demo-key"}, map[string]Secret{"api-key-secret": NewSecret("demo-secret")})
}

// seen records each request's path, query and credential headers.
type seen struct {
	mu   sync.Mutex
	reqs []string
}

func (s *seen) add(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r.Method+" "+r.URL.RequestURI()+" id="+r.Header.Get("Api-Key-Id")+
		" secret="+r.Header.Get("Api-Key-Secret")+" referer="+r.Header.Get("Referer"))
}

func (s *seen) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

func TestARedirectWithinTheOriginIsFollowedWithTheKeys(t *testing.T) {
	var log seen
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if r.URL.Path == "/v3/units/unt_001" {
			w.Header().Set("Location", "/v3/units/unt_002")
			w.WriteHeader(307)
			return
		}
		_, _ = io.WriteString(w, `{"id":"unt_002"}`)
	})
	ev := &events{}
	cfg := testConfig(t, srv.URL+"/v3", ev)
	cfg.Auth = keyAuth()
	ans, err := newCore(t, cfg).Send(context.Background(), getUnit())
	if err != nil || string(ans.Body) != `{"id":"unt_002"}` {
		t.Fatalf("got %v, %v", ans, err)
	}
	equal(t, log.list(), []string{
		"GET /v3/units/unt_001 id=demo-key secret=demo-secret referer=",
		"GET /v3/units/unt_002 id=demo-key secret=demo-secret referer=",
	})
	// A redirect followed is part of its attempt, not an answer.
	equal(t, ev.kinds(), []string{"request:1", "response:1:200"})
}

func TestARedirectToAnotherOriginIsNotFollowed(t *testing.T) {
	var other seen
	elsewhere := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) { other.add(r) })
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", elsewhere.URL+"/v3/units/unt_001")
		w.WriteHeader(302)
	})
	ev := &events{}
	cfg := testConfig(t, srv.URL+"/v3", ev)
	cfg.Auth = keyAuth()
	_, err := newCore(t, cfg).Send(context.Background(), getUnit())
	var foreign *ForeignOriginError
	if !errors.As(err, &foreign) || foreign.Via != "redirect" || foreign.Origin != elsewhere.URL {
		t.Fatalf("got %v", err)
	}
	if len(other.list()) != 0 || srv.requests() != 1 {
		t.Fatalf("the other origin got %q", other.list())
	}
	equal(t, ev.kinds(), []string{"request:1", "response:1:302", "error:foreign_origin"})
}

func TestAPresignedRedirectPassesOnNeitherItsSignatureNorTheKeys(t *testing.T) {
	var log seen
	storage := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		log.add(r)
		_, _ = io.WriteString(w, "%PDF-moved")
	})
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		log.add(r)
		w.Header().Set("Location", storage.URL+"/copy/abc")
		w.WriteHeader(302)
	})
	cfg := testConfig(t, srv.URL+"/v3", nil)
	cfg.Auth = keyAuth()
	call, err := PresignedCall("GET", srv.URL+"/storage/abc?sig=SIGNATURE-1234")
	if err != nil {
		t.Fatal(err)
	}
	if call.Template != srv.URL+"/storage/abc" {
		t.Fatalf("template %q", call.Template)
	}
	ans, err := newCore(t, cfg).Send(context.Background(), call)
	if err != nil || string(ans.Body) != "%PDF-moved" {
		t.Fatalf("got %v, %v", ans, err)
	}
	equal(t, log.list(), []string{
		"GET /storage/abc?sig=SIGNATURE-1234 id= secret= referer=",
		"GET /copy/abc id= secret= referer=",
	})
}

func TestA303GoesOnAsAGetWithoutTheBody(t *testing.T) {
	var bodies []string
	var mu sync.Mutex
	srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Method+" "+string(b))
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Location", "/v3/units/made")
			w.WriteHeader(303)
		}
	})
	if _, err := newCore(t, testConfig(t, srv.URL+"/v3", nil)).Send(context.Background(), createUnit()); err != nil {
		t.Fatal(err)
	}
	equal(t, bodies, []string{`POST {"reference_number":"R-1"}`, "GET "})
}

func TestRedirectsEndAfterFive(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/v3/loop")
		w.WriteHeader(302)
	})
	_, err := newCore(t, testConfig(t, srv.URL+"/v3", nil)).Send(context.Background(), getUnit())
	var transport *TransportError
	if !errors.As(err, &transport) || !strings.Contains(err.Error(), "more than 5 redirects") || srv.requests() != 6 {
		t.Fatalf("got %v after %d", err, srv.requests())
	}
}

func TestANextLinkOnAnotherOriginIsRefusedBeforeSending(t *testing.T) {
	srv := newServer(t, func(int64, http.ResponseWriter, *http.Request) {})
	c := newCore(t, testConfig(t, srv.URL+"/v3", nil))
	call := getUnit()
	call.Path = "http://other.invalid/v3/units?page=x"
	_, err := c.Send(context.Background(), call)
	var foreign *ForeignOriginError
	if !errors.As(err, &foreign) || foreign.Via != "link" || foreign.Origin != "http://other.invalid" || srv.requests() != 0 {
		t.Fatalf("got %v", err)
	}
	call.Path = srv.URL + "/v3/units?page=x"
	if _, err := c.Send(context.Background(), call); err != nil || srv.requests() != 1 {
		t.Fatalf("a link on the origin: %v", err)
	}
}
