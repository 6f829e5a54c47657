package pages

import (
	"encoding/xml"
	"time"
)

// URL is a page in sitemap.xml.
type URL struct {
	// Loc is the page's absolute URL.
	Loc string
	// LastMod is when the page last changed (zero: not said).
	LastMod time.Time
	// ChangeFreq and Priority are the protocol's hints ("": not said).
	ChangeFreq, Priority string
}

// MaxSitemapURLs is the sitemap protocol's bound on one file.
const MaxSitemapURLs = 50000

type urlset struct {
	XMLName xml.Name `xml:"urlset"`
	XMLNS   string   `xml:"xmlns,attr"`
	URLs    []xmlURL `xml:"url"`
}

type xmlURL struct {
	Loc        string `xml:"loc"`
	LastMod    string `xml:"lastmod,omitempty"`
	ChangeFreq string `xml:"changefreq,omitempty"`
	Priority   string `xml:"priority,omitempty"`
}

// Sitemap is the sitemap.xml (sitemaps.org 0.9) of urls, the first
// MaxSitemapURLs of them; every text is XML-escaped.
func Sitemap(urls []URL) ([]byte, error) {
	if len(urls) > MaxSitemapURLs {
		urls = urls[:MaxSitemapURLs]
	}
	set := urlset{XMLNS: "http://www.sitemaps.org/schemas/sitemap/0.9", URLs: make([]xmlURL, len(urls))}
	for i, u := range urls {
		x := xmlURL{Loc: u.Loc, ChangeFreq: u.ChangeFreq, Priority: u.Priority}
		if !u.LastMod.IsZero() {
			x.LastMod = u.LastMod.UTC().Format(time.RFC3339)
		}
		set.URLs[i] = x
	}
	body, err := xml.MarshalIndent(set, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(append([]byte(xml.Header), body...), '\n'), nil
}
