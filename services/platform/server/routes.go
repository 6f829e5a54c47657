package server

import (
	"net/http"
	"sort"
)

// Handle registers h for method and path on mux like mux.Handle(method+" "+
// path, h), without Route's 405 fallback (for a path whose fallback would
// overlap another pattern), and records it for Routes.
func Handle(mux *http.ServeMux, method, path string, h http.Handler) {
	routesMu.Lock()
	defer routesMu.Unlock()
	key := routeKey{mux, path}
	handled[key] = append(handled[key], method)
	mux.Handle(method+" "+path, h)
}

var handled = map[routeKey][]string{} // guarded by routesMu

// Routes lists the "METHOD /path" patterns registered on mux with Route or
// Handle, sorted. Tests compare them with the OpenAPI document.
func Routes(mux *http.ServeMux) []string {
	routesMu.Lock()
	defer routesMu.Unlock()
	var out []string
	for _, m := range []map[routeKey][]string{allowed, handled} {
		for k, methods := range m {
			if k.mux != mux {
				continue
			}
			for _, method := range methods {
				out = append(out, method+" "+k.path)
			}
		}
	}
	sort.Strings(out)
	return out
}
