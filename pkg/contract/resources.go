package contract

// Resource is one entry of resources/list.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType"`
}

// ResourceContents is one entry of a resources/read result.
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

// ResourceReadParams asks for one resource.
type ResourceReadParams struct {
	URI string `json:"uri" jsonschema:"Resource URI."`
}

// ResourceList is the result of MethodResourcesList.
type ResourceList struct {
	Resources []Resource `json:"resources"`
}

// ResourceRead is the result of MethodResourcesRead.
type ResourceRead struct {
	Contents []ResourceContents `json:"contents"`
}
