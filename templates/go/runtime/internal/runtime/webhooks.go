package runtime

import (
	"crypto/subtle"
	"errors"
	"net/http"
)

// VerifyDelivery checks that a webhook delivery carries exactly one header name whose
// value is expected, compared in constant time (the time taken tells nothing of how much
// of a guess was right). The error names the header, never its value.
func VerifyDelivery(header http.Header, name, expected string) error {
	values := header.Values(name)
	if len(values) != 1 {
		return errors.New("the delivery has no single `" + name + "` header")
	}
	if subtle.ConstantTimeCompare([]byte(values[0]), []byte(expected)) != 1 {
		return errors.New("the delivery's `" + name + "` header does not match")
	}
	return nil
}
