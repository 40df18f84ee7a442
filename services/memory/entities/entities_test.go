package entities

import (
	"sort"
	"strings"
	"testing"
)

func TestExtractEntities(t *testing.T) {
	got := Extract("Ping @maya.r or write to Maya Silva <maya@acme.test> about #Q3-planning; "+
		"the PostgreSQL notes are at https://wiki.acme.test/db?x=1. The deploy went fine. We met Tomás in Lisbon.", "")
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	sort.Strings(ids)
	want := []string{"email:maya@acme.test", "handle:maya.r", "hashtag:q3-planning", "term:lisbon", "term:maya silva",
		"term:postgresql", "term:tomás", "url:https://wiki.acme.test/db?x=1"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("got  %v\nwant %v", ids, want)
	}
	for _, e := range got {
		if e.ID == "hashtag:q3-planning" && e.Surface != "Q3-planning" {
			t.Errorf("surface keeps its case: %+v", e)
		}
	}
	if n := len(Extract(strings.Repeat("Alpha Beta. ", 10)+strings.Repeat("#t1 #t2 ", 40), "")); n > maxEntities {
		t.Errorf("%d entities from one item", n)
	}
}
