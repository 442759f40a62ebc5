// Package sandbox calls the local sandbox of the service through the generated clients:
// what a Go user does first (make a client, create a unit, read it back, walk a list),
// and what must fail before or after sending. It starts the sandbox binary the Rust
// build made (SANDBOX names another) on a free loopback port. The conformance scenarios
// every language runs are the full suite; these are the Go client's first steps.
package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"inspection.dev/client/legacy"
	"inspection.dev/client/v3"
)

// start runs the sandbox and gives its origin (`http://127.0.0.1:PORT`).
func start(t *testing.T) string {
	t.Helper()
	binary := os.Getenv("SANDBOX")
	if binary == "" {
		binary = filepath.Join("..", "..", "..", "target", "debug", "sandbox")
	}
	cmd := exec.Command(binary, "--addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot start the sandbox (%s; build it with cargo build -p sandbox): %v", binary, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatal("the sandbox printed nothing")
	}
	origin := regexp.MustCompile(`http://[0-9.]+:[0-9]+`).FindString(lines.Text())
	if origin == "" {
		t.Fatalf("the sandbox printed %q", lines.Text())
	}
	go func() {
		for lines.Scan() { // keep its pipe drained
		}
	}()
	return origin
}

// demo starts the sandbox and gives a context ending after 30 seconds (or with the test),
// a v3 client with the demo keys that does not pace its requests, and the sandbox's origin.
func demo(t *testing.T) (context.Context, *v3.Client, string) {
	t.Helper()
	origin := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	client, err := v3.NewClient("demo-key", "demo-secret", v3.WithBaseURL(origin+"/v3"), v3.WithoutRateLimit())
	if err != nil {
		t.Fatal(err)
	}
	return ctx, client, origin
}

func TestAUnitIsCreatedReadAndListed(t *testing.T) {
	ctx, client, _ := demo(t)
	unit := v3.NewUnit{ReferenceNumber: "GO-0001"}
	unit.Make = v3.Some("Volvo")
	unit.Year = v3.Some[int64](2021)
	created, err := client.CreateUnit(ctx, unit)
	if err != nil {
		t.Fatal(err)
	}
	if created.ID == "" || created.ReferenceNumber.Value() != "GO-0001" {
		t.Fatalf("created %+v", created)
	}
	got, err := client.GetUnit(ctx, created.ID)
	if err != nil || got.ID != created.ID || got.Make.Value() != "Volvo" {
		t.Fatalf("read back %+v, %v", got, err)
	}
	found := false
	count := 0
	for u, err := range client.ListUnits(ctx, v3.ListUnitsQuery{}) {
		if err != nil {
			t.Fatal(err)
		}
		count++
		found = found || u.ID == created.ID
	}
	if !found || count < 2 {
		t.Fatalf("the walk saw %d units, the new one: %v", count, found)
	}
}

func TestWhatFailsFailsAsItShould(t *testing.T) {
	ctx, client, origin := demo(t)
	// A value beyond its documented limit is refused before anything is sent.
	_, err := client.CreateUnit(ctx, v3.NewUnit{ReferenceNumber: strings.Repeat("r", 256)})
	var invalid *v3.ValidationError
	if !errors.As(err, &invalid) || invalid.Violations[0].Path != "reference_number" {
		t.Fatalf("got %v", err)
	}
	// A path value that cannot be one segment, with or without validation.
	if _, err := client.GetUnit(ctx, ".."); !errors.As(err, &invalid) {
		t.Fatalf("got %v", err)
	}
	// The service's 404, matched by errors.Is.
	_, err = client.GetUnit(ctx, "unt_missing")
	var api *v3.APIError
	if !errors.Is(err, v3.ErrNotFound) || !errors.As(err, &api) || api.Status != 404 {
		t.Fatalf("got %v", err)
	}
	// Wrong keys: a 401, and the secret in no message.
	wrong, _ := v3.NewClient("demo-key", "not-the-secret", v3.WithBaseURL(origin+"/v3"), v3.WithoutRateLimit())
	_, err = wrong.GetUnit(ctx, "unt_1")
	if !errors.Is(err, v3.ErrUnauthorized) || strings.Contains(err.Error(), "not-the-secret") {
		t.Fatalf("got %v", err)
	}
}

func TestTheLegacyClientLogsInAndWalksLinks(t *testing.T) {
	origin := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	credentials := func(password string) legacy.AuthenticateRequest {
		var c legacy.AuthenticateRequest
		c.User.Username, c.User.Password = "user@example.com", password
		return c
	}
	client, err := legacy.NewClient(credentials("user-pass"), legacy.WithBaseURL(origin), legacy.WithoutRateLimit())
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for _, err := range client.ListLocations(ctx, legacy.ListLocationsQuery{}) {
		if err != nil {
			t.Fatal(err)
		}
		count++
	}
	if count == 0 {
		t.Fatal("no location walked")
	}
	bad, _ := legacy.NewClient(credentials("wrong-pass"), legacy.WithBaseURL(origin), legacy.WithoutRateLimit())
	for _, err := range bad.ListLocations(ctx, legacy.ListLocationsQuery{}) {
		if err == nil || strings.Contains(err.Error(), "wrong-pass") {
			t.Fatalf("got %v", err)
		}
		break
	}
}

func TestAPDFComesWholeFromTheAPIAndFromItsShareLink(t *testing.T) {
	ctx, client, _ := demo(t)
	pdf, err := client.GetInspectionPDF(ctx, "ins_demo_full")
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) {
		t.Fatalf("%d bytes, %v", len(pdf), err)
	}
	var streamed bytes.Buffer
	n, err := client.GetInspectionPDFTo(ctx, "ins_demo_full", &streamed)
	if err != nil || n != int64(len(pdf)) || !bytes.Equal(streamed.Bytes(), pdf) {
		t.Fatalf("streamed %d bytes (%v), not the %d of the PDF", n, err, len(pdf))
	}
	share, err := client.GetInspectionShareURL(ctx, "ins_demo_full")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := client.FetchPresigned(ctx, share.Link)
	if err != nil || !bytes.Equal(shared, pdf) {
		t.Fatalf("the share link gave %d bytes, %v", len(shared), err)
	}
}
