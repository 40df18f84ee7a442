package httpapi

import (
	"log/slog"
	"net/http"
	"time"
)

// HTTPServer is the http.Server to run s with: headers must arrive within
// HeaderTimeout and a kept-alive connection idle for IdleTimeout is
// closed. There is no overall ReadTimeout or WriteTimeout: a tool call may
// rightly take minutes, and the body has its own deadline (bodyDeadline).
func (s *Server) HTTPServer() *http.Server {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.opts.HeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
	}
	if s.mcp != nil {
		// Open subscriptions end, answered, rather than hold it up.
		srv.RegisterOnShutdown(s.mcp.Drain)
	}
	return srv
}

// bodyDeadline gives a request with a body d to deliver it, from when its
// headers were read, so a client that dribbles a body cannot hold a
// connection open: the handler's read fails (readBody answers 408), and a
// body the handler never reads, which net/http drains after a refusal, is
// cut off as well. Once a body has been read to its end, net/http lifts
// the deadline itself to watch for the client going away, so a tool call
// may take longer than d. A request without a body gets no deadline:
// net/http is already watching its connection, and a deadline there would
// end the watch with an error that cancels the request.
func bodyDeadline(d time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength != 0 { // -1: unknown length, chunked
				_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
			}
			next.ServeHTTP(w, r)
		})
	}
}
