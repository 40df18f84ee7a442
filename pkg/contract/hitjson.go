package contract

// A page of hits is encoded on every fetch and list: field by field here,
// to the bytes Marshal writes for it (TestHitJSONAgreesWithMarshal
// holds the two together, every field set and none), instead of
// encoding/json walking the structs by reflection.

var (
	_ JSONAppender = (*FetchResult)(nil)
	_ JSONAppender = (*ListResult)(nil)
)

// AppendJSON writes r as Marshal does.
func (r *FetchResult) AppendJSON(dst []byte) ([]byte, error) {
	dst, err := appendHits(append(dst, `{"hits":`...), r.Hits)
	if err != nil {
		return dst, err
	}
	dst = AppendString(append(dst, `,"mode":`...), r.Mode)
	if r.NextCursor != "" {
		dst = AppendString(append(dst, `,"next_cursor":`...), r.NextCursor)
	}
	if len(r.Warnings) > 0 {
		dst = appendStrings(append(dst, `,"warnings":`...), r.Warnings)
	}
	return append(dst, '}'), nil
}

// AppendJSON writes r as Marshal does.
func (r *ListResult) AppendJSON(dst []byte) ([]byte, error) {
	dst, err := appendHits(append(dst, `{"items":`...), r.Items)
	if err != nil {
		return dst, err
	}
	if r.NextCursor != "" {
		dst = AppendString(append(dst, `,"next_cursor":`...), r.NextCursor)
	}
	return append(dst, '}'), nil
}

func appendHits(dst []byte, hits []Hit) ([]byte, error) {
	if hits == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i := range hits {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendHit(dst, &hits[i]); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

func appendHit(dst []byte, h *Hit) ([]byte, error) {
	dst = AppendString(append(dst, `{"id":`...), h.ID)
	dst = AppendString(append(dst, `,"kind":`...), h.Kind)
	dst = AppendString(append(dst, `,"text":`...), h.Text)
	dst = appendHitMeta(append(dst, `,"meta":`...), &h.Meta)
	var err error
	if h.Score != nil {
		if dst, err = AppendFloat(append(dst, `,"score":`...), *h.Score); err != nil {
			return dst, err
		}
	}
	if h.Confidence != nil {
		if dst, err = AppendFloat(append(dst, `,"confidence":`...), *h.Confidence); err != nil {
			return dst, err
		}
	}
	if h.Snippet != "" {
		dst = AppendString(append(dst, `,"snippet":`...), h.Snippet)
	}
	if h.Explain != nil {
		if dst, err = appendExplanation(append(dst, `,"explain":`...), h.Explain); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func appendExplanation(dst []byte, e *Explanation) ([]byte, error) {
	dst = AppendString(append(dst, `{"profile":`...), e.Profile)
	dst = append(dst, `,"features":`...)
	if e.Features == nil {
		return append(dst, "null}"...), nil
	}
	dst = append(dst, '[')
	for i, f := range e.Features {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(append(dst, `{"name":`...), f.Name)
		dst = AppendString(append(dst, `,"phase":`...), f.Phase)
		var err error
		if dst, err = AppendFloat(append(dst, `,"value":`...), f.Value); err != nil {
			return dst, err
		}
		if dst, err = AppendFloat(append(dst, `,"weight":`...), f.Weight); err != nil {
			return dst, err
		}
		dst = append(dst, '}')
	}
	return append(dst, "]}"...), nil
}

func appendHitMeta(dst []byte, m *HitMeta) []byte {
	dst = AppendString(append(dst, `{"source":`...), m.Source)
	dst = AppendString(append(dst, `,"provenance":`...), m.Provenance)
	dst = appendOmitEmpty(dst, `,"learning_kind":`, m.LearningKind)
	dst = AppendString(append(dst, `,"observed_at":`...), m.ObservedAt)
	dst = AppendString(append(dst, `,"created_at":`...), m.CreatedAt)
	if len(m.Tags) > 0 {
		dst = appendStrings(append(dst, `,"tags":`...), m.Tags)
	}
	dst = appendOmitEmpty(dst, `,"source_id":`, m.SourceID)
	dst = appendOmitEmpty(dst, `,"source_ref":`, m.SourceRef)
	dst = appendOmitEmpty(dst, `,"superseded_by":`, m.SupersededBy)
	// Meta's fields, promoted as encoding/json promotes an embedded struct's.
	dst = appendOmitEmpty(dst, `,"workspace":`, m.Workspace)
	dst = appendOmitEmpty(dst, `,"folder":`, m.Folder)
	dst = appendOmitEmpty(dst, `,"file_path":`, m.FilePath)
	dst = appendOmitEmpty(dst, `,"language":`, m.Language)
	dst = appendOmitEmpty(dst, `,"repo":`, m.Repo)
	dst = appendOmitEmpty(dst, `,"commit":`, m.Commit)
	dst = appendOmitEmpty(dst, `,"url":`, m.URL)
	dst = appendOmitEmpty(dst, `,"thread_id":`, m.ThreadID)
	dst = appendOmitEmpty(dst, `,"agent_id":`, m.AgentID)
	return append(dst, '}')
}

func appendOmitEmpty(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return AppendString(append(dst, key...), s)
}

func appendStrings(dst []byte, l []string) []byte {
	dst = append(dst, '[')
	for i, s := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}
