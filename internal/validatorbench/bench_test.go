package validatorbench

import (
	"bytes"
	"encoding/json"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xeipuuv/gojsonschema"
)

var sinkErr error
var sinkBool bool
var sinkAny any

// BenchmarkCompile: schema text -> compiled validator.
func BenchmarkCompile(b *testing.B) {
	for _, f := range fixtures() {
		raw := []byte(f.schema)
		b.Run(f.name+"/gojsonschema", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(raw))
				if err != nil {
					b.Fatal(err)
				}
				sinkAny = s
			}
		})
		b.Run(f.name+"/santhosh", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				doc, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
				if err != nil {
					b.Fatal(err)
				}
				c := santhosh.NewCompiler()
				c.DefaultDraft(santhosh.Draft2020)
				if err := c.AddResource("mem:///schema.json", doc); err != nil {
					b.Fatal(err)
				}
				s, err := c.Compile("mem:///schema.json")
				if err != nil {
					b.Fatal(err)
				}
				sinkAny = s
			}
		})
	}
}

// BenchmarkValidate: one validation of one instance against an already
// compiled schema. Variants:
//
//	gojsonschema-bytes      NewBytesLoader(instance JSON) (includes its own decode)
//	gojsonschema-goloader   NewGoLoader(already decoded any) (it re-marshals + re-decodes internally)
//	santhosh-decode+validate  santhosh.UnmarshalJSON(instance) + Schema.Validate
//	santhosh-stdjson+validate json.Unmarshal into any (float64 numbers) + Schema.Validate
//	santhosh-validate       Schema.Validate on an already decoded any (decode excluded)
func BenchmarkValidate(b *testing.B) {
	for _, f := range fixtures() {
		g := compileGo(b, f.schema)
		s := compileSanthosh(b, f.schema)
		for _, in := range f.instances {
			raw := []byte(in.json)
			var std any
			if err := json.Unmarshal(raw, &std); err != nil {
				b.Fatal(err)
			}
			pre := decodeSanthosh(b, in.json)
			prefix := f.name + "/" + in.name + "/"

			b.Run(prefix+"gojsonschema-bytes", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r, err := g.Validate(gojsonschema.NewBytesLoader(raw))
					if err != nil {
						b.Fatal(err)
					}
					if r.Valid() != in.valid {
						b.Fatal("wrong verdict")
					}
				}
			})
			b.Run(prefix+"gojsonschema-goloader", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r, err := g.Validate(gojsonschema.NewGoLoader(std))
					if err != nil {
						b.Fatal(err)
					}
					if r.Valid() != in.valid {
						b.Fatal("wrong verdict")
					}
				}
			})
			b.Run(prefix+"santhosh-decode+validate", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					v, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
					if err != nil {
						b.Fatal(err)
					}
					sinkErr = s.Validate(v)
					if (sinkErr == nil) != in.valid {
						b.Fatal("wrong verdict")
					}
				}
			})
			b.Run(prefix+"santhosh-stdjson+validate", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					var v any
					if err := json.Unmarshal(raw, &v); err != nil {
						b.Fatal(err)
					}
					sinkErr = s.Validate(v)
					if (sinkErr == nil) != in.valid {
						b.Fatal("wrong verdict")
					}
				}
			})
			b.Run(prefix+"santhosh-validate", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					sinkErr = s.Validate(pre)
					if (sinkErr == nil) != in.valid {
						b.Fatal("wrong verdict")
					}
				}
			})
		}
	}
}

// BenchmarkDecode isolates the decode cost that santhosh-decode+validate and
// santhosh-stdjson+validate include.
func BenchmarkDecode(b *testing.B) {
	for _, f := range fixtures() {
		in := f.instances[0] // the valid one
		raw := []byte(in.json)
		b.Run(f.name+"/santhosh.UnmarshalJSON", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
				if err != nil {
					b.Fatal(err)
				}
				sinkAny = v
			}
		})
		b.Run(f.name+"/json.Unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					b.Fatal(err)
				}
				sinkAny = v
			}
		})
	}
}

// BenchmarkValidateParallel: one shared *santhosh.Schema used from all
// GOMAXPROCS goroutines at once (it is read-only after Compile).
func BenchmarkValidateParallel(b *testing.B) {
	s := compileSanthosh(b, toolSchema)
	pre := decodeSanthosh(b, `{"location":"<<var:location>>","unit":"c","return":"language"}`)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.Validate(pre); err != nil {
				b.Fatal(err)
			}
		}
	})
}
