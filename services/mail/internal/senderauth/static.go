package senderauth

import (
	"context"
	"net"
	"strings"
	"sync"
)

// StaticResolver answers DNS queries from fixed records (tests, and local
// runs without DNS). Names are matched case-insensitively without the
// trailing dot; an unknown name is NXDOMAIN; a name listed in Fail is a
// temporary failure (SERVFAIL).
type StaticResolver struct {
	mu   sync.Mutex
	TXT  map[string][]string
	IP   map[string][]net.IP
	MX   map[string][]*net.MX
	Fail map[string]bool
}

func norm(name string) string { return strings.TrimSuffix(strings.ToLower(name), ".") }

func (r *StaticResolver) err(name string) error {
	if err := r.failing(name); err != nil {
		return err
	}
	return &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

// failing returns the temporary failure of a name listed in Fail.
func (r *StaticResolver) failing(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Fail[norm(name)] {
		return &net.DNSError{Err: "server misbehaving", Name: name, IsTemporary: true}
	}
	return nil
}

// SetTXT sets the TXT records of name.
func (r *StaticResolver) SetTXT(name string, records ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.TXT == nil {
		r.TXT = map[string][]string{}
	}
	r.TXT[norm(name)] = records
}

// LookupTXT implements spf.DNSResolver.
func (r *StaticResolver) LookupTXT(_ context.Context, name string) ([]string, error) {
	if err := r.failing(name); err != nil {
		return nil, err
	}
	r.mu.Lock()
	v, ok := r.TXT[norm(name)]
	r.mu.Unlock()
	if !ok {
		return nil, r.err(name)
	}
	return v, nil
}

// LookupMX implements spf.DNSResolver.
func (r *StaticResolver) LookupMX(_ context.Context, name string) ([]*net.MX, error) {
	if err := r.failing(name); err != nil {
		return nil, err
	}
	r.mu.Lock()
	v, ok := r.MX[norm(name)]
	r.mu.Unlock()
	if !ok {
		return nil, r.err(name)
	}
	return v, nil
}

// LookupIPAddr implements spf.DNSResolver.
func (r *StaticResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if err := r.failing(host); err != nil {
		return nil, err
	}
	r.mu.Lock()
	v, ok := r.IP[norm(host)]
	r.mu.Unlock()
	if !ok {
		return nil, r.err(host)
	}
	out := make([]net.IPAddr, len(v))
	for i, ip := range v {
		out[i] = net.IPAddr{IP: ip}
	}
	return out, nil
}

// LookupAddr implements spf.DNSResolver (no PTR records).
func (r *StaticResolver) LookupAddr(_ context.Context, addr string) ([]string, error) {
	return nil, r.err(addr)
}
