package agents

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Math Tutor":               "math-tutor",
		"  Écrivain  Pro! ":        "ecrivain-pro",
		"ISO 9001 -- Docs":         "iso-9001-docs",
		"日本語":                      "agent",
		"--":                       "agent",
		"a":                        "a",
		strings.Repeat("abc ", 30): strings.TrimRight(strings.Repeat("abc-", 10), "-"),
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
		if got := Slug(in); len(got) > MaxSlug {
			t.Errorf("Slug(%q) too long: %q", in, got)
		}
	}
}

func TestNewEmailAddress(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		e := NewEmailAddress("Math Tutor", "Agents.Example")
		if !strings.HasPrefix(e, "math-tutor-") || !strings.HasSuffix(e, "@agents.example") || len(e) != len("math-tutor-")+6+len("@agents.example") {
			t.Fatalf("address %q", e)
		}
		seen[e] = true
	}
	if len(seen) < 990 {
		t.Fatalf("only %d distinct addresses out of 1000", len(seen))
	}
}

func TestValidateCreateNormalises(t *testing.T) {
	in, err := ValidateCreate(CreateInput{Name: " Bot ", Description: " described well ", Category: " c ", IconColor: "#10b981",
		Tags: []string{" a", "a", "", "b "}})
	if err != nil {
		t.Fatal(err)
	}
	if in.Name != "Bot" || in.Description != "described well" || in.Category != "c" || in.IconName != "ri-robot-line" ||
		in.IconColor != "#10B981" || strings.Join(in.Tags, ",") != "a,b" {
		t.Fatalf("%+v", in)
	}
	// Characters, not bytes: 2 accented letters are a valid name, 100 emoji too.
	if _, err := ValidateCreate(CreateInput{Name: "Éé", Description: strings.Repeat("é", 10), Category: "ü"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ValidateCreate(CreateInput{Name: strings.Repeat("😀", 100), Description: strings.Repeat("d", 1000), Category: strings.Repeat("c", 50)}); err != nil {
		t.Fatal(err)
	}
	// Exactly 20 tags of 40 characters are fine.
	tags := make([]string, 20)
	for i := range tags {
		tags[i] = strings.Repeat(string(rune('a'+i)), 40)
	}
	if _, err := ValidateCreate(CreateInput{Name: "Ab", Description: "long enough", Category: "c", Tags: tags}); err != nil {
		t.Fatal(err)
	}
}

func TestValidateCreateFieldOrder(t *testing.T) {
	_, err := ValidateCreate(CreateInput{IsPublic: true, IconName: "x", IconColor: "y"})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	var got []string
	for _, f := range ve.Fields {
		got = append(got, f.Field+"="+f.Message)
	}
	want := []string{
		"name=" + MsgNameMin, "description=" + MsgDescriptionMin, "category=" + MsgCategoryRequired,
		"isPublic=" + MsgPublicComingSoon, "iconName=" + MsgIcon, "iconColor=" + MsgColor,
	}
	if strings.Join(got, "|") != strings.Join(want, "|") || ve.Message() != MsgNameMin {
		t.Fatalf("got %v", got)
	}
}

func TestValidateUpdate(t *testing.T) {
	s := " Inactive "
	in, err := ValidateUpdate(UpdateInput{Status: &s})
	if err != nil || *in.Status != "inactive" {
		t.Fatalf("%v %v", in.Status, err)
	}
	f := false
	if _, err := ValidateUpdate(UpdateInput{IsPublic: &f}); err != nil {
		t.Fatal(err)
	}
	empty := []string{" ", ""}
	in, err = ValidateUpdate(UpdateInput{Tags: &empty})
	if err != nil || len(*in.Tags) != 0 {
		t.Fatalf("%v %v", in.Tags, err)
	}
}

func TestNormalizeEmail(t *testing.T) {
	good := map[string]string{
		" Ada@Example.COM ":    "ada@example.com",
		"a.b+c@sub.example.io": "a.b+c@sub.example.io",
		"o'neil@x-y.example":   "o'neil@x-y.example",
	}
	for in, want := range good {
		if got, err := NormalizeEmail(in); err != nil || got != want {
			t.Errorf("NormalizeEmail(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "a", "a@b", "a@b.c", "a b@c.de", "a@b c.de", "@b.de", "a@.de", "a@b..de", "a@-b.de", "a@@b.de", "<a@b.de>", strings.Repeat("a", 250) + "@b.de"} {
		if _, err := NormalizeEmail(in); err == nil {
			t.Errorf("NormalizeEmail(%q) accepted", in)
		}
	}
}

func TestApplyUpdateListsOnlyRealChanges(t *testing.T) {
	cur := Agent{Description: "d", Instructions: "i", Tags: []string{"a"}, Status: StatusActive}
	same, other := "i", "j"
	tags := []string{"a"}
	_, changed := applyUpdate(cur, UpdateInput{Instructions: &same, Tags: &tags})
	if len(changed) != 0 {
		t.Fatalf("changed = %v", changed)
	}
	st := StatusPending
	next, changed := applyUpdate(cur, UpdateInput{Instructions: &other, Status: &st})
	if strings.Join(changed, ",") != "instructions,status" || next.Instructions != "j" || next.Status != StatusPending || next.Tags == nil {
		t.Fatalf("%v %+v", changed, next)
	}
	evs := updateEvents(cur, next, changed)
	if len(evs) != 2 || evs[0].Type != TypeAgentUpdated || evs[1].Type != TypeAgentStatusChanged {
		t.Fatalf("events %+v", evs)
	}
}

func TestCapValidation(t *testing.T) {
	for _, c := range []struct {
		in *CapCents
		ok bool
	}{
		{nil, true}, {&CapCents{None: true}, true}, {&CapCents{Cents: 1}, true}, {&CapCents{Cents: 10_000_000}, true},
		{&CapCents{Cents: 0}, false}, {&CapCents{Cents: -5}, false}, {&CapCents{Cents: 10_000_001}, false}, {&CapCents{Invalid: true}, false},
	} {
		_, err := ValidateUpdate(UpdateInput{SubscriberMonthlyCapCents: c.in})
		var ve *ValidationError
		if c.ok != (err == nil) || (err != nil && (!errors.As(err, &ve) || ve.Fields[0].Field != "subscriberMonthlyCapCents" || ve.Message() != MsgCapCents)) {
			t.Errorf("default cap %+v: %v", c.in, err)
		}
	}
	for _, c := range []struct {
		in          SubscriberCapInput
		mode, field string
		wantCents   int64
	}{
		{SubscriberCapInput{Mode: "default", Cents: &CapCents{Cents: 5}}, "default", "", 0},
		{SubscriberCapInput{Mode: " NONE "}, "none", "", 0},
		{SubscriberCapInput{Mode: "custom", Cents: &CapCents{Cents: 250}}, "custom", "", 250},
		{SubscriberCapInput{Mode: "custom"}, "", "monthlyCapCents", 0},
		{SubscriberCapInput{Mode: "custom", Cents: &CapCents{None: true}}, "", "monthlyCapCents", 0},
		{SubscriberCapInput{Mode: "custom", Cents: &CapCents{Cents: 0}}, "", "monthlyCapCents", 0},
		{SubscriberCapInput{Mode: ""}, "", "capMode", 0},
		{SubscriberCapInput{Mode: "monthly"}, "", "capMode", 0},
	} {
		mode, cents, err := ValidateSubscriberCap(c.in)
		if c.field != "" {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Fields[0].Field != c.field {
				t.Errorf("%+v: %v, want %s refused", c.in, err, c.field)
			}
			continue
		}
		if err != nil || mode != c.mode || (c.wantCents == 0) != (cents == nil) || (cents != nil && *cents != c.wantCents) {
			t.Errorf("%+v: %q %v %v", c.in, mode, cents, err)
		}
	}
	if got := EffectiveCap(CapDefault, nil, ptr(500)); got == nil || *got != 500 {
		t.Errorf("default: %v", got)
	}
	if got := EffectiveCap(CapNone, nil, ptr(500)); got != nil {
		t.Errorf("none: %v", got)
	}
	if got := EffectiveCap(CapCustom, ptr(7), ptr(500)); got == nil || *got != 7 {
		t.Errorf("custom: %v", got)
	}
	if MsgMaxAgents(100) != "You can have at most 100 agents." || MsgMaxAgents(1) != "You can have at most 1 agent." {
		t.Errorf("%q %q", MsgMaxAgents(100), MsgMaxAgents(1))
	}
}

func ptr(v int64) *int64 { return &v }

func TestIsListed(t *testing.T) {
	published := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		a    Agent
		want bool
	}{
		{"public, published, active", Agent{IsPublic: true, PublishedAt: published, Status: StatusActive}, true},
		{"private", Agent{IsPublic: false, PublishedAt: published, Status: StatusActive}, false},
		{"never published", Agent{IsPublic: true, Status: StatusActive}, false},
		{"inactive", Agent{IsPublic: true, PublishedAt: published, Status: StatusInactive}, false},
		{"pending", Agent{IsPublic: true, PublishedAt: published, Status: StatusPending}, false},
	} {
		if got := IsListed(c.a); got != c.want {
			t.Errorf("%s: IsListed = %v, want %v", c.name, got, c.want)
		}
	}
}
