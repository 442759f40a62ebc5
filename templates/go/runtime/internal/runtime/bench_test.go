package runtime

import (
	"encoding/json"
	"strconv"
	"sync"
	"testing"
)

// benchDoc is about 500 KB of nested objects, like a page of API results.
var benchDoc = sync.OnceValue(func() []byte {
	var e Encoder
	e.BeginObject()
	e.Name("items")
	e.BeginArray()
	for i := 0; len(e.Bytes()) < 500_000; i++ {
		e.BeginObject()
		e.Name("id")
		e.String("item-" + strconv.Itoa(i))
		e.Name("count")
		e.Int64(int64(i * 7))
		e.Name("score")
		e.Number("12.75")
		e.Name("active")
		e.Bool(i%2 == 0)
		e.Name("tags")
		WriteList(&e, []string{"alpha", "beta", "gamma"}, (*Encoder).String)
		e.Name("owner")
		e.BeginObject()
		e.Name("name")
		e.String("Zoë Example \"quoted\"")
		e.Name("address")
		e.BeginObject()
		e.Name("city")
		e.String("Amsterdam")
		e.Name("geo")
		e.BeginObject()
		e.Name("lat")
		e.Number("52.3676")
		e.Name("lng")
		e.Number("4.9041")
		e.EndObject()
		e.EndObject()
		e.EndObject()
		e.Name("note")
		e.Null()
		e.EndObject()
	}
	e.EndArray()
	e.EndObject()
	return e.Bytes()
})

func BenchmarkDecoderSkip(b *testing.B) {
	doc := benchDoc()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(doc)
		d.Skip()
		if err := d.Finish(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecoderWalk reads every value, as generated code reading typed models does.
func BenchmarkDecoderWalk(b *testing.B) {
	doc := benchDoc()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(doc)
		var e Encoder
		transcode(d, &e)
		if err := d.Finish(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalMap(b *testing.B) {
	doc := benchDoc()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal(doc, &v); err != nil {
			b.Fatal(err)
		}
	}
}
