package runtime

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestA5xxIsRetriedForAGetWithEventsSayingWhy(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n <= 2 {
			w.WriteHeader(503)
			return
		}
		_, _ = io.WriteString(w, `{"id":"unt_001"}`)
	})
	ev := &events{}
	c := newCore(t, testConfig(t, srv.URL+"/v3", ev))
	ans, err := c.Send(context.Background(), getUnit())
	if err != nil {
		t.Fatal(err)
	}
	if ans.Status != 200 || string(ans.Body) != `{"id":"unt_001"}` || srv.requests() != 3 {
		t.Fatalf("got %d %q after %d requests", ans.Status, ans.Body, srv.requests())
	}
	equal(t, ev.kinds(), []string{"request:1", "response:1:503", "retry:1:status", "request:2", "response:2:503",
		"retry:2:status", "request:3", "response:3:200"})
	first := ev.list()[0]
	if first.Template != "/units/{unit_id}" || first.Method != "GET" || first.ServerAddress != "127.0.0.1" || first.ServerPort == 0 {
		t.Fatalf("request event %+v", first)
	}
}

func TestAPostIsNotRetriedAfterA500(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(500)
		_, _ = io.WriteString(w, `{"errors":"boom"}`)
	})
	ev := &events{}
	c := newCore(t, testConfig(t, srv.URL+"/v3", ev))
	_, err := c.Send(context.Background(), createUnit())
	var api *APIError
	if !errors.As(err, &api) || api.Status != 500 || api.Message != "boom" || !errors.Is(err, ErrServer) {
		t.Fatalf("got %v", err)
	}
	if srv.requests() != 1 {
		t.Fatalf("sent %d times", srv.requests())
	}
	equal(t, ev.kinds(), []string{"request:1", "response:1:500", "error:api"})
	if api.Error() != "create_unit: POST /units answered 500: boom" {
		t.Fatalf("text %q", api.Error())
	}
}

func TestRetriesStopAfterMaxAttempts(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) })
	cfg := testConfig(t, srv.URL, nil)
	cfg.MaxAttempts = 3
	_, err := newCore(t, cfg).Send(context.Background(), getUnit())
	if !errors.Is(err, ErrServer) || srv.requests() != 3 {
		t.Fatalf("got %v after %d requests", err, srv.requests())
	}
}

func TestACallsOwnAttemptsAndTimeoutReplaceTheCores(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("slow") != "" {
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
			return
		}
		w.WriteHeader(503)
	})
	cfg := testConfig(t, srv.URL, nil)
	cfg.MaxAttempts = 4
	c := newCore(t, cfg)
	call := getUnit()
	call.MaxAttempts = 2
	if _, err := c.Send(context.Background(), call); !errors.Is(err, ErrServer) || srv.requests() != 2 {
		t.Fatalf("got %v after %d requests", err, srv.requests())
	}
	slow := getUnit()
	slow.Query = map[string][]string{"slow": {"1"}}
	slow.MaxAttempts, slow.AttemptTimeout = 1, 50*time.Millisecond
	_, err := c.Send(context.Background(), slow)
	var timeout *TimeoutError
	if !errors.As(err, &timeout) || timeout.AttemptTimeout != 50*time.Millisecond {
		t.Fatalf("got %v", err)
	}
}

func TestA429IsRetriedEvenForAPostAfterItsRetryAfter(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
			return
		}
		w.WriteHeader(201)
	})
	ev := &events{}
	ans, err := newCore(t, testConfig(t, srv.URL, ev)).Send(context.Background(), createUnit())
	if err != nil || ans.Status != 201 || srv.requests() != 2 {
		t.Fatalf("got %v, %v after %d", ans, err, srv.requests())
	}
	retry := ev.list()[2]
	if retry.Kind != EventRetry || !retry.RetryAfter || retry.Wait != 0 || retry.Status != 429 {
		t.Fatalf("retry event %+v", retry)
	}
}

func TestARetryAfterLongerThanMaxBackoffFailsAtOnce(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(429)
	})
	start := time.Now()
	_, err := newCore(t, testConfig(t, srv.URL, nil)).Send(context.Background(), getUnit())
	var api *APIError
	if !errors.As(err, &api) || !api.HasRetryAfter || api.RetryAfter != 120*time.Second || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("got %v", err)
	}
	if srv.requests() != 1 || time.Since(start) > time.Second {
		t.Fatalf("%d requests in %v", srv.requests(), time.Since(start))
	}
}

func TestATimedOutGetIsRetriedATimedOutPostIsNot(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		if n == 1 || r.Method == "POST" {
			_, _ = io.Copy(io.Discard, r.Body) // so the server notices the client leave
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
			return
		}
		_, _ = io.WriteString(w, "{}")
	})
	ev := &events{}
	cfg := testConfig(t, srv.URL, ev)
	cfg.AttemptTimeout = 100 * time.Millisecond
	c := newCore(t, cfg)
	if _, err := c.Send(context.Background(), getUnit()); err != nil {
		t.Fatal(err)
	}
	equal(t, ev.kinds(), []string{"request:1", "retry:1:timeout", "request:2", "response:2:200"})
	before := srv.requests()
	_, err := c.Send(context.Background(), createUnit())
	var timeout *TimeoutError
	if !errors.As(err, &timeout) || ErrorKind(err) != "timeout" || srv.requests() != before+1 {
		t.Fatalf("got %v after %d requests", err, srv.requests()-before)
	}
}

func TestABodyThatIsSlowToComeIsATimeoutToo(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		_, _ = io.WriteString(w, "{")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	cfg := testConfig(t, srv.URL, nil)
	cfg.AttemptTimeout = 100 * time.Millisecond
	cfg.MaxAttempts = 2
	_, err := newCore(t, cfg).Send(context.Background(), getUnit())
	var timeout *TimeoutError
	if !errors.As(err, &timeout) || srv.requests() != 2 {
		t.Fatalf("got %v after %d requests", err, srv.requests())
	}
}

func TestARefusedConnectionIsRetriedForAnyMethod(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there now: every connection is refused
	ev := &events{}
	cfg := testConfig(t, "http://"+addr+"/v3", ev)
	cfg.MaxAttempts = 3
	_, err = newCore(t, cfg).Send(context.Background(), createUnit())
	var transport *TransportError
	if !errors.As(err, &transport) || ErrorKind(err) != "transport" {
		t.Fatalf("got %v", err)
	}
	equal(t, ev.kinds(), []string{"request:1", "retry:1:connection", "request:2", "retry:2:connection", "request:3",
		"error:transport"})
}

func TestBackoffGrowsWithJitterUpToItsMaximum(t *testing.T) {
	for range 100 {
		if d := backoff(1, 100*time.Millisecond, time.Second); d < 50*time.Millisecond || d > 100*time.Millisecond {
			t.Fatalf("first backoff %v", d)
		}
		if d := backoff(3, 100*time.Millisecond, time.Second); d < 200*time.Millisecond || d > 400*time.Millisecond {
			t.Fatalf("third backoff %v", d)
		}
		if d := backoff(80, 100*time.Millisecond, time.Second); d < 500*time.Millisecond || d > time.Second {
			t.Fatalf("80th backoff %v", d)
		}
	}
}

func TestRetryAfterReadsSecondsAndDates(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{" 0 ", 0, true},
		{"99999999999999999999999", forever, true},
		{"Sun, 01 Mar 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Sun, 01 Mar 2026 11:00:00 GMT", 0, true},
		{"soon", 0, false},
	}
	for _, c := range cases {
		h := http.Header{}
		if c.value != "" {
			h.Set("Retry-After", c.value)
		}
		if got, ok := retryAfter(h, now); got != c.want || ok != c.ok {
			t.Errorf("%q: got %v %v", c.value, got, ok)
		}
	}
}

func TestErrorBodiesAreReadTolerantly(t *testing.T) {
	cases := map[string]string{
		``:                                     "",
		`{"errors":["vin is invalid","year"]}`: "vin is invalid; year",
		`{"errors":[1,{"a": 2}]}`:              `1; {"a":2}`,
		`<h1>Bad</h1>`:                         "<h1>Bad</h1>",
		`{"other":"x"}`:                        `{"other":"x"}`,
		`{"errors":"a message well beyond`:     `{"errors":"a message well beyond`,
	}
	for body, want := range cases {
		if got := errorMessage([]byte(body), "errors"); got != want {
			t.Errorf("%s: got %q, want %q", body, got, want)
		}
	}
}
