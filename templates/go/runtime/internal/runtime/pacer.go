package runtime

import (
	"context"
	"sync"
	"time"
)

// The window is taken 0.2 % longer, for the rates of the client's and the service's
// clocks, and 20 ms longer, for network jitter: no window of the service's, fixed or
// sliding, then sees more than the rate.
const (
	windowMargin = 1.002
	windowSlack  = 20 * time.Millisecond
)

// pastDeadline is a wait not begun because it would end after the context's deadline.
type pastDeadline struct{ wait time.Duration }

// Error says how long the wait would have been.
func (e pastDeadline) Error() string {
	return "waiting " + e.wait.String() + " would pass the context's deadline"
}

// pacer holds every call of one core to its Rate (a sliding log of sends), and to the
// pause a 429 imposes on all of them. Safe for concurrent use; never locked while a
// call waits.
type pacer struct {
	mu          sync.Mutex
	requests    int
	window      time.Duration
	sent        []time.Time // sends within the last window, oldest first
	pausedUntil time.Time
}

func newPacer(r Rate) *pacer {
	p := &pacer{requests: r.Requests}
	if r.Requests > 0 {
		p.window = time.Duration(float64(r.Window)*windowMargin) + windowSlack
	}
	return p
}

// reserve records a send at now and returns 0, or the wait before asking again
// (nothing recorded) and whether a 429's pause, rather than the window, holds it.
func (p *pacer) reserve(now time.Time) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Before(p.pausedUntil) {
		return p.pausedUntil.Sub(now), true
	}
	if p.requests == 0 {
		return 0, false
	}
	for len(p.sent) > 0 && now.Sub(p.sent[0]) >= p.window {
		p.sent = p.sent[1:]
	}
	if len(p.sent) < p.requests {
		p.sent = append(p.sent, now)
		return 0, false
	}
	// A floor, so rounding never turns this into a busy loop.
	return max(time.Millisecond, p.sent[0].Add(p.window).Sub(now)), false
}

// acquire waits until a request may be sent, and records it as sent. Before each wait
// onWait (when not nil) is told its length and whether a 429's pause holds the call. A
// wait that would end after ctx's deadline is not begun: pastDeadline.
func (p *pacer) acquire(ctx context.Context, onWait func(time.Duration, bool)) error {
	if err := ctx.Err(); err != nil {
		return err // a call whose context is done takes no slot
	}
	for {
		d, held := p.reserve(time.Now())
		if d <= 0 {
			return nil
		}
		if !fits(ctx, d) {
			return pastDeadline{d}
		}
		if onWait != nil {
			onWait(d, held)
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
}

// pauseFor holds every call until d from now (after a 429), unless a longer pause
// already holds them.
func (p *pacer) pauseFor(d time.Duration) {
	now := time.Now()
	until := now.Add(d)
	if until.Before(now) { // d too long for the clock
		until = now.Add(forever / 2)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if until.After(p.pausedUntil) {
		p.pausedUntil = until
	}
}

// fits reports whether a wait of d from now ends before ctx's deadline (always, for a
// context without one).
func fits(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || !time.Now().Add(d).After(deadline)
}

// sleep waits d, or until ctx is done (its error). A wait that would end after ctx's
// deadline is not begun: pastDeadline.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if !fits(ctx, d) {
		return pastDeadline{d}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
