package runtime

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// arrivals records when a server received each request.
type arrivals struct {
	mu    sync.Mutex
	times []time.Time
}

func (a *arrivals) add() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.times = append(a.times, time.Now())
}

func (a *arrivals) sorted() []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := slices.Clone(a.times)
	slices.SortFunc(out, func(x, y time.Time) int { return x.Compare(y) })
	return out
}

func TestPacingKeepsEveryWindowWithinTheRate(t *testing.T) {
	var got arrivals
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { got.add() })
	ev := &events{}
	cfg := testConfig(t, srv.URL, ev)
	cfg.Rate = Rate{Requests: 2, Window: 150 * time.Millisecond}
	c := newCore(t, cfg)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Send(context.Background(), getUnit()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	times := got.sorted()
	if len(times) != 6 {
		t.Fatalf("%d requests", len(times))
	}
	// No window of 150 ms saw a third request.
	for i := 2; i < len(times); i++ {
		if gap := times[i].Sub(times[i-2]); gap < 150*time.Millisecond {
			t.Fatalf("requests %d and %d only %v apart", i-2, i, gap)
		}
	}
	pauses := 0
	for _, e := range ev.list() {
		if e.Kind == EventPause && e.Reason == "rate_limit" && e.Wait > 0 {
			pauses++
		}
	}
	if pauses < 4 {
		t.Fatalf("%d rate_limit pauses reported", pauses)
	}
}

func TestA429WithRetryAfterPausesEveryCallOfTheClient(t *testing.T) {
	var got arrivals
	var limitedOnce sync.Once
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		got.add()
		if r.URL.Path == "/limited" {
			limitedOnce.Do(func() {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(429)
			})
		}
	})
	paused := make(chan struct{})
	cfg := testConfig(t, srv.URL, nil)
	cfg.Hook = func(e Event) {
		if e.Kind == EventRetry {
			close(paused)
		}
	}
	c := newCore(t, cfg)
	limited := &Call{Operation: "limited", Method: "GET", Template: "/limited", Path: "/limited", Resend: true}
	done := make(chan error, 1)
	go func() {
		_, err := c.Send(context.Background(), limited)
		done <- err
	}()
	<-paused
	start := time.Now()
	if _, err := c.Send(context.Background(), getUnit()); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Fatalf("another call went on after %v, during the 429's pause", waited)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(got.sorted()); n != 3 {
		t.Fatalf("%d requests", n)
	}
}

func TestAWaitLongerThanTheDeadlineFailsAtOnce(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {})
	cfg := testConfig(t, srv.URL, nil)
	cfg.Rate = Rate{Requests: 1, Window: 10 * time.Second}
	c := newCore(t, cfg)
	if _, err := c.Send(context.Background(), getUnit()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Send(ctx, getUnit())
	var ce *ContextError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) || ce.Wait < 9*time.Second {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > 100*time.Millisecond || srv.requests() != 1 {
		t.Fatalf("waited %v, %d requests", time.Since(start), srv.requests())
	}
	if ErrorKind(err) != "timeout" {
		t.Fatalf("kind %s", ErrorKind(err))
	}
}

func TestARetryAfterPastTheDeadlineFailsAtOnceWithThe429(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(429)
	})
	cfg := testConfig(t, srv.URL, nil)
	cfg.MaxBackoff = 5 * time.Second
	c := newCore(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Send(ctx, getUnit())
	var api *APIError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &api) || api.Status != 429 {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > 300*time.Millisecond || srv.requests() != 1 {
		t.Fatalf("waited %v, %d requests", time.Since(start), srv.requests())
	}
	// The pause holds the client's other calls too, and they fail as fast.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel2()
	if _, err := c.Send(ctx2, getUnit()); !errors.Is(err, context.DeadlineExceeded) || srv.requests() != 1 {
		t.Fatalf("got %v after %d requests", err, srv.requests())
	}
}

func TestABackoffPastTheDeadlineFailsAtOnce(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) })
	cfg := testConfig(t, srv.URL, nil)
	cfg.InitialBackoff, cfg.MaxBackoff = 4*time.Second, 4*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := newCore(t, cfg).Send(ctx, getUnit())
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrServer) || time.Since(start) > 300*time.Millisecond {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
}

func TestACancelledCallStopsAtOnce(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := newCore(t, testConfig(t, srv.URL, nil)).Send(ctx, getUnit())
	if !errors.Is(err, context.Canceled) || ErrorKind(err) != "interrupted" || srv.requests() != 1 {
		t.Fatalf("got %v after %d requests", err, srv.requests())
	}
}

func TestTheContextDeadlineBoundsAnAttempt(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newCore(t, testConfig(t, srv.URL, nil)).Send(ctx, getUnit())
	var ce *ContextError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
}

func TestThePacerReservesASlidingLog(t *testing.T) {
	p := newPacer(Rate{Requests: 2, Window: time.Second})
	t0 := time.Now()
	if d, _ := p.reserve(t0); d != 0 {
		t.Fatal(d)
	}
	if d, _ := p.reserve(t0.Add(100 * time.Millisecond)); d != 0 {
		t.Fatal(d)
	}
	d, held := p.reserve(t0.Add(200 * time.Millisecond))
	if held || d < 800*time.Millisecond || d > 900*time.Millisecond {
		t.Fatalf("wait %v", d)
	}
	if d, _ := p.reserve(t0.Add(1100 * time.Millisecond)); d != 0 {
		t.Fatalf("after the window: %v", d)
	}
	p.pauseFor(time.Hour)
	if d, held := p.reserve(time.Now()); !held || d < 59*time.Minute {
		t.Fatalf("paused: %v %v", d, held)
	}
}
