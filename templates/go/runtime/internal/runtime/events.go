package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// EventKind names what an Event reports.
type EventKind string

// The events every client of the project reports, in docs/observability.md.
const (
	// EventRequest: an attempt is about to be sent.
	EventRequest EventKind = "request"
	// EventResponse: an attempt was answered, any status.
	EventResponse EventKind = "response"
	// EventRetry: a failed attempt will be sent again.
	EventRetry EventKind = "retry"
	// EventPause: the client waits before an attempt for another reason than a retry
	// (its own pacing, or a 202 polled again).
	EventPause EventKind = "pause"
	// EventPage: a page of a walk was read.
	EventPage EventKind = "page"
	// EventError: the call failed for good, after at least one attempt.
	EventError EventKind = "error"
)

// Event is one thing a call did, given to Config.Hook and written to Config.Logger.
// It names the operation and its path template, never a concrete id, and holds no
// credential, body or pre-signed signature. Fields that do not apply to its Kind are
// zero.
type Event struct {
	// Kind says what happened.
	Kind EventKind
	// Operation is the spec's name of the operation (get_unit).
	Operation string
	// Method is the HTTP method (request, response, retry, pause, error).
	Method string
	// Template is the path as the spec writes it (/units/{unit_id}).
	Template string
	// Attempt is 1 for a call's first attempt; a resend after a retry or a token
	// re-login is the next; each poll of a 202 starts again at 1. For a retry, the
	// attempt that failed; for an error, the last one.
	Attempt int
	// ServerAddress and ServerPort are where a request goes (request).
	ServerAddress string
	// ServerPort is the port, the scheme's when the URL names none (request).
	ServerPort int
	// Status is the HTTP status (response; retry for reason status; error of kind api).
	Status int
	// Duration is from the attempt's start until its answer was read (response).
	Duration time.Duration
	// RequestID is the answer's x-request-id header (response), or "".
	RequestID string
	// Reason is why: status, timeout or connection for a retry; rate_limit or poll
	// for a pause.
	Reason string
	// Wait is how long the client waits before the next attempt (retry, pause).
	Wait time.Duration
	// RetryAfter tells whether Wait is the service's Retry-After (retry).
	RetryAfter bool
	// Page is the page's number in the walk, 1 first (page).
	Page int
	// Items is the records the page held (page).
	Items int
	// ErrorType is the error's ErrorKind (error).
	ErrorType string
}

// Attrs returns the event's fields under the OpenTelemetry names the other clients use
// (http.request.method, url.template, http.response.status_code,
// http.request.resend_count, server.address, server.port, error.type) and
// inspection.* names for the rest, in a stable order.
func (e Event) Attrs() []slog.Attr {
	out := []slog.Attr{slog.String("inspection.event", string(e.Kind)), slog.String("inspection.operation", e.Operation)}
	if e.Method != "" {
		out = append(out, slog.String("http.request.method", e.Method), slog.String("url.template", e.Template))
	}
	switch e.Kind {
	case EventRequest:
		out = append(out, slog.Int("http.request.resend_count", e.Attempt-1),
			slog.String("server.address", e.ServerAddress), slog.Int("server.port", e.ServerPort))
	case EventResponse:
		out = append(out, slog.Int("http.request.resend_count", e.Attempt-1), slog.Int("http.response.status_code", e.Status),
			slog.Float64("inspection.duration_ms", millis(e.Duration)))
		if e.RequestID != "" {
			out = append(out, slog.String("inspection.request_id", e.RequestID))
		}
	case EventRetry:
		out = append(out, slog.Int("http.request.resend_count", e.Attempt-1), slog.String("inspection.retry.reason", e.Reason))
		out = appendStatus(out, e.Status)
		out = append(out, slog.Float64("inspection.wait_ms", millis(e.Wait)), slog.Bool("inspection.retry_after", e.RetryAfter))
	case EventPause:
		out = append(out, slog.String("inspection.pause.reason", e.Reason), slog.Float64("inspection.wait_ms", millis(e.Wait)))
	case EventPage:
		out = append(out, slog.Int("inspection.page", e.Page), slog.Int("inspection.items", e.Items))
	case EventError:
		out = append(out, slog.String("error.type", e.ErrorType))
		out = appendStatus(out, e.Status)
		out = append(out, slog.Int("inspection.attempts", e.Attempt))
	}
	return out
}

func appendStatus(out []slog.Attr, status int) []slog.Attr {
	if status == 0 {
		return out
	}
	return append(out, slog.Int("http.response.status_code", status))
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// reporter hands a core's events to its hook and its logger. Nothing is built when
// neither listens.
type reporter struct {
	hook func(Event)
	log  *slog.Logger
}

func (r reporter) logs(ctx context.Context, level slog.Level) bool {
	return r.log != nil && r.log.Enabled(ctx, level)
}

func (r reporter) listening(ctx context.Context, level slog.Level) bool {
	return r.hook != nil || r.logs(ctx, level)
}

// emit logs e with the text text() gives (built only when the logger wants it) and
// hands it to the hook.
func (r reporter) emit(ctx context.Context, level slog.Level, e Event, text func() string) {
	if r.logs(ctx, level) {
		r.log.LogAttrs(ctx, level, text(), e.Attrs()...)
	}
	if r.hook != nil {
		r.callHook(ctx, e)
	}
}

// callHook calls the hook; one that panics is logged and the call goes on, as a hook
// that throws does in the other clients: observing a call must not break it.
func (r reporter) callHook(ctx context.Context, e Event) {
	defer func() {
		if v := recover(); v != nil && r.log != nil {
			r.log.LogAttrs(ctx, slog.LevelWarn, "an inspection client hook panicked; the call goes on",
				slog.String("inspection.event", string(e.Kind)), slog.String("panic", fmt.Sprint(v)))
		}
	}()
	r.hook(e)
}

func (r reporter) request(ctx context.Context, call *Call, attempt int, u *url.URL) {
	if !r.listening(ctx, slog.LevelDebug) {
		return
	}
	p, _ := strconv.Atoi(port(u))
	e := Event{Kind: EventRequest, Operation: call.Operation, Method: call.Method, Template: call.Template,
		Attempt: attempt, ServerAddress: u.Hostname(), ServerPort: p}
	r.emit(ctx, slog.LevelDebug, e, func() string {
		return fmt.Sprintf("%s %s attempt %d: sending", call.Method, call.Template, attempt)
	})
}

func (r reporter) response(ctx context.Context, call *Call, attempt, status int, took time.Duration, h http.Header) {
	if !r.listening(ctx, slog.LevelDebug) {
		return
	}
	e := Event{Kind: EventResponse, Operation: call.Operation, Method: call.Method, Template: call.Template,
		Attempt: attempt, Status: status, Duration: took, RequestID: h.Get("X-Request-Id")}
	r.emit(ctx, slog.LevelDebug, e, func() string {
		return fmt.Sprintf("%s %s attempt %d: %d in %.0f ms", call.Method, call.Template, attempt, status, millis(took))
	})
}

func (r reporter) retry(ctx context.Context, call *Call, attempt int, reason string, status int, w wait) {
	if !r.listening(ctx, slog.LevelWarn) {
		return
	}
	e := Event{Kind: EventRetry, Operation: call.Operation, Method: call.Method, Template: call.Template,
		Attempt: attempt, Reason: reason, Status: status, Wait: w.wait, RetryAfter: w.retryAfter}
	r.emit(ctx, slog.LevelWarn, e, func() string {
		why, source := reason, "backoff"
		if reason == "status" {
			why = "status " + strconv.Itoa(status)
		}
		if w.retryAfter {
			source = "Retry-After"
		}
		return fmt.Sprintf("%s %s attempt %d failed (%s); retrying in %.0f ms (%s)",
			call.Method, call.Template, attempt, why, millis(w.wait), source)
	})
}

func (r reporter) pause(ctx context.Context, call *Call, reason string, d time.Duration) {
	if !r.listening(ctx, slog.LevelDebug) {
		return
	}
	e := Event{Kind: EventPause, Operation: call.Operation, Method: call.Method, Template: call.Template,
		Reason: reason, Wait: d}
	r.emit(ctx, slog.LevelDebug, e, func() string {
		why := "the client's rate limit"
		if reason == "poll" {
			why = "not ready yet (202)"
		}
		return fmt.Sprintf("%s %s waits %.0f ms: %s", call.Method, call.Template, millis(d), why)
	})
}

func (r reporter) page(ctx context.Context, operation string, page, items int) {
	if !r.listening(ctx, slog.LevelDebug) {
		return
	}
	e := Event{Kind: EventPage, Operation: operation, Page: page, Items: items}
	r.emit(ctx, slog.LevelDebug, e, func() string {
		return fmt.Sprintf("%s page %d: %d items", operation, page, items)
	})
}

// failed reports a call that failed for good; only its kind and status, as the error
// itself goes to the caller.
func (r reporter) failed(ctx context.Context, call *Call, err error, attempt int) {
	if !r.listening(ctx, slog.LevelDebug) {
		return
	}
	e := Event{Kind: EventError, Operation: call.Operation, Method: call.Method, Template: call.Template,
		Attempt: attempt, ErrorType: ErrorKind(err), Status: apiStatus(err)}
	r.emit(ctx, slog.LevelDebug, e, func() string {
		return fmt.Sprintf("%s %s failed after attempt %d: %s", call.Method, call.Template, attempt, e.ErrorType)
	})
}

// apiStatus is the status of an *APIError err holds, unless a context stopped the
// call (its kind is then timeout or interrupted, not api).
func apiStatus(err error) int {
	var ctxErr *ContextError
	if errors.As(err, &ctxErr) {
		return 0
	}
	var api *APIError
	if errors.As(err, &api) {
		return api.Status
	}
	return 0
}
