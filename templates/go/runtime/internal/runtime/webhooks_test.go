package runtime

import (
	"net/http"
	"strings"
	"testing"
)

func TestADeliveryIsVerifiedByItsOneHeader(t *testing.T) {
	h := http.Header{}
	if err := VerifyDelivery(h, "X-Secret", "s3cret"); err == nil {
		t.Fatal("a delivery without the header passed")
	}
	h.Set("x-secret", "guess")
	err := VerifyDelivery(h, "X-Secret", "s3cret")
	if err == nil || strings.Contains(err.Error(), "guess") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("got %v", err)
	}
	if kind := ErrorKind(err); kind != "webhook" {
		t.Fatalf("a refused delivery is of kind %q", kind)
	}
	h.Set("X-Secret", "s3cret")
	if err := VerifyDelivery(h, "X-Secret", "s3cret"); err != nil {
		t.Fatal(err)
	}
	h.Add("X-Secret", "s3cret")
	if err := VerifyDelivery(h, "X-Secret", "s3cret"); err == nil {
		t.Fatal("two headers passed")
	}
}
