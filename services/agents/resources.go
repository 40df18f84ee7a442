package agents

import (
	"io/fs"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// ResourcePrefix starts every resource URI this service serves.
const ResourcePrefix = "openhuman://prompts/"

const markdown = "text/markdown"

// personality are the three core documents, served at openhuman://prompts/<name>.
var personality = []struct{ name, title, desc string }{
	{"identity", "IDENTITY.md", "Who the OpenHuman core agent is and is not."},
	{"soul", "SOUL.md", "The values and personality that guide the core agent."},
	{"user", "USER.md", "How the agent treats what it knows about the user."},
}

// Resources lists every prompt resource: the three core documents, then one
// prompt per built-in sub-agent.
func Resources() []contract.Resource {
	out := make([]contract.Resource, 0, len(personality)+len(builtins))
	for _, p := range personality {
		out = append(out, contract.Resource{URI: ResourcePrefix + p.name, Name: p.name, Title: p.title, Description: p.desc, MimeType: markdown})
	}
	for _, d := range builtins {
		out = append(out, contract.Resource{
			URI: ResourcePrefix + "agents/" + d.ID, Name: "agents/" + d.ID, Title: d.DisplayName + " prompt",
			Description: "Prompt of the " + d.ID + " sub-agent: " + d.WhenToUse, MimeType: markdown,
		})
	}
	return out
}

// ReadResource returns one resource by URI; NOT_FOUND names the URIs that exist.
func ReadResource(uri string) (*contract.ResourceRead, error) {
	name, ok := strings.CutPrefix(uri, ResourcePrefix)
	var text string
	switch {
	case !ok:
	case strings.HasPrefix(name, "agents/"):
		text, ok = Prompt(strings.TrimPrefix(name, "agents/"))
	default:
		ok = false
		for _, p := range personality {
			if p.name == name {
				b, err := fs.ReadFile(promptFS, "prompts/"+name+".md")
				text, ok = string(b), err == nil
			}
		}
	}
	if !ok {
		return nil, contract.Errorf(contract.CodeNotFound,
			"no resource %q: resources/list names them all (openhuman://prompts/identity, …/soul, …/user, …/agents/<id>)", uri).With("uri", uri)
	}
	return &contract.ResourceRead{Contents: []contract.ResourceContents{{URI: uri, MimeType: markdown, Text: text}}}, nil
}
