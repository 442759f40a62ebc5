package runtime

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Call is one call of an operation, as the generated code builds it.
type Call struct {
	// Operation is the spec's name of the operation, for events and errors.
	Operation string
	// Method is the HTTP method.
	Method string
	// Template is the operation's path template (/units/{unit_id}), for events and
	// errors; never the filled path, as ids can be personal. For a pre-signed URL, its
	// origin and path (PresignedCall sets it).
	Template string
	// Path is the filled path, each value already escaped, joined to the base URL; or
	// an absolute URL: with NoAuth a pre-signed one (any origin, no credentials, no
	// default headers), otherwise a next-page link, which must be on the base URL's
	// origin.
	Path string
	// Query is added to the URL's query.
	Query url.Values
	// Header is sent besides the core's own (it may replace Accept); credentials are
	// set after it, so it cannot replace them.
	Header http.Header
	// Body is a JSON body, or nil.
	Body []byte
	// ContentType is the body's media type; "": application/json for a Body, none for
	// an Upload.
	ContentType string
	// Upload is a body streamed from a reader, of UploadLength bytes (sent with that
	// Content-Length: pre-signed storage refuses chunked bodies). A stream cannot be
	// read again, so a call with an Upload is sent once, unless Reopen is set.
	Upload io.Reader
	// UploadLength is the length of Upload.
	UploadLength int64
	// Reopen, when set, opens the Upload again from its start, for a resend.
	Reopen func() (io.Reader, error)
	// Resend tells whether the call may be sent again once it may have reached the
	// server (GET, PUT, DELETE). A call without it (a POST, a PATCH) is sent again only
	// when it surely did not arrive or was not applied: a connection that was never
	// made, a 429, a 401 answered before a token login.
	Resend bool
	// NoAuth sends the call without credentials (a login, a pre-signed URL).
	NoAuth bool
	// Poll asks a 202 again after its Retry-After (or PollInterval), up to MaxPolls.
	Poll bool
	// Hint is what the text of a 403 adds ("only users with the manager role may call
	// it"), or "".
	Hint string
	// MaxAttempts, when above 0, replaces Config.MaxAttempts for this call.
	MaxAttempts int
	// AttemptTimeout, when above 0, replaces Config.AttemptTimeout for this call.
	AttemptTimeout time.Duration
	// Sink receives the answer's body as it arrives (a download), in bounded memory,
	// instead of Answer.Body. Once a byte is written the call is final: a failure then
	// is never retried, and Sink holds what came.
	Sink io.Writer
}

// attempts is the attempts call may make, the first included.
func (c *Core) attempts(call *Call) int {
	if call.MaxAttempts > 0 {
		return call.MaxAttempts
	}
	return c.cfg.MaxAttempts
}

// attemptTimeout is the time each attempt of call has.
func (c *Core) attemptTimeout(call *Call) time.Duration {
	if call.AttemptTimeout > 0 {
		return call.AttemptTimeout
	}
	return c.cfg.AttemptTimeout
}

// Answer is a call's success answer (2xx; with Poll, not a 202).
type Answer struct {
	// Status is the HTTP status.
	Status int
	// Header is the answer's header.
	Header http.Header
	// Body is the body, at most MaxResponseBytes; nil with a Sink.
	Body []byte
	// Written is the bytes written to the Sink.
	Written int64
}

// trace is one call's last attempt number, for its error event (0: nothing was sent,
// and nothing is reported).
type trace struct{ attempt int }

// Send sends call until it succeeds or fails for good, and returns its success answer.
// Its errors: *APIError for an error status; *TransportError, *TimeoutError,
// *ContextError, *TooLargeError, *NotReadyError, *ForeignOriginError, *ConfigError, or
// the error of the Auth's login.
func (c *Core) Send(ctx context.Context, call *Call) (*Answer, error) {
	target, err := c.target(call)
	if err != nil {
		return nil, err
	}
	tr := &trace{}
	ans, err := c.send(ctx, call, target, tr)
	if err != nil && tr.attempt > 0 {
		c.rep.failed(ctx, call, err, tr.attempt)
	}
	return ans, err
}

// target checks call and returns its URL, or a *ConfigError (or, for a next-page link
// elsewhere, a *ForeignOriginError) before anything is sent.
func (c *Core) target(call *Call) (*url.URL, error) {
	switch {
	case call.Method == "" || !headerName(call.Method):
		return nil, &ConfigError{Setting: "Call.Method", Problem: "not an HTTP method"}
	case call.Body != nil && call.Upload != nil:
		return nil, &ConfigError{Setting: "Call.Upload", Problem: "a call has a Body or an Upload, not both"}
	case call.UploadLength < 0:
		return nil, &ConfigError{Setting: "Call.UploadLength", Problem: "must not be negative"}
	}
	if err := checkHeader(call.Header); err != nil {
		return nil, err
	}
	if !isAbsolute(call.Path) {
		if call.Path != "" && !strings.HasPrefix(call.Path, "/") {
			return nil, &ConfigError{Setting: "Call.Path", Problem: "must start with / or be an absolute URL"}
		}
		u, err := url.Parse(c.baseText + call.Path)
		if err != nil {
			return nil, &ConfigError{Setting: "Call.Path", Problem: "not an escaped path"}
		}
		return withQuery(u, call.Query), nil
	}
	if !call.NoAuth {
		// A next-page link: it would get the credentials, so only on the base URL's origin.
		u, err := url.Parse(call.Path)
		if err != nil || u.Hostname() == "" {
			return nil, &ConfigError{Setting: "Call.Path", Problem: "the link of " + call.Operation + " is not a URL"}
		}
		if !sameOrigin(u, c.base) {
			return nil, &ForeignOriginError{Operation: call.Operation, Origin: origin(u), Via: "link"}
		}
		return withQuery(u, call.Query), nil
	}
	u, err := secureURL(call.Path, "the URL of "+call.Operation)
	if err != nil {
		return nil, &ConfigError{Setting: "Call.Path", Problem: err.Error()}
	}
	return withQuery(u, call.Query), nil
}

// checkHeader refuses a call header net/http would refuse to send (some of its errors
// quote the value); the error never shows the value.
func checkHeader(h http.Header) error {
	for name, values := range h {
		for _, v := range values {
			if !headerName(name) || !headerSafe(v) {
				return &ConfigError{Setting: "Call.Header", Problem: "the " + strings.ToValidUTF8(name, "?") +
					" header cannot be sent: its name must be a token, its value visible ASCII, spaces and tabs"}
			}
		}
	}
	return nil
}

// withQuery adds q to u's query: keys sorted, spaces as %20 (RFC 3986, as the other
// clients send them).
func withQuery(u *url.URL, q url.Values) *url.URL {
	if len(q) == 0 {
		return u
	}
	encoded := strings.ReplaceAll(q.Encode(), "+", "%20")
	if u.RawQuery != "" {
		encoded = u.RawQuery + "&" + encoded
	}
	u.RawQuery = encoded
	return u
}

// presigned reports whether call goes to a pre-signed URL.
func presigned(call *Call) bool { return call.NoAuth && isAbsolute(call.Path) }

// send runs call's attempts, and with Poll asks a 202 again: after its Retry-After, or
// a doubling PollInterval, up to MaxPolls; a Retry-After longer than MaxBackoff ends
// the polling at once (asking earlier would only get another 202). Each poll is a new
// request, its attempts numbered from 1.
func (c *Core) send(ctx context.Context, call *Call, target *url.URL, tr *trace) (*Answer, error) {
	interval := c.cfg.PollInterval
	for polls := 1; ; polls++ {
		ans, err := c.execute(ctx, call, target, tr)
		if err != nil || ans.Status != http.StatusAccepted || !call.Poll {
			return ans, err
		}
		asked, ok := retryAfter(ans.Header, time.Now())
		if ok && asked > c.cfg.MaxBackoff {
			return nil, &NotReadyError{Operation: call.Operation, Attempts: polls, RetryAfter: asked}
		}
		if polls > c.cfg.MaxPolls {
			return nil, &NotReadyError{Operation: call.Operation, Attempts: polls}
		}
		d := interval
		if ok {
			d = asked
		}
		d = min(d, c.cfg.MaxBackoff)
		if !fits(ctx, d) {
			return nil, c.stopped(ctx, call, pastDeadline{d}, nil)
		}
		c.rep.pause(ctx, call, "poll", d)
		if err := sleep(ctx, d); err != nil {
			return nil, c.stopped(ctx, call, err, nil)
		}
		interval = min(interval*2, c.cfg.MaxBackoff)
	}
}

// loop is the state of one request's attempts.
type loop struct {
	tries       int  // attempts as the retry policy counts them (a re-login's resend is not one)
	attempt     int  // attempts as events number them (it is)
	renewed     bool // the token was renewed after a 401, which is done once per call
	heldByRetry bool // the pacer's hold is a 429's, which this call's retry event reported
	upload      io.Reader
}

// execute sends call until it succeeds (a 202 is a success here) or fails for good.
func (c *Core) execute(ctx context.Context, call *Call, target *url.URL, tr *trace) (*Answer, error) {
	st := &loop{tries: 1, attempt: 1, upload: call.Upload}
	for {
		h, err := c.headers(ctx, call)
		if err != nil {
			return nil, err
		}
		if err := c.pacer.acquire(ctx, c.onWait(ctx, call, st.heldByRetry)); err != nil {
			return nil, c.stopped(ctx, call, err, nil)
		}
		ans, failed := c.attempt(ctx, call, target, h, st, tr)
		if failed == nil {
			return ans, nil
		}
		if err := c.again(ctx, call, h, st, failed); err != nil {
			return nil, err
		}
	}
}

// again decides what follows a failed attempt: a re-login, or a retry after its wait
// (reported, then slept), or the error that ends the call.
func (c *Core) again(ctx context.Context, call *Call, sent http.Header, st *loop, failed error) error {
	api, _ := failed.(*APIError)
	if _, ok := failed.(*failure); !ok && api == nil {
		return failed // ends the call at once: a redirect elsewhere, a body too large, ...
	}
	n := st.attempt
	st.attempt++
	if api != nil && api.Status == http.StatusUnauthorized && c.cfg.Auth != nil && !call.NoAuth && !st.renewed {
		st.renewed, st.heldByRetry = true, false
		ok, err := c.renew(ctx, call, sent, st)
		if err != nil {
			return err
		}
		if !ok {
			return failed
		}
		return nil
	}
	mayRetry := st.tries < c.attempts(call) && (call.Upload == nil || call.Reopen != nil)
	w, err := c.retryIn(call, failed, st.tries, mayRetry)
	if err != nil {
		return err
	}
	if !fits(ctx, w.wait) {
		return c.stopped(ctx, call, pastDeadline{w.wait}, c.finalError(call, failed))
	}
	reason, status := retryReason(failed)
	c.rep.retry(ctx, call, n, reason, status, w)
	st.heldByRetry = w.sleep < w.wait
	st.tries++
	if err := sleep(ctx, w.sleep); err != nil {
		return c.stopped(ctx, call, err, c.finalError(call, failed))
	}
	return c.reopen(call, st)
}

// renew logs in again after a 401 (the request was refused, so it was not applied, and
// is sent again whatever its method), unless the upload cannot be read again.
func (c *Core) renew(ctx context.Context, call *Call, sent http.Header, st *loop) (bool, error) {
	if call.Upload != nil && call.Reopen == nil {
		return false, nil
	}
	ok, err := c.cfg.Auth.Renew(ctx, sent)
	if !ok || err != nil {
		return false, err
	}
	return true, c.reopen(call, st)
}

// reopen opens the upload again for the next attempt.
func (c *Core) reopen(call *Call, st *loop) error {
	if call.Upload == nil {
		return nil
	}
	r, err := call.Reopen()
	if err != nil {
		return &TransportError{Operation: call.Operation, Err: err}
	}
	st.upload = r
	return nil
}

// stopped returns the error of a call its context stopped: err is the context's, or a
// pastDeadline wait; last is the failure the call was going to retry, if any.
func (c *Core) stopped(ctx context.Context, call *Call, err error, last error) error {
	var pd pastDeadline
	if errors.As(err, &pd) {
		return &ContextError{Operation: call.Operation, Wait: pd.wait, Err: context.DeadlineExceeded, Last: last}
	}
	if cause := context.Cause(ctx); cause != nil {
		err = cause
	}
	return &ContextError{Operation: call.Operation, Err: err, Last: last}
}

// onWait reports the pacer's waits before call is sent as rate_limit pauses, but not
// the hold of a 429 this call is retrying after: its retry event reported that wait.
func (c *Core) onWait(ctx context.Context, call *Call, heldByRetry bool) func(time.Duration, bool) {
	if !c.rep.listening(ctx, slog.LevelDebug) {
		return nil
	}
	return func(d time.Duration, held bool) {
		if !(held && heldByRetry) {
			c.rep.pause(ctx, call, "rate_limit", d)
		}
	}
}

// headers returns a request's headers: the core's, the call's, then the credentials.
func (c *Core) headers(ctx context.Context, call *Call) (http.Header, error) {
	h := make(http.Header, 4+len(call.Header))
	if !presigned(call) {
		h.Set("Accept", cmp.Or(c.cfg.Accept, "application/json"))
		if c.cfg.UserAgent != "" {
			h.Set("User-Agent", c.cfg.UserAgent)
		}
	}
	if ct := call.ContentType; call.Body != nil || call.Upload != nil {
		if ct == "" && call.Body != nil {
			ct = "application/json"
		}
		if ct != "" {
			h.Set("Content-Type", ct)
		}
	}
	for name, values := range call.Header {
		h.Del(name)
		for _, v := range values {
			h.Add(name, v)
		}
	}
	if c.cfg.Auth != nil && !call.NoAuth {
		if err := c.cfg.Auth.Apply(ctx, h); err != nil {
			return nil, err
		}
	}
	return h, nil
}
