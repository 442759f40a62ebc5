package runtime

import (
	"context"
	"net/http"
	"strconv"
	"sync"
)

// PresignedCall returns a call of method to a pre-signed URL (a share link, an upload
// URL): no credentials and no default headers, to any origin (its redirects too), shown
// in events and errors without its query (the signature). A GET or PUT may be resent.
// The URL must be https, or plain http on a loopback host; a *ConfigError never quotes
// it.
func PresignedCall(method, rawURL string) (*Call, error) {
	u, err := secureURL(rawURL, "the pre-signed URL")
	if err != nil {
		return nil, &ConfigError{Setting: "pre-signed URL", Problem: err.Error()}
	}
	op := "fetch_presigned"
	if method != http.MethodGet {
		op = "put_presigned"
	}
	return &Call{Operation: op, Method: method, Template: withoutQuery(u), Path: rawURL, NoAuth: true,
		Resend: method == http.MethodGet || method == http.MethodPut}, nil
}

// PutParts uploads each part to its pre-signed URL, at most concurrency at a time, each
// paced and retried as any PUT, and returns the storage's ETags in part order ("" for a
// part answered without one). The first failure stops the parts not yet begun and
// cancels those in flight.
func PutParts(ctx context.Context, c *Core, urls []string, parts [][]byte, contentType string, concurrency int) ([]string, error) {
	if len(urls) != len(parts) {
		return nil, &ConfigError{Setting: "parts", Problem: "one URL per part is needed: " +
			strconv.Itoa(len(urls)) + " URLs, " + strconv.Itoa(len(parts)) + " parts"}
	}
	if concurrency < 1 {
		return nil, &ConfigError{Setting: "concurrency", Problem: "must be at least 1"}
	}
	calls := make([]*Call, len(urls))
	for i, u := range urls {
		call, err := PresignedCall(http.MethodPut, u)
		if err != nil {
			return nil, err
		}
		call.Body, call.ContentType = parts[i], contentType
		if call.Body == nil {
			call.Body = []byte{}
		}
		calls[i] = call
	}
	return putAll(ctx, c, calls, concurrency)
}

// putAll sends calls, at most lanes at a time, and returns their ETags in order.
func putAll(ctx context.Context, c *Core, calls []*Call, lanes int) ([]string, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	etags := make([]string, len(calls))
	next := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range min(lanes, len(calls)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ans, err := c.Send(ctx, calls[i])
				if err != nil {
					once.Do(func() { first = err; cancel(err) })
					continue
				}
				etags[i] = ans.Header.Get("ETag")
			}
		}()
	}
	for i := range calls {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return etags, ctx.Err()
}
