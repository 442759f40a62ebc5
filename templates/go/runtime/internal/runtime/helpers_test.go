package runtime

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// events collects what a core reports, for the tests to compare.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) hook(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) list() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.all...)
}

// kinds returns the events as "kind:attempt" (and the status or reason where there is
// one), in order.
func (e *events) kinds() []string {
	var out []string
	for _, ev := range e.list() {
		s := string(ev.Kind)
		switch ev.Kind {
		case EventRequest:
			s += ":" + itoa(ev.Attempt)
		case EventResponse:
			s += ":" + itoa(ev.Attempt) + ":" + itoa(ev.Status)
		case EventRetry:
			s += ":" + itoa(ev.Attempt) + ":" + ev.Reason
		case EventPause:
			s += ":" + ev.Reason
		case EventError:
			s += ":" + ev.ErrorType
		case EventPage:
			s += ":" + itoa(ev.Page) + ":" + itoa(ev.Items)
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// server is an httptest server counting its requests, answering with handle.
type server struct {
	*httptest.Server
	count atomic.Int64
}

func newServer(t *testing.T, handle func(n int64, w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handle(s.count.Add(1), w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() int { return int(s.count.Load()) }

// testConfig is DefaultConfig on base with waits short enough for tests.
func testConfig(t *testing.T, base string, ev *events) Config {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(u)
	cfg.InitialBackoff = time.Millisecond
	cfg.MaxBackoff = 2 * time.Second
	cfg.AttemptTimeout = 2 * time.Second
	cfg.PollInterval = time.Millisecond
	if ev != nil {
		cfg.Hook = ev.hook
	}
	return cfg
}

func newCore(t *testing.T, cfg Config) *Core {
	t.Helper()
	c, err := NewCore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func getUnit() *Call {
	return &Call{Operation: "get_unit", Method: "GET", Template: "/units/{unit_id}", Path: "/units/unt_001", Resend: true}
}

func createUnit() *Call {
	return &Call{Operation: "create_unit", Method: "POST", Template: "/units", Path: "/units", Body: []byte(`{"reference_number":"R-1"}`)}
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d entries %q, want %d %q", len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("entry %d: got %q, want %q (all: %q)", i, got[i], want[i], got)
		}
	}
}
