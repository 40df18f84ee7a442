package minilm

import (
	"context"
	"io"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
)

// TestTrackerCountsTheFetch: a tracked fetch ends "fetched" with every
// byte of the model counted, in its state and in the metric, and the
// next start "ready".
func TestTrackerCountsTheFetch(t *testing.T) {
	files := tinyModel(t)
	h := newHub(t, files)
	o := testOptions(t, h.srv.URL, ownFigures(t, files, false), io.Discard)
	o.Tracker = &Tracker{}
	before := testutil.ToFloat64(modelFetchedBytes.WithLabelValues(testRepo.Name))
	_, fetching := OpenEmbedder(context.Background(), o, localembed.NewGloveEmbedder(256))
	if err := wait(t, fetching); err != nil {
		t.Fatal(err)
	}
	var size int64
	for _, data := range files {
		size += int64(len(data))
	}
	s := o.Tracker.State()
	if s == nil || s.State != contract.ModelFetched || s.FetchedBytes != size || s.FilesDone != 3 || s.Files != 3 {
		t.Fatalf("%+v, want fetched, %d bytes", s, size)
	}
	if got := testutil.ToFloat64(modelFetchedBytes.WithLabelValues(testRepo.Name)) - before; got != float64(size) {
		t.Errorf("metric counted %g bytes, want %d", got, size)
	}
	o.Tracker = &Tracker{}
	OpenEmbedder(context.Background(), o, localembed.NewGloveEmbedder(256))
	if s := o.Tracker.State(); s == nil || !s.Ready() || testutil.ToFloat64(modelReady.WithLabelValues(testRepo.Name)) != 1 {
		t.Fatalf("next start: %+v", s)
	}
}
