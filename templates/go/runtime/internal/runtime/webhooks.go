package runtime

import (
	"crypto/subtle"
	"net/http"
)

// WebhookError is a webhook delivery refused: its authentication header missing,
// repeated or wrong. It names the header, never a value.
type WebhookError struct {
	// Header is the header's name.
	Header string
	// Problem says what was wrong with it.
	Problem string
}

// Error names the header and the problem.
func (e *WebhookError) Error() string {
	return "webhook delivery refused: the `" + e.Header + "` header " + e.Problem
}

// VerifyDelivery checks that a webhook delivery carries exactly one header name whose
// value is expected, compared in constant time (the time taken tells nothing of how much
// of a guess was right). The error names the header, never its value.
func VerifyDelivery(header http.Header, name, expected string) error {
	values := header.Values(name)
	if len(values) != 1 {
		return &WebhookError{Header: name, Problem: "is not there once"}
	}
	if subtle.ConstantTimeCompare([]byte(values[0]), []byte(expected)) != 1 {
		return &WebhookError{Header: name, Problem: "does not match"}
	}
	return nil
}
