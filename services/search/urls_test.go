package search

import (
	"testing"
)

func TestResultsAreDedupedAndCut(t *testing.T) {
	a := &fakeProvider{name: "searxng", results: []Result{
		{Title: "A", URL: "https://www.Example.com:443/page/?utm_source=x&b=2&a=1#top"},
		{Title: "A again", URL: "https://example.com/page?a=1&b=2&gclid=9"},
		{Title: "B", URL: "http://example.com/other"},
		{Title: "no URL"},
		{Title: "C", URL: "https://example.org/c"},
	}}
	s := newService(t, Options{}, a)
	p := search(t, s, SearchParams{Query: "q", MaxResults: 2})
	if len(p.Results) != 2 || p.Results[0].Title != "A" || p.Results[1].Title != "B" {
		t.Fatalf("results %+v", p.Results)
	}
	if p.Results[0].URL != "https://www.Example.com:443/page/?utm_source=x&b=2&a=1#top" {
		t.Fatalf("the original URL must be shown, got %s", p.Results[0].URL)
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://WWW.Example.COM/a/b/#frag":                "example.com/a/b",
		"http://example.com:80/a?z=1&a=2&utm_medium=email": "example.com/a?a=2&z=1",
		"https://example.com:8443/a?fbclid=1&GCLID=2":      "example.com:8443/a",
		"https://example.com/a?q=x%20y&q=a":                "example.com/a?q=a&q=x+y",
		"https://example.com":                              "example.com",
		"not a url":                                        "not a url",
	} {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}
