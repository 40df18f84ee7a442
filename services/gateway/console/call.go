package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/bodybudget"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/websession"
)

// callContext is the context of the console's calls for the signed-in
// person: provenance console:<token name> (console on a server without
// tokens), the token's name, scopes and workspaces, as /rpc builds it for the
// same token. The gateway's gates and the memory service's workspace
// scope then hold the console exactly as they hold the API.
func callContext(ctx context.Context) contract.CallContext {
	cc := contract.CallContext{Source: "console", Transport: Transport}
	if s := websession.FromContext(ctx); s != nil && s.Token != "" {
		cc.Source, cc.Token, cc.Scopes, cc.Workspaces = "console:"+s.Token, s.Token, s.Scopes, s.Workspaces
	}
	return cc
}

// call makes one gateway call, as /rpc would for method, and decodes its
// result into out.
func (c *Console) call(r *http.Request, method string, params any, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return contract.Errorf(contract.CodeInternal, "the console could not encode its call of %s: %v", method, err)
	}
	res, err := c.gw.CallRPC(r.Context(), method, raw, callContext(r.Context()))
	if err != nil {
		return err
	}
	b, ok := res.(json.RawMessage)
	if !ok {
		if b, err = json.Marshal(res); err != nil {
			return contract.Errorf(contract.CodeInternal, "the console could not read the answer of %s: %v", method, err)
		}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return contract.Errorf(contract.CodeInternal, "the console could not read the answer of %s: %v", method, err)
	}
	return nil
}

// maxFormBytes bounds a form: a learned note is at most 64 KiB of text.
const maxFormBytes = 4 * contract.MaxLearnText

// limitBody bounds every posted body to maxFormBytes, before anything
// reads it (the CSRF check reads the form).
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		next.ServeHTTP(w, r)
	})
}

// parseForm reads a posted form.
func parseForm(r *http.Request) error {
	if err := r.ParseForm(); errors.Is(err, bodybudget.ErrExhausted) {
		return contract.Errorf(contract.CodeUnavailable, "the server is reading as many requests as it may at once; send the form again in a moment")
	} else if err != nil {
		return contract.Errorf(contract.CodeInvalidRequest, "the form could not be read (%v); send it again from the console's page", err)
	}
	return nil
}
