package conformance

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"inspection.dev/client/legacy"
	v3 "inspection.dev/client/v3"
)

func millis(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// newClient makes a client of the scenario's interface with its settings and these
// credentials, reporting to log; a legacy one logs in.
func newClient(ctx context.Context, origin string, sc *scenario, log *eventLog, creds map[string]string) (any, error) {
	c := sc.client
	if sc.iface == "v3" {
		opts := []v3.Option{
			v3.WithBaseURL(origin + "/v3"),
			v3.WithoutRateLimit(),
			v3.WithMaxAttempts(int(c.int("max_attempts"))),
			v3.WithBackoff(millis(c.int("initial_backoff_ms")), millis(c.int("max_backoff_ms"))),
			v3.WithAttemptTimeout(millis(c.int("timeout_ms"))),
			v3.WithPolling(int(c.int("max_polls")), millis(c.int("poll_interval_ms"))),
			v3.WithMaxResponseBytes(c.int("max_response_bytes")),
			v3.WithMaxErrorBytes(c.int("max_error_bytes")),
			v3.WithMaxEmptyPages(int(c.int("max_empty_pages"))),
			v3.WithHook(log.hook),
		}
		if c.rate != nil {
			opts = append(opts, v3.WithRateLimit(c.rate.requests, millis(c.rate.windowMs)))
		}
		if c.settings["validate"] == false {
			opts = append(opts, v3.WithoutValidation())
		}
		return v3.NewClient(creds["key_id"], creds["key_secret"], opts...)
	}
	opts := []legacy.Option{
		legacy.WithBaseURL(origin),
		legacy.WithoutRateLimit(),
		legacy.WithMaxAttempts(int(c.int("max_attempts"))),
		legacy.WithBackoff(millis(c.int("initial_backoff_ms")), millis(c.int("max_backoff_ms"))),
		legacy.WithAttemptTimeout(millis(c.int("timeout_ms"))),
		legacy.WithPolling(int(c.int("max_polls")), millis(c.int("poll_interval_ms"))),
		legacy.WithMaxResponseBytes(c.int("max_response_bytes")),
		legacy.WithMaxErrorBytes(c.int("max_error_bytes")),
		legacy.WithMaxEmptyPages(int(c.int("max_empty_pages"))),
		legacy.WithHook(log.hook),
	}
	if c.rate != nil {
		opts = append(opts, legacy.WithRateLimit(c.rate.requests, millis(c.rate.windowMs)))
	}
	if c.settings["validate"] == false {
		opts = append(opts, legacy.WithoutValidation())
	}
	var login legacy.AuthenticateRequest
	login.User.Username, login.User.Password = creds["username"], creds["password"]
	client, err := legacy.NewClient(login, opts...)
	if err != nil {
		return nil, err
	}
	if err := client.LogIn(ctx); err != nil {
		return nil, err
	}
	return client, nil
}

// stepCredentials are the credentials of a `login` (legacy; username and password
// required) or `make_client` step: each the step's args give, else the scenario's.
func stepCredentials(sc *scenario, call string, a *args) (map[string]string, error) {
	creds := map[string]string{}
	for k, v := range sc.client.credentials {
		creds[k] = v
	}
	for k := range sc.client.credentials {
		given, ok, err := a.string(k, call == "login")
		if err != nil {
			return nil, err
		}
		if ok {
			creds[k] = given
		}
	}
	return creds, a.finish()
}

// presignedAction is a client action both interfaces have (fetch_presigned,
// put_presigned, put_parts), called by its method's name; handled is false for another.
func presignedAction(ctx context.Context, client any, name string, a *args) (outcome, bool, error) {
	cv := reflect.ValueOf(client)
	var in []reflect.Value
	var answer func(reflect.Value) (any, error)
	switch name {
	case "fetch_presigned":
		url, _, err := a.string("url", true)
		if err != nil {
			return outcome{}, true, err
		}
		in, answer = []reflect.Value{reflect.ValueOf(url)}, resultJSON
	case "put_presigned":
		url, _, err := a.string("url", true)
		if err != nil {
			return outcome{}, true, err
		}
		body, _, err := a.string("body_text", true)
		if err != nil {
			return outcome{}, true, err
		}
		ct, _, err := a.string("content_type", false)
		if err != nil {
			return outcome{}, true, err
		}
		in = []reflect.Value{reflect.ValueOf(url), reflect.ValueOf(strings.NewReader(body)),
			reflect.ValueOf(int64(len(body))), reflect.ValueOf(ct), reflect.Zero(cv.MethodByName("PutPresigned").Type().In(5))}
		answer = etag
	case "put_parts":
		var err error
		if in, err = partsArgs(a); err != nil {
			return outcome{}, true, err
		}
		answer = etags
	default:
		return outcome{}, false, nil
	}
	if err := a.finish(); err != nil {
		return outcome{}, true, err
	}
	m, ok := method(cv, name)
	if !ok {
		return outcome{}, true, fmt.Errorf("the client has no method for `%s`", name)
	}
	value, err := invoke(m, append([]reflect.Value{reflect.ValueOf(ctx)}, in...))
	if err != nil {
		return outcome{err: err}, true, nil
	}
	result, err := answer(value)
	return succeeded(result), true, err
}

func partsArgs(a *args) ([]reflect.Value, error) {
	urls, err := a.strings("urls")
	if err != nil {
		return nil, err
	}
	texts, err := a.strings("parts")
	if err != nil {
		return nil, err
	}
	parts := make([][]byte, len(texts))
	for i, t := range texts {
		parts[i] = []byte(t)
	}
	ct, _, err := a.string("content_type", false)
	if err != nil {
		return nil, err
	}
	concurrency := int64(1)
	if c, given := a.take("concurrency"); given {
		var ok bool
		if concurrency, ok = integer(c); !ok {
			return nil, fmt.Errorf("`args.concurrency` is a whole number, not %s", show(c))
		}
	}
	return []reflect.Value{reflect.ValueOf(urls), reflect.ValueOf(parts), reflect.ValueOf(ct),
		reflect.ValueOf(int(concurrency))}, nil
}

// etag is a pre-signed upload's answer: {etag}, null when the storage sent none.
func etag(v reflect.Value) (any, error) {
	h := v.Interface().(interface{ Get(string) string })
	if tag := h.Get("ETag"); tag != "" {
		return object{"etag": tag}, nil
	}
	return object{"etag": nil}, nil
}

// etags are a multipart upload's ETags: [{part_number, etag}] in part order.
func etags(v reflect.Value) (any, error) {
	list := v.Interface().([]string)
	out := make([]any, len(list))
	for i, tag := range list {
		out[i] = object{"part_number": num(int64(i + 1)), "etag": tag}
	}
	return out, nil
}
