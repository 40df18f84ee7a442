package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/websession"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpstatus"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// pages are the templates, each page parsed once over the layout.
var pages = func() map[string]*template.Template {
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" {
			continue
		}
		out[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, n))
	}
	return out
}()

var funcs = template.FuncMap{
	"ago":     ago,
	"when":    func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05 UTC") },
	"stamp":   stamp,
	"preview": preview,
	"join":    strings.Join,
	"json":    prettyJSON,
	"pct":     func(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" },
	"millis":  millis,
	"chart":   chart,
	"param":   withParam,
	"deref":   func(f *float64) float64 { return *f },
	"spans":   codeSpans,
	"wbr":     wordBreaks,
}

// wordBreaks shows a name_with_parts so that a narrow column may break it
// after an underscore or a dot, and nowhere else.
func wordBreaks(name string) template.HTML {
	var b strings.Builder
	for _, r := range name {
		b.WriteString(template.HTMLEscapeString(string(r)))
		if r == '_' || r == '.' {
			b.WriteString("<wbr>")
		}
	}
	return template.HTML(b.String())
}

// codeSpans shows a message as HTML whose `backquoted` parts are code: the
// server's messages quote fields and commands so, for a terminal and a
// model alike, and a page should not show the quotes. Everything is
// escaped first; a backquote without its pair stays as it is.
func codeSpans(msg string) template.HTML {
	parts := strings.Split(msg, "`")
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 0:
			b.WriteString(template.HTMLEscapeString(p))
		case i == len(parts)-1: // unpaired
			b.WriteString("`" + template.HTMLEscapeString(p))
		default:
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
		}
	}
	return template.HTML(b.String())
}

// view is what every page template gets.
type view struct {
	Title string
	// Nav names the section the page is in, for the menu.
	Nav     string
	Session *websession.Session
	// Open is true on a server without tokens.
	Open bool
	// Clients is true when the console lists OAuth clients.
	Clients bool
	Data    any
	// Error is a message to show above the page's content.
	Error string
	// Notice is a message saying what was just done.
	Notice string
}

// CSRF is the session's form token.
func (v view) CSRF() string {
	if v.Session == nil {
		return ""
	}
	return v.Session.CSRF
}

// render writes a whole page, for htmx too: it picks the part it swaps
// (hx-select), so every page is one template and one URL.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	v.Session = websession.FromContext(r.Context())
	v.Open = c.open()
	v.Clients = c.opts.OAuth != nil
	var buf bytes.Buffer
	if err := pages[page].ExecuteTemplate(&buf, "layout", v); err != nil {
		c.opts.Logger.Error("console page failed to render", "page", page, "err", err)
		http.Error(w, "the page could not be rendered; the server's log says why", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderError shows msg on a page of its own.
func (c *Console) renderError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	c.render(w, r, status, "error", view{Title: http.StatusText(status), Error: msg})
}

// fail shows a gateway call's error on a page of its own.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := contract.AsError(err)
	c.renderError(w, r, httpstatus.Of(e.Code), e.Message)
}

// deny answers a request websession refused.
func (c *Console) deny(w http.ResponseWriter, r *http.Request, status int, reason string) {
	c.renderError(w, r, status, reason)
}

// assetHandler serves assets/ with a day's caching: they hold no content
// of memory, and change only with the binary.
func assetHandler() http.Handler {
	sub, _ := fs.Sub(assetFS, "assets")
	files := http.StripPrefix(Prefix+"/assets/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		files.ServeHTTP(w, r)
	})
}

func ago(ms int64) string {
	if ms == 0 {
		return "never"
	}
	d := time.Since(time.UnixMilli(ms))
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		s = strconv.Itoa(int(d.Seconds())) + " s"
	case d < time.Hour:
		s = strconv.Itoa(int(d.Minutes())) + " min"
	case d < 48*time.Hour:
		s = strconv.Itoa(int(d.Hours())) + " h"
	default:
		s = strconv.Itoa(int(d.Hours()/24)) + " days"
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// stamp shows an RFC 3339 time to the second.
func stamp(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// preview is text cut to n characters.
func preview(n int, s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func prettyJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func millis(seconds float64) string {
	switch ms := seconds * 1000; {
	case ms < 1:
		return strconv.FormatFloat(ms, 'f', 2, 64) + " ms"
	case ms < 100:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	default:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	}
}

// withParam is the query q with k set to v (dropped when v is empty). It
// is typed a URL, already encoded, so that html/template does not encode
// its & and = again where it follows a link's ?.
func withParam(q url.Values, k, v string) template.URL {
	out := url.Values{}
	for key, vs := range q {
		out[key] = vs
	}
	if v == "" {
		out.Del(k)
	} else {
		out.Set(k, v)
	}
	return template.URL(out.Encode())
}
