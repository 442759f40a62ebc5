package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Sentinels an *APIError matches by its status, for errors.Is.
var (
	// ErrBadRequest is matched by a 400.
	ErrBadRequest = errors.New("bad request")
	// ErrUnauthorized is matched by a 401.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden is matched by a 403.
	ErrForbidden = errors.New("forbidden")
	// ErrNotFound is matched by a 404.
	ErrNotFound = errors.New("not found")
	// ErrConflict is matched by a 409.
	ErrConflict = errors.New("conflict")
	// ErrUnprocessable is matched by a 422.
	ErrUnprocessable = errors.New("unprocessable")
	// ErrRateLimited is matched by a 429.
	ErrRateLimited = errors.New("rate limited")
	// ErrServer is matched by any 5xx.
	ErrServer = errors.New("server error")
)

// APIError is an error status the service answered (after the retries that were safe).
// Its text names the operation, the method and path template (never a concrete id),
// the status and the service's message, with every secret the client holds replaced by
// "<redacted>".
type APIError struct {
	// Operation is the spec's name of the operation (get_unit).
	Operation string
	// Method and Template are the request's method and the operation's path template.
	Method, Template string
	// Status is the HTTP status.
	Status int
	// Message is the service's own message: the error body's message member (an array
	// joined with "; "), or a body that is not JSON as its text; "" for an empty body.
	Message string
	// Body is the first MaxErrorBytes of the error body, every secret redacted.
	Body []byte
	// RetryAfter is the wait the Retry-After header asked for, when HasRetryAfter.
	RetryAfter time.Duration
	// HasRetryAfter tells a Retry-After of 0 from none.
	HasRetryAfter bool
	// RequestID is the answer's x-request-id header, or "".
	RequestID string
	// Hint is what the text of a 403 adds (the operation is for managers only), or "".
	Hint string
}

// Error returns "operation: METHOD /template answered STATUS: message".
func (e *APIError) Error() string {
	text := e.Operation + ": " + e.Method + " " + e.Template + " answered " + strconv.Itoa(e.Status)
	if e.Message != "" {
		text += ": " + e.Message
	}
	if e.Status == 403 && e.Hint != "" {
		// Only on a refusal: on another status the hint would mislead.
		text += " (" + e.Hint + ")"
	}
	return text
}

// Is matches the sentinel of e's status: ErrNotFound for a 404, ErrServer for any
// 5xx, and so on.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrBadRequest:
		return e.Status == 400
	case ErrUnauthorized:
		return e.Status == 401
	case ErrForbidden:
		return e.Status == 403
	case ErrNotFound:
		return e.Status == 404
	case ErrConflict:
		return e.Status == 409
	case ErrUnprocessable:
		return e.Status == 422
	case ErrRateLimited:
		return e.Status == 429
	case ErrServer:
		return e.Status >= 500
	}
	return false
}

// TransportError is a connection that failed or an answer that broke off (after the
// retries that were safe). Err is the cause, with the URL of net/http's *url.Error cut
// to its origin and path.
type TransportError struct {
	// Operation is the spec's name of the operation.
	Operation string
	// Err is what failed.
	Err error
}

// Error names the operation and the cause; no URL in it keeps its query.
func (e *TransportError) Error() string { return e.Operation + ": " + stripQueries(e.Err.Error()) }

// Unwrap returns the cause.
func (e *TransportError) Unwrap() error { return e.Err }

// TimeoutError is an attempt with no whole answer, body included, within the
// AttemptTimeout (after the retries that were safe).
type TimeoutError struct {
	// Operation is the spec's name of the operation.
	Operation string
	// AttemptTimeout is the time per attempt that ran out.
	AttemptTimeout time.Duration
}

// Error names the operation and the timeout.
func (e *TimeoutError) Error() string {
	return e.Operation + ": no whole answer within " + e.AttemptTimeout.String()
}

// Timeout reports true, as net.Error does for a timeout.
func (e *TimeoutError) Timeout() bool { return true }

// Unwrap returns context.DeadlineExceeded, the attempt's deadline that passed.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// ContextError is a call stopped by its context: cancelled, past its deadline, or
// facing a wait (pacing, backoff, Retry-After, a poll) that would end after the
// deadline, in which case it fails at once rather than wait in vain. errors.Is finds
// context.DeadlineExceeded or context.Canceled in it, and errors.As the last
// attempt's failure (an *APIError for a 429), when there was one.
type ContextError struct {
	// Operation is the spec's name of the operation.
	Operation string
	// Wait is the wait that would have passed the deadline, or 0.
	Wait time.Duration
	// Err is the context's error (context.DeadlineExceeded for a wait too long).
	Err error
	// Last is the failure of the last attempt, or nil.
	Last error
}

// Error names the operation, why it stopped and the last failure.
func (e *ContextError) Error() string {
	text := e.Operation + ": " + e.Err.Error()
	if e.Wait > 0 {
		text = e.Operation + ": waiting " + e.Wait.String() + " would pass the context's deadline"
	}
	if e.Last != nil {
		text += " (after: " + e.Last.Error() + ")"
	}
	return text
}

// Unwrap returns the context's error and the last failure.
func (e *ContextError) Unwrap() []error {
	if e.Last == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Last}
}

// NotReadyError is a document the service prepares (a PDF) still answered 202 after
// MaxPolls polls, or with a Retry-After longer than MaxBackoff: ask again later.
type NotReadyError struct {
	// Operation is the spec's name of the operation.
	Operation string
	// Attempts is the requests made.
	Attempts int
	// RetryAfter is the wait the last 202 asked for when it was longer than the client
	// waits, else 0.
	RetryAfter time.Duration
}

// Error says why the polling stopped.
func (e *NotReadyError) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("%s: not ready: it asked to wait %s, longer than the client waits", e.Operation, e.RetryAfter)
	}
	return fmt.Sprintf("%s: not ready: still preparing after %d requests", e.Operation, e.Attempts)
}

// TooLargeError is a success body longer than MaxResponseBytes; no more than that was
// read. A download to a Sink has no such limit.
type TooLargeError struct {
	// Operation is the spec's name of the operation.
	Operation string
	// Limit is the MaxResponseBytes passed.
	Limit int64
}

// Error names the operation and the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: the answer is longer than %d bytes, the client's MaxResponseBytes", e.Operation, e.Limit)
}

// ForeignOriginError is a redirect or a next-page link to another origin than the
// base URL's: credentials never go there, so the call stops.
type ForeignOriginError struct {
	// Operation is the spec's name of the operation.
	Operation string
	// Origin is the other origin (https://other.example), or what was unreadable.
	Origin string
	// Via is "redirect" or "link".
	Via string
}

// Error names the operation, the way and the origin.
func (e *ForeignOriginError) Error() string {
	return fmt.Sprintf("%s: a %s leads to %s, another origin: credentials are never sent there", e.Operation, e.Via, e.Origin)
}

// ConfigError is a setting the core, or a call, cannot use; nothing was sent.
type ConfigError struct {
	// Setting names what was refused (MaxAttempts, BaseURL, Auth, Call.Path).
	Setting string
	// Problem says why; it never quotes a credential or a signature.
	Problem string
}

// Error names the setting and the problem.
func (e *ConfigError) Error() string { return "invalid " + e.Setting + ": " + e.Problem }

// ErrorKind names err as the events and every client of the project do: api,
// transport, timeout, decode, validation, not_ready, too_large, foreign_origin,
// paging_stalled, config, webhook, interrupted (cancelled), or client for any other
// error. An interrupted walk has its page's error's kind.
func ErrorKind(err error) string {
	var (
		api      *APIError
		ctxErr   *ContextError
		decode   *DecodeError
		stalled  *PagingStalledError
		foreign  *ForeignOriginError
		notReady *NotReadyError
		tooLarge *TooLargeError
		config   *ConfigError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ctxErr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return contextKind(err)
	case errors.As(err, &api):
		return "api"
	case errors.As(err, &decode):
		return "decode"
	case errors.As(err, &stalled):
		return "paging_stalled"
	case errors.As(err, &foreign):
		return "foreign_origin"
	case errors.As(err, &notReady):
		return "not_ready"
	case errors.As(err, &tooLarge):
		return "too_large"
	case errors.As(err, &config):
		return "config"
	}
	return otherKind(err)
}

// contextKind names an error the context stopped, or a timeout.
func contextKind(err error) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	return "timeout"
}

// otherKind names the errors ErrorKind does not.
func otherKind(err error) string {
	var (
		transport  *TransportError
		validation *ValidationError
		webhook    *WebhookError
	)
	switch {
	case errors.As(err, &transport):
		return "transport"
	case errors.As(err, &validation):
		return "validation"
	case errors.As(err, &webhook):
		return "webhook"
	}
	return "client"
}
