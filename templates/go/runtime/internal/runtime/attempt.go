package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxRedirects is the redirects one attempt follows, as in the other clients.
const maxRedirects = 5

// hop is one request of an attempt: the first, or one a redirect asked for.
type hop struct {
	method       string
	url          *url.URL
	body         []byte
	upload       io.Reader
	uploadLength int64
}

// attempt sends one attempt of call, redirects included, within AttemptTimeout in all,
// the answer's body included. It returns the answer, or why not: an *APIError or a
// *failure, which the retry rules judge, or an error that ends the call.
func (c *Core) attempt(ctx context.Context, call *Call, target *url.URL, h http.Header, st *loop, tr *trace) (*Answer, error) {
	started := time.Now()
	actx, cancel := context.WithTimeout(ctx, c.attemptTimeout(call))
	defer cancel()
	tr.attempt = st.attempt
	c.rep.request(ctx, call, st.attempt, target)
	hp := hop{method: call.Method, url: target, body: call.Body, upload: st.upload, uploadLength: call.UploadLength}
	for redirects := 0; ; redirects++ {
		resp, err := c.do(actx, h, hp)
		if err != nil {
			return nil, c.failed(ctx, actx, call, err)
		}
		next, err := c.redirect(call, resp, hp, redirects)
		if err != nil {
			c.rep.response(ctx, call, st.attempt, resp.StatusCode, time.Since(started), resp.Header)
			return nil, err
		}
		if next == nil {
			return c.read(ctx, actx, call, resp, st.attempt, started)
		}
		hp = *next
		// Each request is paced, a redirect's too.
		if err := c.pacer.acquire(actx, c.onWait(ctx, call, false)); err != nil {
			return nil, c.failed(ctx, actx, call, err)
		}
	}
}

// do sends one request.
func (c *Core) do(ctx context.Context, h http.Header, hp hop) (*http.Response, error) {
	var body io.Reader
	if hp.body != nil {
		body = bytes.NewReader(hp.body)
	}
	req, err := http.NewRequestWithContext(ctx, hp.method, hp.url.String(), body)
	if err != nil {
		return nil, err
	}
	if hp.upload != nil {
		// The stream is the caller's: net/http closes a request's body, so it gets a
		// wrapper. A known length is sent as Content-Length, never chunked.
		req.Body, req.ContentLength = io.NopCloser(hp.upload), hp.uploadLength
		if hp.uploadLength == 0 {
			req.Body = http.NoBody
		}
	}
	if hp.body == nil && hp.upload == nil && h.Get("Content-Type") != "" {
		// A 303's GET goes without the body, and so without its type.
		h = h.Clone()
		h.Del("Content-Type")
	}
	req.Header = h
	return c.http.Do(req)
}

// failed sorts why an attempt got no answer: the call's context ended (a
// *ContextError, which ends the call), or a *failure for the retry rules.
func (c *Core) failed(ctx, actx context.Context, call *Call, err error) error {
	if ctx.Err() != nil {
		return c.stopped(ctx, call, ctx.Err(), nil)
	}
	var pd pastDeadline
	if errors.As(err, &pd) {
		if !fits(ctx, pd.wait) {
			return c.stopped(ctx, call, err, nil)
		}
		return &failure{kind: "timeout", err: err}
	}
	err = scrubURLError(err)
	var op *net.OpError
	var ne net.Error
	switch {
	case actx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return &failure{kind: "timeout", err: err}
	case errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect"):
		// No connection was made, so nothing reached the service.
		return &failure{kind: "refused", err: fmt.Errorf("cannot connect: %w", err)}
	case errors.As(err, &ne) && ne.Timeout():
		return &failure{kind: "timeout", err: err}
	}
	return &failure{kind: "network", err: fmt.Errorf("the request failed: %w", err)}
}

// redirect returns the request a redirect answer asks for, nil for any other answer,
// or the error that ends the call: a Location on another origin than the base URL's
// (credentials never go there; a pre-signed URL's redirect, which carries none, may go
// anywhere), or too many redirects.
func (c *Core) redirect(call *Call, resp *http.Response, hp hop, redirects int) (*hop, error) {
	location := strings.TrimSpace(resp.Header.Get("Location"))
	if resp.StatusCode < 300 || resp.StatusCode > 399 || location == "" {
		return nil, nil
	}
	// A redirect's body is never read, only drained a little so the connection is kept.
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	_ = resp.Body.Close()
	target, err := hp.url.Parse(location)
	if err != nil || !isAbsolute(target.String()) || target.Hostname() == "" {
		return nil, &ForeignOriginError{Operation: call.Operation, Origin: "an unreadable Location", Via: "redirect"}
	}
	if !presigned(call) && !sameOrigin(target, c.base) {
		return nil, &ForeignOriginError{Operation: call.Operation, Origin: origin(target), Via: "redirect"}
	}
	if redirects >= maxRedirects {
		return nil, &TransportError{Operation: call.Operation, Err: fmt.Errorf("more than %d redirects", maxRedirects)}
	}
	next := hp
	next.url = target
	// As browsers do: 303, and 301 or 302 after a POST, go on as a GET without the body.
	status := resp.StatusCode
	if status == http.StatusSeeOther || ((status == 301 || status == 302) && hp.method == http.MethodPost) {
		next.method, next.body, next.upload, next.uploadLength = http.MethodGet, nil, nil, 0
		return &next, nil
	}
	if hp.upload != nil {
		if call.Reopen == nil {
			return nil, &TransportError{Operation: call.Operation,
				Err: errors.New("a redirect asks for the streamed upload again, which cannot be read twice")}
		}
		if next.upload, err = call.Reopen(); err != nil {
			return nil, &TransportError{Operation: call.Operation, Err: err}
		}
	}
	return &next, nil
}

// read reads an answer: a success body up to MaxResponseBytes (or into the Sink), an
// error body's first MaxErrorBytes only.
func (c *Core) read(ctx, actx context.Context, call *Call, resp *http.Response, n int, started time.Time) (*Answer, error) {
	defer resp.Body.Close()
	status := resp.StatusCode
	success := status >= 200 && status < 300
	if success && call.Sink != nil && !(status == http.StatusAccepted && call.Poll) {
		return c.stream(ctx, actx, call, resp, n, started)
	}
	limit := c.cfg.MaxErrorBytes
	if success {
		limit = c.cfg.MaxResponseBytes
	}
	body, over, err := readUpTo(resp.Body, limit, resp.ContentLength)
	if err != nil {
		return nil, c.failed(ctx, actx, call, err)
	}
	c.rep.response(ctx, call, n, status, time.Since(started), resp.Header)
	switch {
	case success && over:
		return nil, &TooLargeError{Operation: call.Operation, Limit: limit}
	case success:
		return &Answer{Status: status, Header: resp.Header, Body: body}, nil
	}
	return nil, c.apiError(call, resp, body)
}

// readUpTo reads at most limit bytes of r, and whether there were more (the rest is
// never read). sizeHint is the Content-Length, or -1.
func readUpTo(r io.Reader, limit, sizeHint int64) ([]byte, bool, error) {
	var buf bytes.Buffer
	if sizeHint > 0 {
		buf.Grow(int(min(sizeHint, limit, 1<<20)))
	}
	read := limit
	if read < math.MaxInt64 {
		read++
	}
	n, err := buf.ReadFrom(io.LimitReader(r, read))
	if err != nil {
		return nil, false, err
	}
	if n > limit {
		return buf.Bytes()[:limit], true, nil
	}
	return buf.Bytes(), false, nil
}

// stream writes a download's body to the Sink as it arrives. Once a byte is written a
// failure ends the call (the Sink holds what came); before that it is retried as any.
func (c *Core) stream(ctx, actx context.Context, call *Call, resp *http.Response, n int, started time.Time) (*Answer, error) {
	written, werr, rerr := copyBody(call.Sink, resp.Body)
	switch {
	case werr != nil:
		// The caller's writer failed, not the connection: the call ends here.
		return nil, &TransportError{Operation: call.Operation, Err: fmt.Errorf("writing the download failed: %w", werr)}
	case rerr != nil && written == 0:
		return nil, c.failed(ctx, actx, call, rerr)
	case rerr != nil:
		err := c.failed(ctx, actx, call, rerr)
		f, ok := err.(*failure)
		if !ok {
			return nil, err // the context ended
		}
		if f.kind == "timeout" {
			return nil, &TimeoutError{Operation: call.Operation, AttemptTimeout: c.attemptTimeout(call)}
		}
		return nil, &TransportError{Operation: call.Operation,
			Err: c.redactErr(fmt.Errorf("the download broke off after %d bytes: %w", written, f.err))}
	}
	c.rep.response(ctx, call, n, resp.StatusCode, time.Since(started), resp.Header)
	return &Answer{Status: resp.StatusCode, Header: resp.Header, Written: written}, nil
}

// copyBody copies r to w a chunk at a time, telling a failure to write from one to read.
func copyBody(w io.Writer, r io.Reader) (written int64, werr, rerr error) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			m, err := w.Write(buf[:n])
			written += int64(m)
			if err == nil && m < n {
				err = io.ErrShortWrite
			}
			if err != nil {
				return written, err, nil
			}
		}
		if err == io.EOF {
			return written, nil, nil
		}
		if err != nil {
			return written, nil, err
		}
	}
}

// apiError is the error of an error status, its texts redacted.
func (c *Core) apiError(call *Call, resp *http.Response, body []byte) *APIError {
	after, has := retryAfter(resp.Header, time.Now())
	body = []byte(c.Redact(string(body)))
	return &APIError{Operation: call.Operation, Method: call.Method, Template: call.Template,
		Status: resp.StatusCode, Message: c.Redact(errorMessage(body, c.cfg.ErrorMessageField)), Body: body,
		RetryAfter: after, HasRetryAfter: has, RequestID: resp.Header.Get("X-Request-Id"), Hint: call.Hint}
}

// redactedError is an error whose text has the core's secrets redacted; the cause is
// kept for errors.Is and errors.As.
type redactedError struct {
	text string
	err  error
}

// Error returns the redacted text.
func (e *redactedError) Error() string { return e.text }

// Unwrap returns the error as it was.
func (e *redactedError) Unwrap() error { return e.err }

// redactErr returns err with every secret of the core's Auth redacted from its text.
func (c *Core) redactErr(err error) error {
	text := err.Error()
	if shown := c.Redact(text); shown != text {
		return &redactedError{text: shown, err: err}
	}
	return err
}
