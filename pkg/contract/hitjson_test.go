package contract_test

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// fill sets every field of v, recursively, to a value that is not zero and
// whose strings need escaping; a field of a kind it does not know fails
// the test, so that a field added to a hit cannot be left out of its
// AppendJSON unnoticed.
func fill(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(path + ` "quoted" \ <b>&amp; caf` + "\u00e9 \u2028 \xff\n")
	case reflect.Float64:
		v.SetFloat(0.031754032258064516)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), path)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(t, v.Index(i), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	default:
		t.Fatalf("%s is a %s: teach fill and the hit's AppendJSON (hitjson.go) to write it", path, v.Kind())
	}
}

func checkAppendJSON(t *testing.T, v contract.JSONAppender) {
	t.Helper()
	want, wantErr := contract.Marshal(v)
	got, err := v.AppendJSON([]byte("x"))
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("AppendJSON error %v, Marshal's %v", err, wantErr)
	}
	if err == nil && (!bytes.Equal(got[1:], want) || got[0] != 'x') {
		t.Fatalf("AppendJSON =\n%s\nMarshal gives\n%s", got[1:], want)
	}
}

func TestHitJSONAgreesWithMarshal(t *testing.T) {
	var full contract.FetchResult
	fill(t, reflect.ValueOf(&full).Elem(), "FetchResult")
	var fullList contract.ListResult
	fill(t, reflect.ValueOf(&fullList).Elem(), "ListResult")
	tiny, nan := 1e-7, math.NaN()
	for name, v := range map[string]contract.JSONAppender{
		"every field set":   &full,
		"every list field":  &fullList,
		"zero":              &contract.FetchResult{},
		"zero list":         &contract.ListResult{},
		"no hits":           &contract.FetchResult{Hits: []contract.Hit{}, Mode: "hybrid", Warnings: []string{}},
		"zero hit":          &contract.FetchResult{Hits: []contract.Hit{{}}},
		"empty tags":        &contract.ListResult{Items: []contract.Hit{{Meta: contract.HitMeta{Tags: []string{}}}}},
		"tiny score":        &contract.FetchResult{Hits: []contract.Hit{{ID: "a", Score: &tiny}}},
		"a NaN score fails": &contract.FetchResult{Hits: []contract.Hit{{ID: "a", Score: &nan}}},
		"a NaN confidence":  &contract.ListResult{Items: []contract.Hit{{ID: "a", Confidence: &nan}}},
		"explained":         &contract.FetchResult{Hits: []contract.Hit{{ID: "a", Score: &tiny, Explain: &contract.Explanation{Profile: "p", Features: []contract.FeatureValue{{Name: "f", Phase: "first", Value: tiny, Weight: -2}}}}}},
		"no features":       &contract.FetchResult{Hits: []contract.Hit{{ID: "a", Explain: &contract.Explanation{}}, {ID: "b", Explain: &contract.Explanation{Features: []contract.FeatureValue{}}}}},
		"a NaN feature":     &contract.FetchResult{Hits: []contract.Hit{{ID: "a", Explain: &contract.Explanation{Features: []contract.FeatureValue{{Weight: nan}}}}}},
	} {
		t.Run(name, func(t *testing.T) { checkAppendJSON(t, v) })
	}
}

func FuzzHitJSON(f *testing.F) {
	f.Add("db445975", "learning", "Note 7: the deploy decision \"for\" team 7", "mcp:cursor", "tag", 0.5, "caf\u00e9")
	f.Fuzz(func(t *testing.T, id, kind, text, prov, tag string, score float64, url string) {
		h := contract.Hit{ID: id, Kind: kind, Text: text, Score: &score, Snippet: text, Meta: contract.HitMeta{
			Source: kind, Provenance: prov, Tags: []string{tag}, ObservedAt: id, Meta: contract.Meta{URL: url}}}
		checkAppendJSON(t, &contract.FetchResult{Hits: []contract.Hit{h, {}}, Mode: kind, NextCursor: url})
	})
}
