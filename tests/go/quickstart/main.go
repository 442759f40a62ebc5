// Command quickstart creates a unit and walks every inspection under the quota, as a Go
// user's first program does (INSPECTION_URL names the service or the sandbox).
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"inspection.dev/client/v3"
)

func main() {
	url := os.Getenv("INSPECTION_URL")
	if url == "" {
		url = "http://127.0.0.1:8080/v3"
	}
	client, err := v3.NewClient("demo-key", "demo-secret", v3.WithBaseURL(url))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	draft := v3.NewUnit{ReferenceNumber: fmt.Sprintf("A-%d", os.Getpid())}
	draft.Make = v3.Some("Cat")
	unit, err := client.CreateUnit(ctx, draft)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created unit", unit.ID)
	query := v3.ListInspectionsQuery{PerPage: v3.Some(int32(100))}
	for inspection, err := range client.ListInspections(ctx, query) {
		if err != nil {
			log.Fatal(err)
		}
		results, _ := inspection.Results.Get()
		fmt.Printf("%s, results: %d\n", inspection.ID, len(results))
	}
}
