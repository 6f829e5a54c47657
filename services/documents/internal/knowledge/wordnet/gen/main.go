// Command gen writes relations.tsv.gz, the word relations the knowledge
// search expands queries with, and frequencies.tsv.gz, how common each
// word is in English, from Princeton WordNet 3.0's database files
// (Debian's wordnet-base package, /usr/share/wordnet). It runs at build
// time (go generate ./internal/knowledge/wordnet, with wordnet-base installed); the output is
// committed, so neither the service nor CI needs WordNet installed.
//
// Each line is "word<TAB>related<TAB>relation": for the three most frequent
// senses of every single-word lemma, the other words of the sense
// (synonym), of the senses it points to as its hypernym, hyponym (at most
// maxHyponyms per sense), attribute ("heavy" → "weight"), derivationally
// related form ("replace" → "replacement") and similar adjective. Related
// words are lower case letters only (a chunk's text is matched word by
// word). A lemma may also be a phrase of two or three such words ("chip
// in" → contribute, "write up" → report): a question's consecutive words
// are looked up as one, which is how people say what documents put in one
// word. A phrasal verb's irregular forms ("took out", from verb.exc) are
// written as lemmas of their own, because stemming does not undo them.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const (
	sensesPerLemma = 3
	maxHyponyms    = 25
	maxPhraseWords = 3
)

// relation names, best first: a pair related in several ways keeps the best
// (the same order as wordnet.Relations; gen cannot import the package it
// generates the data of).
var relations = []string{"synonym", "attribute", "derivation", "similar", "hypernym", "hyponym"}

var pointerRelation = map[string]string{"@": "hypernym", "@i": "hypernym", "~": "hyponym", "~i": "hyponym",
	"=": "attribute", "+": "derivation", "&": "similar"}

type pointer struct {
	relation string
	target   string // "<pos>:<offset>"
	word     int    // the target word of a lexical pointer (1-based), 0 for the whole synset
}

type synset struct {
	words    []string
	pointers []pointer
}

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "WordNet 3.0 database directory")
	out := flag.String("o", "relations.tsv.gz", "output file")
	freqOut := flag.String("frequencies", "frequencies.tsv.gz", "output file of the words' frequencies")
	flag.Parse()
	if err := writeFrequencies(filepath.Join(*dir, "cntlist.rev"), *freqOut); err != nil {
		fail(err)
	}
	synsets := map[string]*synset{}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		if err := readData(filepath.Join(*dir, "data."+pos), synsets); err != nil {
			fail(err)
		}
	}
	irregular, err := readExceptions(filepath.Join(*dir, "verb.exc"))
	if err != nil {
		fail(err)
	}
	best := map[[2]string]int{} // pair → index into relations
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		if err := readIndex(filepath.Join(*dir, "index."+pos), func(lemma string, senses []string) {
			key, ok := lemmaKey(lemma)
			if !ok {
				return
			}
			keys := []string{key}
			if first, rest, phrase := strings.Cut(key, " "); phrase && pos == "verb" {
				for _, form := range irregular[first] {
					keys = append(keys, form+" "+rest)
				}
			}
			add := func(w, rel string) {
				if !plainWord(w) || w == key {
					return
				}
				r := slices.Index(relations, rel)
				for _, key := range keys {
					k := [2]string{key, w}
					if cur, ok := best[k]; !ok || r < cur {
						best[k] = r
					}
				}
			}
			for _, off := range senses[:min(len(senses), sensesPerLemma)] {
				s := synsets[off]
				if s == nil {
					continue
				}
				for _, w := range s.words {
					add(w, "synonym")
				}
				hyponyms := 0
				for _, p := range s.pointers {
					t := synsets[p.target]
					if t == nil {
						continue
					}
					if p.relation == "hyponym" {
						if hyponyms++; hyponyms > maxHyponyms {
							continue
						}
					}
					if p.word > 0 && p.word <= len(t.words) {
						add(t.words[p.word-1], p.relation)
						continue
					}
					for _, w := range t.words {
						add(w, p.relation)
					}
				}
			}
		}); err != nil {
			fail(err)
		}
	}
	keys := make([][2]string, 0, len(best))
	for k := range best {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	if err := writeGzip(*out, func(w io.Writer) {
		for _, k := range keys {
			fmt.Fprintf(w, "%s\t%s\t%s\n", k[0], k[1], relations[best[k]])
		}
	}); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "%s: %d relations\n", *out, len(keys))
}

// writeFrequencies writes "word<TAB>count" for every plain word of
// cntlist.rev ("lemma%sense_key sense_number tag_count"): how often its
// senses were tagged in the Semantic Concordance (Brown corpus texts, about
// 250,000 words), summed over its senses. It tells a common English word
// ("come", 814) from a specific one ("unwell", 0) whatever the agent's few
// documents say.
func writeFrequencies(path, out string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		lemma, _, _ := strings.Cut(fs[0], "%")
		n, err := strconv.Atoi(fs[2])
		if err != nil || !plainWord(lemma) {
			continue
		}
		counts[lemma] += n
	}
	if err := sc.Err(); err != nil {
		return err
	}
	words := make([]string, 0, len(counts))
	for w, n := range counts {
		if n > 0 {
			words = append(words, w)
		}
	}
	slices.Sort(words)
	if err := writeGzip(out, func(w io.Writer) {
		for _, word := range words {
			fmt.Fprintf(w, "%s\t%d\n", word, counts[word])
		}
	}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: %d words\n", out, len(words))
	return nil
}

// writeGzip writes a reproducible gzip file (no name, no time).
func writeGzip(path string, write func(io.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.ModTime = zw.ModTime.UTC() // zero: reproducible output
	bw := bufio.NewWriter(zw)
	write(bw)
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// plainWord: lower-case letters only, at least 3 (WordNet lemmas are lower
// case; proper nouns are capitalised in the data files).
func plainWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// lemmaKey is how a lemma is written in the output: a plain word as it is,
// a phrase of plain words ("chip_in") with spaces. Its parts may be short
// ("in", "up"); its first at least two letters.
func lemmaKey(lemma string) (string, bool) {
	if plainWord(lemma) {
		return lemma, true
	}
	parts := strings.Split(lemma, "_")
	if len(parts) < 2 || len(parts) > maxPhraseWords || len(parts[0]) < 2 {
		return "", false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz") != "" {
			return "", false
		}
	}
	return strings.Join(parts, " "), true
}

// readExceptions reads verb.exc ("took take"): each base form's irregular
// inflections.
func readExceptions(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 || !plainWord(fs[0]) {
			continue
		}
		for _, base := range fs[1:] {
			out[base] = append(out[base], fs[0])
		}
	}
	return out, sc.Err()
}

// readData reads a data.<pos> file: "offset lex_filenum ss_type w_cnt word
// lex_id ... p_cnt ptr... | gloss".
func readData(path string, into map[string]*synset) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // licence header
		}
		head, _, _ := strings.Cut(line, " | ")
		fs := strings.Fields(head)
		if len(fs) < 6 {
			continue
		}
		pos := fs[2]
		if pos == "s" {
			pos = "a"
		}
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			return fmt.Errorf("%s: %q: %w", path, fs[0], err)
		}
		s := &synset{}
		i := 4
		for k := 0; k < int(n); k++ {
			w := strings.ToLower(fs[i])
			if j := strings.IndexByte(w, '('); j > 0 { // adjective markers: "(a)", "(p)", "(ip)"
				w = w[:j]
			}
			s.words = append(s.words, w)
			i += 2
		}
		pc, err := strconv.Atoi(fs[i])
		if err != nil {
			return fmt.Errorf("%s: %q: pointer count: %w", path, fs[0], err)
		}
		i++
		for k := 0; k < pc; k++ {
			sym, off, tpos, st := fs[i], fs[i+1], fs[i+2], fs[i+3]
			i += 4
			rel, ok := pointerRelation[sym]
			if !ok {
				continue
			}
			if tpos == "s" {
				tpos = "a"
			}
			word := 0
			if st != "0000" {
				v, _ := strconv.ParseInt(st[2:], 16, 32)
				word = int(v)
			}
			s.pointers = append(s.pointers, pointer{relation: rel, target: tpos + ":" + off, word: word})
		}
		into[pos+":"+fs[0]] = s
	}
	return sc.Err()
}

// readIndex reads an index.<pos> file: "lemma pos synset_cnt p_cnt
// [ptr_symbol...] sense_cnt tagsense_cnt synset_offset..." (senses most
// frequent first).
func readIndex(path string, each func(lemma string, senses []string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 6 {
			continue
		}
		pos := fs[1]
		if pos == "s" {
			pos = "a"
		}
		cnt, err1 := strconv.Atoi(fs[2])
		pc, err2 := strconv.Atoi(fs[3])
		if err1 != nil || err2 != nil || len(fs) < 6+pc+cnt {
			return fmt.Errorf("%s: bad line %q", path, line)
		}
		offs := fs[6+pc : 6+pc+cnt]
		senses := make([]string, len(offs))
		for i, o := range offs {
			senses[i] = pos + ":" + o
		}
		each(fs[0], senses)
	}
	return sc.Err()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "wordnet gen:", err)
	os.Exit(1)
}
