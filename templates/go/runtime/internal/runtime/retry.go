package runtime

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// forever is longer than any wait the client takes as such: a Retry-After too large for
// a Duration is this.
const forever = time.Duration(math.MaxInt64)

// backoff returns the wait before retry number retry (1-based): half of the exponential
// step min(initial * 2^(retry-1), max) plus a random share of the other half, so that
// clients that failed together spread out.
func backoff(retry int, initial, maxWait time.Duration) time.Duration {
	step := initial
	for i := 1; i < retry && step < maxWait; i++ {
		if step > forever/2 {
			step = forever
			break
		}
		step *= 2
	}
	step = min(step, maxWait)
	half := step / 2
	return half + time.Duration(rand.Float64()*float64(half))
}

// retryAfter reads the Retry-After header: delay-seconds or an HTTP date (a date past is
// 0). ok is false when it is absent or unreadable. Seconds too many for a Duration are
// forever: longer than any client waits.
func retryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	value := strings.TrimSpace(h.Get("Retry-After"))
	if value == "" {
		return 0, false
	}
	if strings.Trim(value, "0123456789") == "" {
		seconds, err := strconv.ParseInt(value, 10, 64)
		if err != nil || seconds > int64(forever/time.Second) {
			return forever, true
		}
		return time.Duration(seconds) * time.Second, true
	}
	when, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	return max(0, when.Sub(now)), true
}

// errorMessage returns the service's message in an error body: the member field of a
// JSON object (an array joined with "; "), a body that is not JSON (or has no such
// member) as its text, "" for an empty one.
func errorMessage(body []byte, field string) string {
	text := strings.TrimSpace(string(body))
	if text == "" {
		return ""
	}
	var object map[string]json.RawMessage
	if json.Unmarshal(body, &object) != nil {
		return text
	}
	if joined, ok := joinedMessage(object[field]); ok {
		return joined
	}
	return text
}

// joinedMessage reads a message member: a string, or an array of them (any other
// element written as its JSON).
func joinedMessage(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return "", false
	}
	parts := make([]string, len(list))
	for i, e := range list {
		if json.Unmarshal(e, &parts[i]) != nil {
			parts[i] = compactJSON(e)
		}
	}
	return strings.Join(parts, "; "), true
}

// compactJSON writes raw without the spaces between its tokens.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// failure is an attempt that got no answer, sorted for the retry rules.
type failure struct {
	// kind is timeout (the attempt's time ran out), refused (no connection was made,
	// so nothing reached the service and any method may be sent again) or network
	// (anything else on the way, after which the request may have been applied).
	kind string
	// err is the cause, its URL scrubbed.
	err error
}

// Error returns the cause's text.
func (f *failure) Error() string { return f.err.Error() }

// Unwrap returns the cause.
func (f *failure) Unwrap() error { return f.err }

// wait is how a failed attempt is retried: sleep is slept by the call itself, wait is
// the wait reported (a 429's is a pause of the pacer, which holds every call of the
// client, so the call sleeps 0 and the pacer holds it), retryAfter whether it is the
// service's Retry-After.
type wait struct {
	sleep, wait time.Duration
	retryAfter  bool
}

// retryIn returns how to wait before the next attempt after failed (an *APIError or a
// *failure), or the error that ends the call. A 429 is retried for any method (it was
// refused, so not applied) after its Retry-After, and pauses every call meanwhile; a
// Retry-After longer than MaxBackoff ends the call at once, as asking before it would
// only meet another 429. A 5xx, a timeout or a broken connection is retried only when
// the call may be resent; a refused connection (nothing sent) for any call.
func (c *Core) retryIn(call *Call, failed error, tries int, mayRetry bool) (wait, error) {
	backoffWait := backoff(tries, c.cfg.InitialBackoff, c.cfg.MaxBackoff)
	switch f := failed.(type) {
	case *APIError:
		if f.Status == http.StatusTooManyRequests {
			if f.HasRetryAfter && f.RetryAfter > c.cfg.MaxBackoff {
				return wait{}, f
			}
			hold := backoffWait
			if f.HasRetryAfter {
				hold = f.RetryAfter
			}
			hold = min(hold, c.cfg.MaxBackoff)
			c.pacer.pauseFor(hold)
			if mayRetry {
				return wait{sleep: 0, wait: hold, retryAfter: f.HasRetryAfter}, nil
			}
			return wait{}, f
		}
		if f.Status >= 500 && call.Resend && mayRetry {
			return wait{sleep: backoffWait, wait: backoffWait}, nil
		}
		return wait{}, f
	case *failure:
		if mayRetry && (f.kind == "refused" || call.Resend) {
			return wait{sleep: backoffWait, wait: backoffWait}, nil
		}
		return wait{}, c.finalError(call, f)
	}
	return wait{}, failed
}

// finalError is the error a failed attempt ends its call with.
func (c *Core) finalError(call *Call, failed error) error {
	f, ok := failed.(*failure)
	switch {
	case !ok:
		return failed
	case f.kind == "timeout":
		return &TimeoutError{Operation: call.Operation, AttemptTimeout: c.attemptTimeout(call)}
	}
	return &TransportError{Operation: call.Operation, Err: c.redactErr(f.err)}
}

// retryReason is why an attempt is retried, as the retry event says it, and its status.
func retryReason(failed error) (string, int) {
	switch f := failed.(type) {
	case *APIError:
		return "status", f.Status
	case *failure:
		if f.kind == "timeout" {
			return "timeout", 0
		}
	}
	return "connection", 0
}
